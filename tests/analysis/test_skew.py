"""Skewed scanning orders (analysis.skew): where no scanning order is causal, a family whose
lambdas and latency are formulas in the tile sizes runs the point; it is never better than
the integer program (which could not be optimal otherwise) and, on the stencils' small
tiles, equal to it. Its latency formula equals isl's exact maximum and the simulator's
makespan; its FIFO rules equal those of the program's schedule."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy

from polyjoule.analysis.ilp import exact_latency, solve
from polyjoule.analysis.schedule import Schedule, kernel_schedules
from polyjoule.analysis.simulator import simulate
from polyjoule.analysis.skew import lift, schedule_mins, skewed_lambda_J
from polyjoule.analysis.symbols import p_sym
from polyjoule.errors import PolyjouleError
from polyjoule.library import kernels as registry
from polyjoule.mapping.tiling import min_tile

STENCILS = [("jacobi-1d", (1, 4)), ("jacobi-1d", (2, 2)), ("jacobi-2d", (2, 2)),
            ("seidel-2d", (2, 2)), ("fdtd-2d", (2, 2))]


def _objective(lj, lk, p, t) -> int:  # type: ignore[no-untyped-def]
    """The program's objective, the full-tile latency ``|lambda_J|.(p-1) + |lambda_K|.(t-1)``."""
    return sum(abs(a) * (q - 1) for a, q in zip(lj, p, strict=True)) + sum(
        abs(a) * (x - 1) for a, x in zip(lk, t, strict=True))


def _gaps(s: Schedule, pmax: int, tmax: int):  # type: ignore[no-untyped-def]
    """(extents, tile sizes) where no scanning order is causal: tile sizes beyond the ones
    the families were lifted from, up to ``tmax`` tiles with a partial last one."""
    need = min_tile(s.pra)
    sizes = [range(need[l], pmax + 1) if s.tiling.tiled(l) else range(need[l], 6)
             for l in range(s.pra.n)]
    for p in itertools.product(*sizes):
        for tt in itertools.product(*[range(1, tmax + 1) if s.tiling.tiled(l) else [1]
                                      for l in range(s.pra.n)]):
            e = tuple(q * x - (x > 1 and q > 1) for q, x in zip(p, tt, strict=True))
            if not any(bool(c.feasible(e, p)) for c in s.pool):
                yield e, p


def test_skewed_lambda_j_is_a_scanning_order_with_slack() -> None:
    from polyjoule.analysis.intexpr import p_sym as int_p  # the families' integer expressions

    p0, p1 = int_p(0), int_p(1)
    assert skewed_lambda_J(2, (1, 0), 1, (0, 0)) == (p1, 1)  # the scanning order i inside t
    assert skewed_lambda_J(2, (1, 0), 1, (2, 0)) == (p1 + 2, 1)
    assert skewed_lambda_J(2, (0, 1), 3, (1, 1)) == (4, 4 * p0)
    assert lift((4, 1), (2, 2), (1, 0), 1) == ((1, 0), (2, 0))
    assert lift((4, -1), (2, 2), (1, 0), 1) is None  # a negative sign is no scanning order
    assert lift((2, 0, 0), (2, 1, 1), (0, 1, 2), 1) == ((1, 2, 0), (1, 0, 0))  # p = 1: innermost


