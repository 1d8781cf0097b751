"""The simulator's processing order, streamed: wavefronts of ``sigma``, grouped in bands.

Points are processed in wavefronts ``sigma . i = s`` of a small integer vector that every
non-zero dependence increases (``sigma . d >= 1``): a value is produced in an earlier
wavefront than any read of it, at most ``reach = max sigma . d`` wavefronts earlier. So the
run needs only the registers of the last ``reach`` wavefronts, and the points of a band of
consecutive wavefronts can be enumerated directly (never the whole iteration box): the
memory of a run follows the band, not the problem.

Within a wavefront, points are in lexicographic (flat index) order, whatever the band: a run
in small bands is the same computation, operation for operation, as a run in one band.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from polyjoule.errors import InfeasibleSchedule
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.pra import PRA


def lin(a: Affine, dims: Sequence[str], values: Mapping[str, int]) -> tuple[np.ndarray, int]:
    """``a`` as (coefficients over dims, constant with parameters substituted)."""
    co = a.coeffs
    vec = np.array([co.get(d, 0) for d in dims], dtype=np.int64)
    const = a.const + sum(v * int(values[k]) for k, v in a.terms if k not in dims)
    return vec, const


def holds(cons: Sequence[tuple[np.ndarray, int, bool]], coords: np.ndarray) -> np.ndarray:
    """Which points (columns of ``coords``) satisfy every linearised constraint."""
    mask = np.ones(coords.shape[1], dtype=bool)
    for vec, const, eq in cons:
        v = vec @ coords + const
        mask &= (v == 0) if eq else (v >= 0)
    return mask


def box_range(vec: np.ndarray, const: int, lo: Sequence[int], hi: Sequence[int]
              ) -> tuple[int, int]:
    """(min, max) of ``vec . x + const`` over the box ``lo <= x < hi`` (non-empty)."""
    a = [int(v) * int(l) for v, l in zip(vec, lo, strict=True)]
    b = [int(v) * (int(h) - 1) for v, h in zip(vec, hi, strict=True)]
    return (const + sum(min(x, y) for x, y in zip(a, b, strict=True)),
            const + sum(max(x, y) for x, y in zip(a, b, strict=True)))


def linear_domain(pra: PRA, values: Mapping[str, int], ext: Sequence[int]
                  ) -> list[tuple[np.ndarray, int, bool]]:
    """The domain's constraints, linearised, less those every point of the box satisfies."""
    out = []
    for c in pra.domain():
        vec, const = lin(c.expr, pra.dim_names, values)
        lo, hi = box_range(vec, const, [0] * len(ext), ext)
        if not (lo >= 0 and (not c.eq or hi == 0)):
            out.append((vec, const, c.eq))
    return out


def sigma(pra: PRA, extents: Sequence[int]) -> np.ndarray:
    """A small integer vector with ``sigma . d >= 1`` for every non-zero dep (non-negative
    when one exists), the cheapest over the box."""
    deps = [s.dep for s in pra.statements if s.kind == "transport" and any(s.dep or ())]
    best: tuple[int, tuple[int, ...]] | None = None
    for low, top in ((0, 3), (0, 6), (0, 12), (-3, 3), (-6, 6)):
        for cand in itertools.product(range(low, top + 1), repeat=pra.n):
            if all(sum(a * b for a, b in zip(cand, d, strict=True)) >= 1 for d in deps):  # type: ignore[arg-type]
                cost = sum(abs(c) * e for c, e in zip(cand, extents, strict=True))
                if best is None or cost < best[0]:
                    best = (cost, cand)
        if best is not None:
            break
    if best is None:
        raise InfeasibleSchedule(f"{pra.name}: the dependences admit no processing order")
    return np.array(best[1], dtype=np.int64)


def reach(pra: PRA, sig: np.ndarray) -> int:
    """How many wavefronts back a value is read: ``max sigma . d`` (0 without transport)."""
    return max((int(sig @ np.array(s.dep)) for s in pra.statements
                if s.kind == "transport" and any(s.dep or ())), default=0)


WAVEFRONT_KEYS_MAX = 1 << 22  # wavefronts counted one by one (32 MiB of int64); beyond: a bound


def wavefront_sizes(sig: np.ndarray, ext: Sequence[int]) -> tuple[int, np.ndarray]:
    """(first key, points of the box per key ``sigma . i``): an upper bound of each
    wavefront's size (the domain may cut the box), without enumerating a point. One entry
    per key: only for a box the simulator can walk (see :func:`widest_wavefront`)."""
    sizes = np.ones(1, dtype=np.int64)
    first = 0
    for s, e in zip(sig, ext, strict=True):
        s = int(s)
        if s == 0:
            sizes = sizes * e
            continue
        if s < 0:
            first += s * (e - 1)
        sizes = _window_sums(sizes, abs(s), e)
    return first, sizes


def _window_sums(a: np.ndarray, step: int, count: int) -> np.ndarray:
    """``out[k] = sum(a[k - step*t] for t < count)``: the convolution with ``count`` ones
    ``step`` apart, by running sums per residue class (linear time, not quadratic)."""
    out = np.zeros(a.size + step * (count - 1), dtype=np.int64)
    out[:a.size] = a
    for r in range(step):
        run = np.cumsum(out[r::step])
        run[count:] -= run[:-count].copy()
        out[r::step] = run
    return out


