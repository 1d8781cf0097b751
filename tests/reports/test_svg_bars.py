from polyjoule.reports import svg_bars


def test_shares_fill_each_bar():
    parts = [{"DR": 90.0, "RD": 10.0}, {"DR": 1.0, "RD": 3.0, "FD": 0.0}]
    b = svg_bars.bars(["N=1", "N=2"], parts, ["RD", "FD", "DR"], lambda x: f"{x:g} pJ", marked=1)
    for k in range(2):
        x = svg_bars.LEFT + 20 + svg_bars.STEP * k
        mine = [s for s in b.segments if s["x"] == x]
        assert abs(sum(s["h"] for s in mine) - svg_bars.PLOT_H) < 0.05
    rd = [s for s in b.segments if s["cls"] == "RD"]
    assert [round(s["h"] / svg_bars.PLOT_H, 3) for s in rd] == [0.1, 0.75]
    assert not any(s["cls"] == "FD" for s in b.segments)  # a zero share draws nothing
    assert [lab["text"] for lab in b.labels if lab["y"] < svg_bars.TOP] == ["100 pJ", "4 pJ"]
    assert [lab["bold"] for lab in b.labels if lab["text"] == "N=2"] == [True]
