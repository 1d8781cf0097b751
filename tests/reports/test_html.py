"""The report page without a browser: self-contained, every case with its formula, the
numbers of the analysis, and engineering units."""

import re

import pytest

from polyjoule.analysis import analyze
from polyjoule.reports.html import energy_text, render


@pytest.mark.parametrize(("pj", "text"), [
    (0, "0 pJ"), (0.25, "0.25 pJ"), (12.0, "12 pJ"), (244.0, "244 pJ"), (32243.0, "32.2 nJ"),
    (1_380_000_000, "1.38 mJ"), (25_900_000_000, "25.9 mJ"), (7.5e12, "7.5 J"), (2.5e15, "2,500 J"),
    (1.33e39, "1.33e27 J"),  # a float's digits, not 1,330,000,000,000,000,042,... J
])
def test_energy_in_engineering_units(pj, text):
    assert energy_text(pj) == text


@pytest.fixture(scope="module")
def worked():
    a = analyze("gesummv", array=(2, 2), tile=(2, 3))
    values = {"N0": 4, "N1": 5}
    return a, a.evaluate(values), render(a, values)


def test_page_is_self_contained(worked):
    _, _, page = worked
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r'<link|@import|https?://|\bsrc\s*=', page)
    assert set(re.findall(r'href="([^"]*)"', page)) <= {f"#{s}" for s in (
        "kernel", "architecture", "mapping", "energy", "schedule", "space", "graph", "breakdown")}
    assert all(u == "#" for u in re.findall(r"url\((.)", page))  # only the page's own markers


def test_every_case_has_its_formula_and_numbers(worked):
    a, r, page = worked
    cases = page.split('<table class="cases">')[1].split("</table>")[0]
    rows = re.findall(r"<tr>(.*?)</tr>", cases, re.S)[1:]
    assert len(rows) == len(r.volumes)
    for row, v in zip(rows, r.volumes, strict=True):
        assert f"{v.statement}: " in row and "<math" in row
        assert f'title="{v.formula}"' in row
        assert f'<td class="num">{v.value:,}</td>' in row
        assert energy_text(v.energy_pj) in row


def test_schedule_and_totals_are_the_analysis(worked):
    _, r, page = worked
    assert energy_text(r.energy_pj["dynamic"]) == "32.2 nJ"
    cards = page.split('class="cards"')[1].split("</div>\n</div>")[0]
    assert energy_text(r.power.total_pj) in cards and "total energy" in cards
    assert f"dynamic 32.2 nJ + static {energy_text(r.power.static_pj)}" in cards
    assert "tile sizes p" in cards
    schedule = page.split('id="schedule"')[1].split("</section>")[0]
    assert "i0 / i1" in schedule and "(1, 2)" in schedule and "(2, 5)" in schedule


def test_a_large_size_is_drawn_smaller_and_said_so():
    a = analyze("gemm", array=(8, 8))
    page = render(a, {"NI": 1000, "NJ": 1100, "NK": 1200})
    space = page.split('id="space"')[1].split("</section>")[0]
    assert "Drawn for a smaller instance" in space
    assert space.count('class="ok">agree') == 3 and "differ" not in space
    assert "1.32 mJ" in page  # the compute of p = a * b at the real size, not the drawn one


def test_two_phases_two_graphs():
    a = analyze("2mm", array=(2, 2))
    page = render(a, {"NI": 5, "NJ": 6, "NK": 7, "NL": 8})
    assert page.count('<svg class="figure graph"') == 2
    assert page.count("<h3>Phase") >= 4  # kernel and iteration space, per phase


def test_conditions_read_as_written():
    from polyjoule.library.kernels import get
    from polyjoule.reports.html import condition_text

    def texts(name):
        pra = get(name).phases[0]
        return {condition_text(c, pra.dim_names) for s in pra.statements for c in s.when}

    assert texts("gesummv") == {"i0 == 0", "i0 >= 1", "i1 == 0", "i1 == N1 - 1", "i1 >= 1"}
    assert {"i - j == 0", "i - j >= 1"} <= texts("trisolv")
    assert "i <= N - 2" in texts("jacobi-2d")


BAND = ("void band(int N, int W, double A[N][N + W - 1], double x[N + W - 1], double y[N]) {\n"
        "  int i, j;\n  for (i = 0; i < N; i++) {\n    y[i] = 0;\n"
        "    for (j = i; j < i + W; j++)\n      y[i] += A[i][j] * x[j];\n  }\n}\n")


def test_a_band_too_big_to_draw_keeps_its_width(tmp_path):
    """A smaller instance halves the large parameters only: scaled all alike, W = 5 became 1
    and the band its diagonal, with no propagation to draw. The drawn arrows are walked
    point by point and equal the symbolic counts at the drawn instance."""
    from polyjoule.frontends.resolve import kernel_from
    from polyjoule.reports.html import _space

    src = tmp_path / "band.c"
    src.write_text(BAND)
    a = analyze(kernel_from(str(src)), array=(4, 4))
    (entry,) = _space(a, {"N": 40, "W": 5}, {"phases": []})
    assert entry["scaled"] and entry["values"]["W"] == 5 and entry["values"]["N"] < 40
    assert entry["checks"] and all(
        c["walked_FD"] == c["symbolic_FD"] and c["walked_ID"] == c["symbolic_ID"]
        for c in entry["checks"])
    assert sum(c["walked_FD"] for c in entry["checks"]) > 0


def test_totals_name_dynamic_static_and_total(worked):
    """``total`` is dynamic + static, as in every command; the static energy is shown."""
    _, r, page = worked
    table = page.split('<table class="totals">')[1].split("</table>")[0]
    text = " ".join(re.sub(r"<[^>]+>", " ", table).split())
    p = r.power
    assert f"dynamic (sum of the above) {energy_text(p.dynamic_pj)}" in text
    assert f"{energy_text(p.static_pj)}" in text and "static (leakage over the latency" in text
    assert f"total (dynamic + static) {energy_text(p.total_pj)}" in text
    assert p.total_pj == pytest.approx(p.dynamic_pj + p.static_pj) and p.static_pj > 0


def test_a_huge_energy_hover_shows_only_a_floats_digits():
    a = analyze("gemm", array=(2, 2))
    page = render(a, {"NI": 2**40, "NJ": 2**40, "NK": 2**40})
    titles = re.findall(r'title="([^"]*) pJ"', page)
    assert titles and all("," not in t or len(t) < 24 for t in titles), titles[:3]
