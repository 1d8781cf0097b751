"""Candidate schedules, one per tile scanning order (method sheet section 5).

Iteration ``i = j + p*k`` (intra-tile index ``j``, tile/PE index ``k``) starts at
``lambda_J . j + lambda_K . k``. ``lambda_J`` scans a tile: one candidate per permutation of
the dims (innermost first: ``pi``, ``pi*p_first``, ...). Every dependence case must satisfy
``lambda_J . d_j + lambda_K . d_k >= r`` with ``r = max(w, fin(source) - tau(transport))``;
``lambda_K`` is the smallest vector doing so. A case with no points at a design point (a
tile of size 1, one tile, a single iteration) orders nothing and constrains nothing there.

The formulas are :class:`~polyjoule.analysis.intexpr.IntExpr` (no sympy: the map search
derives and evaluates them without it); ``lambda_J``, ``lambda_K`` and ``latency_formula``
give them as sympy for display.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from polyjoule.analysis.exact import integers
from polyjoule.analysis.intexpr import (
    Compiled,
    IntExpr,
    Num,
    expanded,
    extreme,
    first_max_arg,
    max_args,
    p_sym,
    provably_ge,
    provably_nonneg,
)
from polyjoule.analysis.latency_formula import StatementRanges, latency_formula
from polyjoule.analysis.timing import Timing
from polyjoule.errors import InfeasibleSchedule
from polyjoule.mapping.tiling import Tiling
from polyjoule.model.pra import PRA


@dataclass(frozen=True)
class Dependence:
    """One dependence case: ``lambda_J . d_j + lambda_K . d_k >= r``."""

    statement: str
    case: str
    d_j: tuple[IntExpr, ...]
    d_k: tuple[int, ...]
    r: int
    dist: tuple[int, ...]  # the transport's dependence distance per dim

    def nonempty(self, extents: Sequence[Any], p: Sequence[Any]) -> Any:
        """Does this case have points at extents ``E`` and tile sizes ``p`` (arrays or ints)?

        Along a dim it stays in (``d_k = 0``) it needs an intra-tile index ``j`` with
        ``|d| <= j < min(p, E)``; along a dim it crosses it needs a second tile (``E > p``).
        """
        ok: Any = True
        for l, (dist, k) in enumerate(zip(self.dist, self.d_k, strict=True)):
            if dist == 0:
                continue
            e, pl = np.asarray(extents[l]), np.asarray(p[l])
            ok = ok & ((np.minimum(pl, e) > abs(dist)) if k == 0 else (e > pl))
        return np.asarray(ok)



#: Compiled (unpicklable) members of a candidate, rebuilt lazily.
_COMPILED = frozenset({"_scalar", "_vector", "_lambdas", "_slack_fn", "lambda_J", "lambda_K",
                       "latency_formula"})


@dataclass
class ScanSchedule:
    """One scanning order: its lambdas and exact latency formula (integer expressions,
    compiled on first use; as sympy for display)."""

    pra: PRA
    tiling: Tiling
    order: tuple[int, ...]  # dims innermost first
    lj: tuple[IntExpr, ...]  # lambda_J
    lk: tuple[IntExpr, ...]  # lambda_K
    deps: tuple[Dependence, ...]
    timing: Timing
    latency: IntExpr
    coupled: dict[str, Callable[..., int]] = field(default_factory=dict)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the compiled functions (rebuilt on first use)."""
        return {k: v for k, v in self.__dict__.items() if k not in _COMPILED}

    @cached_property
    def lambda_J(self) -> tuple[Any, ...]:
        """``lambda_J`` as sympy."""
        return tuple(x.sympy() for x in self.lj)

    @cached_property
    def lambda_K(self) -> tuple[Any, ...]:
        return tuple(x.sympy() for x in self.lk)

    @cached_property
    def latency_formula(self) -> Any:
        """The exact latency formula as sympy (an ``M_<id>`` call: a per-point maximum)."""
        return self.latency.sympy()

    @property
    def sheet_formula(self) -> Any:
        """The sheet's full-tile latency ``lambda_J.(p-1) + lambda_K.(t-1) + L_c``."""
        import sympy

        from polyjoule.analysis import symbols

        n = self.pra.n
        return sympy.expand(sum(self.lambda_J[l] * (symbols.p_sym(l) - 1) for l in range(n))) + sum(
            (self.lambda_K[l] * (symbols.t_sym(l) - 1) for l in range(n)), sympy.Integer(0)
        ) + self.timing.L_c

    @cached_property
    def _names(self) -> tuple[str, ...]:
        return (*self.pra.params, *(f"p{l}" for l in range(self.pra.n)))

    @cached_property
    def _scalar(self) -> Callable[..., Any]:
        return Compiled((self.latency,), self._names, self.coupled, vector=False)

    @cached_property
    def _vector(self) -> Callable[..., Any]:
        return Compiled((self.latency,), self._names, self.coupled, vector=True)

    @cached_property
    def _lambdas(self) -> Callable[..., Any]:
        return Compiled((*self.lj, *self.lk), tuple(f"p{l}" for l in range(self.pra.n)),
                        vector=False)

    def lambdas(self, p: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        vals = [int(v) for v in self._lambdas(*p)]
        n = self.pra.n
        return tuple(vals[:n]), tuple(vals[n:])

    def latency_at(self, values: Mapping[str, int], p: Sequence[int]) -> int:
        return int(self._scalar(*(int(values[k]) for k in self.pra.params), *(int(x) for x in p)))

    def latency_many(self, values: Mapping[str, np.ndarray], p: Sequence[np.ndarray]) -> np.ndarray:
        """The exact latency per point: int64, or Python integers where one leaves int64."""
        return integers(self._vector(*(np.asarray(values[k]) for k in self.pra.params),
                                     *(np.asarray(x) for x in p)))

    @cached_property
    def _slack_fn(self) -> Callable[..., Any]:
        n = self.pra.n
        slacks = [sum((self.lj[l] * d.d_j[l] + self.lk[l] * d.d_k[l] for l in range(n)),
                      Num(0)) - d.r for d in self.deps]
        return Compiled(tuple(slacks) or (Num(0),), tuple(f"p{l}" for l in range(n)))

    def first_violation(self, extents: Sequence[Any], p: Sequence[Any]) -> np.ndarray:
        """Per point: the index of the first dependence case that has points and is violated
        (``lambda . d < r``), ``-1`` when the order is feasible there."""
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)))
        out = np.full(shape, -1, dtype=np.int64)
        if not self.deps:
            return out
        slacks = self._slack_fn(*(np.asarray(x) for x in p))
        if len(self.deps) == 1:
            slacks = [slacks]
        for q in range(len(self.deps) - 1, -1, -1):
            bad = (np.asarray(slacks[q]) < 0) & self.deps[q].nonempty(extents, p)
            out = np.where(bad, q, out)
        return out

    def feasible(self, extents: Sequence[Any], p: Sequence[Any]) -> Any:
        """Per point: does every dependence case that has points hold (``first_violation < 0``)?
        Cases whose slack is a non-negative constant are skipped (the fast path of sweeps)."""
        if not self.deps:
            return np.asarray(True)
        slacks = self._slack_fn(*(np.asarray(x) for x in p))
        if len(self.deps) == 1:
            slacks = [slacks]
        ok: Any = np.asarray(True)
        for d, sl in zip(self.deps, slacks, strict=True):
            short = np.asarray(sl) < 0
            if not short.any():
                continue
            ok = ok & ~(short & d.nonempty(extents, p))
        return ok

    def violation(self, q: int) -> str:
        """What dependence case ``q`` needs, for a reason."""
        d = self.deps[q]
        order = "/".join(self.pra.dims[l].name for l in self.order)
        return f"{d.statement} ({d.case}) needs lambda.d >= {d.r} (order {order}, innermost first)"


