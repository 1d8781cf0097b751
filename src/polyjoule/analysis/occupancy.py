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
window holds no more starts of a box that fits in a shift of it; every tile's box does),
counted on the box's digits where its starts nest (:func:`box_window`: exact at any size). A
condition coupling two dims counts every tile by its rows (:func:`tile_windows`, all tiles of
many points at once: :func:`coupled_depths`), cut first to the slices one window meets. A
tile still too large to count is :data:`UNCOUNTED`: the closed form then stands, as a bound
(``docs/arch.md``, "Capacity rules").
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

import numpy as np

from polyjoule.errors import ResourceLimitError
from polyjoule.model.affine import Affine
from polyjoule.model.pra import PRA


@dataclass(frozen=True)
class FifoUse:
    """The FIFO use of one phase at one design point."""

    depth: int  # the most values one FIFO holds at once
    count: int  # the most FIFOs one PE holds values in
    counted: bool = True  # False: ``depth`` is the bound ceil(lambda_J . d / pi), not a count


class FifoNeed(NamedTuple):
    """Per point the FIFO demand of one schedule: the deepest FIFO (words), the most FIFOs
    one PE holds values in, and where the depth is only the closed form's bound
    ``ceil(lambda_J . d / pi)`` (its exact count out of reach there: ``fd-depth`` then
    says so, :func:`polyjoule.analysis.capacity.check`)."""

    depth: np.ndarray
    count: np.ndarray
    bound: np.ndarray


