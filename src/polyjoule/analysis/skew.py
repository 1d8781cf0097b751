"""Skewed scanning orders: schedules symbolic in the tile sizes where no scanning order is
causal (stencils on small tiles), so those points need no integer program.

A scanning order in ``order`` (innermost first) gives ``lambda_J[o_0] = pi`` and
``lambda_J[o_m] = pi + sum_{i<m} lambda_J[o_i] * (p_{o_i} - 1)``: two points of a tile start
exactly ``pi`` apart at the tile's seams. A *skewed* family adds a constant slack ``s_m >= 0``
per dim, ``lambda_J[o_m] = pi + s_m + sum_{i<m} lambda_J[o_i] * (p_{o_i} - 1)`` (jacobi-1d,
dims ``(t, i)``, order ``i`` inside ``t``, ``s = (2, 0)``: ``lambda_J = (p1 + 2, 1)``): the
PE issue rate still holds (it is the integer program's constraint with positive signs), and
``lambda_K`` is the smallest the crossing cases allow (:func:`~polyjoule.analysis.scan.lambda_k`,
plus the crossing cases that mix a tile ahead along one dim with a tile behind along another).

Which slacks: the integer program's optimum at a few sample tile sizes where no scanning
order is causal, *lifted* (its order and slacks read back, kept when its signs are
positive); ``lambda_K`` takes the bounds of the cases with points at that sample (one family
per such set: a bound from a case without points, e.g. one tile along a dim, would only
slow the family down). Each family is then a :class:`~polyjoule.analysis.scan.ScanSchedule`:
its lambdas, exact latency and FIFO depths are formulas in the tile sizes, its causality per
dependence case a formula evaluated for every point at once; :meth:`SkewSchedule.region`
lists the conditions not provable for every tile size, the region where the family is
causal.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyjoule.analysis.capacity import FifoRules
from polyjoule.analysis.ilp import solve
from polyjoule.analysis.intexpr import (
    Extreme,
    IntExpr,
    Num,
    Poly,
    expanded,
    from_poly,
    max_args,
    p_sym,
    poly_add,
    poly_mul,
    provably_nonneg,
)
from polyjoule.analysis.latency_formula import StatementRanges, latency_formula
from polyjoule.analysis.scan import Dependence, ScanSchedule, lambda_k, max_bound
from polyjoule.mapping.tiling import min_tile

#: tile sizes sampled per dim (from its smallest legal size on) to find the slacks
SAMPLES = 4


@dataclass
class SkewSchedule(ScanSchedule):
    """A scanning order with constant slacks ``skew`` (per dim) added to ``|lambda_J|``."""

    skew: tuple[int, ...] = ()

    def region(self, mins: Mapping[str, int]) -> list[Any]:
        """The causality conditions not provable for every tile size at which their case
        has points (as sympy, for display): the family is causal exactly where these hold
        (or their case is empty)."""
        import sympy

        out = []
        for d, slack in zip(self.deps, _slacks(self), strict=True):
            case_mins = {**mins, **{f"p{l}": max(mins.get(f"p{l}", 1), abs(x) + 1)
                                    for l, (x, k) in enumerate(zip(d.dist, d.d_k, strict=True))
                                    if x and not k}}
            if not _provable(slack.expand(), _maxes(slack, {}), case_mins):
                out.append(sympy.Ge(sympy.expand(slack.sympy()), 0, evaluate=False))
        return out

    @property
    def label(self) -> str:
        names = self.pra.dim_names
        return ("/".join(names[l] for l in self.order) + " skew "
                + ",".join(f"{names[l]}+{s}" for l, s in enumerate(self.skew) if s))


def _maxes(e: IntExpr, out: dict[str, Extreme]) -> dict[str, Extreme]:
    """The ``Max`` terms in ``e`` (nested ones too), by the key its expanded form uses."""
    if isinstance(e, Extreme) and e.kind == "Max":
        out[e.atom_key()] = e
    for a in getattr(e, "args", ()):
        if isinstance(a, IntExpr):
            _maxes(a, out)
    return out


def _provable(slack: Poly, maxes: Mapping[str, Extreme], mins: Mapping[str, int]) -> bool:
    """``slack >= 0`` provably (its expanded form); a ``Max`` term with a constant
    coefficient is at least each of its arguments: with a positive coefficient one provable
    choice suffices, with a negative one all must hold."""
    keys = sorted({k for m in slack for k, _ in m if k in maxes})
    if not keys:
        return all(k.startswith("s:") for m in slack for k, _ in m) and provably_nonneg(
            from_poly(slack), mins)
    alone = ((keys[0], 1),)
    sign = slack.get(alone)
    if sign is None or any(keys[0] in dict(m) for m in slack if m != alone):
        return False
    rest = {m: c for m, c in slack.items() if m != alone}
    picks = [_provable(poly_add(rest, poly_mul({(): sign}, a.expand())), maxes, mins)
             for a in maxes[keys[0]].args]
    return any(picks) if sign > 0 else all(picks)


def _slacks(c: ScanSchedule) -> list[IntExpr]:
    n = c.pra.n
    return [expanded(sum((c.lj[l] * d.d_j[l] + c.lk[l] * d.d_k[l] for l in range(n)), Num(0))
                     - d.r) for d in c.deps]


def skewed_lambda_J(n: int, order: Sequence[int], pi: int, skew: Sequence[int]
                    ) -> tuple[IntExpr, ...]:
    """``lambda_J`` of the scanning order ``order`` with the slacks ``skew`` (per dim)."""
    lj: list[IntExpr] = [Num(0)] * n
    inner: IntExpr = Num(0)
    for l in order:
        lj[l] = expanded(pi + skew[l] + inner)
        inner = expanded(inner + lj[l] * (p_sym(l) - 1))
    return tuple(lj)


def _mixed(lk: list[IntExpr], lj: Sequence[IntExpr], deps: Sequence[Dependence],
           tiled: Sequence[bool], mins: Mapping[str, int]) -> list[IntExpr]:
    """Lower bounds from crossing cases one tile ahead along one dim and behind along others
    (``d_k = (1, -1)``): ``lambda_K[a] >= r - lambda_J.d_j + sum lambda_K[b]``."""
    n = len(lj)
    for d in deps:
        ahead = [l for l in range(n) if d.d_k[l] > 0]
        if len(ahead) != 1 or not any(k < 0 for k in d.d_k) or not tiled[ahead[0]]:
            continue
        a = ahead[0]
        need = expanded(d.r - sum((lj[l] * d.d_j[l] for l in range(n)), Num(0)))
        need = need - sum((lk[l] * d.d_k[l] for l in range(n) if l != a), Num(0))
        lk[a] = max_bound([*max_args(lk[a]), need], mins)
    return lk


def skew_family(sched: Any, order: tuple[int, ...], skew: tuple[int, ...],
                mins: dict[str, int], ranges: StatementRanges,
                active: Sequence[int] | None = None) -> SkewSchedule | None:
    """The family of ``order`` and ``skew`` for the phase of ``sched`` (a
    :class:`~polyjoule.analysis.schedule.Schedule`); ``None`` when an intra-tile case is
    violated by a constant (never causal). ``lambda_K`` takes the bounds of the cases
    ``active`` only (indices into the deps; all by default): a family for the points where
    the others have no points (one tile along a dim, a tile of one point) or hold anyway;
    causality is checked against every case."""
    pra, tiling, n = sched.pra, sched.tiling, sched.pra.n
    lj = skewed_lambda_J(n, order, sched.pi, skew)
    for d in sched.deps:
        if not any(d.d_k):
            slack = sum((lj[l] * d.d_j[l] for l in range(n)), Num(0)) - d.r
            c = slack.constant()
            if c is not None and c < 0:
                return None
    used = list(sched.deps) if active is None else [sched.deps[i] for i in active]
    lk = _mixed(lambda_k(tiling, lj, used, mins), lj, used,
                [tiling.tiled(l) for l in range(n)], mins)
    fam = SkewSchedule(pra, tiling, order, lj, tuple(lk), tuple(sched.deps), sched.timing,
                       Num(0), skew=skew)
    fam.latency = latency_formula(fam, mins, ranges)
    return fam


def schedule_mins(pra: Any) -> dict[str, int]:
    """The symbols' minima (tile sizes at least the dependence distances, tile counts and
    sizes at their least), which every schedule derivation proves its bounds under."""
    mins: dict[str, int] = {}
    need = min_tile(pra)
    for l in range(pra.n):
        mins[f"p{l}"] = max(1, need[l])
        mins[f"t{l}"] = 1
    for name, lo in pra.param_min:
        mins[name] = lo
    return mins


def lift(lj: Sequence[int], p: Sequence[int], order: Sequence[int], pi: int
         ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(order, slacks) of an integer ``lambda_J`` at tile sizes ``p``, or ``None`` when it is
    not a skewed scanning order (a negative coefficient). A dim of one point has no
    coefficient (the program fixes it at 0): it goes innermost, without slack."""
    if any(x < 0 for x in lj):
        return None
    skew = [0] * len(lj)
    inner = 0
    order = [*(l for l in order if p[l] < 2), *(l for l in order if p[l] >= 2)]
    for l in order:
        if p[l] < 2:
            continue
        skew[l] = lj[l] - pi - inner
        if skew[l] < 0:
            return None
        inner += lj[l] * (p[l] - 1)
    return tuple(order), tuple(skew)


