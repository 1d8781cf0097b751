"""Capacity and bandwidth rules of a declared array, as formulas in the tile sizes.

A mapping the schedule accepts may still not fit the PEs it runs on. Each rule is a named
cause (``docs/arch.md``, "Capacity rules"):

* ``fd-depth``: an intra-tile dependence ``d`` keeps a value in the PE's feedback FIFO from
  its producer's start to its consumer's, ``lambda_J . d`` cycles: at most
  ``ceil(lambda_J . d / pi)`` values are in flight (GESUMMV, ``lambda_J = (1, p0)``: the
  propagation along ``i1`` needs ``p0``). Counted only where the intra-tile case has points.
  Exactly that many only where the consumers start every ``pi`` cycles for that long; the
  points this bound refuses are counted again on the consumers (:meth:`FifoRules.tight`).
* ``fd-count``: one FIFO per transport statement whose intra-tile case has points in a PE,
  the most any PE needs. A statement's condition space bounds each dim on its own
  (``i >= 1``, ``i == N - 2``: a box) in every built-in stencil, so the tiles holding its
  points are found per dim and the count per PE is exact (a boundary statement lives in the
  first or last tile only); a condition coupling two dims counts the statement in every
  tile (an upper bound).
* ``rd-count``: one RD register per value an iteration keeps in the PE (compute results and
  copies); assumes an iteration's values die before the PE's next iteration writes them.
* ``iob-capacity``: I/O buffer words per tile (IOb accesses / PEs used, rounded up): a
  tile's inputs and outputs staged in a border buffer, against the smallest border.
* ``dram-bandwidth``: DRAM words / latency against the declared words per cycle; with
  ``bandwidth_bound`` the latency is stretched to ``ceil(words / bandwidth)`` instead.

Derived once per (phase, scanning order) as integer expressions
(:mod:`~polyjoule.analysis.intexpr`), compiled to numpy and evaluated for every point at once; the simulator (:mod:`polyjoule.analysis.simulator`) measures the same
quantities by running the mapping, sharing none of this code. Every demand is exact at any
size (Python integers past int64, :mod:`~polyjoule.analysis.exact`); an ``fd-depth`` whose
count is out of reach is the closed form's bound, and says so (:class:`FifoNeed`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from polyjoule.analysis.exact import FLOAT_EXACT, exact, integers, narrow, ratio, top_of
from polyjoule.analysis.intexpr import Compiled, IntExpr, Num, expanded
from polyjoule.analysis.occupancy import (
    UNCOUNTED,
    FifoNeed,
    Transport,
    box_windows,
    coupled_depths,
    in_reach,
    issue_run,
    largest_box,
    transports,
)
from polyjoule.analysis.scan import ScanSchedule
from polyjoule.mapping.legality import Causes, Illegal
from polyjoule.model.affine import Affine
from polyjoule.model.pra import PRA

_BIG = 1 << 62

CAUSES = ("fd-depth", "fd-count", "rd-count", "iob-capacity", "dram-bandwidth")


@dataclass(frozen=True)
class FifoDemand:
    """The FIFO one transport statement needs under one scanning order."""

    statement: str
    depth: IntExpr  # lambda_J . d (cycles a value waits), in the tile sizes p0, p1, ...
    case: Any  # the intra-tile Dependence (which points it has)


@dataclass
class FifoRules:
    """``fd-depth`` and ``fd-count`` of one scanning order, compiled once."""

    candidate: ScanSchedule
    pi: int = 1

    @cached_property
    def demands(self) -> tuple[FifoDemand, ...]:
        c, n = self.candidate, self.candidate.pra.n
        lj = c.lj if isinstance(c, ScanSchedule) else c.lambda_J  # an integer program's: ints
        return tuple(FifoDemand(d.statement, expanded(sum(
            (lj[l] * d.d_j[l] for l in range(n)), Num(0))), d)
            for d in c.deps if not any(d.d_k) and any(d.dist))

    @cached_property
    def _fn(self) -> Any:
        n = self.candidate.pra.n
        exprs = tuple(f.depth for f in self.demands) or (Num(0),)
        return Compiled(exprs, tuple(f"p{l}" for l in range(n)))

    def formulas(self) -> dict[str, Any]:
        """Per FIFO (transport statement) the cycles its values wait, as sympy."""
        return {f.statement: f.depth.sympy() for f in self.demands}

    @cached_property
    def _spans(self) -> dict[str, list[tuple[list[tuple[Affine, int]], list[tuple[Affine, int]]]]]:
        """Per statement and dim the bounds that can keep it out of some tile (the others,
        e.g. ``j >= 1`` for a dependence of distance 1 along ``j``, never do)."""
        pra = self.candidate.pra
        out = {}
        for f in self.demands:
            per_dim = []
            for l, (lo, hi) in enumerate(spans(pra, f.statement)):
                d = f.case.dist[l]
                edge = pra.dims[l].extent.shift(-1 + min(d, 0))  # the last intra-tile index
                per_dim.append(([(num, a) for num, a in lo
                                 if num.terms or -(-num.const // a) > max(d, 0)],
                                [(num, a) for num, a in hi if not _covers(num, a, edge)]))
            out[f.statement] = per_dim
        return out

    def needs(self, extents: Sequence[Any], p: Sequence[Any],
              values: Mapping[str, Any] | None = None, cap: int | None = None,
              where: Any = True) -> FifoNeed:
        """Per point: the deepest FIFO (words) and the most FIFOs one PE holds values in
        (``values``: the parameters, for the statements' bounds; without them a statement
        counts in every PE, an upper bound). ``cap``: the declared depth; the points (of
        ``where``) the closed form puts above it are counted exactly (:meth:`tight`). Depths
        are exact integers at any size (Python integers past int64)."""
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)))
        depth: Any = np.zeros(shape, dtype=np.int64)
        if not self.demands:
            return FifoNeed(depth, depth.copy(), np.zeros(shape, bool))
        vals = self._fn(*(np.asarray(x) for x in p))
        if len(self.demands) == 1:
            vals = [vals]
        by_stmt: dict[str, np.ndarray] = {}
        plain = []
        for i, (f, v) in enumerate(zip(self.demands, vals, strict=True)):
            has = np.broadcast_to(f.case.nonempty(extents, p), shape)
            words = np.where(has, -(-integers(v) // self.pi), 0)
            depth = np.maximum(depth, words)
            by_stmt[f.statement] = by_stmt.get(f.statement, np.zeros(shape, bool)) | (has & (words > 0))
            if i in self._plain:
                plain.append((self._plain[i], has, words))
        used = {st: (m, dict(zip(range(len(extents)), self._dist(st), strict=False)))
                for st, m in by_stmt.items()}
        if values is None:
            count = np.sum([np.broadcast_to(m, shape) for m, _ in used.values()], axis=0)
        else:
            count = per_pe(self._spans, used, extents, p, values, shape)
        bound = np.zeros(shape, bool)
        if cap is not None and values is not None:
            over = (depth > cap) & where
            for inner, has, words in plain:  # the closed form is the count there
                fits = has & (words == depth)
                for l in inner:
                    fits = fits & (np.asarray(p[l]) <= np.asarray(extents[l]))
                over = over & ~fits
            depth, bound = self.tight(depth, over, extents, p, values)
        return FifoNeed(narrow(depth), np.asarray(count, dtype=np.int64), bound)

    def _dist(self, statement: str) -> tuple[int, ...]:
        return next(f.case.dist for f in self.demands if f.statement == statement)

    @cached_property
    def _lam_fn(self) -> Any:
        c = self.candidate
        lj = c.lj if isinstance(c, ScanSchedule) else tuple(Num(int(x)) for x in c.lambda_J)
        return Compiled(tuple(lj), tuple(f"p{l}" for l in range(c.pra.n)))

    @cached_property
    def _moves(self) -> dict[str, Transport]:
        return {mv.statement: mv for mv in transports(self.candidate.pra)}

    @cached_property
    def _plain(self) -> dict[int, tuple[int, ...]]:
        """Demands whose closed form is their count by their shape alone (GEMM's): a plain
        scanning order, a distance of one along one dim and a condition that cuts no dim
        short; per such demand (index) the dims scanned inside that one. Its consumers fill
        every tile but the first row along that dim, a run of ``pi``-spaced starts as long
        as the window wherever those inner dims' tiles fit in their extents."""
        c = self.candidate
        if any(getattr(c, "skew", ())):
            return {}
        out = {}
        for i, f in enumerate(self.demands):
            dims = [l for l, d in enumerate(f.case.dist) if d]
            if (len(dims) != 1 or f.case.dist[dims[0]] != 1 or self._moves[f.statement].coupled
                    or any(lo or hi for lo, hi in self._spans[f.statement])):
                continue
            out[i] = tuple(c.order[:c.order.index(dims[0])])
        return out

    def tight(self, depth: Any, over: Any, extents: Sequence[Any], p: Sequence[Any],
              values: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """``depth`` (from the closed form) counted exactly at the points ``over``:
        ``ceil(lambda_J . d / pi)`` holds only where the consumers start every ``pi``
        cycles for that long (:func:`~polyjoule.analysis.occupancy.issue_run`); a condition
        leaving out boundary points, or a skew's empty slots, leave fewer in flight (the
        values one window of the consumers' start cycles holds, as the simulator measures).
        Also per point whether the depth is still the closed form's bound: the count out of
        reach there (:func:`in_reach`, or a tile too large to count), never a guess."""
        shape = np.broadcast_shapes(np.shape(depth), np.shape(over),
                                    *(np.shape(x) for x in (*extents, *p)))
        flat = np.broadcast_to(integers(depth), shape).reshape(-1).copy()
        bound = np.zeros(flat.size, bool)
        rows = np.flatnonzero(np.broadcast_to(over, shape))
        if not rows.size:
            return np.broadcast_to(depth, shape), bound.reshape(shape)
        n = len(extents)
        at = [np.broadcast_to(integers(x), shape).reshape(-1)[rows] for x in (*extents, *p)]
        got = self._lam_fn(*(np.maximum(x, 1) for x in at[n:]))
        lam = [np.broadcast_to(integers(x), rows.shape) for x in ([got] if n == 1 else got)]
        vals = {k: np.broadcast_to(integers(values[k]), shape).reshape(-1)[rows]
                for k in self.candidate.pra.params}
        ok = in_reach([*at, *vals.values()], lam,
                      [self._moves[f.statement].dep for f in self.demands])
        bound[rows[~ok]] = True
        if ok.any():  # every integer below fits int64 there

            def small(x: np.ndarray) -> np.ndarray:
                return x[ok].astype(np.int64)
            flat[rows[ok]], bound[rows[ok]] = self._counted(
                [small(x) for x in at[:n]], [np.maximum(small(x), 1) for x in at[n:]],
                [small(x) for x in lam], {k: small(v) for k, v in vals.items()})
        return narrow(flat).reshape(shape), bound.reshape(shape)

    def _counted(self, ext: list[np.ndarray], q: list[np.ndarray], lam: list[np.ndarray],
                 vals: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Per point: the deepest FIFO, and whether that is a FIFO's closed form (one not
        counted, whose bound exceeds every FIFO counted there)."""
        counted = np.zeros(len(ext[0]), np.int64)
        most = np.full(len(ext[0]), -1, np.int64)  # the largest bound of a FIFO not counted
        for f in self.demands:
            got, left = self._exact(f, lam, ext, q, vals)
            counted = np.maximum(counted, np.where(left, 0, got))
            most = np.maximum(most, np.where(left, got, -1))
        return np.maximum(counted, most), most > counted

    def _exact(self, f: FifoDemand, lam: list[np.ndarray], ext: list[np.ndarray],
               q: list[np.ndarray], vals: Mapping[str, np.ndarray]
               ) -> tuple[np.ndarray, np.ndarray]:
        """One FIFO's depth at the points (rows) given, counted on the consumers' box, and
        where it could not be counted (there its closed form ``ceil(lambda_J . d / pi)``)."""
        mv = self._moves[f.statement]
        wait = np.sum([lam[l] * d for l, d in enumerate(mv.dep)], axis=0)
        has = np.asarray(np.broadcast_to(f.case.nonempty(ext, q), wait.shape))
        words = np.where(has, -(-wait // self.pi), 0)
        if mv.coupled:  # consumers fewer than a box: every tile of every point counted
            out = np.zeros(wait.size, dtype=np.int64)
            at = np.flatnonzero(has)
            out[at] = coupled_depths(self.candidate.pra, mv, [x[at] for x in lam],
                                     [x[at] for x in q], {k: v[at] for k, v in vals.items()})
        else:
            sizes = largest_box(mv, vals, ext, q)
            some = has & np.logical_and.reduce([s > 0 for s in sizes])
            out = np.where(some, words, 0)
            short = some & (issue_run(sizes, lam, self.candidate.order, self.pi) < words)
            if short.any():
                out[short] = box_windows([s[short] for s in sizes], [x[short] for x in lam],
                                         wait[short])
        left = out == UNCOUNTED
        return np.where(left, words, out), left


def spans(pra: PRA, statement: str) -> list[tuple[list[tuple[Affine, int]], list[tuple[Affine, int]]]]:
    """Per dim the bounds a statement's condition space puts on it alone: lower bounds
    ``i >= ceil(num / a)`` and upper bounds ``i <= floor(num / a)`` as ``(num, a)``, ``num``
    affine in the parameters. A constraint naming two dims bounds neither (an upper bound
    on where the statement has points)."""
    s = next(x for x in pra.statements if x.id == statement)
    names = pra.dim_names
    out: list[tuple[list[tuple[Affine, int]], list[tuple[Affine, int]]]] = [([], []) for _ in names]
    for c in pra.statement_space(s):
        co = c.expr.coeffs
        dims = [l for l, n in enumerate(names) if co.get(n, 0)]
        if len(dims) != 1:
            continue
        l = dims[0]
        a = co[names[l]]
        rest = Affine.of({n: v for n, v in co.items() if n != names[l]}, c.expr.const)
        lo, hi = out[l]
        if a > 0:  # a*i + rest >= 0  ->  i >= -rest/a
            lo.append((-rest, a))
            if c.eq:
                hi.append((-rest, a))
        else:  # i <= rest/(-a)
            hi.append((rest, -a))
            if c.eq:
                lo.append((rest, -a))
    return out


def _covers(num: Affine, a: int, edge: Affine) -> bool:
    """Is ``floor(num / a) >= edge`` for every parameter value (a constant difference)?"""
    diff = num - Affine.of({k: v * a for k, v in edge.terms}, edge.const * a)
    return not diff.terms and diff.const >= 0


def _bound(terms: list[tuple[Affine, int]], values: Mapping[str, Any], upper: bool) -> Any:
    out: Any = _BIG if upper else -_BIG
    for num, a in terms:
        v = np.asarray(num.evaluate(values), dtype=np.int64)
        out = np.minimum(out, v // a) if upper else np.maximum(out, -(-v // a))
    return out


def per_pe(spans_: Mapping[str, Any], used: Mapping[str, Any], extents: Sequence[Any],
           p: Sequence[Any], values: Mapping[str, Any], shape: tuple[int, ...]) -> np.ndarray:
    """The most FIFOs one PE (tile) holds values in: per statement and dim, the tiles whose
    intra-tile points meet the statement's bounds; a statement is in a PE when it is in its
    tile along every dim. Points where no bound cuts a dim short take every statement that
    has intra-tile points (tile 0 holds them all)."""
    n = int(np.prod(shape)) if shape else 1
    count = np.sum([np.broadcast_to(m, shape).reshape(-1) for m, _ in used.values()], axis=0)
    if not any(lo or hi for st in used for lo, hi in spans_[st]):
        return count.reshape(shape)
    e = [np.broadcast_to(np.asarray(x, dtype=np.int64), shape).reshape(-1) for x in extents]
    q = [np.broadcast_to(np.maximum(np.asarray(x, dtype=np.int64), 1), shape).reshape(-1) for x in p]
    bounds = {}
    cut = np.zeros(n, bool)
    for st, (_, dist) in used.items():
        for l, (lo_t, hi_t) in enumerate(spans_[st]):
            d = dist.get(l, 0)
            lo = np.broadcast_to(_bound(lo_t, values, False), shape).reshape(-1)
            hi = np.broadcast_to(_bound(hi_t, values, True), shape).reshape(-1)
            bounds[st, l] = (lo, hi)
            cut |= (lo > max(d, 0)) | (hi < e[l] - 1 + min(d, 0))
    rows = np.flatnonzero(cut)
    if rows.size:
        count = count.copy()
        count[rows] = _per_tile(used, bounds, [x[rows] for x in e], [x[rows] for x in q],
                                rows, shape)
    return count.reshape(shape)


def _per_tile(used: Mapping[str, Any], bounds: Mapping[tuple[str, int], Any],
              e: list[np.ndarray], q: list[np.ndarray], rows: np.ndarray,
              shape: tuple[int, ...]) -> np.ndarray:
    """:func:`per_pe` at the points ``rows`` where bounds matter: every tile enumerated."""
    n = rows.size
    kmax = [max(int((-(-el // ql)).max(initial=1)), 1) for el, ql in zip(e, q, strict=True)]
    count = np.zeros((n, *kmax), np.int64)
    for st, (m, dist) in used.items():
        where = np.broadcast_to(m, shape).reshape(-1)[rows].reshape((n,) + (1,) * len(kmax))
        for l in range(len(kmax)):
            k = np.arange(kmax[l])[None, :]
            d = dist.get(l, 0)
            lo, hi = (x[rows][:, None] for x in bounds[st, l])
            el, ql = e[l][:, None], q[l][:, None]
            start = np.maximum(k * ql + max(d, 0), lo)
            # the source i - d lies in the domain too (a bound ``_spans`` drops as implied)
            end = np.minimum(np.minimum(k * ql + ql - 1, el - 1) + min(d, 0), hi)
            dims = [1] * len(kmax)
            dims[l] = kmax[l]
            where = where & ((k * ql < el) & (start <= end)).reshape(n, *dims)
        count += where
    return count.reshape(n, -1).max(axis=1)


def rd_need(pra: PRA) -> int:
    """RD registers one iteration uses: one per variable a compute or an in-PE copy writes."""
    return len({s.var for s in pra.statements
                if s.kind == "compute" or (s.kind == "transport" and not any(s.dep or ()))})


def io_needs(iob_words: Any, dr_words: Any, pes: Any, latency: Any
             ) -> tuple[np.ndarray, np.ndarray]:
    """(I/O buffer words per tile, DRAM words per cycle), per point. The words are exact
    integers at any size (Python integers where they leave int64: numpy's would wrap, and
    a count past ``2**63`` arrives as ``uint64``); the rate is the exact quotient, rounded
    once."""
    words = integers(iob_words)
    pes = np.maximum(integers(pes), 1)
    if words.dtype == object:
        pes = exact(pes)
    per_tile = narrow(-(-words // pes))
    rate = ratio(integers(dr_words), np.maximum(integers(latency), 1))
    return per_tile, rate


def bandwidth_latency(latency: Any, dr_words: Any, words_per_cycle: float) -> np.ndarray:
    """The latency a DRAM of ``words_per_cycle`` allows: at least ``ceil(words / bw)``
    (exact integers at any size)."""
    words, lat = integers(dr_words), integers(latency)
    if words.dtype != object and top_of([words]) <= FLOAT_EXACT:
        floor: Any = np.ceil(words.astype(np.float64) / words_per_cycle).astype(np.int64)
    else:
        bw = Fraction(words_per_cycle)
        floor = np.asarray([math.ceil(int(w) / bw) for w in words.flat],
                           dtype=object).reshape(words.shape)
    return narrow(np.maximum(exact(lat) if floor.dtype == object else lat, floor))


def check(out: Causes, caps: Any, needs: dict[str, Any], bandwidth_bound: bool = False,
          bound: Any = False) -> None:
    """Add to ``out`` every capacity rule ``needs`` violates against the declared ``caps``
    (a :class:`~polyjoule.targets.tcpa.array.Capacities`). ``needs`` maps a cause of
    :data:`CAUSES` to its demand per point (a missing cause is not checked); ``bound``: the
    points whose ``fd-depth`` is the closed form's bound, not a count (:class:`FifoNeed`):
    where it exceeds the limit the cause stands, its detail saying it was not evaluated."""
    border = min(caps.iob_capacity_words.values(), default=0)
    limits = {"fd-depth": caps.fd_depth_words, "fd-count": caps.fd_count,
              "rd-count": caps.rd_count, "iob-capacity": border,
              "dram-bandwidth": caps.dram_bandwidth_words_per_cycle}
    for cause in CAUSES:
        if cause not in needs or (cause == "dram-bandwidth" and bandwidth_bound):
            continue
        need, limit = np.asarray(needs[cause]), limits[cause]
        bad = need > limit
        if np.any(bad):
            unsure = bad & bound if cause == "fd-depth" and np.any(bound) else None
            counted = bad if unsure is None else bad & ~unsure
            out.add(Illegal(cause, _detail(cause, need, counted, unsure, limit)), bad)


def _detail(cause: str, need: np.ndarray, bad: np.ndarray, unsure: np.ndarray | None,
            limit: Any) -> str:
    """What a cause needs (the most at the points ``bad``), and at the points ``unsure``
    the closed form's bound of a demand not counted."""
    def most(m: np.ndarray) -> str:
        return _fmt(need[m].max() if need.ndim else need)

    has = f"the declaration has {_fmt(limit)}"
    if unsure is None or not np.any(unsure):
        return f"needs up to {most(bad)} {UNITS[cause]}, {has}"
    bound = f"the closed form ceil(lambda_J . d / pi) bounds it by {most(unsure)} {UNITS[cause]}"
    if np.any(bad):
        return (f"needs up to {most(bad)} {UNITS[cause]}, {has}; where its count is out of "
                f"reach, {bound}")
    return (f"not evaluated: counting it exactly is out of reach here (a tile too large to "
            f"count, or cycles past int64); {bound}, {has}; the access counts and latency "
            "are exact")


UNITS = {"fd-depth": "words per FIFO", "fd-count": "FIFOs per PE",
         "rd-count": "RD registers per PE", "iob-capacity": "words per border buffer",
         "dram-bandwidth": "DRAM words per cycle"}


def _fmt(x: Any) -> str:
    """A demand or limit as people read it: exact integers with thousands separators."""
    if isinstance(x, int | np.integer):
        return f"{int(x):,}"
    x = float(x)
    return f"{int(x):,}" if x == int(x) else f"{x:,.6g}"  # a declared 0.125 stays 0.125