@pytest.mark.parametrize("name, array", STENCILS, ids=[f"{n}-{a[0]}x{a[1]}" for n, a in STENCILS])
def test_family_never_beats_and_matches_the_program(name: str, array: tuple[int, int]) -> None:
    (s,) = kernel_schedules(registry.get(name), array)
    seen = 0
    for e, p in _gaps(s, 6, 3):
        t = tuple(-(-x // q) for x, q in zip(e, p, strict=True))
        sol = solve([d for d in s.deps if bool(d.nonempty(e, p))], s.pi, p, t)
        assert sol is not None
        fams = [f for f in s.skew.families if bool(f.feasible(e, p))]
        assert fams, (e, p)
        best = min(_objective(*f.lambdas(p), p, t) for f in fams)
        assert best == _objective(sol.lambda_J, sol.lambda_K, p, t), (e, p)
        seen += 1
    assert seen > 0 or array == (1, 4) and name != "jacobi-1d"


@pytest.mark.parametrize("name, array", [("jacobi-1d", (2, 2)), ("jacobi-1d", (4, 4)),
                                         ("fdtd-2d", (2, 2)), ("seidel-2d", (4, 4))])
def test_family_latency_is_the_exact_maximum(name: str, array: tuple[int, int]) -> None:
    """The family's latency formula against isl's maximum of the start times over the tiled
    points of every statement (the program's exact latency), per point."""
    (s,) = kernel_schedules(registry.get(name), array)
    params = list(dict(p for p in s.pra.param_min))
    seen = 0
    for v in itertools.product(range(2, 9), repeat=len(params)):
        vals = dict(zip(params, v, strict=True))
        try:
            c = s.at(vals)
        except PolyjouleError:
            continue
        if c.method != "skew":
            continue
        lat, offset = exact_latency(s.pra, s.timing, vals, c.p, c.lambda_J, c.lambda_K)
        assert (c.latency, c.offset) == (lat, offset), vals
        assert c.latency == s.ilp_at(vals, c.p).latency, vals
        seen += 1
    assert seen > 0


@pytest.mark.parametrize("name, array", [("jacobi-1d", (2, 2)), ("fdtd-2d", (2, 2)),
                                         ("seidel-2d", (4, 4))])
def test_skewed_schedules_simulate(name: str, array: tuple[int, int]) -> None:
    """Tiles of 1 and 2: the simulator runs the skewed schedule causally, with the makespan
    the formula gives and the kernel's reference outputs."""
    k = registry.get(name)
    (s,) = kernel_schedules(k, array)
    params = list(dict(p for p in s.pra.param_min))
    runs = 0
    for v in itertools.product(range(2, 7), repeat=len(params)):
        vals = dict(zip(params, v, strict=True))
        try:
            c = s.at(vals)
        except PolyjouleError:
            continue
        if c.method != "skew" or min(c.p) > 2:
            continue
        r = simulate(k, array, values=vals)
        assert r.ok, (vals, r.checks, r.violations)
        assert r.makespan == c.latency, vals
        runs += 1
        if runs == 3:
            break
    assert runs > 0


def test_vectorised_latency_fills_skewed_points_without_the_program() -> None:
    (s,) = kernel_schedules(registry.get("jacobi-1d"), (4, 4))
    s._ilp.clear()  # the schedules are shared within the process
    grid = {"TSTEPS": np.repeat(np.arange(3, 12), 9), "N": np.tile(np.arange(3, 12), 9)}
    many = s.latency_many(grid)
    need = min_tile(s.pra)
    solved = [key for key in s._ilp if all(q >= m for q, m in zip(key[1], need, strict=True))]
    for q in range(many.size):
        vals = {k: int(x[q]) for k, x in grid.items()}
        try:
            c = s.at(vals)
        except PolyjouleError:
            assert many[q] == -1
            continue
        assert many[q] == c.latency
        if c.method == "skew":
            assert many[q] == s.ilp_at(vals, c.p).latency
    assert solved == []  # no program solved at a legal tile size (the tiling rules refuse
    # the others; the verdict still asks the program there, at tiles below a dependence)


def test_fifo_rules_match_the_program_schedule() -> None:
    """``fd-depth`` and ``fd-count`` of the skewed family (the search's fast path) equal the
    rules of the program's integer schedule at the same points."""
    from polyjoule.analysis.capacity import FifoRules
    from polyjoule.targets.tcpa.pricing import _Fixed

    (s,) = kernel_schedules(registry.get("seidel-2d"), (2, 2))
    checked = 0
    for e, p in itertools.islice(_gaps(s, 5, 3), 0, None, 4):
        vals = {"TSTEPS": np.asarray([e[0]]), "N": np.asarray([e[1] + 2])}
        found, (_, depth, count, _) = s.skew.points(vals, [np.asarray([x]) for x in e],
                                                    [np.asarray([x]) for x in p], np.ones(1, bool))
        assert found[0]
        t = tuple(-(-x // q) for x, q in zip(e, p, strict=True))
        sol = solve([d for d in s.deps if bool(d.nonempty(e, p))], s.pi, p, t)
        rules = FifoRules(_Fixed(s.pra, sol.lambda_J, tuple(s.deps)), s.pi)
        d, m, _ = rules.needs([np.asarray([x]) for x in e], [np.asarray([x]) for x in p], vals)
        assert (int(depth[0]), int(count[0])) == (int(d[0]), int(m[0])), (e, p)
        checked += 1
    assert checked > 0


def test_region_agrees_with_the_per_point_check() -> None:
    """The symbolic region (conditions not provable for every tile size) against the
    per-point causality check, where every case has points."""
    (s,) = kernel_schedules(registry.get("jacobi-1d"), (2, 2))
    mins = schedule_mins(s.pra)
    by_skew = {f.skew: f for f in s.skew.families}
    assert [str(c) for c in by_skew[(1, 0)].region(mins)] == ["p1 - 3 >= 0"]
    for f in s.skew.families:
        conds = f.region(mins)
        for p in itertools.product(range(3, 9), range(3, 9)):
            e = (2 * p[0], 2 * p[1])
            at = {p_sym(0): p[0], p_sym(1): p[1]}
            holds = all(c.lhs.subs(at) >= c.rhs for c in conds)
            assert holds == bool(f.feasible(e, p)), (f.label, p)
    assert any(isinstance(c, sympy.Rel) for f in s.skew.families for c in f.region(mins))


def test_families_pickle_after_use() -> None:
    """The sweep's formula cache pickles schedules; the families travel with them."""
    import pickle

    (s,) = kernel_schedules(registry.get("jacobi-1d"), (2, 2))
    vals = {"TSTEPS": 3, "N": 4}
    assert s.at(vals).method == "skew"
    s.skew.fifo(0)  # compiled rules are dropped, rebuilt on use
    back = pickle.loads(pickle.dumps(s))
    assert len(back.skew.families) == len(s.skew.families)
    assert back.at(vals) == s.at(vals)