def sample_points(pra: Any, tiling: Any) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(extents, tile sizes): every dim from its smallest legal size on, one or two tiles
    along a tiled dim (its crossing cases without or with points), one along an untiled one."""
    need = min_tile(pra)
    ranges = [range(need[l], need[l] + SAMPLES) for l in range(pra.n)]
    tiles = [(1, 2) if tiling.tiled(l) else (1,) for l in range(pra.n)]
    out = []
    for p in itertools.product(*ranges):
        for t in itertools.product(*tiles):
            out.append((tuple(q * x for q, x in zip(p, t, strict=True)), p))
    return out


Lifted = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def lifted_families(sched: Any) -> list[Lifted]:
    """The distinct (order, slacks, cases with points) of the integer program's optima at the
    sample points where no scanning order is causal."""
    pts = sample_points(sched.pra, sched.tiling)
    cols = np.array([[*e, *p] for e, p in pts], dtype=np.int64).T
    n = sched.pra.n
    covered = np.zeros(len(pts), bool)
    for c in sched.pool:
        covered |= np.broadcast_to(c.feasible(list(cols[:n]), list(cols[n:])), covered.shape)
    found: dict[Lifted, None] = {}
    for q in np.flatnonzero(~covered):
        e, p = pts[q]
        t = tuple(-(-x // y) for x, y in zip(e, p, strict=True))
        active = tuple(i for i, d in enumerate(sched.deps) if bool(d.nonempty(e, p)))
        sol = solve([sched.deps[i] for i in active], sched.pi, p, t)
        got = None if sol is None else lift(sol.lambda_J, p, sol.order, sched.pi)
        if got is not None:
            found[(*got, active)] = None
    return list(found)


@dataclass
class Skewed:
    """The skewed families of one phase, evaluated for many points at once."""

    families: list[SkewSchedule]
    pi: int = 1
    _fifo: dict[int, FifoRules] = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the compiled FIFO rules (rebuilt on first use)."""
        return {**self.__dict__, "_fifo": {}}

    def feasible(self, extents: Sequence[Any], p: Sequence[Any]) -> np.ndarray:
        """Per point: is some family causal there?"""
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)))
        ok = np.zeros(shape, bool)
        for c in self.families:
            ok |= np.broadcast_to(c.feasible(extents, p), shape)
        return ok

    def best(self, values: Mapping[str, Any], extents: Sequence[Any], p: Sequence[Any]
             ) -> tuple[np.ndarray, np.ndarray]:
        """(latency, family index) per point: the causal family of least latency; -1 (both)
        where none is causal."""
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)),
                                    *(np.shape(v) for v in values.values()))
        big = np.iinfo(np.int64).max
        lat = np.full(shape, big, np.int64)
        pick = np.full(shape, -1, np.int64)
        for j, c in enumerate(self.families):
            ok = np.broadcast_to(c.feasible(extents, p), shape)
            if not ok.any():
                continue
            mine = np.where(ok, np.broadcast_to(c.latency_many(values, p), shape), big)
            better = mine < lat
            lat, pick = np.where(better, mine, lat), np.where(better, j, pick)
        return np.where(pick < 0, -1, lat), pick

    def fifo(self, j: int) -> FifoRules:
        """The FIFO rules (``fd-depth``, ``fd-count``) of family ``j``, compiled once."""
        if j not in self._fifo:
            self._fifo[j] = FifoRules(self.families[j], self.pi)
        return self._fifo[j]

    def at(self, values: Mapping[str, int], extents: Sequence[int], p: Sequence[int]
           ) -> tuple[SkewSchedule, int] | None:
        """The causal family of least latency at one point and its latency, or ``None``."""
        lat, pick = self.best({k: np.asarray(int(v)) for k, v in values.items()},
                              [np.asarray(int(x)) for x in extents], [np.asarray(int(x)) for x in p])
        j = int(pick)
        return None if j < 0 else (self.families[j], int(lat))

    def points(self, values: Mapping[str, Any], extents: Sequence[Any], p: Sequence[Any],
               where: np.ndarray, cap: int | None = None
               ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """(found, (latency, FIFO depth, FIFO count, depth only bounded)) at the points
        ``where`` (a 1-D mask), as the map search prices them; ``cap``: the declared FIFO
        depth, the depths above it counted exactly (:meth:`FifoRules.needs`)."""
        n = where.size
        out: list[Any] = [np.zeros(n, np.int64) for _ in range(3)] + [np.zeros(n, bool)]
        if not where.any() or not self.families:
            return np.zeros(n, bool), tuple(out)
        lat, pick = self.best(values, extents, p)
        lat, pick = np.broadcast_to(lat, (n,)), np.broadcast_to(pick, (n,))
        found = where & (pick >= 0)
        out[0] = np.where(found, lat, 0)
        for j in np.unique(pick[found]):
            mask = found & (pick == j)
            got = self.fifo(int(j)).needs(extents, p, values, cap, mask)
            for k, x in enumerate(got, start=1):
                out[k] = np.where(mask, np.broadcast_to(x, (n,)), out[k])
        return found, tuple(out)


def skewed(sched: Any) -> Skewed:
    """The skewed families of the phase of ``sched`` (automatic orders only), found once."""
    mins = schedule_mins(sched.pra)
    ranges = StatementRanges(sched.pra, sched.timing, mins)
    fams: dict[tuple[IntExpr, ...], SkewSchedule] = {}
    for order, skew, active in lifted_families(sched):
        fam = skew_family(sched, order, skew, mins, ranges, active)
        if fam is not None:
            fams.setdefault((*fam.lj, *fam.lk), fam)
    return Skewed(list(fams.values()), sched.pi)


def fill_skewed(sched: Any, values: Mapping[str, np.ndarray], out: np.ndarray, miss: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """``out`` with the points ``miss`` (no scanning order) a skewed family runs filled in
    (all at once), and the points still missing."""
    if not miss.any() or not sched.auto:
        return out, miss
    p = [np.maximum(x, 1) for x in sched.tiling.sizes_many(sched.pra, values)]
    extents = [np.asarray(d.extent.evaluate(values)) for d in sched.pra.dims]
    lat, _ = sched.skew.best(values, extents, p)
    got = miss & (lat >= 0)
    return np.where(got, lat, out), miss & ~got
