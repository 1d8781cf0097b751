"""Schedules found by the integer program (analysis.ilp): stencils on small tiles and
dependences with negative components, each checked against the reference simulator (an
independent execution: causality, issue rate, registers, outputs against numpy)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import yaml

from polyjoule.analysis import analyze
from polyjoule.analysis.ilp import solve
from polyjoule.analysis.schedule import kernel_latency, kernel_schedules
from polyjoule.analysis.simulator import simulate
from polyjoule.errors import InfeasibleSchedule
from polyjoule.frontends.pra_yaml import load_kernel_data
from polyjoule.library import kernels as registry
from polyjoule.mapping.legality import phase_reason
from polyjoule.model.pra import Kernel

#: y[i] = x[i] + y[i + 1]: a suffix sum, dependence -1 (no scanning order runs it).
SUFFIX_1D = """
name: suffix-1d
params: {N: 1}
dims: [{name: i, lower: 0, upper: N - 1}]
tensors: {X: {shape: [N], kind: input}, Z: {shape: [1], kind: input},
          Y: {shape: [N], kind: output}}
statements:
  - {id: S1, var: x, input: "X[i]"}
  - {id: S2, var: sp, from: s, dep: [-1], when: "i <= N - 2"}
  - {id: S3, var: sp, input: "Z[0]", when: "i == N - 1"}
  - {id: S4, var: s, compute: "x + sp"}
  - {id: S5, var: s, output: "Y[i]"}
"""

#: Row-wise suffix sums of a matrix, plus a column recurrence going down: deps (0,-1), (1,0).
SUFFIX_2D = """
name: suffix-2d
params: {M: 1, N: 1}
dims: [{name: r, lower: 0, upper: M - 1}, {name: i, lower: 0, upper: N - 1}]
tensors: {X: {shape: [M, N], kind: input}, Z: {shape: [1], kind: input},
          Y: {shape: [M, N], kind: output}}
statements:
  - {id: S1, var: x, input: "X[r, i]"}
  - {id: S2, var: sp, from: s, dep: [0, -1], when: "i <= N - 2"}
  - {id: S3, var: sp, input: "Z[0]", when: "i == N - 1"}
  - {id: S4, var: up, from: s, dep: [1, 0], when: "r >= 1"}
  - {id: S5, var: up, input: "Z[0]", when: "r == 0"}
  - {id: S6, var: s, compute: "x + sp + up"}
  - {id: S7, var: s, output: "Y[r, i]"}
"""


def _suffix_1d(arrays: dict, values: dict) -> dict:
    x, z = arrays["X"], arrays["Z"][0]
    return {"Y": np.cumsum(x[::-1])[::-1] + z}


def _suffix_2d(arrays: dict, values: dict) -> dict:
    x, z = arrays["X"], arrays["Z"][0]
    y = np.zeros_like(x)
    for r in range(x.shape[0]):
        carry = z
        for i in range(x.shape[1] - 1, -1, -1):
            carry = x[r, i] + carry + (y[r - 1, i] if r else z)
            y[r, i] = carry
    return {"Y": y}


def _kernel(text: str, ref) -> Kernel:  # type: ignore[no-untyped-def]
    return dataclasses.replace(load_kernel_data(yaml.safe_load(text), "test"), reference=ref)


def _validate(k: Kernel, array: tuple[int, int], values: dict[str, int]) -> None:
    """Counts, energy inputs and latency: symbolic == simulated; the simulator's checks hold."""
    r = simulate(k, array, values=values)
    assert r.ok, (values, r.checks, r.violations)
    assert kernel_latency(kernel_schedules(k, array), values) == r.makespan
    sym = analyze(k, array=array).evaluate(values)
    assert sym.counts == r.counts, values


def test_jacobi_1d_small_tiles_has_a_schedule() -> None:
    """The issue's example: no scanning order exists on 2x2 at TSTEPS=3, N=4."""
    k = registry.get("jacobi-1d")
    values = {"TSTEPS": 3, "N": 4}
    (s,) = kernel_schedules(k, (2, 2))
    c = s.at(values)
    assert c.method in {"skew", "ilp"}
    assert not any(bool(x.feasible([3, 4], c.p)) for x in s.candidates)
    _validate(k, (2, 2), values)


def test_gesummv_keeps_the_sheet_schedule() -> None:
    """The scanning fast path is unchanged where it is feasible (method sheet section 5)."""
    (s,) = kernel_schedules(registry.get("gesummv"), (2, 2))
    c = s.at({"N0": 4, "N1": 6})
    assert (c.method, c.lambda_J, c.lambda_K, c.latency) == ("scan", (1, 2), (2, 5), 16)


