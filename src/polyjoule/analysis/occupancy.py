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
condition coupling two dims counts every tile by its rows (:func:`tile_windows`, all tiles of
many points at once: :func:`coupled_depths`).
"""

from __future__ import annotations

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
    """:func:`_boxes` for a condition coupling dims: every tile holding a box of points
    counted by its rows (:func:`tile_windows`)."""
    has = np.zeros([len(r) for r in ranges], dtype=np.int64)
    keep = [np.flatnonzero(r[:, 0] <= r[:, 1]) for r in ranges]
    if any(k.size == 0 for k in keep):
        return has, 0
    k = np.stack([x.ravel() for x in np.meshgrid(*keep, indexing="ij")], axis=1)
    a = np.stack([r[k[:, l], 0] for l, r in enumerate(ranges)], axis=1).astype(np.int64)
    b = np.stack([r[k[:, l], 1] for l, r in enumerate(ranges)], axis=1).astype(np.int64)
    vecs = np.asarray([vec for vec, _, _ in coupled], dtype=np.int64).reshape(-1, len(ranges))
    eqs = np.asarray([bool(eq) for _, _, eq in coupled], dtype=bool)
    const = (np.asarray([int(c) for _, c, _ in coupled], dtype=np.int64)
             + (k * np.asarray(p, dtype=np.int64)) @ vecs.T)
    got, deep = tile_windows(a, b, const, vecs, eqs, np.broadcast_to(lam, a.shape),
                             np.full(len(a), wait, dtype=np.int64))
    has[tuple(k.T)] = got
    return has, int(deep.max(initial=0))


Constraint = tuple[tuple[int, ...], int, bool]  # (coeffs, constant, equality) in a tile's j


def tile_windows(a: np.ndarray, b: np.ndarray, const: np.ndarray, vecs: np.ndarray,
                 eqs: np.ndarray, lam: np.ndarray, wait: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per tile (its box ``[a, b]``, rows of ``(tiles, dims)``; constraint ``m`` is
    ``vecs[m] . j + const[tile, m] >= 0``, ``== 0`` where ``eqs[m]``; its schedule ``lam``
    and ``wait``): whether a point of its box meets them, and the most of those points'
    starts ``lam . j`` one window of ``wait`` cycles holds. A tile every constraint holds on
    throughout is a box (:func:`box_windows`); else, along a dim whose ``lambda`` is the
    others' gcd, each row's points form one interval and their starts one run of cycles
    (:func:`_runs`, every row of every such tile at once); else its points are tested
    (:func:`walk_tile`)."""
    sizes = b - a + 1
    lo = const + np.minimum(a[:, None, :] * vecs, b[:, None, :] * vecs).sum(axis=2)
    hi = const + np.maximum(a[:, None, :] * vecs, b[:, None, :] * vecs).sum(axis=2)
    empty = ((hi < 0) | (eqs & (lo > 0))).any(axis=1)
    whole = ~empty & np.where(eqs, (lo == 0) & (hi == 0), lo >= 0).all(axis=1)
    has, deep = whole.copy(), np.zeros(len(a), dtype=np.int64)
    if whole.any():
        deep[whole] = box_windows(list(sizes[whole].T), list(lam[whole].T), wait[whole])
    part = np.flatnonzero(~empty & ~whole)
    if not part.size:
        return has, deep
    a, b = a.copy(), b.copy()
    a[part], b[part] = _tightened(a[part], b[part], const[part], vecs, eqs)
    part = part[(a[part] <= b[part]).all(axis=1)]
    b[part] = a[part] + _trimmed(b[part] - a[part] + 1, lam[part], wait[part],
                                 ~vecs.any(axis=0)) - 1
    sizes = b - a + 1
    n_, step = sizes[part], np.abs(lam[part])
    moving = (n_ > 1) & (step > 0)
    g = np.gcd.reduce(np.where(moving, step, 0), axis=1)
    unit = (n_ > 1) & (step == g[:, None])
    run = np.where(unit.any(axis=1), np.argmax(np.where(unit, n_, -1), axis=1),
                   np.argmax(n_, axis=1))
    walked = ~unit.any(axis=1) & moving.any(axis=1)
    for i in part[walked]:  # no unit step: every point tested
        cons = tuple((tuple(int(x) for x in v), int(c), bool(e))
                     for v, c, e in zip(vecs, const[i], eqs, strict=True))
        has[i], deep[i] = _walked(tuple(zip(a[i].tolist(), b[i].tolist(), strict=True)), cons,
                                  tuple(int(x) for x in lam[i]), int(wait[i]))
    for r in np.unique(run[~walked]).tolist():
        group = part[~walked & (run == r)]
        gg = g[~walked & (run == r)]
        for tiles in _row_blocks(sizes[group], r):
            at = group[tiles]
            got = _runs(a[at], b[at], const[at], vecs, eqs, lam[at], r, gg[tiles])
            has[at] |= np.bincount(got[0], minlength=len(at)) > 0
            deep[at] = _runs_windows(*got, wait[at], gg[tiles])
    return has, deep


