"""Sweeps: grouping by mapping, metrics, Pareto fronts, infeasible points, validation."""

from __future__ import annotations

import numpy as np
import pytest

from polyjoule.dse import space
from polyjoule.dse.sweep import SweepSpec, pareto_mask, run_sweep
from polyjoule.errors import InfeasibleMapping
from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.energy import default_table


def _spec(name="gemm", sizes=("N=8:24:8",), arrays="4x4,8x8", tiles=(), orders="auto", **kw):
    k = get(name)
    return SweepSpec(k, space.size_grid(k, list(sizes)),
                     space.mappings(space.parse_arrays(arrays), space.parse_tiles(list(tiles)),
                                    space.parse_orders(k, orders)), **kw)


def test_gemm_sweep_metrics(cache, assert_validated):
    spec = _spec()
    r = run_sweep(spec, store=cache)
    assert len(r) == 3 * 2
    c = r.columns
    n = c["NI"]
    assert np.array_equal(c["work"], n**3)
    assert np.array_equal(c["DR"], 4 * n * n)  # A, B, C in, C out: each element crosses DR once
    np.testing.assert_allclose(c["edp"], c["total_pj"] * c["latency_cycles"])
    np.testing.assert_allclose(c["total_pj"], c["energy_pj"] + c["static_pj"])
    np.testing.assert_allclose(c["utilisation"], n**3 / (c["pes"] * c["latency_cycles"]))
    assert np.all((c["utilisation"] > 0) & (c["utilisation"] <= 1))
    parts = sum(c[f"energy.{x}"] for x in ("RD", "FD", "ID", "OD", "IOb", "DR")) + c["energy.compute"]
    np.testing.assert_allclose(parts, c["energy_pj"])
    # scalar analysis agrees on energy too
    mr = r.mapping_results[0]
    res = mr.analysis.evaluate({"NI": 16, "NJ": 16, "NK": 16})
    row = np.flatnonzero((c["array"] == "4x4") & (n == 16))[0]
    assert res.energy_pj["dynamic"] == pytest.approx(c["energy_pj"][row], rel=1e-12)
    assert_validated(r, spec, 3)


def test_orders_tiles_and_tables(cache, assert_validated):
    t2 = default_table().merged({"access_pj": {"DR": 100.0}}, "cheap-dram.yaml")
    spec = _spec(sizes=("N=16",), arrays="4x4", tiles=("auto", "4,4,1"), orders="auto,ijk,kji",
                 tables=[default_table(), t2])
    r = run_sweep(spec, store=cache)
    assert len(r) == 2 * 3 * 2
    c = r.columns
    auto = c["latency_cycles"][c["order"] == "auto"]
    fixed = c["latency_cycles"][c["order"] != "auto"]
    assert auto.min() <= fixed.min()
    # energy tables rescale counts only
    cheap = c["table"] != default_table().name
    assert np.array_equal(c["DR"][cheap], c["DR"][~cheap])
    assert np.all(c["energy.DR"][cheap] < c["energy.DR"][~cheap])
    assert c["pareto"].any()
    assert_validated(r, spec, 2)


def test_array_larger_than_problem_is_legal(cache, assert_validated):
    """A 4x4x4 GEMM on 8x8 PEs: tiles of one iteration on the PEs that exist, as analyze and
    validate say (the simulator confirms counts and latency)."""
    spec = _spec(sizes=("N=4,8,16",), arrays="8x8")
    r = run_sweep(spec, store=cache)
    assert sorted(r.columns["NI"].tolist()) == [4, 8, 16]
    assert r.meta["skipped_infeasible"] == 0
    assert_validated(r, spec, 3)


def test_unschedulable_point_refused_with_its_reason(cache):
    """jacobi-1d at TSTEPS=3, N=4 on 2x2 with the scanning order i/t (a user's choice: no
    integer program) is infeasible: the sweep refuses it with the reason the schedule gives,
    and drops it (not a latency) with --skip-infeasible."""
    from polyjoule.analysis.schedule import kernel_latency, kernel_schedules
    from polyjoule.errors import InfeasibleSchedule

    spec = _spec("jacobi-1d", sizes=("TSTEPS=3", "N=4,10"), arrays="2x2", orders="i/t")
    with pytest.raises(InfeasibleMapping) as refused:
        run_sweep(spec, store=cache)
    with pytest.raises(InfeasibleSchedule) as direct:
        kernel_latency(kernel_schedules(get("jacobi-1d"), (2, 2), order=("i", "t")),
                       {"TSTEPS": 3, "N": 4})
    assert refused.value.reason == direct.value.reason
    assert refused.value.reason.cause == "no-schedule"
    spec.skip_infeasible = True
    r = run_sweep(spec, store=cache)
    assert r.meta["skipped_infeasible"] >= 1
    assert r.columns["N"].tolist() == [10]
    assert np.all(r.columns["latency_cycles"] > 0)


