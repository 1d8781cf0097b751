"""FIFO occupancy of a concrete schedule, counted on the tiles' iteration points.

Where a scanning order schedules a tile, ``fd-depth`` has a closed form
(:mod:`~polyjoule.analysis.capacity`: ``ceil(lambda_J . d / pi)`` words). A schedule of the
integer program (:meth:`~polyjoule.analysis.schedule.Schedule.ilp_at`) may leave issue
slots empty, and a statement leaving out boundary points (``1 <= i <= N - 2``) has fewer
consumers than the tile, so that bound can exceed what the PE holds. At one design point the
tile sizes are concrete, and the use is counted here as the simulator measures it:

* a transport ``x[i] = y[i - d]`` whose source runs on the same PE pushes its value when the
  producer iteration starts (``lambda_J . (j - d)`` in the tile) and pops it when the
  consumer's does (``lambda_J . j``): at cycle ``c`` the FIFO holds the values of the
  consumers with ``c < lambda_J . j <= c + lambda_J . d``, so its depth is the most
  consumer start cycles one window of ``lambda_J . d`` cycles holds;
* one FIFO per transport statement with such a consumer in the PE; ``fd-count`` is the most
  any PE (tile) needs.

A statement's condition space bounds each dim on its own in every stencil, so a tile's
consumers form a box, and the deepest FIFO is the one of the largest box along every dim (a
window holds no more starts of a box that fits in a shift of it; every tile's box does). A
condition coupling two dims counts each tile by its rows (:func:`tile_window`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from polyjoule.errors import ResourceLimitError
from polyjoule.model.affine import Affine
from polyjoule.model.pra import PRA


@dataclass(frozen=True)
class FifoUse:
    """The FIFO use of one phase at one design point."""

    depth: int  # the most values one FIFO holds at once
    count: int  # the most FIFOs one PE holds values in


@dataclass(frozen=True)
class Transport:
    """A transport between iterations, its condition space read once: per constraint on
    one dim ``(dim, coeff, rest, eq)`` (``coeff * i + rest >= 0``, ``rest`` affine in the
    parameters), and the constraints naming several dims ``(coeffs, rest, eq)``."""

    dep: tuple[int, ...]
    single: tuple[tuple[int, int, Affine, bool], ...]
    coupled: tuple[tuple[tuple[int, ...], Affine, bool], ...]
    statement: str = ""


def transports(pra: PRA) -> tuple[Transport, ...]:
    """The phase's transports with a non-zero distance (the ones that may use a FIFO)."""
    names = pra.dim_names
    out = []
    for s in pra.statements:
        if s.kind != "transport" or not any(s.dep or ()):
            continue
        single, coupled = [], []
        for c in pra.statement_space(s):
            co = c.expr.coeffs
            vec = tuple(int(co.get(n, 0)) for n in names)
            rest = Affine.of({k: v for k, v in co.items() if k not in names}, c.expr.const)
            dims = [l for l, a in enumerate(vec) if a]
            if len(dims) == 1:
                single.append((dims[0], vec[dims[0]], rest, c.eq))
            else:
                coupled.append((vec, rest, c.eq))
        out.append(Transport(tuple(int(x) for x in s.dep or ()), tuple(single), tuple(coupled),
                             s.id))
    return tuple(out)


