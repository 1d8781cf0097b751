"""What each kind of statement does to the machine, on all its instances of one wavefront.

* input ``x[i] = X[f(i)]``: DR read, I/O buffer, input port of PE(i)   (DR, IOb, ID);
* output ``Y[f(i)] = y[i]``: output port of PE(i), I/O buffer, DRAM    (OD, IOb, DR);
* compute: one RD read per operand occurrence, one RD write, its operations;
* transport ``x[i] = y[i-d]``: ``d = 0`` RD; the producer PE ``(i-d) // p`` equal to the
  consumer PE ``i // p`` -> the PE's feedback FIFO (FD); a neighbouring PE -> its output
  port and the consumer's input port (OD + ID); any other PE is a causality error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyjoule.analysis.sim_order import lin
from polyjoule.analysis.sim_state import CODE, Band, Index, PhaseState

#: FIFO ids per PE in the (PE, FIFO) key of the FIFO occupancy events.
FIFO_SLOTS = 1 << 8

Condition = list[tuple[list[tuple[int, int]], int, bool]]  # ((dim, coeff)..., const, eq)


def condition(s: Any, dims: Sequence[str], values: Mapping[str, int]) -> Condition:
    """A statement's ``when`` (a conjunction) as the non-zero terms of each constraint."""
    out: Condition = []
    for c in s.when:
        vec, const = lin(c.expr, dims, values)
        out.append(([(l, int(v)) for l, v in enumerate(vec) if v], int(const), c.eq))
    return out


def instances(cond: Condition, c: np.ndarray) -> np.ndarray | None:
    """Which points (columns of ``c``) run the statement; None: all of them."""
    m: np.ndarray | None = None
    for terms, const, eq in cond:
        e: Any = const
        for l, v in terms:
            e = e + (c[l] if v == 1 else v * c[l])
        hit = (e == 0) if eq else (e >= 0)
        if np.ndim(hit) == 0:
            hit = np.full(c.shape[1], bool(hit))
        m = hit if m is None else m & hit
    if m is not None and m.all():
        return None
    return m


@dataclass
class Instances:
    """One statement's instances in one wavefront: points, positions in the current band,
    start cycles, and the wavefront's key."""

    c: np.ndarray      # int64 coordinates, one column each
    pos: Index         # positions in the current band
    start: np.ndarray  # start cycle of each instance's iteration
    key: int
    n: int


def run_input(st: PhaseState, s: Any, w: Instances, done: np.ndarray) -> None:
    """``x[i] = X[f(i)]``: DRAM -> I/O buffer -> the PE's input port."""
    assert s.tensor is not None
    idx = _subscripts(st, s, w.c, "reads", w.n)
    if idx is None:
        return
    if not st.written[s.tensor][idx].all():
        st.violate(f"{st.pra.name}: {s.id} reads {s.tensor} elements never written", w.n)
    st.write(s.var, w.pos, st.dram[s.tensor][idx], done, CODE["ID"], s.id)
    for c in ("DR", "IOb", "ID"):
        st.add(s.id, c, w.n)


def run_output(st: PhaseState, s: Any, w: Instances, at: np.ndarray) -> None:
    """``Y[f(i)] = y[i]``: the PE's output port -> I/O buffer -> DRAM."""
    assert s.tensor is not None
    x = st.read(s.var, st.band, at, s.id, w.pos)
    idx = _subscripts(st, s, w.c, "writes", w.n)
    if idx is None:
        return
    st.dram[s.tensor][idx] = x
    st.written[s.tensor][idx] = True
    for c in ("OD", "IOb", "DR"):
        st.add(s.id, c, w.n)


def run_compute(st: PhaseState, s: Any, w: Instances, at: np.ndarray, done: np.ndarray) -> None:
    """One RD read per operand occurrence, one RD write, the expression's operations."""
    assert s.expr is not None
    operands = {v: st.read(v, st.band, at, s.id, w.pos) for v in dict.fromkeys(s.expr.operands)}
    x = np.broadcast_to(np.asarray(s.expr.evaluate(operands, st.scalars), dtype=np.float64),
                        (w.n,))
    st.write(s.var, w.pos, x, done, CODE["RD"], s.id)
    st.rd_vars.add(s.var)
    st.add(s.id, "RD", w.n * (len(s.expr.operands) + 1))
    for op, q in s.expr.ops:
        st.ops[op] = st.ops.get(op, 0) + w.n * q


@dataclass(frozen=True)
class Move:
    """A transport's distance ``d``, the dims it moves along, how many wavefronts back its
    source lies (``sigma . d``) and how far back in flat index (``strides . d``)."""

    d: np.ndarray
    dims: tuple[int, ...]
    back: int
    shift: int