def dependences(pra: PRA, tiling: Tiling, timing: Timing, w: int) -> list[Dependence]:
    writers: dict[str, list[str]] = {}
    for s in pra.statements:
        if s.kind != "output":
            writers.setdefault(s.var, []).append(s.id)
    out: list[Dependence] = []
    for s in pra.statements:
        if s.kind != "transport" or not any(s.dep or ()):
            continue
        assert s.dep is not None and s.source is not None
        fin = max((timing.fin(q) for q in writers.get(s.source, [])), default=0)
        r = max(int(w), fin - timing.tau[s.id], 1)
        choices = [(0,) if d == 0 or not tiling.tiled(l) else (0, 1 if d > 0 else -1)
                   for l, d in enumerate(s.dep)]
        for crossing in itertools.product(*choices):
            d_j = tuple(Num(d) - c * p_sym(l) if c else Num(d)
                        for l, (d, c) in enumerate(zip(s.dep, crossing, strict=True)))
            name = "intra" if not any(crossing) else "inter(" + ",".join(
                pra.dims[l].name for l, c in enumerate(crossing) if c) + ")"
            out.append(Dependence(s.id, name, d_j, tuple(crossing), r, tuple(s.dep)))
    return out


def scan_schedule(pra: PRA, tiling: Tiling, order: tuple[int, ...], pi: int, timing: Timing,
                  deps: list[Dependence], mins: dict[str, int], ranges: StatementRanges
                  ) -> ScanSchedule:
    """The candidate of scanning ``order``: ``lambda_J`` scans a tile, ``lambda_K`` is the
    smallest vector every crossing dependence case allows, and the latency formula.
    ``mins``: the least value of each symbol (tile sizes, tile counts, parameters)."""
    n = pra.n
    lj: list[IntExpr] = [Num(0)] * n
    coef: IntExpr = Num(pi)
    for l in order:
        lj[l] = coef
        coef = coef * p_sym(l)
    for d in deps:
        if not any(d.d_k):
            slack = _dot(lj, d.d_j) - d.r
            if slack.constant() is not None and slack.constant() < 0:  # type: ignore[operator]
                raise InfeasibleSchedule(
                    f"{pra.name}: scanning order {'/'.join(pra.dims[l].name for l in order)} "
                    f"(innermost first) violates {d.statement}: lambda_J.d = "
                    f"{(slack + d.r).constant()} < {d.r}")
    lk = lambda_k(tiling, lj, deps, mins)
    cand = ScanSchedule(pra, tiling, order, tuple(lj), tuple(lk), tuple(deps), timing, Num(0))
    cand.latency = latency_formula(cand, mins, ranges)
    return cand


