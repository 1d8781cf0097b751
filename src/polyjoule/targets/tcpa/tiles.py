"""Tile sizes of the TCPA mapspace: which tile sizes one array shape takes, per point.

Along a tiled dim of extent ``E`` on an axis of ``t`` PEs, the mapspace takes ``ceil(E/t)``
(every PE busy: the default of ``analyze``) and the tile sizes that leave part of the axis
idle: ``ceil(E/m)`` for fewer tiles ``m``, and the powers of two. A tile size is kept only
when its tile count ``ceil(E/p)`` exceeds the next smaller side the mapspace has for that axis
(a smaller shape runs it otherwise: no mapping twice), it is at least every dependence
distance along the dim, and no other candidate at that point has it. Dims coupled by a
constraint share one tile size (their counts share one ``p``).

Everything is vectorised over the points (parameter values): a point with ``S`` candidate
tile sizes along one dim and ``S'`` along another becomes ``S x S'`` mapping points, and the
flat arrays of values and tile sizes are what the pricing evaluates at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyjoule.mapping.tiling import min_tile
from polyjoule.model.pra import PRA


@dataclass
class Points:
    """Mapping points of one block, flat arrays of one length: parameter values, the array
    shape (``rows`` x ``cols``) and per phase the tile size of every dim."""

    values: dict[str, np.ndarray]
    rows: np.ndarray
    cols: np.ndarray
    tiles: list[tuple[np.ndarray, ...]]
    explicit: bool = False  # tile sizes searched (else ``ceil(E/t)``, as ``analyze``)
    cache: dict[Any, Any] = field(default_factory=dict, repr=False)  # per-point work reused

    def __len__(self) -> int:
        return int(self.rows.size)

    def take(self, idx: Any) -> Points:
        return Points({k: v[idx] for k, v in self.values.items()}, self.rows[idx],
                      self.cols[idx], [tuple(x[idx] for x in t) for t in self.tiles],
                      self.explicit)


def concat(parts: Sequence[Points]) -> Points:
    """The points of several shapes as one block."""
    first = parts[0]
    return Points({k: np.concatenate([p.values[k] for p in parts]) for k in first.values},
                  np.concatenate([p.rows for p in parts]), np.concatenate([p.cols for p in parts]),
                  [tuple(np.concatenate([p.tiles[i][l] for p in parts]) for l in range(len(t)))
                   for i, t in enumerate(first.tiles)], first.explicit)


def flat_values(values: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Parameter values as 1-D int64 arrays of one length."""
    vals = {k: np.asarray(v, dtype=np.int64).reshape(-1) for k, v in values.items()}
    n = max((v.size for v in vals.values()), default=1)
    return {k: np.broadcast_to(v, (n,)) for k, v in vals.items()}


def default_points(phases: Sequence[PRA], shape: tuple[int, int],
                   values: Mapping[str, Any]) -> Points:
    """Every size at ``ceil(E/t)`` per tiled dim (``Tiling.of``): the shape's default."""
    from polyjoule.mapping.tiling import Tiling

    vals = flat_values(values)
    n = len(next(iter(vals.values())))
    tiles = []
    for pra in phases:
        v = {k: vals[k] for k in pra.params}
        tiles.append(tuple(np.broadcast_to(np.asarray(x, dtype=np.int64), (n,))
                           for x in Tiling.of(pra, shape).sizes_many(pra, v)))
    return Points(vals, np.full(n, shape[0], np.int64), np.full(n, shape[1], np.int64), tiles)


def fixed_points(pra: PRA, shape: tuple[int, int], values: Mapping[str, Any],
                 tile: Sequence[int]) -> Points:
    """Every size at the tile sizes ``tile`` (one phase; untiled dims take their extent)."""
    from polyjoule.mapping.tiling import Tiling

    vals = flat_values(values)
    n = len(next(iter(vals.values())))
    tl = Tiling.of(pra, shape, tuple(tile))
    sizes = tl.sizes_many(pra, {k: vals[k] for k in pra.params})
    return Points(vals, np.full(n, shape[0], np.int64), np.full(n, shape[1], np.int64),
                  [tuple(np.broadcast_to(np.asarray(x, dtype=np.int64), (n,)) for x in sizes)],
                  True)


def candidates(extent: np.ndarray, t: int, prev: int, need: int) -> tuple[np.ndarray, np.ndarray]:
    """(tile sizes, which exist), each ``points x slots``: slot 0 is ``ceil(E/t)``."""
    e = np.asarray(extent, dtype=np.int64).reshape(-1, 1)
    top = int(e.max(initial=1))
    counts = np.arange(t, max(prev, 0), -1, dtype=np.int64)  # t, t-1, ..., prev+1 tiles
    pows = np.asarray([1 << k for k in range(top.bit_length() + 1)], dtype=np.int64)
    p = np.concatenate([-(-e // counts), np.broadcast_to(pows, (e.shape[0], pows.size))], axis=1)
    p0 = p[:, :1]
    ok = (p >= need) & (p > p0) & (p <= e) & (-(-e // np.maximum(p, 1)) > prev)
    ok[:, 0] = True
    for j in range(1, p.shape[1]):  # a tile size once per point
        ok[:, j] &= ~np.any((p[:, :j] == p[:, j:j + 1]) & ok[:, :j], axis=1)
    return p, ok


def tile_points(pra: PRA, groups: Sequence[tuple[int, ...]], shape: tuple[int, int],
                t: Sequence[int], prev: Sequence[int], values: Mapping[str, Any]) -> Points:
    """Every (point, tile sizes) of one shape: ``groups`` are the tiled dims sharing a tile
    size, ``t`` the PEs along each dim (1: not tiled), ``prev`` the next smaller side of the
    axis each dim is on."""
    vals = flat_values(values)
    n = len(next(iter(vals.values())))
    extents = [np.broadcast_to(np.asarray(d.extent.evaluate(vals), dtype=np.int64), (n,))
               for d in pra.dims]
    need = min_tile(pra)
    slots = []
    for dims in groups:
        l = dims[0]
        tg = min(t[x] for x in dims)
        pv = max(prev[x] for x in dims if t[x] == tg)
        slots.append(candidates(extents[l], tg, pv, max(need[x] for x in dims)))
    exists = np.ones((n, *(ok.shape[1] for _, ok in slots)), bool)
    for i, (_, ok) in enumerate(slots):
        dims_ = [n] + [1] * len(slots)
        dims_[i + 1] = ok.shape[1]
        exists &= ok.reshape(dims_)
    idx = np.nonzero(exists)
    point = idx[0]
    tile = [extents[l][point] for l in range(pra.n)]
    for (p, _), dims, s in zip(slots, groups, idx[1:], strict=True):
        for l in dims:
            tile[l] = p[point, s]
    m = point.size
    return Points({k: v[point] for k, v in vals.items()}, np.full(m, shape[0], np.int64),
                  np.full(m, shape[1], np.int64), [tuple(tile)], True)
