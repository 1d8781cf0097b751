"""``polyjoule analyze --latex``: the formulas as LaTeX, with and without ``--json``."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()
GESUMMV = ["analyze", "gesummv", "--array", "2x2", "--set", "N0=4,N1=6"]


def _json(args: list[str]) -> dict:
    r = runner.invoke(app, args + ["--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_latex_without_json_prints_every_formula():
    plain = runner.invoke(app, GESUMMV)
    assert plain.exit_code == 0 and "LaTeX" not in plain.output and "$" not in plain.output
    r = runner.invoke(app, GESUMMV + ["--latex"])
    assert r.exit_code == 0, r.output
    lines = r.output.split("LaTeX of the formulas:\n", 1)[1].splitlines()
    rows = _json(GESUMMV + ["--latex"])
    assert len(lines) == len(rows["volumes"]) == len(rows["latex"])
    for line, v, tex in zip(lines, rows["volumes"], rows["latex"], strict=True):
        assert line.strip() == f"{v['statement']} {v['case']}: ${tex}$"
    assert any(r"\left(" in tex for tex in rows["latex"])  # real LaTeX, not the plain text


def test_latex_of_fixed_tiles_is_not_empty():
    """Fixed tile sizes derive formulas per tile choice: the chosen ones are shown."""
    args = ["analyze", "gemm", "--array", "2x2", "--tile", "3,3,6", "--set", "NI=6,NJ=6,NK=6"]
    rows = _json(args + ["--latex"])
    assert rows["latex"] and len(rows["latex"]) == len(rows["volumes"])
    r = runner.invoke(app, args + ["--latex"])
    assert r.output.count(": $") == len(rows["volumes"])


BAND = """void band(int N, int W, double A[2 * N][2 * N + W], double x[2 * N + W], double y[2 * N]) {
  int i, j;
  for (i = 0; i < 2 * N; i++) {
    y[i] = 0.0;
    for (j = i; j < i + W; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""


def test_a_fixed_tile_formula_too_long_to_read_is_summarised_and_latex_keeps_it(tmp_path):
    """A banded nest of extent ``2*N`` (a multiple of a parameter) derives per tile sizes;
    its input count is a quasi-polynomial of hundreds of floor terms. The table says what it is; the
    numbers and ``--latex`` are unchanged, and the summary's terms are the formula's."""
    from polyjoule.analysis import analyze

    src = tmp_path / "band.c"
    src.write_text(BAND)
    args = ["analyze", str(src), "--array", "2x2", "--set", "N=6,W=3"]
    rows = _json(args)
    long = [v for v in rows["volumes"] if v["formula"].startswith("quasi-polynomial in N, W:")]
    assert long, [v["formula"] for v in rows["volumes"]]
    a = analyze(str(src), (2, 2), values={"N": 6, "W": 3})
    ph = a.phases[0]
    assert ph.mode == "fixed"
    vols = ph.volumes_for(ph.tiling.sizes(ph.pra, {"N": 6, "W": 3}))
    terms = {sum(len(p.terms) for p in v.formula.pieces) for v in vols}
    assert all(int(v["formula"].split(" terms")[0].split()[-1]) in terms for v in long)
    tex = _json(args + ["--latex"])["latex"]
    assert all(len(t) > 200 for t, v in zip(tex, rows["volumes"], strict=True) if v in long)
    assert [v["value"] for v in rows["volumes"]] == [
        v["value"] for v in _json(args + ["--latex"])["volumes"]]


@pytest.mark.parametrize("command", ["analyze", "validate", "simulate"])
def test_a_tile_size_for_a_dim_off_the_array_is_refused_unless_it_is_the_extent(command):
    """One tile spans a dim that is not on the array: another size given for it used to be
    dropped without a word (validate and simulate then ran the extent's tile)."""
    base = [command, "gemm", "--array", "1x8", "--set", "NI=20,NJ=25,NK=30"]
    r = runner.invoke(app, [*base, "--tile", "3,20,30"])
    assert r.exit_code == 2 and r.stdout == ""
    assert "--tile: 20 for j, which is not on the array: one tile spans its 25 iterations" in r.output
    ok = runner.invoke(app, [*base, "--tile", "3,25,30", "--json"])
    assert ok.exit_code == 0, ok.output
    if command == "analyze":
        assert json.loads(ok.stdout)["tile_sizes"] == {"gemm": [3, 25, 30]}


def test_set_is_repeatable_and_a_name_given_twice_is_refused(tmp_path):
    """``--set N=64 --set W=8`` as map takes it (only the last counted before); ``--sizes``
    and ``--set`` naming one parameter differently is an error, not a silent choice."""
    src = tmp_path / "band.c"
    src.write_text(BAND.replace("2 * N", "N"))
    one = _json(["analyze", str(src), "--array", "2x2", "--set", "N=9,W=3"])
    two = _json(["analyze", str(src), "--array", "2x2", "--set", "N=9", "--set", "W=3"])
    assert one["values"] == two["values"] == {"N": 9, "W": 3}
    assert one["counts"] == two["counts"]
    r = runner.invoke(app, ["validate", str(src), "--sizes", "N=9,W=3", "--set", "W=4"])
    assert r.exit_code == 2 and "W given twice" in r.output


def test_map_of_a_kernel_without_datasets_asks_for_its_sizes(tmp_path):
    src = tmp_path / "band.c"
    src.write_text(BAND.replace("2 * N", "N"))
    r = runner.invoke(app, ["map", str(src), "--target", "tcpa"])
    assert r.exit_code == 2
    assert "band has no datasets" in r.output and "--set N=.. --set W=.." in r.output
    assert "--dataset" not in r.output  # (a flag the user never gave)


def test_a_coupled_tile_is_counted_by_rows_and_past_any_listing_by_its_pieces(tmp_path):
    """The FIFO occupancy of dims whose bounds are coupled is counted row by row in each
    tile: a band of 10^6 rows on 16x16 (4e9 points a tile; a 29 GiB traceback once, a refusal
    after) is analysed, its FIFO as deep as at 10^5 rows (the band's width decides it); so
    is one of 10^9 rows (62.5e6 a tile, past ``TILE_POINTS``: refused once), counted on the
    rows at its pieces' ends (where the band enters, runs through and leaves the tile)."""
    src = tmp_path / "band.c"
    src.write_text(BAND.replace("2 * N", "N"))

    def depth(n: int) -> str:
        r = runner.invoke(app, ["analyze", str(src), "--array", "16x16", "--set", f"N={n},W=1000"])
        assert r.exit_code == 0, r.output
        return re.search(r"fd-depth \(needs up to ([\d,]+) words", " ".join(r.output.split())).group(1)

    assert depth(10**9) == depth(10**6) == depth(10**5) == "999"


@pytest.mark.parametrize("command", ["analyze", "validate", "simulate"])
def test_too_many_tiles_names_its_numbers(tmp_path, command):
    """At one point the refusal says the extent, the tiles it takes and the least tile
    size that fits (the sweep's reason stays one text for every point)."""
    src = tmp_path / "band.c"
    src.write_text(BAND.replace("2 * N", "N"))
    n, w, p, t = 64, 8, 16, 4
    r = runner.invoke(app, [command, str(src), "--array", f"{t}x{t}", "--set", f"N={n},W={w}",
                            "--tile", f"{p},{p}"])
    e = n + w - 1  # the band's j runs over N + W - 1
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert (f"dim j: the tile size needs more than {t} tiles (extent {e} in tiles of {p} is "
            f"{-(-e // p)} tiles; tiles of {-(-e // t)} or more fit) (too-many-tiles)") in r.output


@pytest.mark.parametrize("command", ["analyze", "validate", "simulate"])
def test_an_order_of_the_wrong_length_is_refused(tmp_path, command):
    """``--order j`` for a 2-D nest was dropped without a word (the best order ran)."""
    src = tmp_path / "band.c"
    src.write_text(BAND.replace("2 * N", "N"))
    r = runner.invoke(app, [command, str(src), "--array", "2x2", "--set", "N=6,W=2",
                            "--order", "j"])
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    assert "--order: j names 1 dim; band has 2 (one name per dim, innermost first)" in r.output
    ok = runner.invoke(app, [command, str(src), "--array", "2x2", "--set", "N=6,W=2",
                             "--order", "j,i", "--json"])
    assert ok.exit_code == 0, ok.output


def test_utilisation_counts_the_band_not_its_bounding_box(tmp_path):
    """A band tiled over its bounding box shows it: the line's iterations are the band's
    points (counted here by brute force) and its ratio is theirs over PEs x latency."""
    src = tmp_path / "band.c"
    src.write_text("void band(int N, double A[N][N + 8], double x[N + 8], double y[N]) {\n"
                   "  int i, j;\n  for (i = 0; i < N; i++)\n"
                   "    for (j = i + 2; j < i + 7; j++)\n      y[i] += A[i][j] * x[j];\n}\n")
    args = ["analyze", str(src), "--array", "4x4", "--set", "N=32"]
    latency = _json(args)["latency_cycles"]
    points = sum(1 for i in range(32) for j in range(i + 2, i + 7))
    r = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    line = next(s for s in r.output.splitlines() if s.startswith("PE utilisation"))
    assert line == (f"PE utilisation {100 * points / (16 * latency):.3g}% ({points:,} iterations "
                    f"on 16 PEs in {latency:,} cycles)")
    assert points / (16 * latency) < 0.1  # the box's tiles are scheduled, not the band's


@pytest.mark.parametrize(("args", "says"), [
    (["analyze", "gemm", "--array", "1x4", "--axes", "i,j"], "--axes: 2 dims for a 1x4 array"),
    (["validate", "gemm", "--array", "4x1", "--axes", "i,j"], "--axes: 2 dims for a 4x1 array"),
    (["analyze", "--einsum", "C[m,n] += A[m,k]*B[k,n]", "--extents", "m=4,n=4,k=4,k=5"],
     "--extents: rank k given twice (k=4, k=5)"),
    (["analyze", "--einsum", "C[m,n] += A[m,k]*B[k,n]", "--extents", "m=0,n=4,k=4"],
     "--extents: m=0: an extent is at least 1"),
    (["analyze", "gemm", "--csv", "-o", "{tmp}/out.json"], "a .json file for --csv output"),
    (["analyze", "{tmp}"], "a directory; give a kernel file in it"),
])
def test_input_that_was_taken_without_a_word_is_refused(tmp_path, args, says):
    """Each was accepted before: the second dim dropped on a 1-D array, the last of two
    extents kept, CSV written into a .json file, a directory called no such file."""
    r = runner.invoke(app, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert r.exit_code == 2, r.output
    assert says in r.output and len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "out.json").exists()


def test_machine_without_array_is_its_whole_grid(tmp_path):
    """``--machine FILE`` alone analyses on the file's grid (the default 8x8 was refused as
    larger than it); ``-o`` naming a folder and ``--gate`` with a workload say what is wrong."""
    decl = tmp_path / "m.yaml"
    decl.write_text("version: 2\nname: m\nrows: 2\ncols: 4\n")
    args = ["analyze", "gesummv", "--set", "N0=8,N1=8", "--json"]
    whole = json.loads(runner.invoke(app, [*args, "--machine", str(decl)]).stdout)
    same = json.loads(runner.invoke(app, [*args, "--array", str(decl)]).stdout)
    assert whole["array"] == [2, 4] and whole["total_pj"] == same["total_pj"]
    assert whole["latency_cycles"] == same["latency_cycles"]
    r = runner.invoke(app, ["analyze", "gesummv", "--json", "-o", str(tmp_path)])
    assert r.exit_code == 2 and "a directory; give a file name" in r.output
    r = runner.invoke(app, ["map", "gemm", "16x16x16", "--gate"])
    assert r.exit_code == 2 and "--gate runs the target's published problem set" in r.output


@pytest.mark.parametrize("command", ["analyze", "simulate", "validate"])
def test_an_order_that_violates_a_dependence_names_the_option(command):
    """The refusal names ``--order`` at the command line; the reason a refused point
    carries (one text for every point, as map's census prints it) stays without it."""
    r = runner.invoke(app, [command, "jacobi-1d", "--array", "1x4", "--order", "t,i"])
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("polyjoule: error: --order t,i: "), r.output
    assert "violates" in lines[0]


def test_the_refusal_reason_of_a_bad_order_stays_without_the_option():
    from polyjoule.analysis import analyze
    from polyjoule.errors import InfeasibleSchedule
    from polyjoule.library import kernels

    k = kernels.get("jacobi-1d")
    values = {p: 10 for p in k.params}
    with pytest.raises(InfeasibleSchedule) as e:
        analyze(k, array=(1, 4), order=("t", "i"), values=values).evaluate(values)
    assert "violates" in e.value.reason.detail and "--order" not in str(e.value)


def test_a_refusal_not_caused_by_the_order_does_not_name_it():
    r = runner.invoke(app, ["simulate", "gesummv", "--array", "2x2", "--set", "N0=4,N1=6",
                            "--pi", "0", "--order", "i0,i1"])
    assert r.exit_code == 2 and "--order" not in r.stderr and "--pi 0" in r.stderr, r.output


EINSUM = ["--einsum", "C[i,j] += A[i,k]*B[k,j]", "--extents", "i=5,j=7,k=3", "--array", "1x4"]


@pytest.mark.parametrize("given", ["I=6", "i=6"])
def test_set_overlays_the_einsum_extents_by_the_index_name_in_either_case(given):
    doc = _json(["analyze", *EINSUM, "--set", given])
    assert doc["values"] == {"I": 6, "J": 7, "K": 3}


@pytest.mark.parametrize(("source", "args", "msg"), [
    ("#define N 16\nfloat A[N], B[N];\nvoid p(void) {\n  for (int i = 0; i < N; i++)\n"
     "    B[i] = A[i] + 1.0f;\n}\n", ["--set", "N=7"],
     "--set: p has no parameters (its loop bounds are constants), so N sets nothing"),
    ("void c(float A[5], float B[5]) {\n  for (int i = 0; i < 5; i++)\n    B[i] = A[i];\n}\n",
     ["--set", "M=4"], "--set: c has no parameters (its loop bounds are constants), so M sets"),
    ("void t(int N, float A[N], float B[N]) {\n  for (int i = 0; i < N; i++)\n"
     "    B[i] = A[i];\n}\n", ["--set", "N=4,M=4"], "t has no parameter 'M' (its parameters: N;"),
])
def test_a_value_for_no_parameter_is_refused(tmp_path, source, args, msg):
    c = tmp_path / "k.c"
    c.write_text(source)
    r = runner.invoke(app, ["analyze", str(c), "--array", "1x4", *args])
    assert r.exit_code == 2, r.output
    assert r.output.startswith("polyjoule: error: ") and msg in r.output
    assert len(r.output.splitlines()) == 1


def test_one_parameter_named_in_two_cases_is_refused():
    r = runner.invoke(app, ["analyze", *EINSUM, "--set", "I=6,i=3"])
    assert r.exit_code == 2 and "I given twice (as I and i)" in r.output


def test_total_energy_is_dynamic_plus_static_in_text_and_json():
    """One meaning of ``total`` (dynamic + static), with both parts named beside it."""
    args = ["analyze", "gesummv", "--array", "2x2", "--set", "N0=4,N1=6"]
    doc = _json(args)
    e = doc["energy_pj"]
    assert e["total"] == doc["total_pj"] == pytest.approx(e["dynamic"] + e["static"])
    assert e["dynamic"] == doc["dynamic_pj"] and e["static"] == doc["static_pj"] > 0
    assert sum(e["by_class"].values()) + sum(e["by_op"].values()) == pytest.approx(e["dynamic"])
    text = runner.invoke(app, args, env={"COLUMNS": "80"}).output
    assert "dynamic total" not in text
    assert re.search(r"^total \(dynamic \+ static\) +\S+ [pnum]?J$", text, re.M), text
    assert re.search(r"^static \(leakage over the latency\) +\S+ [pnum]?J$", text, re.M)


def test_every_phase_names_its_tile_sizes_mode(tmp_path):
    """``tp.1: symbolic, tp.2: symbolic tiles`` read as two different modes."""
    c = tmp_path / "tp.c"
    c.write_text("void tp(int N, float A[N], float B[N], float C[N]) {\n"
                 "  for (int i = 0; i < N; i++)\n    B[i] = A[i] * 2.0f;\n"
                 "  for (int i = 0; i < N; i++)\n    C[i] = B[i] + A[i];\n}\n")
    r = runner.invoke(app, ["analyze", str(c), "--array", "1x4", "--set", "N=9", "--wide"])
    assert r.exit_code == 0, r.output
    assert "(tile sizes symbolic in tp.1, symbolic in tp.2)" in r.output
