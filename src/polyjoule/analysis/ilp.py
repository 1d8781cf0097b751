"""Schedules found by an integer linear program at one design point (docs/schedule.md).

Where no scanning order is feasible (stencils on small tiles, dependences with negative
components), ``lambda_J`` and ``lambda_K`` come from a mixed-integer program over the
dependence cases that have points at the design point (concrete ``p``, ``t``):

* causality: ``lambda_J . d_j + lambda_K . d_k >= r`` per case;
* the PE issue rate: ``lambda_J`` is *sequential with slack* in some order of the dims whose
  tile has more than one point: ``|lambda_J[o_m]| >= pi + sum_{i<m} |lambda_J[o_i]|*(p-1)``,
  signs free. Two points of a tile then start at least ``pi`` apart (the outermost dim where
  they differ dominates); the order is chosen by the solver (binaries ``y_ab``, big-M);
* objective: the full-tile latency ``|lambda_J| . (p - 1) + |lambda_K| . (t - 1)``.

The solver is HiGHS through :func:`scipy.optimize.milp` (imported only when a design point
needs it). Its answer is re-checked in integer arithmetic; the exact latency of the found
schedule (partial tiles, condition spaces, a start offset for negative coefficients) is an
isl maximum per statement (:func:`~polyjoule.analysis.latency_formula.tiled_extreme`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from polyjoule.analysis.latency_formula import tiled_extreme
from polyjoule.analysis.scan import Dependence
from polyjoule.analysis.timing import Timing
from polyjoule.model.pra import PRA


@dataclass(frozen=True)
class IlpSolution:
    """Integer lambdas found at one design point; ``order``: dims by ``|lambda_J|``."""

    lambda_J: tuple[int, ...]
    lambda_K: tuple[int, ...]
    order: tuple[int, ...]


@dataclass(frozen=True)
class _Layout:
    """Column indices of the program's variables."""

    n: int
    multi: tuple[int, ...]  # dims whose tile has more than one point
    pairs: tuple[tuple[int, int], ...]

    @property
    def size(self) -> int:
        return 5 * self.n + 2 * len(self.pairs)

    def jp(self, l: int) -> int:
        return l

    def jn(self, l: int) -> int:
        return self.n + l

    def kp(self, l: int) -> int:
        return 2 * self.n + l

    def kn(self, l: int) -> int:
        return 3 * self.n + l

    def sign(self, l: int) -> int:
        return 4 * self.n + l

    def y(self, q: int) -> int:
        return 5 * self.n + q

    def z(self, q: int) -> int:
        return 5 * self.n + len(self.pairs) + q


def _dj(d: Dependence, p: Sequence[int]) -> list[int]:
    return [dist - k * pl for dist, k, pl in zip(d.dist, d.d_k, p, strict=True)]