def in_reach(ints: Sequence[Any], lam: Sequence[Any], dists: Sequence[Sequence[int]]
             ) -> np.ndarray:
    """Per point: can its FIFOs be counted in int64? Every integer (sizes, parameters)
    below ``2**56`` and every wait ``|lambda| . |d|`` (of the distances ``dists``) below
    ``2**61``: the constraints, the tiles' index ranges and the waits then stay in int64.
    A tile whose cycles span more than ``2**60`` (once cut to the slices a window meets) is
    left :data:`UNCOUNTED` by :func:`tile_windows`; a box is counted in Python integers
    (:func:`box_window`). Elsewhere the closed form stands, marked as a bound."""
    steps = [np.abs(np.asarray(x, dtype=np.float64)) for x in lam]
    far = np.zeros(np.broadcast_shapes(*(np.shape(x) for x in (*ints, *steps))), bool)
    for x in ints:
        far |= np.abs(np.asarray(x, dtype=np.float64)) >= 2.0**56
    for d in dists:
        far |= sum((s * abs(x) for s, x in zip(steps, d, strict=True)), 0.0) >= 2.0**61
    return ~far


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
             values: Mapping[str, int], moves: Sequence[Transport] | None = None,
             pi: int = 1) -> FifoUse:
    """The FIFO use of ``pra`` run with intra-tile schedule ``lambda_J`` on tiles of sizes
    ``p`` at parameter ``values`` (see the module docstring); ``moves``: its
    :func:`transports`, when already read. A FIFO whose tiles are too large to count is
    taken at its bound ``ceil(lambda_J . d / pi)`` (``counted`` False when that decides)."""
    ext = [int(d.extent.evaluate(values)) for d in pra.dims]
    p = [max(int(q), 1) for q in p]
    moves = transports(pra) if moves is None else moves
    if not in_reach([*ext, *values.values(), *p], list(lambda_J), [mv.dep for mv in moves]):
        raise ResourceLimitError(
            f"capacity checks fd-depth and fd-count not evaluated: the FIFO occupancy of "
            f"{pra.name}'s integer-program schedule is out of the count's reach at these "
            "sizes (one past 2**56, or a wait past 2**61 cycles); the access counts and "
            "latency are not affected (a scanning order, --order, avoids the integer program)")
    t = [max(-(-e // q), 1) for e, q in zip(ext, p, strict=True)]
    lam = np.asarray([int(x) for x in lambda_J], dtype=np.int64)
    depth, bound = 0, 0  # the deepest FIFO counted, the largest bound of one not counted
    fifos = np.zeros(t, dtype=np.int64)
    seen: dict[Any, tuple[np.ndarray, int]] = {}  # transports alike in distance and bounds
    for mv in moves:
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
        if hit[1] == UNCOUNTED:
            bound = max(bound, -(-wait // pi))
        else:
            depth = max(depth, hit[1])
    return FifoUse(max(depth, bound), int(fifos.max(initial=0)), bound <= depth)


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
    alike). Where one dim's ``lambda`` exceeds the others' span, a window meets at most
    ``wait // lambda + 2`` of its rows, and any that many consecutive rows are alike: the
    box is cut to that many. Its starts are then listed, up to :data:`LISTED` of them; a
    larger box whose starts nest (every scanning order's) is counted on its digits
    (:func:`nested_window`: exact at any size), another of more than :data:`TILE_POINTS`
    is :data:`UNCOUNTED`."""
    if wait <= 0 or min(sizes, default=1) <= 0:
        return 0
    a_ = [abs(int(x)) for x in lam]
    span = sum(x * (n - 1) for x, n in zip(a_, sizes, strict=True))
    if wait > span:
        return math.prod(int(n) for n in sizes)
    m = int(np.argmax(a_))
    if a_[m] > span - a_[m] * (sizes[m] - 1):
        sizes = (*sizes[:m], min(sizes[m], wait // a_[m] + 2), *sizes[m + 1:])
    if math.prod(sizes) > LISTED:
        got = nested_window(sizes, a_, wait)
        if got is not None:
            return got
        if math.prod(sizes) > TILE_POINTS:
            return UNCOUNTED
    start = np.zeros((1,) * len(sizes), dtype=np.int64)
    for l, (n, a) in enumerate(zip(sizes, lam, strict=True)):
        shape = [1] * len(sizes)
        shape[l] = n
        start = start + (abs(a) * np.arange(n, dtype=np.int64)).reshape(shape)
    return window(start.ravel(), wait)


#: starts of a box listed at most before its digits are counted instead (faster below)
LISTED = 2**14


def nested_window(sizes: Sequence[int], steps: Sequence[int], wait: int) -> int | None:
    """:func:`box_window` of a box whose starts nest (:func:`nested_levels`) without its
    points, ``None`` for another: the most starts a window holds, over every window
    (:func:`_extreme`)."""
    nested = nested_levels(sizes, [abs(int(x)) for x in steps])
    if nested is None:
        return None
    mult, levels = nested
    span = _sums(levels)[1][-1]
    return mult * _extreme(levels, len(levels), wait, -wait, span, True) if wait > 0 else 0


#: a depth not counted (the count out of reach): the closed form's bound stands there
UNCOUNTED = -1

Levels = tuple[tuple[int, int], ...]  # per dim of a nested box (points, step), steps ascending


def nested_levels(sizes: Sequence[int], steps: Sequence[int]) -> tuple[int, Levels] | None:
    """A box whose start cycles nest: each dim's step (``|lambda|``) beyond the span of the
    dims of smaller steps, so the box is ``n`` copies, one step apart, of the box of those
    dims (a scanning order's tile, whatever its consumers leave out at the edges). Its dims
    of one point dropped, of step 0 a multiplicity (points sharing their cycles): that and
    the ``(points, step)`` per remaining dim, steps ascending; ``None`` where they do not nest."""
    mult, levels = 1, []
    for n, a in zip(sizes, steps, strict=True):
        if n > 1 and a == 0:
            mult *= int(n)
        elif n > 1:
            levels.append((int(n), int(a)))
    levels.sort(key=lambda x: x[1])
    span = 0
    for n, a in levels:
        if a <= span:
            return None
        span += a * (n - 1)
    return mult, tuple(levels)


@lru_cache(maxsize=1024)
def _sums(levels: Levels) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per ``l``: the points and the span of cycles of the box of levels ``0..l-1``."""
    total, span = [1], [0]
    for n, a in levels:
        total.append(total[-1] * n)
        span.append(span[-1] + a * (n - 1))
    return tuple(total), tuple(span)


def _prefix(levels: Levels, l: int, y: int) -> int:
    """Points of the box of levels ``0..l-1`` (``l = 0``: the one point at cycle 0) that
    start before cycle ``y``: whole copies of the box below, then the copy ``y`` falls in."""
    total, span = _sums(levels)
    out = 0
    while True:
        if y <= 0:
            return out
        if y > span[l]:
            return out + total[l]
        if l == 0:
            return out + 1
        t, y = divmod(y, levels[l - 1][1])
        out += t * total[l - 1]
        l -= 1


@lru_cache(maxsize=65536)
def _extreme(levels: Levels, l: int, length: int, lo: int, hi: int, most: bool) -> int:
    """The most (``most``) or least starts of the box of levels ``0..l-1`` a window of
    ``length`` cycles holds, over the windows beginning at ``lo <= x <= hi``:
    ``prefix(x + length) - prefix(x)``. With ``x = t a + r`` (``a``: the top level's step,
    ``n`` copies), the window ends in copy ``t + q + c`` (``length = q a + rho``, ``c``: the
    carry of ``r + rho``); for ``r`` in a range where the carry and ``t``'s bounds are fixed
    the count is a part linear in ``t`` (copies whole, its extremes at the ranges' ends and
    where a copy index meets 0 or ``n``) plus a part in ``r`` alone: a window of the box
    below (``rho`` cycles, or ``a - rho`` subtracted) or one prefix, monotone."""
    if l == 0:  # the point 0 is in the window iff x <= 0 < x + length
        at = {min(max(c, lo), hi) for c in (lo, hi, -length, 1 - length, 0, 1)}
        got = [_prefix(levels, 0, x + length) - _prefix(levels, 0, x) for x in at]
        return max(got) if most else min(got)
    n, a = levels[l - 1]
    below = _sums(levels)[0][l - 1]
    q, rho = divmod(length, a)
    (lq, lr), (hq, hr) = divmod(lo, a), divmod(hi, a)
    cuts = sorted(x for x in {0, a, a - rho, lr, hr + 1} if 0 <= x <= a)
    got = []
    for r0, r1 in zip(cuts, cuts[1:], strict=False):
        c, r1 = int(r0 >= a - rho), r1 - 1
        tlo, thi = lq + (r0 < lr), hq - (r0 > hr)
        if tlo > thi:
            continue
        u = q + c  # the window's last copy is t + u
        parts: dict[tuple[bool, bool], int] = {}
        for t in {min(max(t, tlo), thi) for b in (0, n, -u, n - u) for t in (b - 1, b, tlo, thi)}:
            key = (0 <= t < n, 0 <= t + u < n)
            if key not in parts:
                parts[key] = _in_copy(levels, l - 1, rho - c * a, r0, r1, *key, most)
            got.append(below * (min(max(t + u, 0), n) - min(max(t, 0), n)) + parts[key])
    return max(got) if most else min(got)


def _in_copy(levels: Levels, l: int, shift: int, r0: int, r1: int, first: bool, last: bool,
             most: bool) -> int:
    """:func:`_extreme`'s part in ``r`` (``r0 <= r <= r1``): ``prefix(r + shift)`` when the
    window's last copy exists (``last``), less ``prefix(r)`` when its first does."""
    if first and last:
        if shift >= 0:
            return _extreme(levels, l, shift, r0, r1, most)
        return -_extreme(levels, l, -shift, r0 + shift, r1 + shift, not most)
    if first:
        return -_prefix(levels, l, r0 if most else r1)
    if last:
        return _prefix(levels, l, (r1 if most else r0) + shift)
    return 0


def _coupled_tiles(ranges: list[np.ndarray], coupled: list[tuple[np.ndarray, int, bool]],
                   lam: np.ndarray, p: list[int], wait: int) -> tuple[np.ndarray, int]:
    """:func:`_boxes` for a condition coupling dims: every tile holding a box of points
    counted by its rows (:func:`tile_windows`); :data:`UNCOUNTED` if one is too large."""
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
    return has, UNCOUNTED if (deep == UNCOUNTED).any() else int(deep.max(initial=0))


Constraint = tuple[tuple[int, ...], int, bool]  # (coeffs, constant, equality) in a tile's j


def tile_windows(a: np.ndarray, b: np.ndarray, const: np.ndarray, vecs: np.ndarray,
                 eqs: np.ndarray, lam: np.ndarray, wait: np.ndarray,
                 point: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per tile (its box ``[a, b]``, rows of ``(tiles, dims)``; constraint ``m`` is
    ``vecs[m] . j + const[tile, m] >= 0``, ``== 0`` where ``eqs[m]``; its schedule ``lam``
    and ``wait``): whether a point of its box meets them, and the most of those points'
    starts ``lam . j`` one window of ``wait`` cycles holds. A tile every constraint holds on
    throughout is a box (:func:`box_windows`); else, along a dim whose ``lambda`` is the
    others' gcd, each row's points form one interval and their starts one run of cycles
    (:func:`_runs`, every row of every such tile at once); else its points are tested
    (:func:`walk_tile`): each first cut to the slices one window meets (:func:`_trimmed`),
    where it may turn out a box. A tile of more than :data:`TILE_POINTS` rows (or points)
    to count is :data:`UNCOUNTED`. ``point``: per tile its design point, when only each point's
    deepest FIFO is asked: a tile whose box holds no more starts than one of its point's
    tiles counted already adds nothing and is left out (its ``has`` not told)."""
    empty, whole = _classified(a, b, const, vecs, eqs)
    has, deep = whole.copy(), np.zeros(len(a), dtype=np.int64)
    part = np.flatnonzero(~empty & ~whole)
    a, b = a.copy(), b.copy()
    a[part], b[part] = _tightened(a[part], b[part], const[part], vecs, eqs)
    part = part[(a[part] <= b[part]).all(axis=1)]
    if part.size:
        a[part], b[part] = _trimmed(a[part], b[part], lam[part], wait[part], vecs, eqs)
        # cut to the slices a window meets, a tile may lie where every constraint holds
        gone, now = _classified(a[part], b[part], const[part], vecs, eqs)
        whole[part[now]] = has[part[now]] = True
        part = part[~gone & ~now]
    sizes = b - a + 1
    if whole.any():
        deep[whole] = box_windows(list(sizes[whole].T), list(lam[whole].T), wait[whole])
    if not part.size:
        return has, deep
    top = None
    large = part[np.prod(sizes[part], axis=1, dtype=np.float64) > LISTED]
    if point is not None and large.size:  # an upper bound per large tile: its box's count
        top = np.full(len(a), UNCOUNTED, np.int64)
        top[large] = box_windows(list(sizes[large].T), list(lam[large].T), wait[large])
        part = part[~_beaten(point, deep, whole, part, top)]
    left = _count_rows(part, a, b, const, vecs, eqs, lam, wait, has, deep)
    if top is not None and left.size:
        left = left[~_beaten(point, deep, np.ones(len(a), bool), left, top)]
    has[left], deep[left] = True, UNCOUNTED
    return has, deep


def _count_rows(part: np.ndarray, a: np.ndarray, b: np.ndarray, const: np.ndarray,
                vecs: np.ndarray, eqs: np.ndarray, lam: np.ndarray, wait: np.ndarray,
                has: np.ndarray, deep: np.ndarray) -> np.ndarray:
    """:func:`tile_windows` of the tiles ``part`` (into ``has`` and ``deep``), by rows or
    points; the tiles of more than :data:`TILE_POINTS` rows, or of cycles past ``2**60``
    (int64's reach, with room), left uncounted and returned."""
    sizes = b[part] - a[part] + 1
    step = np.abs(lam[part])
    moving = (sizes > 1) & (step > 0)
    g = np.gcd.reduce(np.where(moving, step, 0), axis=1)
    unit = (sizes > 1) & (step == g[:, None])
    run = np.where(unit.any(axis=1), np.argmax(np.where(unit, sizes, -1), axis=1),
                   np.argmax(sizes, axis=1))
    walked = ~unit.any(axis=1) & moving.any(axis=1)
    rows = np.prod(sizes, axis=1, dtype=np.float64)
    rows = np.where(walked, rows, rows / np.take_along_axis(sizes, run[:, None], axis=1)[:, 0])
    many = ~walked & (rows > PIECES_FROM)
    done = np.zeros(part.size, bool)
    if many.any():
        done[many] = _by_pieces(part[many], run[many], a, b, const, vecs, eqs, lam, wait, has,
                                deep)
    big = ~done & ((rows > TILE_POINTS) | ((step * (sizes - 1.0)).sum(axis=1)
                                           + np.abs(wait[part]) >= 2.0**60))
    walked &= ~done
    for i in part[walked & ~big]:  # no unit step: every point tested
        cons = tuple((tuple(int(x) for x in v), int(c), bool(e))
                     for v, c, e in zip(vecs, const[i], eqs, strict=True))
        has[i], deep[i] = _walked(tuple(zip(a[i].tolist(), b[i].tolist(), strict=True)), cons,
                                  tuple(int(x) for x in lam[i]), int(wait[i]))
    for r in np.unique(run[~walked & ~big & ~done]).tolist():
        pick = ~walked & ~big & ~done & (run == r)
        group, gg = part[pick], g[pick]
        for tiles in _row_blocks(sizes[pick], r):
            at = group[tiles]
            got = _runs(a[at], b[at], const[at], vecs, eqs, lam[at], r, gg[tiles])
            has[at] |= np.bincount(got[0], minlength=len(at)) > 0
            deep[at] = _runs_windows(*got, wait[at], gg[tiles])
    return part[big]


#: rows of a tile from which a tile of one row dim is cut to the rows holding its most
PIECES_FROM = 2**16


def _by_pieces(tiles: np.ndarray, runs: np.ndarray, a: np.ndarray, b: np.ndarray,
               const: np.ndarray, vecs: np.ndarray, eqs: np.ndarray, lam: np.ndarray,
               wait: np.ndarray, has: np.ndarray, deep: np.ndarray) -> np.ndarray:
    """:func:`tile_windows` of the ``tiles`` whose rows (along ``runs``) one dim indexes,
    counted on the rows that hold their most (:func:`_row_pieces`, into ``has`` and
    ``deep``); per tile whether it was."""
    done = np.zeros(tiles.size, bool)
    boxes, owner = [], []
    for k, (i, r) in enumerate(zip(tiles.tolist(), runs.tolist(), strict=True)):
        got = _row_pieces(a[i], b[i], const[i], vecs, eqs, lam[i], int(wait[i]), r)
        if got is None:
            continue
        done[k] = True
        m, kept = got
        for lo, hi in kept:
            box_a, box_b = a[i].copy(), b[i].copy()
            box_a[m], box_b[m] = lo, hi
            boxes.append((box_a, box_b))
            owner.append(i)
    if boxes:
        own = np.asarray(owner)
        got_has, most = tile_windows(np.stack([x for x, _ in boxes]),
                                     np.stack([y for _, y in boxes]), const[own], vecs, eqs,
                                     lam[own], wait[own])
        np.logical_or.at(has, own, got_has)
        np.maximum.at(deep, own, most)
        deep[own[most == UNCOUNTED]] = UNCOUNTED
    return done


def _row_pieces(a: np.ndarray, b: np.ndarray, const: np.ndarray, vecs: np.ndarray,
                eqs: np.ndarray, lam: np.ndarray, wait: int, r: int
                ) -> tuple[int, list[tuple[int, int]]] | None:
    """The one dim ``m`` that indexes a tile's rows (along the run dim ``r``; its
    ``lambda`` past the rows' span) and the ranges of its rows that hold the tile's most
    starts in a window; ``None`` unless that halves them. A row ``o`` runs over
    ``[lo(o), hi(o)]``, the largest and least of lines in ``o`` (:func:`_row_lines`);
    between the lines' crossings both are affine, of slopes ``s`` and ``s'``, and the
    ``K = wait // lambda_m + 2`` rows a window meets, moved one row on and ``s`` along the
    run, lie in the next ``K`` (``s' >= s``) or hold them (``s' <= s``): the last (first)
    ``K`` of a piece hold its most, and the ``K - 1`` on either side of a crossing the
    windows that meet two pieces."""
    got = _row_lines(a, b, const, vecs, eqs, lam, r)
    if got is None:
        return None
    m, lows, highs, o_lo, o_hi = got
    cuts = {o_lo, o_hi + 1}
    for (s1, c1), (s2, c2) in itertools.combinations(lows + highs, 2):
        if s1 != s2:
            x = (c2 - c1) // (s1 - s2)
            cuts |= {x, x + 1}
    cuts = sorted(x for x in cuts if o_lo <= x <= o_hi + 1)
    keep = wait // abs(int(lam[m])) + 2

    def slope(bound: list[tuple[int, int]], o: int, pick: Any) -> int:
        return pick(s * (o + 1) + c for s, c in bound) - pick(s * o + c for s, c in bound)
    kept = []
    for s, e in zip(cuts, cuts[1:], strict=False):
        e -= 1
        grows = e == s or slope(highs, s, min) >= slope(lows, s, max)
        kept += [(max(s, e - keep + 1), e) if grows else (s, min(e, s + keep - 1)),
                 (s, min(e, s + keep - 2)), (max(s, e - keep + 2), e)]
    merged: list[tuple[int, int]] = []
    for s, e in sorted(x for x in kept if x[0] <= x[1]):
        if merged and s <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    if 2 * sum(e - s + 1 for s, e in merged) > o_hi - o_lo + 1:
        return None
    return m, merged


def _row_lines(a: np.ndarray, b: np.ndarray, const: np.ndarray, vecs: np.ndarray,
               eqs: np.ndarray, lam: np.ndarray, r: int
               ) -> tuple[int, list[tuple[int, int]], list[tuple[int, int]], int, int] | None:
    """For :func:`_row_pieces`: the row dim ``m``, the lines ``(slope, constant)`` in the
    row index bounding each row's run from below and above, and the rows' range (empty,
    ``lo > hi``, where a constraint holds nowhere); ``None`` where the rows are not so
    bounded (another dim of more than one index, ``lambda_m`` within the rows' span, an
    equality naming ``r`` or ``m``, a coefficient past +-1 on ``r``)."""
    dims = [l for l in np.flatnonzero(b > a).tolist() if l != r]
    if len(dims) != 1 or abs(int(lam[dims[0]])) <= abs(int(lam[r])) * int(b[r] - a[r]):
        return None
    m = dims[0]
    fixed = [l for l in range(a.size) if l not in (r, m)]
    lows, highs, o_lo, o_hi = [(0, int(a[r]))], [(0, int(b[r]))], int(a[m]), int(b[m])
    for vec, c, eq in zip(vecs.tolist(), const.tolist(), eqs.tolist(), strict=True):
        k = int(c) + sum(vec[l] * int(a[l]) for l in fixed)
        vr, vm = vec[r], vec[m]
        if (eq and (vr or vm)) or abs(vr) > 1:
            return None
        if vr:  # vr j_r + vm o + k >= 0: a bound of the row's run, a line in o
            (lows if vr > 0 else highs).append((-vr * vm, -vr * k))
        elif vm:
            o_lo, o_hi = (max(o_lo, -(k // vm)), o_hi) if vm > 0 else (o_lo, min(o_hi, k // -vm))
        elif (k != 0) if eq else (k < 0):
            o_lo, o_hi = 1, 0  # a constraint no point of the tile meets
    return m, lows, highs, o_lo, o_hi


def _classified(a: np.ndarray, b: np.ndarray, const: np.ndarray, vecs: np.ndarray,
                eqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per tile (box ``[a, b]``, see :func:`tile_windows`): does no point of the box meet
    some constraint (empty), does every point meet every one (whole)?"""
    lo = const + np.minimum(a[:, None, :] * vecs, b[:, None, :] * vecs).sum(axis=2)
    hi = const + np.maximum(a[:, None, :] * vecs, b[:, None, :] * vecs).sum(axis=2)
    empty = ((hi < 0) | (eqs & (lo > 0))).any(axis=1)
    return empty, ~empty & np.where(eqs, (lo == 0) & (hi == 0), lo >= 0).all(axis=1)


def _beaten(point: np.ndarray, deep: np.ndarray, known: np.ndarray, tiles: np.ndarray,
            top: np.ndarray) -> np.ndarray:
    """Per tile of ``tiles``: does a tile of its point among ``known`` hold at least the
    bound ``top`` of its starts (so counting it cannot deepen the point's FIFO)?"""
    best = np.zeros(int(point.max(initial=0)) + 1, np.int64)
    np.maximum.at(best, point[known], deep[known])
    return (top[tiles] >= 0) & (top[tiles] <= best[point[tiles]])


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


def _trimmed(a: np.ndarray, b: np.ndarray, lam: np.ndarray, wait: np.ndarray,
             vecs: np.ndarray, eqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The boxes ``[a, b]`` (see :func:`tile_windows`) cut along a dim whose ``lambda``
    exceeds the other dims' span to ``wait // lambda + 2`` consecutive indices: the points
    are then slices, one per index along it, each ``lambda`` cycles past the previous, and a
    window meets at most that many consecutive slices. The slices are alike where no
    constraint names the dim (:func:`box_window`'s cut), and grow along it where every one
    naming it is an inequality of one sign (a translate of a slice lies in the next, or the
    previous): any that many slices, or the last (first) that many, hold a window's most."""
    a, b = a.copy(), b.copy()
    step = np.abs(lam)
    for m in range(a.shape[1]):
        names = vecs[:, m] != 0
        if (names & eqs).any() or len({int(x) for x in np.sign(vecs[names, m])}) > 1:
            continue  # slices not nested: all of them counted
        sizes = b - a + 1
        rest = np.delete(step * (sizes - 1), m, axis=1)  # may wrap where the float is large
        near = np.delete(step * (sizes - 1.0), m, axis=1).sum(axis=1) < 2.0**61
        cut = near & (step[:, m] > rest.sum(axis=1)) & (sizes[:, m] > 1)
        keep = np.maximum(wait[cut] // np.maximum(step[cut, m], 1) + 2, 1)
        if names.any() and (vecs[names, m] > 0).all():  # growing: the last slices
            a[cut, m] = np.maximum(a[cut, m], b[cut, m] - keep + 1)
        else:
            b[cut, m] = np.minimum(b[cut, m], a[cut, m] + keep - 1)
    return a, b


#: rows of tiles counted in one pass (bounds the arrays of their runs)
ROW_BLOCK = 2**22


def _row_blocks(sizes: np.ndarray, run: int) -> list[np.ndarray]:
    """The tiles (indices into ``sizes``) in blocks of about :data:`ROW_BLOCK` rows along
    ``run`` at most (a tile of more alone; none has more than :data:`TILE_POINTS`)."""
    rows = np.prod(np.delete(sizes, run, axis=1), axis=1, dtype=np.int64)
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
    room = hi - lo + 2 * sp + 1  # one tile's cycles laid out (each below 2**60: in_reach)
    ends = np.append(at, tile.size)
    for t0, t1 in _laid_out(room):  # the layout kept below 2**62 cycles (int64 never wraps)
        rows = slice(ends[t0], ends[t1])
        corner = np.concatenate([[0], np.cumsum(room[t0:t1])[:-1]]) + sp[t0:t1] - lo[t0:t1]
        shift = np.repeat(corner, np.diff(ends[t0:t1 + 1]))
        most = run_windows(first[rows] + shift, last[rows] + shift, span[tile[rows]])
        out[tile[at[t0:t1]]] = np.maximum.reduceat(most, at[t0:t1] - ends[t0])
    return out


def _laid_out(room: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive tiles ``[t0, t1)`` (of ``room`` cycles each) in groups of fewer than
    ``2**62`` cycles laid end to end: one group unless the tiles are that long together."""
    if float(room.sum(dtype=np.float64)) < 2.0**61:
        return [(0, room.size)]
    out, start, used = [], 0, 0
    for i, r in enumerate(room.tolist()):
        if used + r >= 2**62 and i > start:
            out.append((start, i))
            start, used = i, 0
        used += r
    out.append((start, room.size))
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
    (memory bound: a box of more than :data:`TILE_POINTS` is :data:`UNCOUNTED`)."""
    if math.prod(b - a + 1 for a, b in box) > TILE_POINTS:
        return True, UNCOUNTED
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
    pi: int = 1
    _memo: dict[tuple[int, ...], FifoUse] = field(default_factory=dict, repr=False)

    def needs(self, extents: Sequence[Any], p: Sequence[Any], values: Mapping[str, Any],
              cap: int | None = None, where: Any = True) -> FifoNeed:
        """Per point: the deepest FIFO (words) and the most FIFOs one PE holds values in
        (exact where the tiles can be counted: ``cap`` and ``where`` are read as by
        :meth:`~polyjoule.analysis.capacity.FifoRules.needs`, and need nothing)."""
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)),
                                    *(np.shape(values[k]) for k in self.pra.params))
        sizes = [np.broadcast_to(np.asarray(x, dtype=np.int64), shape).ravel() for x in p]
        vals = {k: np.broadcast_to(np.asarray(values[k], dtype=np.int64), shape).ravel()
                for k in self.pra.params}
        depth = np.zeros(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
        count, bound = depth.copy(), np.zeros(depth.size, bool)
        for i in range(depth.size):
            use = self.at({k: int(v[i]) for k, v in vals.items()}, [int(x[i]) for x in sizes])
            depth[i], count[i], bound[i] = use.depth, use.count, not use.counted
        return FifoNeed(depth.reshape(shape), count.reshape(shape), bound.reshape(shape))

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
            hit = self._memo[key] = fifo_use(self.pra, self.lambda_J, p, values, self.moves,
                                             self.pi)
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
        # a run or span past 2**62 is longer than any window: capped (never wraps int64)
        run = np.where(joins, np.where(run > 2**62 // np.maximum(n, 1), 2**62, run * n), run)
        grow = np.where(a > 2**62 // np.maximum(n - 1, 1), 2**62, a * (n - 1))
        span = np.where(joins, np.minimum(span + grow, 2**62), span)
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
    points at a time (about :data:`TILE_BLOCK` tiles' places); :data:`UNCOUNTED` at a point
    with a tile too large to count that its other tiles do not beat."""
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
    lost = np.zeros(n, bool)  # a tile not counted: the point's depth is UNCOUNTED
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
        _, deep = tile_windows(a_, b_, const[pt] + corner @ vecs.T, vecs, eqs, lam_[pt], wait[pt],
                               pt)
        np.maximum.at(out, pt, deep)
        lost[pt[deep == UNCOUNTED]] = True
    out[lost] = UNCOUNTED
    return out


#: tiles' places (points by tiles along every dim) :func:`coupled_depths` lays out at once
TILE_BLOCK = 2**20