def _order_spec(name, sizes, datasets, orders):
    k = get(name)
    return SweepSpec(k, space.size_grid(k, list(sizes), list(datasets)),
                     space.mappings(space.parse_arrays("2x2"), space.parse_tiles([]),
                                    space.parse_orders(k, orders)), skip_infeasible=True)


def _rows_of(columns, keep):
    return {k: v[keep] for k, v in columns.items() if k != "pareto"}


def _assert_same_rows(got, want):
    assert got.keys() == want.keys()
    for k in want:
        if want[k].dtype.kind == "f":
            np.testing.assert_allclose(got[k], want[k], rtol=1e-12, err_msg=k)
        else:
            assert got[k].tolist() == want[k].tolist(), k


def test_infeasible_order_dropped_beside_a_feasible_one(cache):
    """jacobi-2d MINI on 2x2: t/i/j has no schedule, i/j/t has. With --skip-infeasible the
    mixed sweep keeps exactly the rows of the sweep of i/j/t alone (an order whose every point
    is refused shares its array and tile's counts with the feasible one: it must not poison
    them)."""
    mixed = run_sweep(_order_spec("jacobi-2d", (), ("MINI",), "t/i/j,i/j/t"), store=cache)
    alone = run_sweep(_order_spec("jacobi-2d", (), ("MINI",), "i/j/t"), store=cache)
    assert mixed.meta["skipped_infeasible"] == 1
    assert len(mixed) == len(alone) == 1
    _assert_same_rows(mixed.columns, alone.columns)
    with pytest.raises(InfeasibleMapping):
        run_sweep(_order_spec("jacobi-2d", (), ("MINI",), "t/i/j"), store=cache)


def test_orders_feasible_at_different_sizes_keep_their_own_counts(cache):
    """jacobi-2d on 2x2: t/i/j is feasible at TSTEPS=2 only, i/j/t at every size. Each order's
    rows of the mixed sweep equal that order's sweep alone, whichever order comes first (the
    counts are shared per array and tile, the feasible points are not)."""
    sizes = ("TSTEPS=2,3", "N=4,8")
    alone = {o: run_sweep(_order_spec("jacobi-2d", sizes, (), o), store=cache) for o in ("t/i/j", "i/j/t")}
    assert alone["t/i/j"].columns["TSTEPS"].tolist() == [2, 2]
    assert alone["i/j/t"].columns["TSTEPS"].tolist() == [2, 2, 3, 3]
    for orders in ("t/i/j,i/j/t", "i/j/t,t/i/j"):
        mixed = run_sweep(_order_spec("jacobi-2d", sizes, (), orders), store=cache)
        assert mixed.meta["skipped_infeasible"] == 2
        for o, r in alone.items():
            _assert_same_rows(_rows_of(mixed.columns, mixed.columns["order"] == o), _rows_of(r.columns, slice(None)))


def test_multiphase_kernel(cache, assert_validated):
    spec = _spec("atax", sizes=("N=8:16:8", "M=12"), arrays="1x4")
    r = run_sweep(spec, store=cache)
    assert len(r) == 2 and np.all(r.columns["latency_cycles"] > 0)
    assert_validated(r, spec, 2)


def _brute(e, lat, g):
    out = []
    for i in range(len(e)):
        dom = any(g[j] == g[i] and e[j] <= e[i] and lat[j] <= lat[i] and (e[j] < e[i] or lat[j] < lat[i])
                  for j in range(len(e)))
        out.append(not dom)
    return np.asarray(out)


def test_pareto_against_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(1, 40))
        e = rng.integers(0, 8, n).astype(float)
        lat = rng.integers(0, 8, n)
        g = rng.integers(0, 3, n)
        assert np.array_equal(pareto_mask(e, lat, g), _brute(e, lat, g))


def test_fixed_tile_triangular_kernel(cache, assert_validated):
    # trmm's tiles must be fixed per point (scalar fallback) and its latency has ILP terms
    spec = _spec("trmm", sizes=("N=8,12", "M=8"), arrays="2x2")
    r = run_sweep(spec, store=cache)
    assert len(r) == 2 and np.all(r.columns["work"] > 0)
    assert_validated(r, spec, 2)


