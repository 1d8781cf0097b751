"""The schedule of a tiled PRA: every feasible scanning order, the one shown, and the best
one per design point (method sheet section 5).

The pieces live in their own modules: statement offsets (:mod:`~polyjoule.analysis.timing`),
one candidate per scanning order (:mod:`~polyjoule.analysis.scan`), its exact latency formula
(:mod:`~polyjoule.analysis.latency_formula`); which points are legal is decided by
:mod:`polyjoule.mapping.legality`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import sympy

from polyjoule.analysis.latency_formula import StatementRanges
from polyjoule.analysis.scan import ScanSchedule, dependences, scan_schedule
from polyjoule.analysis.symbols import p_sym, param_sym, provably_nonneg, t_sym
from polyjoule.analysis.timing import Timing, statement_timing
from polyjoule.errors import InfeasibleSchedule, SpecError
from polyjoule.mapping.legality import Illegal, Verdict, phase_reason, phase_verdict, refusal
from polyjoule.mapping.tiling import Tiling, min_tile
from polyjoule.model.pra import PRA, Kernel

__all__ = ["ConcreteSchedule", "Schedule", "ScanSchedule", "Timing", "derive_schedule",
           "Unschedulable", "kernel_latency", "kernel_schedules", "p_sym", "statement_timing",
           "t_sym"]


@dataclass(frozen=True)
class ConcreteSchedule:
    """A schedule at one design point: integer lambdas, tile sizes and offsets."""

    order: tuple[int, ...]
    lambda_J: tuple[int, ...]
    lambda_K: tuple[int, ...]
    p: tuple[int, ...]
    t: tuple[int, ...]  # effective tile counts ceil(E/p)
    timing: Timing
    latency: int
    pi: int = 1

    def to_json(self, dims: Sequence[str]) -> dict[str, Any]:
        return {"order": [dims[l] for l in self.order], "lambda_J": list(self.lambda_J),
                "lambda_K": list(self.lambda_K), "p": list(self.p), "t": list(self.t),
                "L_c": self.timing.L_c, "latency_cycles": self.latency}



@dataclass
class Schedule:
    """The schedule of one tiled PRA: the chosen candidate and all feasible ones.

    With ``order=None`` the displayed candidate is the first (in permutation order) whose
    latency no other candidate provably beats; :meth:`at` picks the best one per point.
    """

    pra: PRA
    tiling: Tiling
    pi: int
    w: int
    candidates: list[ScanSchedule]
    chosen: ScanSchedule
    auto: bool
    _memo: dict[tuple[int, ...], ConcreteSchedule] = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the memo and the generated code (rebuilt on first use)."""
        return {**{k: v for k, v in self.__dict__.items() if k != "compiled_latency"}, "_memo": {}}

    @cached_property
    def compiled_latency(self) -> Any:
        """:meth:`latency_many` as one generated function (``analysis.compiled``), built once."""
        from polyjoule.analysis.compiled import compile_latency

        return compile_latency(self)

    @property
    def order(self) -> tuple[str, ...]:
        """Dim names, innermost first."""
        return tuple(self.pra.dims[l].name for l in self.chosen.order)

    @property
    def lambda_J(self) -> tuple[sympy.Expr, ...]:
        return self.chosen.lambda_J

    @property
    def lambda_K(self) -> tuple[sympy.Expr, ...]:
        return self.chosen.lambda_K

    @property
    def timing(self) -> Timing:
        return self.chosen.timing

    @property
    def L_c(self) -> int:
        return self.chosen.timing.L_c

    @property
    def latency_formula(self) -> sympy.Expr:
        """Exact latency in the parameters and tile sizes ``p0, p1, ...``."""
        if not self.auto or len(self.candidates) == 1:
            return self.chosen.latency_formula
        return sympy.Min(*(c.latency_formula for c in self.candidates), evaluate=False)

    @property
    def sheet_formula(self) -> sympy.Expr:
        return self.chosen.sheet_formula

    def latex(self) -> str:
        return sympy.latex(self.latency_formula)

    def sizes(self, values: Mapping[str, int]) -> tuple[int, ...]:
        """Tile sizes at ``values`` (refused when the tiling is illegal there)."""
        self.pra.check_params(values)
        why = phase_reason(self.pra, self.tiling, values)
        if why is not None:
            raise refusal(why)
        return tuple(int(x) for x in self.tiling.sizes_many(self.pra, values))

    @property
    def pool(self) -> list[ScanSchedule]:
        """The scanning orders a point may use."""
        return self.candidates if self.auto else [self.chosen]

    def verdict(self, extents: Sequence[Any], p: Sequence[Any]) -> Verdict:
        """Points where no scanning order satisfies every dependence case that has points
        (the reason names the first order's first violated case)."""
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)))
        bad = ~np.logical_or.reduce([np.broadcast_to(c.feasible(extents, p), shape)
                                     for c in self.pool])
        code = np.full(shape, -1, dtype=np.int64)
        if not bad.any():
            return Verdict(code, ())
        first = self.pool[0].first_violation(extents, p)
        qs = sorted({int(q) for q in np.unique(first[bad])})
        reasons = tuple(Illegal("no-schedule", f"{self.pra.name}: no feasible scanning order: "
                                               f"{self.pool[0].violation(q)}") for q in qs)
        for i, q in enumerate(qs):
            code = np.where(bad & (first == q), i, code)
        return Verdict(code, reasons)

    def at(self, values: Mapping[str, int]) -> ConcreteSchedule:
        """The concrete schedule at ``values`` (the best feasible candidate when automatic)."""
        self.pra.check_params(values)
        key = tuple(int(values[k]) for k in self.pra.params)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._at(values)
            if len(self._memo) > 4096:
                self._memo.clear()
            self._memo[key] = hit
        return hit

    def _at(self, values: Mapping[str, int]) -> ConcreteSchedule:
        p = self.sizes(values)
        why = phase_reason(self.pra, self.tiling, values, self)
        if why is not None:
            raise refusal(why)
        extents = [d.extent.evaluate(values) for d in self.pra.dims]
        lat, c = min(((c.latency_at(values, p), n) for n, c in enumerate(self.pool)
                      if bool(c.feasible(extents, p))))
        best = self.pool[c]
        lj, lk = best.lambdas(p)
        t = tuple(-(-e // p[l]) for l, e in enumerate(extents))
        return ConcreteSchedule(best.order, lj, lk, p, t, best.timing, lat, self.pi)

    def latency(self, values: Mapping[str, int]) -> int:
        """Exact latency in cycles (the simulated makespan) at parameter ``values``."""
        return self.at(values).latency

    def latency_many(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """Vectorised latency over arrays of parameter values; -1 where the point is refused
        (:func:`~polyjoule.mapping.legality.phase_verdict`). Parameter minima are not checked."""
        arrays = {k: np.asarray(v, dtype=np.int64) for k, v in values.items()}
        p = [np.maximum(x, 1) for x in self.tiling.sizes_many(self.pra, arrays)]
        extents = [np.asarray(d.extent.evaluate(arrays)) for d in self.pra.dims]
        big = np.iinfo(np.int64).max
        lat = np.stack([np.where(c.feasible(extents, p), c.latency_many(arrays, p), big)
                        for c in self.pool])
        best = np.min(lat, axis=0)
        legal = phase_verdict(self.pra, self.tiling, arrays, self).ok
        return np.where((best == big) | ~legal, -1, best)


@dataclass
class Unschedulable:
    """A phase no scanning order can run at any point: every point is refused with ``reason``."""

    pra: PRA
    tiling: Tiling
    reason: Illegal

    def verdict(self, extents: Sequence[Any], p: Sequence[Any]) -> Verdict:
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)))
        return Verdict(np.zeros(shape, dtype=np.int64), (self.reason,))

    def at(self, values: Mapping[str, int]) -> ConcreteSchedule:
        self.pra.check_params(values)
        why = phase_reason(self.pra, self.tiling, values, self)
        assert why is not None, "an unschedulable phase refuses every point"
        raise refusal(why)

    def latency(self, values: Mapping[str, int]) -> int:
        return self.at(values).latency

    def latency_many(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        shape = np.broadcast_shapes(*(np.shape(values[k]) for k in self.pra.params))
        return np.full(shape, -1, dtype=np.int64)

    def compiled_latency(self, values: Mapping[str, np.ndarray], legal: Any = None) -> np.ndarray:
        return self.latency_many(values)


def _check_request(pi: int, w: int) -> None:
    """A pipeline interval or operation latency that no schedule could have: bad input."""
    if int(pi) != pi or pi < 1:
        raise InfeasibleSchedule(f"schedule: pipeline interval pi={pi} must be an integer >= 1")
    if int(w) != w or w < 0:
        raise InfeasibleSchedule(f"schedule: operation latency w={w} must be a non-negative integer")


def derive_schedule(pra: PRA, tiling: Tiling, pi: int = 1, w: int = 1,
                    order: Sequence[int | str] | None = None,
                    op_latency: Mapping[str, int] | None = None) -> Schedule:
    """Symbolic schedule of ``pra`` under ``tiling``.

    ``order``: dims (indices or names) innermost first; ``None`` tries every permutation.
    An infeasible request (``pi < 1``, an order violating a dependence) is
    :class:`InfeasibleSchedule`.
    """
    _check_request(pi, w)
    timing = statement_timing(pra, w, op_latency)
    deps = dependences(pra, tiling, timing, w)
    mins: dict[sympy.Symbol, int] = {}
    need = min_tile(pra)
    for l in range(pra.n):
        mins[p_sym(l)] = max(1, need[l])
        mins[t_sym(l)] = 1
    for name, lo in pra.param_min:
        mins[param_sym(name)] = lo
    ranges = StatementRanges(pra, timing, mins)
    if order is not None:
        idx: list[int] = []
        for o in order:
            if isinstance(o, str):
                if o not in pra.dim_names:
                    raise SpecError(f"--order: {pra.name} has no dim {o!r} "
                                    f"(dims: {', '.join(pra.dim_names)})")
                idx.append(pra.dim_names.index(o))
            else:
                idx.append(int(o))
        if sorted(idx) != list(range(pra.n)):
            raise SpecError(f"--order: {list(order)} is not a permutation of the {pra.n} dims")
        c = scan_schedule(pra, tiling, tuple(idx), int(pi), timing, deps, mins, ranges)
        return Schedule(pra, tiling, int(pi), int(w), [c], c, auto=False)
    cands: list[ScanSchedule] = []
    errors: list[str] = []
    for perm in itertools.permutations(range(pra.n)):
        try:
            cands.append(scan_schedule(pra, tiling, perm, int(pi), timing, deps, mins, ranges))
        except InfeasibleSchedule as e:
            errors.append(str(e))
    if not cands:
        raise InfeasibleSchedule(errors[0] if errors else f"{pra.name}: no scanning order")
    chosen = cands[0]
    for c in cands:
        if all(o is c or not provably_nonneg(c.latency_formula - o.latency_formula, {**mins})
               for o in cands):
            chosen = c
            break
    return Schedule(pra, tiling, int(pi), int(w), cands, chosen, auto=True)


def kernel_schedules(kernel: Kernel, array: tuple[int, ...], tile: tuple[int, ...] | None = None,
                     pi: int = 1, w: int = 1, order: Sequence[int | str] | None = None,
                     op_latency: Mapping[str, int] | None = None) -> list[Schedule | Unschedulable]:
    """One schedule per phase (a tile or order is used only by phases with as many dims); a
    phase without any scanning order refuses its points (:class:`Unschedulable`)."""
    _check_request(pi, w)
    key = (kernel.phases, tuple(array), tile, pi, w, tuple(order) if order is not None else None,
           tuple(sorted((op_latency or {}).items())))
    hit = _CACHE.get(key)
    if hit is not None:
        return list(hit)
    out = []
    for pra in kernel.phases:
        tl = Tiling.of(pra, array, tile if tile is not None and len(tile) == pra.n else None)
        o = order if order is not None and len(order) == pra.n else None
        try:
            out.append(derive_schedule(pra, tl, pi, w, o, op_latency))
        except InfeasibleSchedule as e:
            out.append(Unschedulable(pra, tl, Illegal("no-schedule", str(e))))
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = tuple(out)
    return out


_CACHE: dict[Any, tuple[Schedule | Unschedulable, ...]] = {}


def kernel_latency(schedules: Sequence[Schedule | Unschedulable], values: Mapping[str, int]) -> int:
    """Phases run one after another: their latencies add."""
    return sum(s.latency({p: values[p] for p in s.pra.params}) for s in schedules)