def _columns(lay: _Layout, p: Sequence[int], t: Sequence[int], u_j: int, u_k: int, big: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Objective (full-tile latency) and variable bounds; unused lambdas are fixed at 0."""
    lo, hi, cost = np.zeros(lay.size), np.zeros(lay.size), np.zeros(lay.size)
    for l in range(lay.n):
        if p[l] > 1:
            hi[[lay.jp(l), lay.jn(l)]] = u_j
            cost[[lay.jp(l), lay.jn(l)]] = p[l] - 1
        if t[l] > 1:
            hi[[lay.kp(l), lay.kn(l)]] = u_k
            cost[[lay.kp(l), lay.kn(l)]] = t[l] - 1
        hi[lay.sign(l)] = 1
    for q in range(len(lay.pairs)):
        hi[lay.y(q)], hi[lay.z(q)] = 1, big
    return cost, lo, hi


def _program(deps: Sequence[Dependence], pi: int, p: Sequence[int], t: Sequence[int]
             ) -> tuple[_Layout, np.ndarray, list[list[float]], list[float], list[float],
                        np.ndarray, np.ndarray, np.ndarray]:
    """(layout, cost, rows, row lower, row upper, var lower, var upper, integrality)."""
    n = len(p)
    multi = tuple(l for l in range(n) if p[l] > 1)
    pairs = tuple((a, b) for a in multi for b in multi if a != b)
    lay = _Layout(n, multi, pairs)
    span = max([1, *(abs(x) for d in deps for x in d.dist)])
    u_j = (pi + max((d.r for d in deps), default=1) + span) * int(np.prod([max(1, x) for x in p])) * 4
    big = u_j * max(p)
    u_k = big * n
    cost, lo, hi = _columns(lay, p, t, u_j, u_k, big)
    rows: list[list[float]] = []
    rlo: list[float] = []
    rhi: list[float] = []

    def row(coef: Mapping[int, float], a: float, b: float) -> None:
        r = [0.0] * lay.size
        for i, c in coef.items():
            r[i] += c
        rows.append(r)
        rlo.append(a)
        rhi.append(b)

    inf = np.inf
    for d in deps:  # causality
        coef: dict[int, float] = {}
        for l, x in enumerate(_dj(d, p)):
            coef[lay.jp(l)] = coef.get(lay.jp(l), 0) + x
            coef[lay.jn(l)] = coef.get(lay.jn(l), 0) - x
            coef[lay.kp(l)] = coef.get(lay.kp(l), 0) + d.d_k[l]
            coef[lay.kn(l)] = coef.get(lay.kn(l), 0) - d.d_k[l]
        row(coef, d.r, inf)
    for l in multi:  # one sign per dim: jp <= U s, jn <= U (1 - s)
        row({lay.jp(l): 1, lay.sign(l): -u_j}, -inf, 0)
        row({lay.jn(l): 1, lay.sign(l): u_j}, -inf, u_j)
    for q, (a, b) in enumerate(pairs):  # z_ab >= (p_a - 1)|lambda_a| when a is inside b
        row({lay.z(q): 1, lay.jp(a): -(p[a] - 1), lay.jn(a): -(p[a] - 1), lay.y(q): -big},
            -big, inf)
        if a < b:
            row({lay.y(q): 1, lay.y(pairs.index((b, a))): 1}, 1, 1)
    for b in multi:  # |lambda_b| >= pi + sum of what lies inside b
        row({lay.jp(b): 1, lay.jn(b): 1,
             **{lay.z(q): -1 for q, (_a, bb) in enumerate(pairs) if bb == b}}, pi, inf)
    integral = np.ones(lay.size)
    integral[[lay.z(q) for q in range(len(pairs))]] = 0
    return lay, cost, rows, rlo, rhi, lo, hi, integral


def _verify(deps: Sequence[Dependence], pi: int, p: Sequence[int], lj: Sequence[int],
            lk: Sequence[int], order: Sequence[int]) -> bool:
    """Integer re-check of the solver's answer (it works in floating point)."""
    for d in deps:
        if sum(a * x for a, x in zip(lj, _dj(d, p), strict=True)) + sum(
                a * x for a, x in zip(lk, d.d_k, strict=True)) < d.r:
            return False
    inner = 0
    for l in order:
        if p[l] > 1:
            if abs(lj[l]) < pi + inner:
                return False
            inner += abs(lj[l]) * (p[l] - 1)
    return True


def solve(deps: Sequence[Dependence], pi: int, p: Sequence[int], t: Sequence[int]
          ) -> IlpSolution | None:
    """The schedule of minimal full-tile latency satisfying ``deps`` at tile sizes ``p`` and
    effective tile counts ``t``, or ``None`` when there is none."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    lay, cost, rows, rlo, rhi, lo, hi, integral = _program(deps, pi, p, t)
    cons = LinearConstraint(np.array(rows), rlo, rhi) if rows else ()
    res = milp(cost, constraints=cons, integrality=integral, bounds=Bounds(lo, hi),
               options={"time_limit": 10.0})
    if res.status != 0 or res.x is None:
        return None
    x = np.rint(res.x).astype(np.int64)
    n = lay.n
    lj = tuple(int(x[lay.jp(l)] - x[lay.jn(l)]) if p[l] > 1 else 0 for l in range(n))
    lk = tuple(int(x[lay.kp(l)] - x[lay.kn(l)]) if t[l] > 1 else 0 for l in range(n))
    order = tuple(sorted(range(n), key=lambda l: (p[l] <= 1, abs(lj[l]), l)))
    return IlpSolution(lj, lk, order) if _verify(deps, pi, p, lj, lk, order) else None


def forbidding(deps: Sequence[Dependence], pi: int, p: Sequence[int], t: Sequence[int]
               ) -> list[Dependence]:
    """A small set of the cases that together admit no schedule: one case alone when one
    does, else the first pair, else all of them."""
    for q in deps:
        if solve([q], pi, p, t) is None:
            return [q]
    for a, b in itertools.combinations(deps, 2):
        if solve([a, b], pi, p, t) is None:
            return [a, b]
    return list(deps)


def exact_latency(pra: PRA, timing: Timing, values: Mapping[str, int], p: Sequence[int],
                  lambda_J: Sequence[int], lambda_K: Sequence[int]) -> tuple[int, int]:
    """(latency, start offset): the offset makes the earliest iteration start at cycle 0;
    the latency is the last finish ``max(start + tau_q + w_q)`` over executed instances."""
    dims = pra.dim_names
    first = tiled_extreme(dims, pra.domain(), values, p, lambda_J, lambda_K, "min")
    offset = -first if first is not None else 0
    fins: dict[frozenset, int] = {}
    for s in pra.statements:
        key = frozenset(pra.statement_space(s))
        fins[key] = max(fins.get(key, 0), timing.fin(s.id))
    last = 0
    for cons, fin in fins.items():
        top = tiled_extreme(dims, tuple(cons), values, p, lambda_J, lambda_K, "max")
        if top is not None:
            last = max(last, top + offset + fin)
    return last, offset