@pytest.mark.parametrize("array", [(1, 4), (1, 3), (1, 8)])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 11])
def test_negative_dependence_1d(array: tuple[int, int], n: int) -> None:
    k = _kernel(SUFFIX_1D, _suffix_1d)
    _validate(k, array, {"N": n})
    (s,) = kernel_schedules(k, array)
    c = s.at({"N": n})
    if n > 1:  # a negative direction: the last iteration starts first
        assert c.lambda_J[0] < 0 or c.lambda_K[0] < 0


@pytest.mark.parametrize("array", [(2, 2), (3, 2), (4, 4)])
@pytest.mark.parametrize("m, n", [(2, 3), (5, 4), (7, 9)])
def test_negative_dependence_2d(array: tuple[int, int], m: int, n: int) -> None:
    _validate(_kernel(SUFFIX_2D, _suffix_2d), array, {"M": m, "N": n})


def test_sweep_latency_uses_the_integer_program() -> None:
    """The vectorised (sweep) latency fills points only the integer program schedules."""
    k = _kernel(SUFFIX_1D, _suffix_1d)
    (s,) = kernel_schedules(k, (1, 4))
    ns = np.array([3, 6, 9, 13])
    want = [s.latency({"N": int(n)}) for n in ns]
    assert list(s.latency_many({"N": ns})) == want
    assert list(s.compiled_latency({"N": ns})) == want
    assert min(want) > 0


def test_no_schedule_names_the_forbidding_case() -> None:
    """Opposite dependences along one dim: no start times exist, the reason names a case."""
    # N >= 2: the load-time check refuses a dependence source outside the domain (i = -1)
    text = SUFFIX_1D.replace('- {id: S3, var: sp, input: "Z[0]", when: "i == N - 1"}',
                             '- {id: S3, var: sp, from: s, dep: [1], when: "i == N - 1"}'
                             ).replace("params: {N: 1}", "params: {N: 2}")
    k = _kernel(text, None)
    (s,) = kernel_schedules(k, (1, 4))
    why = phase_reason(k.phases[0], s.tiling, {"N": 8}, s)
    assert why is not None and why.cause == "no-schedule"
    assert "S2" in why.detail or "S3" in why.detail
    with pytest.raises(InfeasibleSchedule):
        s.at({"N": 8})


def test_solver_answers_are_minimal_and_sequential() -> None:
    """Brute force over small lambdas agrees with the program's optimum (one intra and one
    inter case of a (1, -1) dependence on 2x2 tiles)."""
    (s,) = kernel_schedules(registry.get("jacobi-1d"), (2, 2))
    p, t = (2, 2), (2, 2)
    deps = [d for d in s.deps if bool(d.nonempty([3, 4], p))]
    sol = solve(deps, 1, p, t)
    assert sol is not None
    cost = sum(abs(a) * (x - 1) for a, x in zip(sol.lambda_J, p, strict=True)) + sum(
        abs(a) * (x - 1) for a, x in zip(sol.lambda_K, t, strict=True))
    lk0, lk1 = np.meshgrid(np.arange(-30, 31), np.arange(-30, 31), indexing="ij")
    best = None
    for lj0 in range(-12, 13):
        for lj1 in range(-12, 13):
            starts = sorted(lj0 * a + lj1 * b for a in range(2) for b in range(2))
            if min(np.diff(starts)) < 1:  # two iterations of a PE less than pi apart
                continue
            ok = np.ones(lk0.shape, dtype=bool)
            for d in deps:
                dj = [x - k * q for x, k, q in zip(d.dist, d.d_k, p, strict=True)]
                ok &= dj[0] * lj0 + dj[1] * lj1 + d.d_k[0] * lk0 + d.d_k[1] * lk1 >= d.r
            if ok.any():
                c = int((abs(lj0) + abs(lj1) + np.abs(lk0) + np.abs(lk1))[ok].min())
                best = c if best is None else min(best, c)
    assert cost == best


def test_sweep_schedules_small_stencil_tiles() -> None:
    """A sweep (compiled latency, legality verdict) gives the points only the integer program
    schedules the latency the simulator measures."""
    from polyjoule.dse import space
    from polyjoule.dse.sweep import SweepSpec, run_sweep

    k = registry.get("jacobi-1d")
    spec = SweepSpec(k, space.size_grid(k, ["TSTEPS=3", "N=4,5,10"]),
                     space.mappings(space.parse_arrays("2x2"), space.parse_tiles([]),
                                    space.parse_orders(k, "auto")))
    r = run_sweep(spec)
    for n, lat in zip(r.columns["N"].tolist(), r.columns["latency_cycles"].tolist(), strict=True):
        assert lat == simulate(k, (2, 2), values={"TSTEPS": 3, "N": n}).makespan, n
