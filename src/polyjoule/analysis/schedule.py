"""The schedule of a tiled PRA: every feasible scanning order, the one shown, and the best
one per design point (method sheet section 5); where no scanning order is feasible, one found
by an integer linear program at that design point (:mod:`~polyjoule.analysis.ilp`).

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

from polyjoule.analysis.exact import narrow
from polyjoule.analysis.ilp import IlpSolution, exact_latency, forbidding, solve
from polyjoule.analysis.intexpr import provably_ge
from polyjoule.analysis.latency_formula import StatementRanges
from polyjoule.analysis.scan import Dependence, ScanSchedule, dependences, scan_schedule
from polyjoule.analysis.skew import Skewed, fill_skewed, schedule_mins, skewed
from polyjoule.analysis.symbols import p_sym, t_sym
from polyjoule.analysis.timing import Timing, statement_timing
from polyjoule.errors import InfeasibleSchedule, SpecError
from polyjoule.mapping.legality import Illegal, Verdict, phase_reason, phase_verdict, refusal
from polyjoule.mapping.tiling import Tiling, per_phase
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
    offset: int = 0  # added to every start (negative coefficients start the earliest at 0)
    method: str = "scan"  # "scan": a scanning order; "skew": a skewed one; "ilp": the program

    def to_json(self, dims: Sequence[str]) -> dict[str, Any]:
        return {"order": [dims[l] for l in self.order], "lambda_J": list(self.lambda_J),
                "lambda_K": list(self.lambda_K), "p": list(self.p), "t": list(self.t),
                "L_c": self.timing.L_c, "latency_cycles": self.latency,
                "start_offset": self.offset, "method": self.method}



@dataclass
class Schedule:
    """The schedule of one tiled PRA: the chosen candidate and all feasible ones.

    With ``order=None`` the displayed candidate is the first (in permutation order) whose
    latency no other candidate provably beats; :meth:`at` picks the best one per point, and
    a point where no scanning order is feasible gets one from the integer program (``auto``
    only; ``chosen`` is ``None`` when no scanning order is feasible anywhere).
    """

    pra: PRA
    tiling: Tiling
    pi: int
    w: int
    candidates: list[ScanSchedule]
    chosen: ScanSchedule | None
    auto: bool
    timing: Timing
    deps: tuple[Dependence, ...] = ()
    _memo: dict[tuple[int, ...], ConcreteSchedule] = field(default_factory=dict, repr=False)
    _ilp: dict[tuple[tuple[int, ...], tuple[int, ...]], IlpSolution | Illegal] = field(
        default_factory=dict, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the memo and the generated code (rebuilt on first use)."""
        return {**{k: v for k, v in self.__dict__.items() if k != "compiled_latency"}, "_memo": {}}

    @cached_property
    def compiled_latency(self) -> Any:
        """:meth:`latency_many` as one generated function (``analysis.compiled``), built once;
        points only the integer program schedules are filled in per point."""
        from polyjoule.analysis.compiled import CompiledLatency, compile_latency

        return _WithIlp(self, compile_latency(self) if self.pool else CompiledLatency(self))

    @cached_property
    def skew(self) -> Skewed:
        """Skewed scanning orders, for points no scanning order runs (automatic orders)."""
        return skewed(self) if self.auto else Skewed([])

    @property
    def _shown(self) -> ScanSchedule:
        if self.chosen is None:
            raise InfeasibleSchedule(f"{self.pra.name}: no scanning order is feasible; the "
                                     "schedule is found per design point (Schedule.at)")
        return self.chosen

    @property
    def order(self) -> tuple[str, ...]:
        """Dim names, innermost first."""
        return tuple(self.pra.dims[l].name for l in self._shown.order)

    @property
    def lambda_J(self) -> tuple[Any, ...]:
        """The shown order's ``lambda_J`` as sympy (display)."""
        return self._shown.lambda_J

    @property
    def lambda_K(self) -> tuple[Any, ...]:
        return self._shown.lambda_K

    @property
    def L_c(self) -> int:
        return self.timing.L_c

    @property
    def latency_formula(self) -> Any:
        """Exact latency in the parameters and tile sizes ``p0, p1, ...`` of the scanning
        orders (points scheduled by the integer program have no formula), as sympy."""
        if not self.auto or len(self.candidates) == 1:
            return self._shown.latency_formula
        import sympy

        return sympy.Min(*(c.latency_formula for c in self.candidates), evaluate=False)

    @property
    def sheet_formula(self) -> Any:
        return self._shown.sheet_formula

    def latex(self) -> str:
        import sympy

        return sympy.latex(self.latency_formula)

    def sizes(self, values: Mapping[str, int]) -> tuple[int, ...]:
        """Tile sizes at ``values`` (refused when the tiling is illegal there)."""
        self.pra.check_params(values)
        why = phase_reason(self.pra, self.tiling, values)
        if why is not None:
            raise refusal(why, [(self.pra, self.tiling)], values)
        return tuple(int(x) for x in self.tiling.sizes_many(self.pra, values))

    @property
    def pool(self) -> list[ScanSchedule]:
        """The scanning orders a point may use."""
        return self.candidates if self.auto else [self.chosen]

    def verdict(self, extents: Sequence[Any], p: Sequence[Any]) -> Verdict:
        """Points where no scanning order satisfies every dependence case that has points and
        (automatic orders) the integer program finds no schedule either; the reason names
        the cases that forbid one there."""
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)))
        bad = ~np.logical_or.reduce([np.broadcast_to(c.feasible(extents, p), shape)
                                     for c in self.pool]) if self.pool else np.ones(shape, bool)
        code = np.full(shape, -1, dtype=np.int64)
        if not bad.any():
            return Verdict(code, ())
        if not self.auto:
            assert self.chosen is not None
            first = self.chosen.first_violation(extents, p)
            qs = sorted({int(q) for q in np.unique(first[bad])})
            reasons = tuple(Illegal("no-schedule", f"{self.pra.name}: no feasible scanning order: "
                                                   f"{self.chosen.violation(q)}") for q in qs)
            for i, q in enumerate(qs):
                code = np.where(bad & (first == q), i, code)
            return Verdict(code, reasons)
        bad = bad & ~self.skew.feasible(extents, p)
        if not bad.any():
            return Verdict(code, ())
        cols = np.stack([np.broadcast_to(np.asarray(x, dtype=np.int64), shape)[bad]
                         for x in (*extents, *p)], axis=-1)
        rows, inverse = np.unique(cols, axis=0, return_inverse=True)
        n = self.pra.n
        found = [self._ilp_at(tuple(int(v) for v in r[:n]), tuple(int(v) for v in r[n:]))
                 for r in rows]
        why = [x for x in dict.fromkeys(f for f in found if isinstance(f, Illegal))]
        sub = np.array([why.index(f) if isinstance(f, Illegal) else -1 for f in found],
                       dtype=np.int64)[np.asarray(inverse).reshape(-1)]
        code[bad] = sub
        return Verdict(code, tuple(why))

    def _ilp_at(self, extents: tuple[int, ...], p: tuple[int, ...]) -> IlpSolution | Illegal:
        """The integer program at one design point (memoised), or why it has no solution."""
        key = (extents, p)
        hit = self._ilp.get(key)
        if hit is None:
            t = tuple(-(-e // pl) for e, pl in zip(extents, p, strict=True))
            active = [d for d in self.deps if bool(d.nonempty(extents, p))]
            hit = solve(active, self.pi, p, t)
            if hit is None:
                cases = ", ".join(f"{d.statement} ({d.case}, d = {list(d.dist)}, needs "
                                  f"lambda.d >= {d.r})" for d in forbidding(active, self.pi, p, t))
                hit = Illegal("no-schedule", f"{self.pra.name}: no schedule: no start times "
                                             f"satisfy {cases} with one iteration per PE every "
                                             f"{self.pi} cycles")
            if len(self._ilp) > 65536:
                self._ilp.clear()
            self._ilp[key] = hit
        return hit

    def ilp_at(self, values: Mapping[str, int], p: Sequence[int]) -> ConcreteSchedule | Illegal:
        """The integer program's schedule at ``values`` and tile sizes ``p`` (where no
        scanning order is feasible: :meth:`at`, and the map search at its tile sizes), or
        why there is none."""
        p = tuple(int(x) for x in p)
        extents = tuple(int(d.extent.evaluate(values)) for d in self.pra.dims)
        sol = self._ilp_at(extents, p)
        if isinstance(sol, Illegal):
            return sol
        t = tuple(-(-e // q) for e, q in zip(extents, p, strict=True))
        lat, offset = exact_latency(self.pra, self.timing, values, p, sol.lambda_J, sol.lambda_K)
        return ConcreteSchedule(sol.order, sol.lambda_J, sol.lambda_K, p, t, self.timing, lat,
                                self.pi, offset, "ilp")

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
            raise refusal(why, [(self.pra, self.tiling)], values)
        extents = [d.extent.evaluate(values) for d in self.pra.dims]
        t = tuple(-(-e // p[l]) for l, e in enumerate(extents))
        feasible = [(c.latency_at(values, p), n) for n, c in enumerate(self.pool)
                    if bool(c.feasible(extents, p))]
        skew = None if feasible else self.skew.at(values, extents, p)
        if skew is not None:
            lj, lk = skew[0].lambdas(p)
            return ConcreteSchedule(skew[0].order, lj, lk, p, t, self.timing, skew[1], self.pi,
                                    0, "skew")
        if not feasible:
            sol = self.ilp_at(values, p)
            assert isinstance(sol, ConcreteSchedule), "the verdict let this point through"
            return sol
        lat, c = min(feasible)
        best = self.pool[c]
        lj, lk = best.lambdas(p)
        return ConcreteSchedule(best.order, lj, lk, p, t, best.timing, lat, self.pi)

    def latency(self, values: Mapping[str, int]) -> int:
        """Exact latency in cycles (the simulated makespan) at parameter ``values``."""
        return self.at(values).latency

    def latency_many(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """Vectorised latency over arrays of parameter values; -1 where the point is refused
        (:func:`~polyjoule.mapping.legality.phase_verdict`). Parameter minima are not checked.
        Points only the integer program schedules are evaluated one by one."""
        arrays = {k: np.asarray(v, dtype=np.int64) for k, v in values.items()}
        p = [np.maximum(x, 1) for x in self.tiling.sizes_many(self.pra, arrays)]
        extents = [np.asarray(d.extent.evaluate(arrays)) for d in self.pra.dims]
        big = np.iinfo(np.int64).max
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)),
                                    *(np.shape(arrays[k]) for k in self.pra.params))
        lat = [np.where(c.feasible(extents, p), c.latency_many(arrays, p), big)
               for c in self.pool]
        best = np.min(np.stack(lat), axis=0) if lat else np.full(shape, big, dtype=np.int64)
        legal = phase_verdict(self.pra, self.tiling, arrays, self).ok
        return self.fill(arrays, np.where((best == big) | ~legal, -1, best), legal)

    def fill(self, values: Mapping[str, Any], out: np.ndarray, legal: Any = None) -> np.ndarray:
        """``out`` with its legal ``-1`` points (no scanning order) evaluated one by one."""
        arrays = {k: np.asarray(values[k], dtype=np.int64) for k in self.pra.params}
        if legal is None:
            legal = phase_verdict(self.pra, self.tiling, arrays, self).ok
        miss = (np.asarray(out) < 0) & np.asarray(legal)
        out, miss = fill_skewed(self, arrays, out, miss)
        if not miss.any():
            return out
        shape = np.broadcast_shapes(np.shape(out), miss.shape, *(a.shape for a in arrays.values()))
        res = np.array(np.broadcast_to(out, shape), dtype=object)  # exact at any size
        full = {k: np.broadcast_to(a, shape) for k, a in arrays.items()}
        for idx in zip(*np.nonzero(np.broadcast_to(miss, shape)), strict=True):
            res[idx] = self.latency({k: int(a[idx]) for k, a in full.items()})
        return narrow(res)


@dataclass
class _WithIlp:
    """A compiled latency (scanning orders) with the integer program's points filled in."""

    schedule: Schedule
    inner: Any

    def __call__(self, values: Mapping[str, Any], legal: np.ndarray | None = None) -> np.ndarray:
        return self.schedule.fill(values, self.inner(values, legal), legal)


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
        raise refusal(why, [(self.pra, self.tiling)], values)

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
        raise InfeasibleSchedule(f"--pi {pi}: the pipeline interval must be an integer >= 1")
    if int(w) != w or w < 0:
        raise InfeasibleSchedule(f"--w {w}: the operation latency must be a non-negative "
                                 "integer")


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
    mins = schedule_mins(pra)
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
        return Schedule(pra, tiling, int(pi), int(w), [c], c, False, timing, tuple(deps))
    cands: list[ScanSchedule] = []
    for perm in itertools.permutations(range(pra.n)):
        try:
            cands.append(scan_schedule(pra, tiling, perm, int(pi), timing, deps, mins, ranges))
        except InfeasibleSchedule:
            continue  # a constant violation: this order never works
    if not cands:  # every design point goes to the integer program
        return Schedule(pra, tiling, int(pi), int(w), [], None, True, timing, tuple(deps))
    chosen = cands[0]
    for c in cands:
        if all(o is c or not provably_ge(c.latency, o.latency, mins)
               for o in cands):
            chosen = c
            break
    return Schedule(pra, tiling, int(pi), int(w), cands, chosen, True, timing, tuple(deps))


def kernel_schedules(kernel: Kernel, array: tuple[int, ...], tile: tuple[int, ...] | None = None,
                     pi: int = 1, w: int = 1, order: Sequence[int | str] | None = None,
                     op_latency: Mapping[str, int] | None = None) -> list[Schedule | Unschedulable]:
    """One schedule per phase (a tile or order is used only by phases with as many dims); a
    phase without any scanning order refuses its points (:class:`Unschedulable`)."""
    _check_request(pi, w)
    if order is not None and all(per_phase(pra, order) is None for pra in kernel.phases):
        dims = " or ".join(str(n) for n in sorted({pra.n for pra in kernel.phases}))
        raise SpecError(f"--order: {','.join(map(str, order))} names {len(order)} "
                        f"dim{'' if len(order) == 1 else 's'}; {kernel.name} has {dims} "
                        "(one name per dim, innermost first)")
    key = (kernel.phases, tuple(array), tile, pi, w, tuple(order) if order is not None else None,
           tuple(sorted((op_latency or {}).items())))
    hit = _CACHE.get(key)
    if hit is not None:
        return list(hit)
    out = []
    for pra in kernel.phases:
        tl = Tiling.of(pra, array, per_phase(pra, tile))
        try:
            out.append(derive_schedule(pra, tl, pi, w, per_phase(pra, order), op_latency))
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
