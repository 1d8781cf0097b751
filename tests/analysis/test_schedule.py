"""Symbolic schedule and exact latency (method sheet section 5)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy

from polyjoule.analysis.schedule import (
    derive_schedule,
    kernel_latency,
    kernel_schedules,
    p_sym,
    statement_timing,
    t_sym,
)
from polyjoule.errors import InfeasibleSchedule, SpecError
from polyjoule.library import kernels as registry
from polyjoule.mapping.tiling import Tiling

p0, p1 = p_sym(0), p_sym(1)


def _gesummv(array=(2, 2), **kw):
    pra = registry.get("gesummv").phases[0]
    return derive_schedule(pra, Tiling.of(pra, array), **kw)


def test_worked_example_gesummv() -> None:
    s = _gesummv()
    assert s.order == ("i0", "i1")  # innermost first
    assert s.L_c == 4
    assert [sympy.simplify(a - b) for a, b in zip(s.lambda_J, (1, p0), strict=True)] == [0, 0]
    assert [sympy.simplify(a - b) for a, b in
            zip(s.lambda_K, (p0, p0 * (p1 - 1) + 1), strict=True)] == [0, 0]
    assert s.latency({"N0": 4, "N1": 6}) == 16  # p = (2, 3), t = (2, 2)
    sheet = (p0 * p1 - 1) + p0 * (t_sym(0) - 1) + (p0 * (p1 - 1) + 1) * (t_sym(1) - 1) + 4
    assert sympy.expand(s.sheet_formula - sheet) == 0
    assert sheet.subs({p0: 2, p1: 3, t_sym(0): 2, t_sym(1): 2}) == 16
    cs = s.at({"N0": 4, "N1": 6})
    assert (cs.lambda_J, cs.lambda_K, cs.p, cs.t, cs.latency) == ((1, 2), (2, 5), (2, 3), (2, 2), 16)


def test_gesummv_offsets() -> None:
    t = statement_timing(registry.get("gesummv").phases[0])
    assert t.tau["S3"] == 0 and t.tau["S5"] == 1 and t.tau["S9"] == 2
    assert t.tau["S13"] == 3 and t.tau["S14"] == 4 and t.L_c == 4
    assert t.tau["S7"] == 2  # a d != 0 transport is read when its reader starts


@pytest.mark.parametrize("array", [(2, 2), (2, 3), (3, 3)])
def test_full_tiles_equal_the_sheet_formula(array: tuple[int, int]) -> None:
    s = _gesummv(array, order=(0, 1))
    for a, b in itertools.product(range(1, 6), repeat=2):
        vals = {"N0": a * array[0], "N1": b * array[1]}
        env = {p0: a, p1: b, t_sym(0): array[0], t_sym(1): array[1]}
        assert s.latency(vals) == int(s.sheet_formula.subs(env)), vals


def test_partial_tiles_and_condition_spaces_brute_force() -> None:
    """Latency = max(start + tau + w) over executed points, walked point by point."""
    for name, array in [("gesummv", (2, 2)), ("trisolv", (2, 2)), ("bicg", (1, 4)),
                        ("trisolv", (1, 3))]:
        pra = registry.get(name).phases[0]
        s = derive_schedule(pra, Tiling.of(pra, array))
        done = 0
        for n in range(3, 12):
            vals = {p: n + k for k, p in enumerate(pra.params)}
            try:
                cs = s.at(vals)
            except InfeasibleSchedule:
                continue  # tiles too small for this order: refused, never wrong
            done += 1
            best = 0
            for point in itertools.product(*(range(d.extent.evaluate(vals)) for d in pra.dims)):
                env = {**vals, **dict(zip(pra.dim_names, point, strict=True))}
                if not all(c.holds(env) for c in pra.domain()):
                    continue
                j = [x % p for x, p in zip(point, cs.p, strict=True)]
                k = [x // p for x, p in zip(point, cs.p, strict=True)]
                start = sum(a * b for a, b in zip(cs.lambda_J, j, strict=True)) + sum(
                    a * b for a, b in zip(cs.lambda_K, k, strict=True))
                for st in pra.statements:
                    if all(c.holds(env) for c in st.when):
                        best = max(best, start + cs.timing.fin(st.id))
            assert cs.latency == best, (name, array, vals)
        assert done >= 5


def test_vectorised_latency_equals_scalar() -> None:
    s = _gesummv((4, 4))
    n0, n1 = np.meshgrid(np.arange(4, 60, 3), np.arange(4, 70, 5), indexing="ij")
    got = s.latency_many({"N0": n0, "N1": n1})
    want = np.vectorize(lambda a, b: s.latency({"N0": int(a), "N1": int(b)}))(n0, n1)
    assert np.array_equal(got, want)


def test_integer_evaluation_at_huge_sizes() -> None:
    s = _gesummv((8, 8), order=("i0", "i1"))
    n = 10**12 + 7
    p = -(-n // 8)
    lk1 = p * (p - 1) + 1
    want = ((n - 1) % p) + p * ((n - 1) // p) + p * ((n - 1) % p) + lk1 * ((n - 1) // p) + 4
    assert s.latency({"N0": n, "N1": n}) == want


def test_formula_is_readable_and_latex() -> None:
    s = _gesummv((8, 8))
    assert "floor" in str(s.chosen.latency_formula)
    assert "\\left\\lfloor" in s.latex()


def test_pi_and_w_scale_the_schedule() -> None:
    s = _gesummv(pi=3, w=2)
    assert sympy.simplify(s.lambda_J[0] - 3) == 0 and sympy.simplify(s.lambda_J[1] - 3 * p0) == 0
    assert s.L_c == 1 + 2 + 2 + 2
    # results after 3 cycles, iterations at least 2 apart: no scanning order (its recurrence
    # step is pi = 2), but the integer program spaces the recurrence 3 apart
    slow = _gesummv(pi=2, w=3)
    assert slow.candidates == [] and slow.chosen is None
    from polyjoule.analysis.simulator import simulate

    values = {"N0": 5, "N1": 7}
    c = slow.at(values)
    assert c.method in {"skew", "ilp"} and max(abs(x) for x in c.lambda_J) >= 3
    sim = simulate(registry.get("gesummv"), (2, 2), values=values, pi=2, w=3)
    assert sim.ok, sim.violations
    assert sim.makespan == c.latency
    t = statement_timing(registry.get("gesummv").phases[0], op_latency={"mul": 4})
    assert t.L_c == 1 + 4 + 1 + 4


def test_infeasible_requests() -> None:
    with pytest.raises(InfeasibleSchedule, match="pipeline interval"):
        _gesummv(pi=0)
    with pytest.raises(InfeasibleSchedule, match="--w -1: the operation latency"):
        _gesummv(w=-1)
    pra = registry.get("jacobi-1d").phases[0]
    # t innermost: the dependence (1, -2) goes backwards in the scan
    with pytest.raises(InfeasibleSchedule, match="violates"):
        derive_schedule(pra, Tiling.of(pra, (1, 4)), order=("t", "i"))
    with pytest.raises(SpecError, match="no dim"):
        _gesummv(order=("i0", "zz"))
    with pytest.raises(SpecError, match="permutation"):
        _gesummv(order=(0, 0))


def test_phases_add() -> None:
    k = registry.get("2mm")
    scheds = kernel_schedules(k, (2, 2))
    vals = {"NI": 6, "NJ": 7, "NK": 8, "NL": 9}
    assert len(scheds) == 2
    assert kernel_latency(scheds, vals) == sum(
        s.latency({p: vals[p] for p in s.pra.params}) for s in scheds)


def test_candidates_one_per_feasible_order() -> None:
    s = _gesummv()
    assert sorted(c.order for c in s.candidates) == [(0, 1), (1, 0)]
    # the automatic schedule takes the best candidate per point
    vals = {"N0": 16, "N1": 3}
    assert s.latency(vals) == min(c.latency_at(vals, s.sizes(vals)) for c in s.candidates)


@pytest.mark.parametrize("name", ["syrk", "trmm", "symm", "trisolv"])
def test_triangular_spaces_have_closed_forms(name: str) -> None:
    """The componentwise-largest point of a triangle finishes last: no per-point ILP."""
    for s in kernel_schedules(registry.get(name), (4, 4)):
        f = s.chosen.latency_formula
        assert not f.has(sympy.core.function.AppliedUndef), f
        vals = {p: 11 for p in s.pra.params}
        grid = {p: np.array([9, 11, 13]) for p in s.pra.params}
        many = s.latency_many(grid)
        assert many[1] == s.latency(vals)


def test_vectorised_latency_marks_infeasible_points() -> None:
    from polyjoule.errors import PolyjouleError

    s = kernel_schedules(registry.get("jacobi-1d"), (4, 4))[0]
    grid = {"TSTEPS": np.arange(3, 30), "N": np.arange(3, 30)}
    many = s.latency_many(grid)
    methods = set()
    for q in range(len(many)):
        vals = {p: int(grid[p][q]) for p in grid}
        try:
            want = s.latency(vals)
            methods.add(s.at(vals).method)
        except PolyjouleError:
            want = -1
        assert many[q] == want, vals
    assert (many == -1).any() and (many > 0).any()
    assert "scan" in methods and len(methods) > 1  # small tiles: skewed orders or the program


@pytest.mark.parametrize("name", ["gesummv", "trisolv", "covariance"])
def test_schedules_pickle_after_use(name: str) -> None:
    """The sweep's formula cache pickles schedules, also after they were evaluated."""
    import pickle

    k = registry.get(name)
    vals = {p: 9 for p in k.params}
    scheds = kernel_schedules(k, (2, 2))
    before = kernel_latency(scheds, vals)
    assert kernel_latency(pickle.loads(pickle.dumps(scheds)), vals) == before


