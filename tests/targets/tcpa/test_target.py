"""The processor array as a search target: the worked example, every kernel, the witness."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest

from polyjoule.analysis.analyze import analyze
from polyjoule.analysis.schedule import kernel_latency, kernel_schedules
from polyjoule.analysis.simulator import simulate
from polyjoule.library.kernels import get, names
from polyjoule.mapping.placement import place_kernel
from polyjoule.targets.tcpa.array import default_array
from polyjoule.targets.tcpa.target import TcpaTarget, evaluate, mapping_of, search

from .test_search_ilp import _array as _pe_array
from .test_search_ilp import _declared


def _array(rows: int, cols: int, depth: int):
    a = default_array((rows, cols))
    return dataclasses.replace(a, pe=dataclasses.replace(a.pe, fd_depth=depth))


def test_gesummv_fits_up_to_128_on_8x8_with_16_deep_fifos() -> None:
    tgt = TcpaTarget(_array(8, 8, 16), bandwidth_bound=True)
    n = np.arange(96, 161)
    k = get("gesummv")
    for order in (("i0", "i1"), ("i1", "i0")):
        b = evaluate(tgt, k, (8, 8), order, {"N0": n, "N1": n})
        fits = b.causes.ok
        assert fits[n <= 128].all() and not fits[n > 128].any()
        assert b.causes.masks["fd-depth"][n > 128].all()
        assert set(b.causes.masks) == {"fd-depth"}
    caps = tgt.array.capacities("fp32")
    ok = simulate(k, (8, 8), values={"N0": 128, "N1": 128}, capacities=caps)
    assert ok.usage["fd-depth"] == 16
    over = simulate(k, (8, 8), values={"N0": 129, "N1": 129}, capacities=caps, enforce=False)
    assert over.usage["fd-depth"] == 17 and over.ok
    assert not simulate(k, (8, 8), values={"N0": 129, "N1": 129}, capacities=caps).ok


def test_relieve_fd_depth_returns_the_mappings_it_alone_refused() -> None:
    tgt = TcpaTarget(_array(8, 8, 16), bandwidth_bound=True)
    n = np.arange(120, 137)
    k = get("gesummv")
    base = search(tgt, k, {"N0": n, "N1": n})
    relieved = search(tgt, k, {"N0": n, "N1": n}, frozenset({"fd-depth"}))
    assert relieved.relief["alone"] == relieved.accepted - base.accepted > 0


#: kernels whose statements leave out boundary points (fewer consumers than the tile: the
#: closed form ``ceil(lambda_J . d / pi)`` over-counts there) and whose conditions couple dims
BOUNDARY = ["jacobi-1d", "jacobi-2d", "seidel-2d", "fdtd-2d", "trisolv", "lu", "syrk"]


def _draw(rng: np.random.Generator) -> tuple[bool, set[str]] | None:
    """One random (kernel, array, sizes, order): formulas vs simulation, with the PE
    capacities declared at, one below and around the simulated use (so a rule that over- or
    under-counts by one word refuses or accepts wrongly); None when the mapping is refused
    structurally (nothing to simulate)."""
    kernels = [n for n in names() if n != "heat-3d"]  # 4-D: slow to derive
    pick = BOUNDARY if rng.random() < 0.5 else kernels
    k = get(pick[int(rng.integers(len(pick)))])
    shape = (int(rng.choice([1, 2, 4])), int(rng.choice([2, 4])))
    vals = {p: int(rng.integers(max(lo, 3), 13)) for ph in k.phases for p, lo in ph.param_min}
    pool = getattr(kernel_schedules(k, shape)[0], "pool", None)
    order = (tuple(k.phases[0].dims[l].name for l in pool[int(rng.integers(len(pool)))].order)
             if len(k.phases) == 1 and pool else None)
    given = {p: np.asarray([v]) for p, v in vals.items()}
    b = evaluate(TcpaTarget(_array(*shape, 1), bandwidth_bound=True), k, shape, order, given)
    structural = {"empty-dimension", "too-many-tiles", "tile-below-dependence", "no-schedule"}
    if any(bool(b.causes.masks[c][0]) for c in structural if c in b.causes.masks):
        return None
    caps = default_array().capacities(k.phases[0].dtype)
    r = simulate(k, shape, values=vals, order=order, capacities=caps, enforce=False)
    seen: set[str] = set()
    for depth, fifos, rd in _declared(r.usage, rng):
        a = _pe_array(shape, depth, fifos, rd)
        b = evaluate(TcpaTarget(a, bandwidth_bound=True), k, shape, order, given)
        refused = {c for c, m in b.causes.masks.items() if bool(m[0])}
        caps = a.capacities(k.phases[0].dtype)
        limits = {"fd-depth": caps.fd_depth_words, "fd-count": caps.fd_count,
                  "rd-count": caps.rd_count, "iob-capacity": min(caps.iob_capacity_words.values())}
        for c, lim in limits.items():
            assert (r.usage[c] > lim) == (c in refused), (k.name, shape, order, vals, c,
                                                          r.usage[c], lim)
        seen |= refused
    enforced = simulate(k, shape, values=vals, order=order, capacities=caps)
    assert enforced.ok == (not refused), (k.name, refused, enforced.violations)
    return enforced.ok, seen


def test_formulas_agree_with_the_simulator() -> None:
    """Over built-in kernels (stencils, whose boundary statements have fewer consumers than
    a tile, and the others), random sizes, arrays and scanning orders, the PE capacities
    declared at, one below and around the simulated use: an accepted mapping never exceeds a
    capacity in simulation; a refused one exceeds exactly what it was refused for."""
    rng = np.random.default_rng(12)
    seen = [d for d in (_draw(rng) for _ in range(16)) if d is not None]
    assert len(seen) >= 6
    assert any(ok for ok, _ in seen) and all(
        any(c in r for _, r in seen) for c in ("fd-depth", "fd-count", "rd-count"))


@pytest.mark.parametrize("name", ["gemm", "gesummv", "atax", "bicg"])
def test_best_mapping_equals_analyze_and_validates(name: str) -> None:
    k = get(name)
    vals = {p: np.asarray([16]) for p in k.params}
    res = search(TcpaTarget(), k, vals, top=1)
    best = res.best
    assert best is not None
    m = mapping_of(best)
    placed = place_kernel(k, m.axes)
    v = {p: 16 for p in k.params}
    assert kernel_latency(kernel_schedules(placed, m.array, m.tile, order=m.order), v) == best["latency"]
    dyn = analyze(placed, m.array, tile=m.tile).evaluate(v).energy_pj["dynamic"]
    assert dyn == pytest.approx(best["dynamic_pj"], rel=1e-9)
    sim = simulate(placed, m.array, m.tile, values=v, order=m.order,
                   capacities=default_array().capacities(k.phases[0].dtype))
    assert sim.ok and sim.makespan == best["latency"]


def test_cli_map_tcpa_json_and_relieve() -> None:
    out = subprocess.run([sys.executable, "-m", "polyjoule", "map", "gesummv", "--target",
                          "tcpa", "--set", "N=120:136:8", "--census", "--json",
                          "--bandwidth-bound", "--relieve", "fd-depth"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert doc["target"] == "tcpa" and doc["candidates"] and "independent" in doc
    assert doc["relieve"]["cause"] == "fd-depth"


def test_cli_map_tcpa_prints_ranking_and_census() -> None:
    out = subprocess.run([sys.executable, "-m", "polyjoule", "map", "gemm", "--target", "tcpa",
                          "--set", "N=20", "--census", "--top", "3"],
                         capture_output=True, text=True, check=True).stdout
    assert "top 3 of" in out and "independent census" in out and "chosen:" in out
    assert "simulated with capacities enforced: passes" in out
    assert "same mapping alone: polyjoule analyze gemm --array" in out.replace("\n    ", " ")
    legend = " ".join(out.split())  # the census legend speaks of the array, not an encoding
    assert "express: the array cannot run the mapping as tiled" in legend
    assert "the encoding cannot say it" not in legend


def test_cli_map_tcpa_bad_relieve_is_one_line_exit_2() -> None:
    r = subprocess.run([sys.executable, "-m", "polyjoule", "map", "gemm", "--target", "tcpa",
                        "--set", "N=20", "--relieve", "no-such"], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_every_cause_is_reported_not_only_the_first() -> None:
    a = _array(8, 8, 4)
    a = dataclasses.replace(a, pe=dataclasses.replace(a.pe, fd_fifos=1))
    b = evaluate(TcpaTarget(a, bandwidth_bound=True), get("gesummv"), (8, 8), ("i0", "i1"),
                 {"N0": np.asarray([128]), "N1": np.asarray([128])})
    assert {"fd-depth", "fd-count"} <= {c for c, m in b.causes.masks.items() if m[0]}


def test_cli_worked_example_with_a_declaration_file(tmp_path) -> None:
    arch = tmp_path / "fifo16.yaml"
    arch.write_text("version: 2\nname: fifo16\nrows: 8\ncols: 8\npe: {fd_depth: 16}\n")
    out = subprocess.run([sys.executable, "-m", "polyjoule", "map", "gesummv", "--target",
                          "tcpa", "--machine", str(arch), "--set", "N=128,129",
                          "--bandwidth-bound", "--objective", "latency", "--top", "100",
                          "--json", "--no-verify"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    on_8x8 = [c["values"]["N0"] for c in doc["candidates"] if c["array"] == "8x8"]
    assert on_8x8 and set(on_8x8) == {128}
    assert doc["objectives"][0] == "latency"
    for size in doc["sizes"]:  # ranked within each problem size
        lat = [c["latency"] for c in doc["candidates"] if c["values"] == size["values"]]
        assert len(lat) == min(100, size["encodable"]) and lat == sorted(lat)
    assert any(r["cause"] == "fd-depth" for r in doc["census"])


@pytest.mark.parametrize("kernel,sets", [("gemm", ["N=12"]), ("jacobi-1d", ["TSTEPS=6", "N=14"])])
def test_cli_best_mapping_reproduced_by_analyze_and_validate(kernel: str, sets: list[str]) -> None:
    """The command ``map`` prints for its best mapping prices it alone with the same
    energy and latency, and ``validate`` (simulation vs formulas) passes on it."""
    run = [sys.executable, "-m", "polyjoule"]
    given = [x for s in sets for x in ("--set", s)]
    doc = json.loads(subprocess.run([*run, "map", kernel, "--target", "tcpa", *given,
                                     "--top", "1", "--json"],
                                    capture_output=True, text=True, check=True).stdout)
    best = doc["candidates"][0]
    args = best["analyze"].split()[2:]  # drop "polyjoule analyze"
    a = json.loads(subprocess.run([*run, "analyze", *args, "--json"], capture_output=True,
                                  text=True, check=True).stdout)
    assert a["latency_cycles"] == best["latency"]
    assert a["total_pj"] == pytest.approx(best["energy_pj"], rel=1e-6)
    assert a["capacity"] == []
    v = subprocess.run([*run, "validate", *args, "--json"], capture_output=True, text=True)
    assert v.returncode == 0 and json.loads(v.stdout)["ok"]


SHIFTED_BAND = ("void band(int N, int W, double A[N][N + W + 4], double x[N + W + 4], double y[N]) {\n"
                "  int i, j;\n  for (i = 0; i < N; i++) {\n    y[i] = 0.0;\n"
                "    for (j = i + 3; j < i + W + 3; j++)\n      y[i] += A[i][j] * x[j];\n  }\n}\n")


def test_every_candidate_reproduced_by_its_analyze_command(tmp_path) -> None:
    """Each ranked mapping's ``analyze`` command prices that mapping, its scanning order
    included: by power a band ranks orders that are not the fastest, and the command
    without ``--order`` priced the best order instead (4,675 against 2,407 cycles)."""
    from typer.testing import CliRunner

    from polyjoule.cli import app

    runner = CliRunner()
    src = tmp_path / "band.c"
    src.write_text(SHIFTED_BAND)
    r = runner.invoke(app, ["map", str(src), "--target", "tcpa", "--set", "N=64", "--set", "W=8",
                            "--objective", "power", "--top", "6", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["candidates"]
    assert len({c["mapping"].split(" @ ")[0].split()[-1] for c in rows}) > 1  # orders differ
    for c in rows:
        assert "--order" in c["analyze"], c
        a = runner.invoke(app, [*c["analyze"].split()[1:], "--json"])  # drop "polyjoule"
        assert a.exit_code == 0, a.output
        got = json.loads(a.stdout)
        assert got["latency_cycles"] == c["latency"], c["mapping"]
        assert got["total_pj"] == pytest.approx(c["energy_pj"], rel=1e-9), c["mapping"]


def test_asking_for_tcpa_imports_no_other_target() -> None:
    """A cold ``map --target tcpa`` pays for the TCPA modules only."""
    code = ("import sys; from polyjoule.search import target; target.get('tcpa'); "
            "print(sorted(m for m in sys.modules if m.startswith('polyjoule.targets.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "polyjoule.targets.tcpa.target" in out and "tinytpu" not in out


MACHINE = """\
version: 2
name: small
rows: 3
cols: 2
clock_mhz: 500
pe: {rd_registers: 8, fd_fifos: 4, fd_depth: 16}
io_buffers:
  west: {capacity_words: 256, bandwidth_words_per_cycle: 1}