def widest_wavefront(sig: np.ndarray, ext: Sequence[int]) -> int:
    """Points of the box's widest wavefront, in memory that does not grow with the problem:
    exact (:func:`wavefront_sizes`) up to :data:`WAVEFRONT_KEYS_MAX` keys, else the bound
    box / largest extent along ``sigma`` (fixing the other coordinates leaves at most one
    point on a wavefront), which such a box already exceeds any simulator memory with."""
    keys = sum(abs(int(s)) * (int(e) - 1) for s, e in zip(sig, ext, strict=True)) + 1
    box = math.prod(int(e) for e in ext)
    if keys <= WAVEFRONT_KEYS_MAX and box < 2**62:
        return int(wavefront_sizes(sig, ext)[1].max())
    along = [int(e) for s, e in zip(sig, ext, strict=True) if s]
    return box // max(along) if along else box


def bands(sig: np.ndarray, ext: Sequence[int], chunk: int) -> list[tuple[int, int]]:
    """Consecutive key ranges ``[s0, s1)`` of at most ``chunk`` box points each (a single
    wavefront larger than ``chunk`` is a band of its own)."""
    first, sizes = wavefront_sizes(sig, ext)
    out: list[tuple[int, int]] = []
    s0, held = 0, 0
    for s, n in enumerate(sizes.tolist()):
        if held and held + n > chunk:
            out.append((first + s0, first + s))
            s0, held = s, 0
        held += n
    out.append((first + s0, first + len(sizes)))
    return out


def band_points(sig: np.ndarray, ext: Sequence[int], s0: int, s1: int,
                domain: Sequence[tuple[np.ndarray, int, bool]]
                ) -> tuple[np.ndarray, np.ndarray]:
    """The domain's points with ``s0 <= sigma . i < s1`` as int32 columns, sorted by key
    and lexicographically within a key, and the key of each."""
    parts, keys = [], []
    for key in range(s0, s1):
        c = wave_points(sig, ext, key)
        if domain and c.shape[1]:
            c = c[:, holds(domain, c.astype(np.int64))]
        if c.shape[1]:
            parts.append(c)
            keys.append(np.full(c.shape[1], key, dtype=np.int64))
    if not parts:
        return np.zeros((len(ext), 0), dtype=np.int32), np.zeros(0, dtype=np.int64)
    if len(parts) == 1:
        return parts[0], keys[0]
    return np.concatenate(parts, axis=1), np.concatenate(keys)


def wave_points(sig: np.ndarray, ext: Sequence[int], key: int) -> np.ndarray:
    """The box's points with ``sigma . i = key`` in lexicographic order (int32 columns):
    dim by dim, each prefix extended by the range of values some completion admits."""
    n = len(ext)
    rows: list[np.ndarray] = []
    total = np.zeros(1, dtype=np.int64)  # sigma . prefix
    for l in range(n):
        rest = [(min(0, int(s) * (e - 1)), max(0, int(s) * (e - 1)))
                for s, e in zip(sig[l + 1:], ext[l + 1:], strict=True)]
        low = key - sum(r[1] for r in rest)   # sigma . (prefix, x) must lie in [low, high]
        high = key - sum(r[0] for r in rest)
        lo, hi = _admitted(total, int(sig[l]), ext[l], low, high)
        if l == n - 1 and abs(int(sig[l])) == 1:  # one value at most: select, not repeat
            keep = hi > lo
            rows = [r[keep] for r in rows]
            rows.append(lo[keep].astype(np.int32))
            break
        cnt = np.maximum(hi - lo, 0)
        x = np.arange(int(cnt.sum()), dtype=np.int64)
        x -= np.repeat(np.cumsum(cnt) - cnt - lo, cnt)
        rows = [np.repeat(r, cnt) for r in rows]
        rows.append(x.astype(np.int32))
        total = np.repeat(total, cnt) + int(sig[l]) * x
    return np.stack(rows) if rows else np.zeros((0, 1), dtype=np.int32)


def _admitted(total: np.ndarray, s: int, e: int, low: int, high: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """Per prefix, the range ``[lo, hi)`` of ``0 <= x < e`` with ``low <= total + s x <= high``."""
    if s > 0:
        lo, hi = _ceil_div(low - total, s), (high - total) // s + 1
    elif s < 0:
        lo, hi = _ceil_div(total - high, -s), (total - low) // -s + 1
    else:
        ok = (total >= low) & (total <= high)
        return np.zeros_like(total), np.where(ok, e, 0)
    return np.clip(lo, 0, e), np.clip(hi, 0, e)


def _ceil_div(a: np.ndarray, b: int) -> np.ndarray:
    return -((-a) // b)


def wavefronts(keys: np.ndarray) -> Iterator[tuple[int, int, int]]:
    """(key, start, end) of each wavefront in a band's sorted keys."""
    if not keys.size:
        return
    bounds = np.flatnonzero(np.diff(keys)) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [keys.size]])
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        yield int(keys[a]), a, b


def as_constraints(cons: Sequence[Constraint], dims: Sequence[str], values: Mapping[str, int]
                   ) -> list[tuple[np.ndarray, int, bool]]:
    """Constraints linearised over ``dims``."""
    return [(*lin(c.expr, dims, values), c.eq) for c in cons]