@pytest.mark.parametrize(("name", "array", "tile"), [("gemm", (4, 2), (10, 20, 3)), ("atax", (2, 2), (9, 9))])
def test_explicit_tiles_reuse_symbolic_formulas(name, array, tile, cache):
    from polyjoule.analysis.analyze import analyze
    from polyjoule.analysis.compiled import CompiledAnalysis
    from polyjoule.dse.sweep import _retiled

    k = get(name)
    derived = analyze(k, array, tile, store=cache)
    reused = _retiled(analyze(k, array, None, store=cache), tile)
    assert reused is not None
    rng = np.random.default_rng(0)
    vals = {p: rng.integers(max(tile), max(tile) * min(array), 500) for p in k.params}
    ref = derived.evaluate_many(vals)
    got = CompiledAnalysis(reused).counts(vals)
    for c in ("RD", "FD", "ID", "OD", "IOb", "DR"):
        assert np.array_equal(ref[c], got[c])


def test_power_columns_equal_the_scalar_analysis(cache):
    """Every static/power column at sampled points equals ``analyze(...).evaluate``; the
    Pareto front is the one of total (dynamic + static) energy."""
    from polyjoule import analyze

    t2 = default_table().merged({"access_pj": {"DR": 100.0}}, "cheap-dram.yaml")
    spec = _spec(sizes=("N=8:40:8",), arrays="4x4,8x8,2x8", tables=[default_table(), t2])
    r = run_sweep(spec, store=cache)
    c = r.columns
    rng = np.random.default_rng(3)
    for i in rng.choice(len(r), 8, replace=False):
        rows, cols = (int(x) for x in str(c["array"][i]).split("x"))
        table = t2 if c["table"][i] == t2.name else default_table()
        res = analyze("gemm", array=(rows, cols), energy_table=table).evaluate(
            {p: int(c[p][i]) for p in ("NI", "NJ", "NK")})
        assert int(c["latency_cycles"][i]) == res.latency_cycles
        pw = res.power
        for col, want in (("energy_pj", pw.dynamic_pj), ("static_pj", pw.static_pj),
                          ("total_pj", pw.total_pj), ("power_mw", pw.power_mw),
                          ("throughput_ips", pw.throughput_ips),
                          ("energy_per_op_pj", pw.energy_per_op_pj),
                          ("utilisation", res.utilisation),
                          ("edp", pw.total_pj * res.latency_cycles)):
            assert float(c[col][i]) == pytest.approx(want, rel=1e-12), col
    size = np.unique(np.stack([c["NI"], c["NJ"], c["NK"]], 1), axis=0, return_inverse=True)[1]
    assert np.array_equal(c["pareto"], pareto_mask(c["total_pj"], c["latency_cycles"], size.ravel()))


def test_power_columns_finite_beyond_int64(cache):
    """N = 3e6: N**3 iterations exceed int64; counts go exact (Python integers) and every
    float column stays finite and equal to the scalar analysis."""
    from polyjoule import analyze

    n = 3_000_000
    r = run_sweep(_spec(sizes=(f"N={n}",), arrays="4x4"), store=cache)
    c = r.columns
    assert int(c["work"][0]) == n**3 > 2**63
    for col in ("energy_pj", "static_pj", "total_pj", "power_mw", "throughput_ips",
                "energy_per_op_pj", "utilisation", "edp"):
        assert np.isfinite(np.asarray(c[col], dtype=np.float64)).all(), col
    res = analyze("gemm", array=(4, 4)).evaluate({"NI": n, "NJ": n, "NK": n})
    assert float(c["total_pj"][0]) == pytest.approx(res.power.total_pj, rel=1e-12)
    assert float(c["throughput_ips"][0]) == pytest.approx(res.power.throughput_ips, rel=1e-12)


def test_latency_beyond_int64_is_exact_not_wrapped():
    """N = 1e7 on 8x8: the latency (~1.6e19 cycles) leaves int64; the sweep prints it exactly
    (it once wrapped it negative, then refused it); N = 1e6 still equals analyze (every
    column at 1e7 and beyond: tests/dse/test_exact.py)."""
    from typer.testing import CliRunner

    from polyjoule import analyze as api
    from polyjoule.cli import app

    r = CliRunner().invoke(app, ["sweep", "gemm", "-s", "N=10000000", "--arrays", "8x8",
                                 "--no-cache"])
    assert r.exit_code == 0 and "15,625,010,937,500,000,009" in r.output
    spec = SweepSpec(get("gemm"), space.size_grid(get("gemm"), ["N=1000000"]),
                     space.mappings([(8, 8)], [None], [None]))
    res = run_sweep(spec)
    want = api("gemm", (8, 8)).evaluate({"NI": 10**6, "NJ": 10**6, "NK": 10**6}).latency_cycles
    assert int(res.columns["latency_cycles"][0]) == want