energy: {access_pj: {DR: 50}}
"""


def test_a_candidate_on_a_machine_file_is_reproduced_on_that_machine(tmp_path) -> None:
    """``map --machine FILE`` prices mappings on part of that machine's grid: the command it
    prints names the machine (without it, ``analyze`` priced the shipped declaration: 93.5
    against 9.63 nJ, at 200 MHz against 500)."""
    from typer.testing import CliRunner

    from polyjoule.cli import app

    runner = CliRunner()
    (tmp_path / "arr.yaml").write_text(MACHINE)
    src = tmp_path / "band.c"
    src.write_text(SHIFTED_BAND)
    machine = str(tmp_path / "arr.yaml")
    r = runner.invoke(app, ["map", str(src), "--target", "tcpa", "--machine", machine,
                            "--set", "N=12", "--set", "W=4", "--top", "4", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["candidates"]
    assert rows
    for c in rows:
        assert f"--machine {machine} --array {c['array']}" in c["analyze"], c
        a = runner.invoke(app, [*c["analyze"].split()[1:], "--json"])
        assert a.exit_code == 0, a.output
        got = json.loads(a.stdout)
        assert got["clock_mhz"] == 500
        assert got["latency_cycles"] == c["latency"], c["mapping"]
        assert got["total_pj"] == pytest.approx(c["energy_pj"], abs=5e-4)  # map rounds to 0.001 pJ, c["mapping"]
    bigger = runner.invoke(app, ["analyze", str(src), "--machine", machine, "--array", "4x4",
                                 "--set", "N=12,W=4"])
    assert bigger.exit_code == 2 and "larger than the 3x2 grid" in bigger.output


def test_a_bandwidth_bound_candidate_is_reproduced_by_its_command(tmp_path) -> None:
    """With ``--bandwidth-bound`` map stretches latencies to a slow DRAM; the command it
    prints stretches them the same way (it priced the schedule's 262 cycles against map's
    10,240), and the chosen mapping simulates (the stall is priced, not simulated)."""
    import shlex

    from typer.testing import CliRunner

    from polyjoule.cli import app

    runner = CliRunner()
    slow = MACHINE + "dram: {bandwidth_gb_per_s: 0.01}\n"
    (tmp_path / "slow.yaml").write_text(slow)
    r = runner.invoke(app, ["map", "gemm", "--target", "tcpa", "--machine",
                            str(tmp_path / "slow.yaml"), "--set", "N=8", "--bandwidth-bound",
                            "--top", "3", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    rows = doc["candidates"]
    assert rows and rows[0]["verified"] is True
    for c in rows:
        assert "--bandwidth-bound" in c["analyze"]
        a = runner.invoke(app, [*shlex.split(c["analyze"])[1:], "--json"])
        assert a.exit_code == 0, a.output
        got = json.loads(a.stdout)
        assert got["latency_cycles"] == c["latency"] > got["schedule_latency_cycles"]
        assert got["total_pj"] == pytest.approx(c["energy_pj"], abs=5e-4)
        assert got["capacity"] == []


def test_a_price_past_2_53_keeps_every_cycle() -> None:
    """The cost of one mapping holds the latency as the integer the pricing computed (a
    float there tied latencies past 2^53 in a search's ranking)."""
    from polyjoule.targets.tcpa.target import TcpaMapping

    m = TcpaMapping(array=(1, 8), order=None, values={"TSTEPS": 2**60, "N": 64},
                    kernel="jacobi-1d")
    tgt = TcpaTarget(default_array())
    cost = tgt.price(m).cost
    b = evaluate(tgt, get("jacobi-1d"), m.array, None,
                 {k: np.asarray([v]) for k, v in m.values.items()})
    assert type(cost.latency) is int and cost.latency > 2**63
    assert cost.latency == int(np.asarray(b.price["latency"]).reshape(-1)[0])


ONE_PE = "version: 2\nname: a\nrows: 1\ncols: 1\n"


def test_a_1x1_array_offers_one_pe_mappings_that_analyze_reproduces(tmp_path) -> None:
    """A 1x1 grid has only the shape with no array axis: it was no placement, so the
    search offered 0 mappings and said both every mapping fits and none did."""
    from typer.testing import CliRunner

    from polyjoule.cli import app

    runner = CliRunner()
    arr = tmp_path / "arr_1x1.yaml"
    arr.write_text(ONE_PE)
    args = ["map", "gesummv", "--target", "tcpa", "--machine", str(arr)]
    r = runner.invoke(app, [*args, "--set", "N=16", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["candidates"]
    assert rows and all(c["mapping"].startswith("1x1 ") for c in rows)
    for c in rows:
        a = runner.invoke(app, [*c["analyze"].split()[1:], "--json"])
        assert a.exit_code == 0, a.output
        got = json.loads(a.stdout)
        assert got["latency_cycles"] == c["latency"]
        assert got["total_pj"] == pytest.approx(c["energy_pj"], rel=1e-9)
    r = runner.invoke(app, [*args, "--set", "N=64"])  # border buffers of 4,096 words
    assert r.exit_code == 2
    assert "0 mappings" not in r.output and "every mapping fits" not in r.output
    assert "iob-capacity" in r.output
    a = runner.invoke(app, ["analyze", "gesummv", "--array", str(arr), "--set", "N=64"])
    assert a.exit_code == 0 and "iob-capacity" in a.output  # analyze warns of the same
