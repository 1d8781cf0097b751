"""The schedule's integer expressions (analysis.intexpr): the algebra's decisions, the
generated code against sympy evaluating the same expressions, and the latency formula
against isl's exact maximum over the executed points (an independent computation)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sympy

from polyjoule.analysis.capacity import FifoRules
from polyjoule.analysis.ilp import exact_latency
from polyjoule.analysis.intexpr import (
    Compiled,
    Num,
    Sym,
    ceil_div,
    extreme,
    floor_div,
    provably_nonneg,
)
from polyjoule.analysis.schedule import Schedule, kernel_schedules
from polyjoule.library.kernels import get

p0, p1, N = Sym("p0"), Sym("p1"), Sym("N")


def test_provably_nonneg_shifts_each_symbol_to_its_minimum() -> None:
    assert provably_nonneg(p0 * p1 - p0, {"p0": 1, "p1": 1})
    assert not provably_nonneg(p0 * p1 - 2 * p0, {"p0": 1, "p1": 1})
    assert provably_nonneg(p0 * p1 - 2 * p0, {"p0": 1, "p1": 2})
    assert provably_nonneg(N - 3, {"N": 3}) and not provably_nonneg(N - 3, {"N": 2})
    # a floor is never proved, unless it cancels as sympy's Add would cancel it
    f = floor_div(N - 1, p0)
    assert not provably_nonneg(f, {"N": 1, "p0": 1})
    assert provably_nonneg(f + 1 - f, {})


def test_floors_fold_as_sympy_folds_them() -> None:
    assert floor_div(Num(0), p0) == 0
    assert ceil_div(2 * N + 4, 2) == N + 2
    for e in (ceil_div(-N + 4, 2), floor_div(N + 3, 2), floor_div(N - 1, p0)):
        assert e.sympy() == sympy.sympify(str(e.sympy()), locals={
            "N": sympy.Symbol("N", integer=True),
            "p0": sympy.Symbol("p0", integer=True, positive=True)})


def test_generated_code_runs_in_int64_or_exactly() -> None:
    e = extreme("Max", [p0 * p1 * N, floor_div(N - 1, p0) + 7])
    fn = Compiled((e,), ("N", "p0", "p1"))
    small = fn(np.array([5, 9]), np.array([2, 3]), np.array([4, 1]))
    assert small.dtype == np.int64 and list(small) == [40, 27]
    big = 2**40
    out = fn(np.array([big]), np.array([big]), np.array([big]))
    assert int(out[0]) == big**3  # past int64: exact Python integers
    again = pickle.loads(pickle.dumps(e))
    assert again == e and again.sympy() == e.sympy()


def _points(s: Schedule, rng: np.random.Generator, n: int) -> tuple[dict, list, list]:
    pra = s.pra
    mins = dict(pra.param_min)
    vals = {k: np.maximum(rng.integers(1, 30, n), mins.get(k, 0)) for k in pra.params}
    ext = [np.broadcast_to(np.asarray(d.extent.evaluate(vals), dtype=np.int64), (n,))
           for d in pra.dims]
    t = s.tiling.t  # tiles per dim: an untiled dim is one tile of the whole extent
    p = [np.maximum(-(-e // t[l]) + (rng.integers(0, 4, n) if t[l] > 1 else 0), 1)
         for l, e in enumerate(ext)]
    return vals, ext, p


#: kernels whose formulas take every form: Piecewise, Max and Min of bounds (deriche,
#: trisolv, lu), triangles (trmm, syrk), a stencil, plain GEMM
KERNELS = ("gemm", "trmm", "syrk", "trisolv", "deriche", "lu", "jacobi-1d")


def _schedules(shape: tuple[int, int]) -> list[tuple[str, Schedule]]:
    out = []
    for name in KERNELS:
        for s in kernel_schedules(get(name), shape):
            if isinstance(s, Schedule):
                out.append((name, s))
    return out


def test_generated_code_equals_sympy() -> None:
    """Every scanning order of kernels of every form: latency, lambdas and FIFO depths from
    the generated code equal sympy's own evaluation of the displayed formulas."""
    rng = np.random.default_rng(11)
    checked = 0
    for _name, s in _schedules((2, 2)):
        vals, _ext, p = _points(s, rng, 2)
        psyms = [sympy.Symbol(f"p{l}", integer=True, positive=True) for l in range(s.pra.n)]
        params = [sympy.Symbol(k, integer=True) for k in s.pra.params]
        for c in s.candidates:
            rules = FifoRules(c, s.pi)
            for j in range(2):
                pj = [int(x[j]) for x in p]
                env = {**dict(zip(psyms, pj, strict=True)),
                       **{x: int(vals[x.name][j]) for x in params}}
                lj, lk = c.lambdas(pj)
                assert list(lj) + list(lk) == [int(x.subs(env)) for x in
                                               (*c.lambda_J, *c.lambda_K)]
                got = rules._fn(*(np.asarray([x]) for x in pj))
                got = got if isinstance(got, list) else [got]
                for f, v in zip(rules.demands, got, strict=False):
                    assert int(np.asarray(v).reshape(-1)[0]) == int(f.depth.sympy().subs(env))
                if c.coupled:
                    continue  # an opaque per-point maximum: checked against isl below
                lat = c.latency_at({k: int(v[j]) for k, v in vals.items()}, pj)
                assert lat == int(c.latency_formula.subs(env)), (c.order, pj)
                checked += 1
    assert checked > 40


@pytest.mark.parametrize("name", ["gemm", "jacobi-1d", "trmm", "trisolv", "lu"])
def test_latency_formula_equals_isl_maximum(name: str) -> None:
    """Where a scanning order is feasible its latency formula is the last finish over the
    executed points, as isl finds it at that point with the order's integer lambdas."""
    rng = np.random.default_rng(5)
    for s in kernel_schedules(get(name), (2, 2)):
        if not isinstance(s, Schedule):
            continue
        vals, ext, p = _points(s, rng, 5)
        for c in s.candidates:
            ok = np.broadcast_to(c.feasible(ext, p), (5,))
            for j in np.flatnonzero(ok):
                v = {k: int(x[j]) for k, x in vals.items()}
                pj = [int(x[j]) for x in p]
                lj, lk = c.lambdas(pj)
                want, offset = exact_latency(s.pra, s.timing, v, pj, lj, lk)
                assert offset == 0 and c.latency_at(v, pj) == want, (name, c.order, v, pj)