@pytest.mark.parametrize(("name", "array", "values"), [
    ("deriche", (1, 1), {"W": 1, "H": 1}),  # a 1x1 array, single-iteration space
    ("deriche", (2, 2), {"W": 1, "H": 1}),
    ("fdtd-2d", (2, 2), {"TMAX": 1, "NX": 2, "NY": 2}),  # tile sizes of 1
    ("jacobi-1d", (1, 1), {"TSTEPS": 1, "N": 3}),
    ("jacobi-1d", (2, 2), {"TSTEPS": 1, "N": 3}),
    ("trisolv", (1, 1), {"N": 1}),
    ("trisolv", (2, 2), {"N": 1}),
])
def test_empty_dependence_cases_do_not_constrain(name, array, values) -> None:
    """These points were refused ("S5 (intra) needs lambda.d >= 1") for a case with no points
    there; the simulator runs them, and the schedule's latency is its makespan."""
    from polyjoule.analysis.simulator import simulate

    k = registry.get(name)
    sim = simulate(k, array, None, values)
    assert sim.ok, sim.violations
    assert kernel_latency(kernel_schedules(k, array), values) == sim.makespan


def test_unschedulable_point_names_a_case_with_points(brute_counts) -> None:
    """jacobi-1d at TSTEPS=3, N=4 on 2x2 with the scanning order i/t (the user's choice, no
    integer program): infeasible there; the case named has points."""
    k = registry.get("jacobi-1d")
    values = {"TSTEPS": 3, "N": 4}
    with pytest.raises(InfeasibleSchedule) as refused:
        kernel_latency(kernel_schedules(k, (2, 2), order=("i", "t")), values)
    why = refused.value.reason
    assert why.cause == "no-schedule"
    statement, case = why.detail.split(": ")[-1].split(" needs")[0].split(" ")
    counts = brute_counts(k.phases[0], (2, 2), values)
    assert counts.get((statement, case.strip("()")), 0) > 0, (why, counts)