def run_transport(st: PhaseState, s: Any, w: Instances, mv: Move, at: np.ndarray,
                  done: np.ndarray) -> None:
    """``x[i] = y[i-d]``: RD (``d = 0``), the PE's feedback FIFO (same PE) or output +
    input port (neighbouring PE); any other PE is a causality error."""
    assert s.source is not None
    if not mv.back:
        st.write(s.var, w.pos, st.read(s.source, st.band, at, s.id, w.pos), done, CODE["RD"], s.id)
        st.rd_vars.add(s.var)
        st.add(s.id, "RD", w.n)
        return
    inside = _inside(st, w.c, mv)
    if inside is None:
        flat = st.band.flat[w.pos] - mv.shift
        inside = np.ones(w.n, dtype=bool)
    else:
        st.violate(f"{st.pra.name}: {s.id} reads {s.source} outside the iteration space",
                   int((~inside).sum()))
        ext = st.ext[:, None]
        flat = st.strides @ np.clip(w.c - mv.d[:, None], 0, ext - 1)
    band, pos, found = _locate(st, flat, w.key - mv.back, inside)
    x = st.read(s.source, band, at, s.id, pos, found)
    same, far = _hops(st, w.c, mv)
    nfar = int(np.count_nonzero(far))
    if nfar:
        st.violate(f"{st.pra.name}: {s.id} moves {s.source} between PEs that are not "
                   f"neighbours ({nfar} values)", nfar)
    nfd = int(np.count_nonzero(same))
    if nfd and st.measure:  # FIFO occupancy: only when a declaration is checked
        _fifo_events(st, s.id, (w.c - mv.d[:, None])[:, same], w.start[same])
    st.add(s.id, "FD", nfd)
    st.add(s.id, "OD", w.n - nfd)
    st.add(s.id, "ID", w.n - nfd)
    code = np.where(same, np.int8(CODE["FD"]), np.int8(CODE["ID"]))
    st.write(s.var, w.pos, x, done, code, s.id, f"{st.pra.name}: {s.id} writes {s.var} twice")


def _inside(st: PhaseState, c: np.ndarray, mv: Move) -> np.ndarray | None:
    """Which sources ``c - d`` lie in the box; None: all of them."""
    ok: np.ndarray | None = None
    for l in mv.dims:
        dl = int(mv.d[l])
        hit = c[l] >= dl if dl > 0 else c[l] < int(st.ext[l]) + dl
        ok = hit if ok is None else ok & hit
    if ok is None or ok.all():
        return None
    return ok


def _hops(st: PhaseState, c: np.ndarray, mv: Move) -> tuple[np.ndarray, np.ndarray]:
    """(source on the same PE, source more than one PE away) per instance."""
    same = np.ones(c.shape[1], dtype=bool)
    far = np.zeros(c.shape[1], dtype=bool)
    for l in mv.dims:
        if not st.tiled[l]:
            continue
        q = int(st.p[l])
        dk = c[l] // q - (c[l] - int(mv.d[l])) // q
        same &= dk == 0
        far |= np.abs(dk) > 1
    return same, far


def _locate(st: PhaseState, flat: np.ndarray, key: int, inside: np.ndarray
            ) -> tuple[Band, Index, np.ndarray | None]:
    """Band and positions of the points ``flat`` of wavefront ``key`` (ascending), and
    which of them exist there (None: all)."""
    got = st.wave(key)
    if got is None:  # no point of the domain in that wavefront: nothing was written
        return st.band, np.zeros(flat.size, dtype=np.int64), np.zeros(flat.size, dtype=bool)
    band, a, b = got
    there = band.flat[a:b]
    local = np.searchsorted(there, flat)
    np.minimum(local, b - a - 1, out=local)
    found = (there[local] == flat) & inside
    if found.all():
        if local.size and int(local[-1]) - int(local[0]) == local.size - 1:
            return band, slice(a + int(local[0]), a + int(local[-1]) + 1), None
        return band, a + local, None
    return band, a + local, found


def _subscripts(st: PhaseState, s: Any, cm: np.ndarray, verb: str, cnt: int
                ) -> tuple[np.ndarray, ...] | None:
    """The tensor subscripts of ``s`` at points ``cm``; None (and a violation) if any is
    out of the tensor's bounds."""
    idx = tuple(vec @ cm + const for vec, const in st.subs[s.id])
    arr = st.dram[s.tensor]
    if any(((x < 0) | (x >= dim)).any() for x, dim in zip(idx, arr.shape, strict=True)):
        st.violate(f"{st.pra.name}: {s.id} {verb} {s.tensor} out of bounds", cnt)
        return None
    return idx


def _fifo_events(st: PhaseState, sid: str, src: np.ndarray, popped: np.ndarray) -> None:
    """Record the ``[push, pop)`` interval of the values that stay in their PE, keyed by
    (PE, FIFO): pushed when the producer iteration starts, popped when the consumer does."""
    p = st.p[:, None]
    ks = src // p
    pushed = st.lj @ (src - ks * p) + st.lk @ ks + st.cs.offset
    pe_id = np.zeros(src.shape[1], dtype=np.int64)
    for l, t in enumerate(st.cs.t):
        pe_id = pe_id * (int(t) + 1) + ks[l]
    st.fifo.append((pe_id * FIFO_SLOTS + st.fifo_id[sid], pushed, popped))
