"""Plots from a sweep's CSV and JSON: the figures' panels, legends, colours and markers, the
``--where`` filters, atomic PNG/SVG files, and malformed input refused in one line."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.markers import MarkerStyle  # noqa: E402

from polyjoule.dse import space  # noqa: E402
from polyjoule.dse.sweep import SweepSpec, run_sweep  # noqa: E402
from polyjoule.errors import EmptySelectionError, PlotSelectionError, SpecError  # noqa: E402
from polyjoule.library.kernels import get  # noqa: E402
from polyjoule.reports import plots  # noqa: E402
from polyjoule.reports.output import write_outputs  # noqa: E402


def _sweep(store, sizes, arrays, tiles=(None,), orders="auto"):
    k = get("gemm")
    spec = SweepSpec(k, space.size_grid(k, sizes),
                     space.mappings(arrays, list(tiles), space.parse_orders(k, orders)),
                     skip_infeasible=True)
    return spec, run_sweep(spec, store=store)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory, cache_dir, assert_validated):
    """GEMM, N = 8, 16, 24, on 4x4 and 8x8, every scanning order: 36 points."""
    from polyjoule.dse.cache import FormulaCache

    spec, r = _sweep(FormulaCache(cache_dir), ["N=8:24:8"], [(4, 4), (8, 8)], orders="all")
    assert_validated(r, spec, 2)
    d = tmp_path_factory.mktemp("out")
    write_outputs(r, d / "s.csv", d / "s.json")
    return d, r


@pytest.fixture
def figures():
    made = []
    yield made
    for f in made:
        plt.close(f)


def _legend_texts(fig):
    (legend,) = fig.legends
    return [t.get_text() for t in legend.get_texts()], legend


def _marker_vertices(glyph):
    m = MarkerStyle(glyph)
    return m.get_path().transformed(m.get_transform()).vertices


def test_csv_and_json_roundtrip(outputs):
    d, r = outputs
    for name in ("s.csv", "s.json"):
        cols, _ = plots.load(d / name)
        assert len(cols["energy_pj"]) == len(r)
        assert cols["pareto"].tolist() == r.columns["pareto"].tolist()
        assert cols["latency_cycles"].tolist() == r.columns["latency_cycles"].tolist()
        assert cols["order"].tolist() == r.columns["order"].tolist()


def test_pareto_has_a_panel_per_size_colour_per_array_marker_per_order(outputs, figures):
    d, r = outputs
    cols, meta = plots.load(d / "s.json")
    fig = plots.pareto_figure(cols, kernel=meta["kernel"])
    figures.append(fig)
    panels = [ax for ax in fig.axes if ax.get_label().startswith("size:")]
    assert [ax.get_title() for ax in panels] == [f"NI = NJ = NK = {n}" for n in (8, 16, 24)]
    assert len(fig.axes) == 3  # no empty grid cells left
    texts, legend = _legend_texts(fig)
    orders = sorted(set(r.columns["order"].tolist()))
    assert len(orders) == 6
    assert texts == ["colour: array", "4x4", "8x8", "marker: scanning order", *orders,
                     "Pareto front"]
    handles = dict(zip(texts, legend.legend_handles, strict=True))
    colour = {a: to_rgba(handles[a].get_color()) for a in ("4x4", "8x8")}
    marker = {o: handles[o].get_marker() for o in orders}
    assert colour["4x4"] != colour["8x8"] and len(set(marker.values())) == 6
    # every point drawn in its array's colour and its order's marker, each point exactly once
    drawn = 0
    for ax in panels:
        for coll in ax.collections:
            if coll.get_label() == "Pareto front":
                continue
            array, order = coll.get_label().split(" | ")
            assert tuple(coll.get_edgecolor()[0][:3]) == pytest.approx(colour[array][:3])
            assert np.allclose(coll.get_paths()[0].vertices, _marker_vertices(marker[order]))
            drawn += len(coll.get_offsets())
    assert drawn == len(r)
    # titles match axes: the energy the axis shows, in a named unit; latency in cycles
    assert fig._suptitle.get_text() == "gemm: total energy vs latency, a panel per problem size"
    assert {ax.get_xlabel() for ax in panels} == {"latency (cycles)"}
    assert [ax.get_ylabel() for ax in panels] == ["total energy (nJ)", "total energy (nJ)",
                                                  "total energy (µJ)"]
    # the y values are the total energies scaled by the unit (µJ = 1e6 pJ at N = 24)
    top = max(float(np.max(c.get_offsets()[:, 1])) for c in panels[2].collections)
    big = r.columns["NI"] == 24
    assert top == pytest.approx(r.columns["total_pj"][big].max() / 1e6)


def test_pareto_markers_by_tile_when_the_tile_varies(cache_dir, figures):
    from polyjoule.dse.cache import FormulaCache

    _, r = _sweep(FormulaCache(cache_dir), ["N=16"], [(4, 4)],
                  tiles=(None, (4, 4, 16), (8, 8, 16)))
    fig = plots.pareto_figure(r.columns)
    figures.append(fig)
    texts, _ = _legend_texts(fig)
    assert texts[:3] == ["colour: array", "4x4", "marker: tile"]
    tiles = list(dict.fromkeys(str(t) for t in r.columns["tile"]))
    assert sorted(tiles) == ["4,4,16", "8,8,16", "auto"]
    assert texts[3:6] == tiles


def test_where_repeated_on_one_key_is_an_or(outputs, figures):
    d, _ = outputs
    cols, _ = plots.load(d / "s.csv")
    fig = plots.pareto_figure(cols, where=plots.parse_where(["NI=8", "NI=24", "array=8x8"]))
    figures.append(fig)
    assert [ax.get_title() for ax in fig.axes] == ["NI = NJ = NK = 8", "NI = NJ = NK = 24"]
    texts, _ = _legend_texts(fig)
    assert "8x8" in texts and "4x4" not in texts  # the other key still ANDs


def test_parse_where_groups_values_by_key():
    assert plots.parse_where(["NI=256", "array=8x8", "NI=512"]) == {
        "NI": ["256", "512"], "array": ["8x8"]}
    for bad in ("NI", "=3", "NI="):
        with pytest.raises(SpecError, match="not COLUMN=VALUE"):
            plots.parse_where([bad])


def test_a_filter_matching_nothing_lists_the_values_there_are(outputs):
    d, _ = outputs
    cols, _ = plots.load(d / "s.csv")
    with pytest.raises(EmptySelectionError) as e:
        plots.pareto_figure(cols, where={"NI": ["9", "10"]})
    assert str(e.value) == "--where NI=9|10: no design point matches; NI takes 8, 16, 24"
    with pytest.raises(EmptySelectionError) as e:
        plots.breakdown_figure(cols, where={"order": "i/j/k", "array": "3x3"})
    assert str(e.value) == ("--where array=3x3: no design point matches; array takes 4x4, 8x8 "
                            "among the points with order=i/j/k")
    assert "\n" not in str(e.value)


def test_more_sizes_than_panels_is_refused_with_the_where_to_use(cache_dir):
    from polyjoule.dse.cache import FormulaCache

    _, r = _sweep(FormulaCache(cache_dir), ["N=8:88:8"], [(4, 4)])
    with pytest.raises(PlotSelectionError) as e:
        plots.pareto_figure(r.columns)
    assert str(e.value) == ("pareto: 11 problem sizes, at most 9 panels; choose with --where "
                            "NI=8 --where NI=16 ...; NI takes 8, 16, 24, 32, 40, ..., 80, 88 (11 values)")
    fig = plots.pareto_figure(r.columns, where={"NI": ["8", "48", "88"]})
    assert len(fig.axes) == 3
    plt.close(fig)


def test_too_many_sizes_suggests_the_size_that_varies(cache_dir):
    from polyjoule.dse.cache import FormulaCache

    _, r = _sweep(FormulaCache(cache_dir), ["NI=8", "NJ=8", "NK=8:88:8"], [(4, 4)])
    with pytest.raises(PlotSelectionError, match=r"choose with --where NK=8 --where NK=16 \.\.\.;"):
        plots.pareto_figure(r.columns)


def test_breakdown_is_grouped_per_array(outputs, figures):
    d, r = outputs
    cols, _ = plots.load(d / "s.json")
    fig = plots.breakdown_figure(cols, where={"order": "i/j/k"}, kernel="gemm")
    figures.append(fig)
    labels = [ax.get_label() for ax in fig.axes]
    assert labels == ["share:4x4", "share:8x8", "energy", "latency:4x4", "latency:8x8"]
    share = {ax.get_label(): ax for ax in fig.axes}
    for a in ("4x4", "8x8"):
        ax = share[f"share:{a}"]
        assert ax.get_title(loc="left") == f"array {a}"
        # the bars are this array's shares: RD's bar at N = 16 is RD / energy of that point
        i = np.flatnonzero((r.columns["array"] == a) & (r.columns["order"] == "i/j/k")
                           & (r.columns["NI"] == 16))[0]
        rd = [p for p in ax.patches if p.get_facecolor() == to_rgba(plots.COLORS["RD"])]
        assert len(rd) == 3
        want = 100 * r.columns["energy.RD"][i] / r.columns["energy_pj"][i]
        assert rd[1].get_height() == pytest.approx(want)
        heights = np.sum([p.get_height() for p in ax.patches if abs(p.get_x() + 0.425 - 1) < 1e-9])
        assert heights == pytest.approx(100)  # the classes and compute make up the whole
    lo, hi = share["latency:8x8"].get_ylim()  # one latency scale holding every array's
    assert share["latency:4x4"].get_ylim() == (lo, hi)
    lat = r.columns["latency_cycles"][r.columns["order"] == "i/j/k"]
    assert lo < lat.min() and lat.max() < hi
    energy = share["energy"]
    assert [ln.get_label() for ln in energy.get_lines()] == ["4x4", "8x8"]
    assert energy.get_ylabel() == "dynamic energy\n(log scale)"
    tick = energy.yaxis.get_major_formatter()
    assert [tick(v) for v in (100.0, 2.5e4, 1e6, 3e10)] == ["100 pJ", "25 nJ", "1 µJ", "30 mJ"]
    y = {ln.get_label(): ln.get_ydata() for ln in energy.get_lines()}
    in_4x4 = (r.columns["array"] == "4x4") & (r.columns["order"] == "i/j/k")
    assert list(y["4x4"]) == list(r.columns["energy_pj"][in_4x4])  # in pJ, by increasing N
    assert energy.get_xlabel() == "N = NI = NJ = NK"
    assert fig._suptitle.get_text() == ("gemm: share of dynamic energy per location class and "
                                        "latency vs N (tile auto, order i/j/k)")


def test_breakdown_refuses_several_orders_naming_them(outputs):
    d, _ = outputs
    cols, _ = plots.load(d / "s.csv")
    with pytest.raises(PlotSelectionError) as e:
        plots.breakdown_figure(cols, where={"array": "8x8"})
    assert str(e.value) == ("breakdown: the selection has 6 scanning orders (i/j/k, i/k/j, "
                            "j/i/k, j/k/i, k/i/j, k/j/i); draw one with --where order=i/j/k")


def test_one_array_breakdown_shows_every_class(outputs, figures):
    d, _ = outputs
    cols, _ = plots.load(d / "s.csv")
    fig = plots.breakdown_figure(cols, where={"order": "k/j/i", "array": "8x8"})
    figures.append(fig)
    energy = next(ax for ax in fig.axes if ax.get_label() == "energy")
    assert [ln.get_label() for ln in energy.get_lines()] == [
        "RD", "FD", "ID", "OD", "IOb", "DR", "compute", "sum"]


@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
def test_files_are_written_atomically(outputs, ext):
    d, _ = outputs
    cols, _ = plots.load(d / "s.json")
    b = plots.breakdown(cols, d / f"b.{ext}", where={"order": "i/j/k"})
    p = plots.pareto(cols, d / f"p.{ext}", where={"array": "8x8"})
    magic = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[ext]
    for f in (b, p):
        assert f.stat().st_size > 1000 and f.read_bytes().startswith(magic)
    assert not [x for x in d.iterdir() if x.name.startswith(".")]  # no temp files left


def test_bad_plot_inputs(outputs, tmp_path):
    d, _ = outputs
    cols, _ = plots.load(d / "s.csv")
    with pytest.raises(SpecError, match="unsupported format"):
        plots.pareto(cols, tmp_path / "x.gif")
    with pytest.raises(SpecError, match=r"no column 'colour' \(columns: array, pes, .* \(\d+ columns\)\)$"):
        plots.pareto(cols, tmp_path / "x.png", where={"colour": "red"})
    with pytest.raises(SpecError, match="NI='big': NI is numeric"):
        plots.pareto(cols, tmp_path / "x.png", where={"NI": "big"})
    (tmp_path / "junk.csv").write_text("a,b\n1,2\n")
    with pytest.raises(SpecError, match="not a polyjoule sweep"):
        plots.load(tmp_path / "junk.csv")
    assert not list(tmp_path.glob("x.*"))


# --- issue 14: malformed sweep input is refused, NaN energies are never drawn -------------

_HEAD = "array,pes,tile,order,table,dataset,NI,RD,energy.RD,energy_pj,latency_cycles"


@pytest.mark.parametrize("name,text,needle", [
    ("s.json", '{"points":[1]}', r"points\[0\]: not a record"),
    ("s.json", '{"points":[]}', "not a non-empty list"),
    ("s.json", '[{"array":"2x2","energy_pj":1,"latency_cycles":2}]', "no 'points' list"),
    ("s.json", '{"points":[{"array":"2x2","energy_pj":1,"latency_cycles":2},'
               '{"array":"2x2","energy_pj":1}]}', r"points\[1\]: columns differ .*ragged"),
    ("s.json", '{"points":[{"array":"2x2","energy_pj":NaN,"latency_cycles":2}]}',
     r"s.json: points\[0\].energy_pj: nan is not a finite number"),
    ("s.json", '{"points":[{"array":"2x2","energy_pj":null,"latency_cycles":2}]}',
     r"points\[0\].energy_pj: None is not a number"),
    ("s.csv", "array,energy_pj,latency_cycles\n2x2,lots,5\n", "'lots' is not a number"),
    ("s.csv", "array,energy_pj,latency_cycles\n2x2,1,5\n2x2,1\n", "line 3: .*ragged"),
    ("s.csv", "array,energy_pj,latency_cycles\n", "no design points"),
    ("s.yaml", "", r"s.yaml: an empty file, not a sweep output"),
    ("s.json", " \n", r"s.json: an empty file, not a sweep output"),
    ("s.csv", f"{_HEAD}\n2x2,4,auto,auto,t,,8,12,12.0,30.0,9\n2x2,4,auto,auto,t,,16,x,1.0,3.0,9\n",
     r"s.csv: points\[1\].RD: 'x' is not a number"),
    ("s.csv", f"{_HEAD}\n2x2,4,auto,auto,t,,8,12,nan,30.0,9\n",
     r"points\[0\].energy.RD: 'nan' is not a finite number"),
    ("s.csv", f"{_HEAD}\n2x2,4,auto,auto,t,,eight,12,1.0,30.0,9\n",
     r"points\[0\].NI: 'eight' is not a number"),
    ("s.json", "[" * 5000, "nested too deeply"),
])
def test_malformed_sweep_input_is_refused(tmp_path, name, text, needle):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(SpecError, match=needle) as e:
        plots.load(p)
    assert "\n" not in str(e.value)
    assert str(p) in str(e.value)


def test_an_empty_energy_per_op_is_read_as_missing(tmp_path):
    """A kernel without operations has no energy per operation: empty in CSV, null in JSON."""
    p = tmp_path / "s.json"
    p.write_text('{"points":[{"array":"2x2","energy_pj":1,"latency_cycles":2,'
                 '"energy_per_op_pj":null}]}')
    cols, _ = plots.load(p)
    assert np.isnan(cols["energy_per_op_pj"][0]) and cols["energy_pj"][0] == 1.0


def test_exact_integer_columns_select_and_plot(outputs, figures):
    """Sizes and counts held as exact Python integers (object columns) filter and plot as
    numbers do."""
    _, r = outputs
    cols = dict(r.columns)
    for k in ("NI", "NJ", "NK", "RD"):
        cols[k] = np.asarray([int(v) for v in r.columns[k]], dtype=object)
    fig = plots.pareto_figure(cols, where={"NI": ["16", "24"], "array": "4x4"})
    figures.append(fig)
    assert [ax.get_title() for ax in fig.axes] == ["NI = NJ = NK = 16", "NI = NJ = NK = 24"]
    fig = plots.breakdown_figure(cols, x="NI", where={"order": "i/j/k"})
    figures.append(fig)
    assert fig.axes[-3].get_xlabel() == "N = NI = NJ = NK"
    with pytest.raises(EmptySelectionError, match="NI takes 8, 16, 24$"):
        plots.pareto_figure(cols, where={"NI": "7"})