def _dot(lj: Sequence[IntExpr], d_j: Sequence[IntExpr]) -> IntExpr:
    return sum((a * b for a, b in zip(lj, d_j, strict=True)), Num(0))


def max_bound(bounds: Sequence[IntExpr], mins: Mapping[str, int]) -> IntExpr:
    """``Max`` of ``bounds`` without the ones another provably dominates."""
    bounds = list(dict.fromkeys(expanded(b) for b in bounds))
    keep: list[IntExpr] = []
    for b in bounds:
        if any(provably_ge(k, b, mins) for k in keep):
            continue
        keep = [k for k in keep if not provably_ge(b, k, mins)] + [b]
    return extreme("Max", keep)


def lambda_k(tiling: Tiling, lj: Sequence[IntExpr], deps: Sequence[Dependence],
             mins: Mapping[str, int]) -> list[IntExpr]:
    """The smallest ``lambda_K`` the crossing cases allow under ``lj`` (scanning orders and
    :mod:`~polyjoule.analysis.skew`'s skewed families): single-dim crossings with
    ``d_k = +1`` give lower bounds; others add a bound on their last crossing dim when their
    ``d_k`` is non-negative (checked per point anyway)."""
    n = len(lj)
    lower: list[list[IntExpr]] = [[Num(0)] for _ in range(n)]
    for d in deps:
        cross = [l for l in range(n) if d.d_k[l]]
        if len(cross) == 1 and d.d_k[cross[0]] == 1:
            lower[cross[0]].append(expanded(d.r - _dot(lj, d.d_j)))
    lk = [max_bound(b, mins) for b in lower]
    for d in deps:
        cross = [l for l in range(n) if d.d_k[l]]
        if len(cross) < 2 or any(d.d_k[l] < 0 for l in cross):
            continue
        base = _dot(lj, d.d_j)
        others = [lk[m] for m in cross[:-1]]
        if all(len(max_args(o)) == 1 for o in others) and provably_nonneg(
                base + sum(others, Num(0)) + lk[cross[-1]] - d.r, mins):
            continue
        l = cross[-1]
        extra = expanded(d.r - base - sum((first_max_arg(o) for o in others), Num(0)))
        lower[l].append(extra)
        lk[l] = max_bound(lower[l], mins)
    return [x if tiling.tiled(l) else Num(0) for l, x in enumerate(lk)]