def _tightened(a: np.ndarray, b: np.ndarray, const: np.ndarray, vecs: np.ndarray,
               eqs: np.ndarray, rounds: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The boxes ``[a, b]`` (see :func:`tile_windows`) cut to the indices a constraint allows
    given the other dims' ranges (``rounds`` passes; empty where ``a > b``): the same points
    meet the constraints, fewer rows to count."""
    a, b = a.copy(), b.copy()
    for _ in range(rounds):
        for vec, c, eq in zip(vecs.tolist(), const.T, eqs, strict=True):
            v = np.asarray(vec, dtype=np.int64)
            least, most = np.minimum(a * v, b * v), np.maximum(a * v, b * v)
            for l in np.flatnonzero(v).tolist():
                # vec[l] * j_l >= -(the most the others reach); == 0: <= -(the least)
                up = c + most.sum(axis=1) - most[:, l]
                if vec[l] > 0:
                    a[:, l] = np.maximum(a[:, l], -(up // vec[l]))
                else:
                    b[:, l] = np.minimum(b[:, l], up // -vec[l])
                if eq:
                    down = c + least.sum(axis=1) - least[:, l]
                    if vec[l] > 0:
                        b[:, l] = np.minimum(b[:, l], -down // vec[l])
                    else:
                        a[:, l] = np.maximum(a[:, l], -(-down // -vec[l]))
    return a, b


def _trimmed(sizes: np.ndarray, lam: np.ndarray, wait: np.ndarray, free: np.ndarray
             ) -> np.ndarray:
    """``sizes`` with each dim no constraint names (``free``) cut to ``wait // lambda + 2``
    where its ``lambda`` exceeds the other dims' span: the points are then copies of one
    set, one per index along it, each a translate of the previous by ``lambda`` cycles past
    its last; a window meets at most that many consecutive copies, and any that many are
    alike (:func:`box_window`'s cut)."""
    sizes = sizes.copy()
    step = np.abs(lam)
    for m in np.flatnonzero(free).tolist():
        span = (step * (sizes - 1)).sum(axis=1) - step[:, m] * (sizes[:, m] - 1)
        cut = (step[:, m] > span) & (sizes[:, m] > 1)
        sizes[cut, m] = np.minimum(sizes[cut, m],
                                   np.maximum(wait[cut] // step[cut, m] + 2, 1))
    return sizes


#: rows of tiles counted in one pass (bounds the arrays of their runs)
ROW_BLOCK = 2**22


def _row_blocks(sizes: np.ndarray, run: int) -> list[np.ndarray]:
    """The tiles (indices into ``sizes``) in blocks of about :data:`ROW_BLOCK` rows along
    ``run`` at most (a tile of more alone); a tile over :data:`TILE_POINTS` rows is refused."""
    rows = np.prod(np.delete(sizes, run, axis=1), axis=1, dtype=np.int64)
    if rows.size and int(rows.max()) > TILE_POINTS:
        raise ResourceLimitError(
            f"FIFO occupancy: a tile of {int(rows.max()):,} rows (over {TILE_POINTS:,}) on dims "
            "whose bounds are coupled is counted row by row; use smaller sizes or more PEs")
    cut = np.flatnonzero(np.diff(np.cumsum(rows) // ROW_BLOCK)) + 1
    return np.split(np.arange(rows.size), cut)


@lru_cache(maxsize=4096)
def _walked(box: tuple[tuple[int, int], ...], cons: tuple[Constraint, ...],
            lam: tuple[int, ...], wait: int) -> tuple[bool, int]:
    """:func:`walk_tile`, tiles alike in box, constants and schedule once."""
    return walk_tile(box, cons, lam, wait)


def _runs(a: np.ndarray, b: np.ndarray, const: np.ndarray, vecs: np.ndarray, eqs: np.ndarray,
          lam: np.ndarray, run: int, g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row along ``run`` (every index of the other dims) of every tile ``[a, b]`` (see
    :func:`tile_windows`) holding a point that meets the constraints: its tile, and the first
    and last of its starts, relative to the tile's corner and divided by the tile's ``g``
    (consecutive, ``lam[run] = +-g``; ``g = 0``: one cycle a row, its points told by the
    run's length). Rows come tile by tile."""
    rest = [l for l in range(a.shape[1]) if l != run]
    n = b[:, rest] - a[:, rest] + 1
    rows = np.prod(n, axis=1, dtype=np.int64)
    tile = np.repeat(np.arange(len(a)), rows)
    at = np.arange(tile.size, dtype=np.int64) - np.repeat(np.cumsum(rows) - rows, rows)
    off = {}  # per other dim: each row's index, relative to its tile's corner
    for c in reversed(range(len(rest))):  # the last dim the fastest
        nc = n[tile, c]
        off[rest[c]], at = at % nc, at // nc
    lo, hi = a[tile, run], b[tile, run]
    j = {l: a[tile, l] + off[l] for l in rest if vecs[:, l].any()}
    dots: dict[tuple[int, ...], np.ndarray] = {}  # the other dims' part, once per vector
    for vec, cst, eq in zip(vecs.tolist(), const.T, eqs, strict=True):
        # vec[run] * j_run + e >= 0 (== 0)
        key = tuple(vec[l] for l in rest)
        if key not in dots:
            dots[key] = sum((vec[l] * j[l] for l in rest if vec[l]), np.zeros(tile.size, np.int64))
        e = cst[tile] + dots[key]
        v = vec[run]
        if v == 0:
            hi = np.where((e == 0) if eq else (e >= 0), hi, lo - 1)
        elif eq:
            hit = e % v == 0
            pt = np.where(hit, -e // v, lo - 1)
            lo, hi = np.maximum(lo, pt), np.where(hit, np.minimum(hi, pt), lo - 1)
        elif v > 0:
            lo = np.maximum(lo, -(e // v))
        else:
            hi = np.minimum(hi, e // -v)
    keep = lo <= hi
    tile = tile[keep]
    unit = np.where(g > 0, g, 1)[:, None]
    coef = np.where(g[:, None] > 0, lam // unit, 0)[tile]  # each dim's step, in g
    base = sum((off[l][keep] * coef[:, l] for l in rest), np.zeros(tile.size, np.int64))
    u, w = lo[keep] - a[tile, run], hi[keep] - a[tile, run]
    step = coef[:, run]
    flat = step == 0  # one cycle a row: its points told by the run's length
    first = np.where(flat, base, np.minimum(base + step * u, base + step * w))
    return tile, first, np.where(flat, base + (w - u), np.maximum(base + step * u,
                                                                    base + step * w))


def _runs_windows(tile: np.ndarray, first: np.ndarray, last: np.ndarray, wait: np.ndarray,
                  g: np.ndarray) -> np.ndarray:
    """Per tile the most starts one window of ``wait`` cycles holds, given its rows as runs
    of starts (:func:`_runs`). The tiles' runs are laid one after another, a window's length
    of each apart, so that no window meets two: one :func:`run_windows` counts them all."""
    out = np.zeros(len(wait), dtype=np.int64)
    live = (wait > 0)[tile]
    if not live.any():
        return out
    tile, first, last = tile[live], first[live], last[live]
    flat = g[tile] == 0  # every point in one cycle: a row's points its run's length
    out += np.bincount(tile[flat], weights=last[flat] - first[flat] + 1,
                       minlength=len(wait)).astype(np.int64)
    tile, first, last = tile[~flat], first[~flat], last[~flat]
    if not tile.size:
        return out
    span = (wait - 1) // np.where(g > 0, g, 1) + 1
    at = np.flatnonzero(np.concatenate([[True], tile[1:] != tile[:-1]]))  # each tile's rows
    lo, hi, sp = np.minimum.reduceat(first, at), np.maximum.reduceat(last, at), span[tile[at]]
    corner = np.concatenate([[0], np.cumsum(hi - lo + 2 * sp + 1)[:-1]]) + sp - lo
    shift = np.repeat(corner, np.diff(np.append(at, tile.size)))
    most = run_windows(first + shift, last + shift, span[tile])
    out[tile[at]] = np.maximum.reduceat(most, at)
    return out


def run_windows(first: np.ndarray, last: np.ndarray, wait: np.ndarray) -> np.ndarray:
    """Per run ``[first, last]`` of a multiset of them: the most cycles of all the runs one
    window of ``wait`` (that run's) cycles holds that starts at ``first`` or ends at
    ``last``. The count is piecewise linear in the window's first cycle ``x``, and greatest
    where a run begins (``x = first``) or one ends at the window's last cycle
    (``x = last - wait + 1``): its greatest is the most of these, by sorted cumulative sums."""
    a, b = np.sort(first), np.sort(last + 1)
    ca = np.concatenate([[0], np.cumsum(a)])
    cb = np.concatenate([[0], np.cumsum(b)])

    def before(t: np.ndarray) -> np.ndarray:  # cycles of the runs before t
        na, nb = np.searchsorted(a, t), np.searchsorted(b, t)
        return na * t - ca[na] - (nb * t - cb[nb])

    x = np.concatenate([first, last - wait + 1])
    w = np.concatenate([wait, wait])
    held = before(x + w) - before(x)
    return np.maximum(held[:first.size], held[first.size:])


def walk_tile(box: tuple[tuple[int, int], ...], cons: tuple[Constraint, ...],
              lam: tuple[int, ...], wait: int) -> tuple[bool, int]:
    """(whether any point ``j`` of ``box`` meets ``cons``, the most of their starts
    ``lam . j`` one window of ``wait`` cycles holds) by testing every point of the box
    (memory bound: at most :data:`TILE_POINTS`)."""
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
    return [np.where(ok, np.maximum(b - a + 1, 0), 0).max(axis=1)
            for a, b, ok in tile_ranges(mv, values, ext, p)]


def tile_ranges(mv: Transport, values: Mapping[str, np.ndarray], ext: Sequence[np.ndarray],
                p: Sequence[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`_consumers` at every point at once: per dim ``(a, b, tile)``, each
    ``(points, most tiles)``: the intra-tile range of tile ``k`` at the point, and whether the
    point has a tile ``k`` along that dim."""
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
        out.append((a, b, k < e[:, None]))
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


def coupled_depths(pra: PRA, mv: Transport, lam: Sequence[np.ndarray], p: Sequence[np.ndarray],
                   values: Mapping[str, np.ndarray]) -> np.ndarray:
    """The deepest FIFO of one transport whose condition couples dims, per point (arrays
    alike in shape): every tile of every point
    holding a box of consumers counted in one pass (:func:`tile_windows`), a block of
    points at a time (about :data:`TILE_BLOCK` tiles' places)."""
    lam_ = np.stack([np.asarray(x, dtype=np.int64).ravel() for x in lam], axis=1)
    n = len(lam_)
    q = np.stack([np.maximum(np.asarray(x, dtype=np.int64).ravel(), 1) for x in p], axis=1)
    vals = {k: np.asarray(v, dtype=np.int64).ravel() for k, v in values.items()}
    ext = [np.broadcast_to(np.asarray(d.extent.evaluate(vals), dtype=np.int64), (n,))
           for d in pra.dims]
    ranges = tile_ranges(mv, vals, ext, list(q.T))
    vecs = np.asarray([vec for vec, _, _ in mv.coupled], dtype=np.int64)
    eqs = np.asarray([eq for _, _, eq in mv.coupled], dtype=bool)
    const = np.stack([np.broadcast_to(np.asarray(rest.evaluate(vals), dtype=np.int64), (n,))
                      for _, rest, _ in mv.coupled], axis=1)
    wait = lam_ @ np.asarray(mv.dep, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    block = max(TILE_BLOCK // math.prod(a.shape[1] for a, _, _ in ranges), 1)
    for s in range(0, n, block):
        ok = np.ones((min(block, n - s),), dtype=bool)
        for a, b, there in ranges:  # (points, tiles along dims so far)
            ok = ok[..., None] & ((a[s:s + block] <= b[s:s + block]) & there[s:s + block]
                                  ).reshape((-1,) + (1,) * (ok.ndim - 1) + (a.shape[1],))
        pt, *k = np.nonzero(ok)
        pt = pt + s
        a_ = np.stack([a[pt, kl] for (a, _, _), kl in zip(ranges, k, strict=True)], axis=1)
        b_ = np.stack([b[pt, kl] for (_, b, _), kl in zip(ranges, k, strict=True)], axis=1)
        corner = np.stack(k, axis=1) * q[pt]
        _, deep = tile_windows(a_, b_, const[pt] + corner @ vecs.T, vecs, eqs, lam_[pt], wait[pt])
        np.maximum.at(out, pt, deep)
    return out


#: tiles' places (points by tiles along every dim) :func:`coupled_depths` lays out at once
TILE_BLOCK = 2**20