def fifo_use(pra: PRA, lambda_J: Sequence[int], p: Sequence[int],
             values: Mapping[str, int], moves: Sequence[Transport] | None = None) -> FifoUse:
    """The FIFO use of ``pra`` run with intra-tile schedule ``lambda_J`` on tiles of sizes
    ``p`` at parameter ``values`` (see the module docstring); ``moves``: its
    :func:`transports`, when already read."""
    ext = [int(d.extent.evaluate(values)) for d in pra.dims]
    p = [max(int(q), 1) for q in p]
    t = [max(-(-e // q), 1) for e, q in zip(ext, p, strict=True)]
    lam = np.asarray([int(x) for x in lambda_J], dtype=np.int64)
    depth = 0
    fifos = np.zeros(t, dtype=np.int64)
    seen: dict[Any, tuple[np.ndarray, int]] = {}  # transports alike in distance and bounds
    for mv in transports(pra) if moves is None else moves:
        wait = int(lam @ np.asarray(mv.dep, dtype=np.int64))
        lo, hi = _bounds(mv, values, ext)
        key = (mv.dep, lo, hi) if not mv.coupled else None
        hit = seen.get(key)
        if hit is None:
            ranges = _consumers(mv, lo, hi, ext, p, t)
            if mv.coupled:
                coupled = [(np.asarray(vec, dtype=np.int64), rest.evaluate(values), eq)
                           for vec, rest, eq in mv.coupled]
                hit = _coupled_tiles(ranges, coupled, lam, p, wait)
            else:
                hit = seen[key] = _boxes(ranges, lam, wait)
        fifos += hit[0]
        depth = max(depth, hit[1])
    return FifoUse(depth, int(fifos.max(initial=0)))


def _bounds(mv: Transport, values: Mapping[str, int], ext: list[int]
            ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per dim the least and greatest index the transport's condition allows (its bounds
    on that dim alone, within the box)."""
    lo, hi = [0] * len(ext), [e - 1 for e in ext]
    for l, a, rest, eq in mv.single:
        r = rest.evaluate(values)  # a*i + r >= 0 (== 0)
        if a > 0 or eq:
            lo[l] = max(lo[l], -(r // a) if a > 0 else -(-r // -a))
        if a < 0 or eq:
            hi[l] = min(hi[l], r // -a if a < 0 else -r // a)
    return tuple(lo), tuple(hi)


def _consumers(mv: Transport, lo: Sequence[int], hi: Sequence[int], ext: list[int],
               p: list[int], t: list[int]) -> list[np.ndarray]:
    """Per dim, per tile ``k``: the intra-tile range ``[a, b]`` of the transport's points
    (within ``lo``, ``hi``) whose source ``i - d`` lies in the same tile (rows of a
    ``(t, 2)`` array; empty where ``a > b``)."""
    out = []
    for l in range(len(ext)):
        k = np.arange(t[l], dtype=np.int64) * p[l]
        a = np.maximum(lo[l] - k, 0)
        b = np.minimum(hi[l] - k, p[l] - 1)
        if p[l] < ext[l]:  # tiled: the producer in the same tile along l
            a = np.maximum(a, mv.dep[l])
            b = np.minimum(b, p[l] - 1 + mv.dep[l])
        out.append(np.stack([a, b], axis=1))
    return out


def _boxes(ranges: list[np.ndarray], lam: np.ndarray, wait: int) -> tuple[np.ndarray, int]:
    """(tiles holding a consumer, deepest FIFO) where the consumers of each tile form a box."""
    nonempty = [r[:, 0] <= r[:, 1] for r in ranges]
    has = np.ones([len(r) for r in ranges], dtype=bool)
    for l, m in enumerate(nonempty):
        shape = [1] * len(ranges)
        shape[l] = m.size
        has = has & m.reshape(shape)
    if not has.any():
        return has.astype(np.int64), 0
    # a window holds no more starts of a smaller box (it fits in a shift of the largest)
    sizes = tuple(int((r[m, 1] - r[m, 0]).max()) + 1 for r, m in zip(ranges, nonempty,
                                                                       strict=True))
    return has.astype(np.int64), box_window(sizes, tuple(int(x) for x in lam), wait)


@lru_cache(maxsize=4096)
def box_window(sizes: tuple[int, ...], lam: tuple[int, ...], wait: int) -> int:
    """The most start cycles ``lam . j`` of a box of ``sizes`` points per dim one window of
    ``wait`` cycles holds (the same wherever the box lies: a shift moves every start
    alike). Where one dim's ``lambda`` exceeds the others' span (a lexicographic scan), a
    window meets at most ``wait // lambda + 2`` of its rows, and any that many consecutive
    rows are alike: the box is counted with that many."""
    a_ = [abs(int(x)) for x in lam]
    span = sum(x * (n - 1) for x, n in zip(a_, sizes, strict=True))
    if wait > span:
        return int(np.prod(sizes, dtype=np.int64))
    m = int(np.argmax(a_))
    if a_[m] > span - a_[m] * (sizes[m] - 1):
        sizes = (*sizes[:m], min(sizes[m], wait // a_[m] + 2), *sizes[m + 1:])
    start = np.zeros((1,) * len(sizes), dtype=np.int64)
    for l, (n, a) in enumerate(zip(sizes, lam, strict=True)):
        shape = [1] * len(sizes)
        shape[l] = n
        start = start + (abs(a) * np.arange(n, dtype=np.int64)).reshape(shape)
    return window(start.ravel(), wait)


def _coupled_tiles(ranges: list[np.ndarray], coupled: list[tuple[np.ndarray, int, bool]],
                   lam: np.ndarray, p: list[int], wait: int) -> tuple[np.ndarray, int]:
    """:func:`_boxes` for a condition coupling dims: each tile counted by its rows
    (:func:`tile_window`), tiles alike in box and constants once."""
    has = np.zeros([len(r) for r in ranges], dtype=np.int64)
    deep = 0
    lam_ = tuple(int(x) for x in lam)
    vecs = tuple(tuple(int(x) for x in vec) for vec, _, _ in coupled)
    spans = [[(kl, a, b) for kl, (a, b) in enumerate(r.tolist()) if a <= b] for r in ranges]
    for tile in itertools.product(*spans):  # the tiles holding a box of points
        k = tuple(kl for kl, _, _ in tile)
        box = tuple((a, b) for _, a, b in tile)
        cons = tuple((v, sum(x * kl * q for x, kl, q in zip(v, k, p, strict=True)) + int(c),
                      bool(eq)) for v, (_, c, eq) in zip(vecs, coupled, strict=True))
        some, d = tile_window(box, cons, lam_, wait)
        has[k] = some
        deep = max(deep, d)
    return has, deep


Constraint = tuple[tuple[int, ...], int, bool]  # (coeffs, constant, equality) in a tile's j


@lru_cache(maxsize=4096)
def tile_window(box: tuple[tuple[int, int], ...], cons: tuple[Constraint, ...],
                lam: tuple[int, ...], wait: int) -> tuple[bool, int]:
    """(whether any point ``j`` of ``box`` meets ``cons``, the most of their starts
    ``lam . j`` one window of ``wait`` cycles holds). A box every constraint holds on
    throughout is :func:`box_window`'s; else, along a dim whose ``lambda`` is the others'
    gcd, each row's points form one interval and their starts one run of cycles
    (:func:`run_window`); else every point is tested (:func:`walk_tile`)."""
    whole = True
    for vec, c, eq in cons:
        lo = c + sum(min(v * a, v * b) for v, (a, b) in zip(vec, box, strict=True))
        hi = c + sum(max(v * a, v * b) for v, (a, b) in zip(vec, box, strict=True))
        if hi < 0 or (eq and lo > 0):
            return False, 0
        whole = whole and (lo == hi == 0 if eq else lo >= 0)
    sizes = tuple(b - a + 1 for a, b in box)
    if whole:
        return True, box_window(sizes, lam, wait)
    moving = [abs(x) for x, n in zip(lam, sizes, strict=True) if n > 1 and x]
    g = math.gcd(*moving)
    unit = [l for l, (x, n) in enumerate(zip(lam, sizes, strict=True)) if n > 1 and abs(x) == g]
    if not unit and moving:
        return walk_tile(box, cons, lam, wait)
    run = max(unit, key=lambda l: sizes[l]) if unit else int(np.argmax(sizes))
    got = _runs(box, cons, lam, run, g)
    if got is None:
        return False, 0
    first, last = got
    if wait <= 0:
        return True, 0
    if not moving:  # every point starts in one cycle
        return True, int((last - first + 1).sum())
    return True, run_window(first, last, (wait - 1) // g + 1)


def _runs(box: tuple[tuple[int, int], ...], cons: tuple[Constraint, ...],
          lam: tuple[int, ...], run: int, g: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Per row along ``run`` (every index of the other dims) holding a point of ``box``
    that meets ``cons``: the first and last of its starts, relative to the box's corner and
    divided by ``g`` (consecutive, ``lam[run] = +-g``); None where no row holds one."""
    rest = [l for l in range(len(box)) if l != run]
    rows = math.prod(box[l][1] - box[l][0] + 1 for l in rest)
    if rows > TILE_POINTS:
        raise ResourceLimitError(
            f"FIFO occupancy: a tile of {rows:,} rows (over {TILE_POINTS:,}) on dims whose "
            "bounds are coupled is counted row by row; use smaller sizes or more PEs")
    axes = [np.arange(box[l][0], box[l][1] + 1, dtype=np.int64) for l in rest]
    j = axes if len(rest) < 2 else [x.ravel() for x in np.meshgrid(*axes, indexing="ij")]
    lo = np.full(rows, box[run][0], dtype=np.int64)
    hi = np.full(rows, box[run][1], dtype=np.int64)
    for vec, c, eq in cons:  # vec[run] * j_run + e >= 0 (== 0)
        e = c + sum((vec[l] * x for l, x in zip(rest, j, strict=True)), np.zeros(rows, np.int64))
        v = vec[run]
        if v == 0:
            hi = np.where((e == 0) if eq else (e >= 0), hi, lo - 1)
        elif eq:
            at = np.where(e % v == 0, -e // v, lo - 1)
            lo, hi = np.maximum(lo, at), np.where(e % v == 0, np.minimum(hi, at), lo - 1)
        elif v > 0:
            lo = np.maximum(lo, -(e // v))
        else:
            hi = np.minimum(hi, e // -v)
    keep = lo <= hi
    if not keep.any():
        return None
    base = sum(((x[keep] - box[l][0]) * (lam[l] // g if g else 0) for l, x in zip(rest, j, strict=True)),
               np.zeros(int(keep.sum()), np.int64))
    u, w = lo[keep] - box[run][0], hi[keep] - box[run][0]
    step = lam[run] // g if g else 0
    if not step:  # one cycle a row: its points told by the run's length
        return base, base + (w - u)
    return np.minimum(base + step * u, base + step * w), np.maximum(base + step * u, base + step * w)


def run_window(first: np.ndarray, last: np.ndarray, wait: int) -> int:
    """The most cycles of the runs ``[first, last]`` (a multiset: runs may overlap) one
    window of ``wait`` cycles holds. The count is piecewise linear in the window's first
    cycle ``x``, and greatest where a run begins (``x = first``) or one ends at the window's
    last cycle (``x = last - wait + 1``): it is evaluated there, by sorted cumulative sums."""
    a, b = np.sort(first), np.sort(last + 1)
    ca = np.concatenate([[0], np.cumsum(a)])
    cb = np.concatenate([[0], np.cumsum(b)])

    def before(t: np.ndarray) -> np.ndarray:  # cycles of the runs before t
        na, nb = np.searchsorted(a, t), np.searchsorted(b, t)
        return na * t - ca[na] - (nb * t - cb[nb])

    x = np.concatenate([first, last - wait + 1])
    return int((before(x + wait) - before(x)).max())


def walk_tile(box: tuple[tuple[int, int], ...], cons: tuple[Constraint, ...],
              lam: tuple[int, ...], wait: int) -> tuple[bool, int]:
    """:func:`tile_window` by testing every point of the box (memory bound: at most
    :data:`TILE_POINTS`)."""
    points = int(np.prod([b - a + 1 for a, b in box], dtype=object))
    if points > TILE_POINTS:
        raise ResourceLimitError(
            f"FIFO occupancy: a tile of {points:,} points (over {TILE_POINTS:,}) on dims whose "
            "bounds are coupled is checked point by point; use smaller sizes or more PEs")
    j = np.stack([x.ravel() for x in np.meshgrid(
        *(np.arange(a, b + 1, dtype=np.int64) for a, b in box), indexing="ij")])
    ok = np.ones(j.shape[1], dtype=bool)
    for vec, c, eq in cons:
        e = np.asarray(vec, dtype=np.int64) @ j + c
        ok &= (e == 0) if eq else (e >= 0)
    if not ok.any():
        return False, 0
    return True, window(np.asarray(lam, dtype=np.int64) @ j[:, ok], wait)


#: points of one tile the occupancy of coupled dims walks at most (about 0.5 GB of indices)
TILE_POINTS = 2**25


def window(starts: np.ndarray, wait: int) -> int:
    """The most of ``starts`` one window of ``wait`` consecutive cycles holds."""
    if starts.size == 0 or wait <= 0:
        return 0
    lo = int(starts.min())
    span = int(starts.max()) - lo + 1
    if wait >= span:
        return int(starts.size)
    if span <= 4 * starts.size:  # dense (a schedule issues about one start a cycle): O(n)
        held = np.concatenate([[0], np.cumsum(np.bincount(starts - lo, minlength=span))])
        return int((held[wait:] - held[:-wait]).max())
    v = np.sort(starts)
    return int((np.searchsorted(v, v + wait, side="left") - np.arange(v.size)).max())


@dataclass
class ExactFifos:
    """The FIFO rules of one concrete ``lambda_J`` (an integer program's schedule), read
    like :class:`~polyjoule.analysis.capacity.FifoRules`: per point the use counted on the
    tiles' points."""

    pra: PRA
    lambda_J: tuple[int, ...]
    _memo: dict[tuple[int, ...], FifoUse] = field(default_factory=dict, repr=False)

    def needs(self, extents: Sequence[Any], p: Sequence[Any], values: Mapping[str, Any],
              cap: int | None = None, where: Any = True) -> tuple[np.ndarray, np.ndarray]:
        """Per point: the deepest FIFO (words) and the most FIFOs one PE holds values in
        (exact everywhere: ``cap`` and ``where`` are read as by
        :meth:`~polyjoule.analysis.capacity.FifoRules.needs`, and need nothing)."""
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)),
                                    *(np.shape(values[k]) for k in self.pra.params))
        sizes = [np.broadcast_to(np.asarray(x, dtype=np.int64), shape).ravel() for x in p]
        vals = {k: np.broadcast_to(np.asarray(values[k], dtype=np.int64), shape).ravel()
                for k in self.pra.params}
        depth = np.zeros(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
        count = depth.copy()
        for i in range(depth.size):
            use = self.at({k: int(v[i]) for k, v in vals.items()}, [int(x[i]) for x in sizes])
            depth[i], count[i] = use.depth, use.count
        return depth.reshape(shape), count.reshape(shape)

    @cached_property
    def moves(self) -> tuple[Transport, ...]:
        return transports(self.pra)

    def at(self, values: Mapping[str, int], p: Sequence[int]) -> FifoUse:
        """:func:`fifo_use` at one point (memoised)."""
        key = (*p, *(values[k] for k in self.pra.params))
        hit = self._memo.get(key)
        if hit is None:
            if len(self._memo) > 4096:
                self._memo.clear()
            hit = self._memo[key] = fifo_use(self.pra, self.lambda_J, p, values, self.moves)
        return hit


# --- the deepest FIFO at many points at once (the exact ``fd-depth`` of a scanning order) ---


def largest_box(mv: Transport, values: Mapping[str, np.ndarray], ext: Sequence[np.ndarray],
                p: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per dim, per point: the most intra-tile indices any tile's consumers of ``mv`` span
    (:func:`_consumers` at every point at once, its single-dim bounds only); 0 where a dim
    has none. The box of these sizes is a tile's (dims are independent)."""
    n = ext[0].size
    lo = [np.zeros(n, np.int64) for _ in ext]
    hi = [np.asarray(e, dtype=np.int64) - 1 for e in ext]
    for l, a, rest, eq in mv.single:
        r = np.broadcast_to(np.asarray(rest.evaluate(values), dtype=np.int64), (n,))
        if a > 0 or eq:
            lo[l] = np.maximum(lo[l], -(r // a) if a > 0 else -(-r // -a))
        if a < 0 or eq:
            hi[l] = np.minimum(hi[l], r // -a if a < 0 else -r // a)
    out = []
    for l, d in enumerate(mv.dep):
        e, q = np.asarray(ext[l], dtype=np.int64), np.maximum(np.asarray(p[l], dtype=np.int64), 1)
        t = -(-e // q)
        k = np.arange(max(int(t.max(initial=1)), 1), dtype=np.int64)[None, :] * q[:, None]
        a = np.maximum(lo[l][:, None] - k, 0)
        b = np.minimum(hi[l][:, None] - k, q[:, None] - 1)
        tiled = (q < e)[:, None]
        a = np.where(tiled, np.maximum(a, d), a)
        b = np.where(tiled, np.minimum(b, q[:, None] - 1 + d), b)
        size = np.where(k < e[:, None], np.maximum(b - a + 1, 0), 0)
        out.append(size.max(axis=1))
    return out


def issue_run(sizes: Sequence[np.ndarray], lam: Sequence[np.ndarray], order: Sequence[int],
              pi: int) -> np.ndarray:
    """Per point: how many of a box's starts follow one another every ``pi`` cycles from its
    first (innermost dim first; a dim joins the run while the previous ones' span plus
    ``pi`` is its ``lambda``). A window of ``W <= pi * run`` cycles then holds
    ``ceil(W / pi)`` starts: the closed form is the exact depth."""
    run = np.ones(sizes[0].shape, np.int64)
    span = np.zeros_like(run)
    going = np.ones(run.shape, bool)
    for l in order:
        n, a = np.asarray(sizes[l], dtype=np.int64), np.abs(np.asarray(lam[l], dtype=np.int64))
        joins = going & (n > 1) & (a == span + pi)
        run = np.where(joins, run * n, run)
        span = np.where(joins, span + a * (n - 1), span)
        going = going & ((n <= 1) | joins)
    return run


def box_windows(sizes: Sequence[np.ndarray], lam: Sequence[np.ndarray], wait: np.ndarray
                ) -> np.ndarray:
    """:func:`box_window` per point, once per distinct (sizes, lambda, wait)."""
    rows = np.stack([*(np.asarray(x, dtype=np.int64) for x in (*sizes, *lam)),
                     np.asarray(wait, dtype=np.int64)], axis=1)
    keys, back = np.unique(rows, axis=0, return_inverse=True)
    n = len(sizes)
    got = np.asarray([box_window(tuple(int(x) for x in r[:n]), tuple(int(x) for x in r[n:2 * n]),
                                 int(r[-1])) for r in keys], dtype=np.int64)
    return got[np.ravel(back)]


def coupled_depth(pra: PRA, mv: Transport, lam: Sequence[int], p: Sequence[int],
                  values: Mapping[str, int]) -> int:
    """The deepest FIFO of one transport whose condition couples dims, at one point."""
    ext = [int(d.extent.evaluate(values)) for d in pra.dims]
    p = [max(int(q), 1) for q in p]
    t = [max(-(-e // q), 1) for e, q in zip(ext, p, strict=True)]
    lam_ = np.asarray([int(x) for x in lam], dtype=np.int64)
    lo, hi = _bounds(mv, values, ext)
    coupled = [(np.asarray(vec, dtype=np.int64), rest.evaluate(values), eq)
               for vec, rest, eq in mv.coupled]
    return _coupled_tiles(_consumers(mv, lo, hi, ext, p, t), coupled, lam_, p,
                          int(lam_ @ np.asarray(mv.dep, dtype=np.int64)))[1]
