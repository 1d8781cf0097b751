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

Condition = list[tuple[np.ndarray, int, bool]]


def condition(s: Any, dims: Sequence[str], values: Mapping[str, int]) -> Condition:
    """A statement's ``when`` linearised over the dims (a conjunction)."""
    return [(*lin(c.expr, dims, values), c.eq) for c in s.when]


def instances(cond: Condition, c: np.ndarray) -> np.ndarray | None:
    """Which points (columns of ``c``) run the statement; None: all of them."""
    m: np.ndarray | None = None
    for vec, const, eq in cond:
        e = vec @ c + const
        hit = (e == 0) if eq else (e >= 0)
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


def run_transport(st: PhaseState, s: Any, w: Instances, d: np.ndarray, back: int,
                  at: np.ndarray, done: np.ndarray) -> None:
    """``x[i] = y[i-d]``: RD (``d = 0``), the PE's feedback FIFO (same PE) or output +
    input port (neighbouring PE); any other PE is a causality error. The sources lie in
    wavefront ``key - back`` (``back = sigma . d``)."""
    assert s.source is not None
    if not back:
        st.write(s.var, w.pos, st.read(s.source, st.band, at, s.id, w.pos), done, CODE["RD"], s.id)
        st.rd_vars.add(s.var)
        st.add(s.id, "RD", w.n)
        return
    ext = st.ext[:, None]
    src = w.c - d[:, None]
    inside = np.all((src >= 0) & (src < ext), axis=0)
    if not inside.all():
        st.violate(f"{st.pra.name}: {s.id} reads {s.source} outside the iteration space",
                   int((~inside).sum()))
        src = np.clip(src, 0, ext - 1)
    band, pos, found = _locate(st, st.strides @ src, w.key - back, inside)
    x = st.read(s.source, band, at, s.id, pos, found)
    p = st.p[:, None]
    dk = (w.c // p) - (src // p)
    dk[~st.tiled] = 0
    same = ~dk.any(axis=0)
    far = np.abs(dk).max(axis=0) > 1
    if far.any():
        st.violate(f"{st.pra.name}: {s.id} moves {s.source} between PEs that are not "
                   f"neighbours ({int(far.sum())} values)", int(far.sum()))
    nfd = int(same.sum())
    if nfd and st.measure:  # FIFO occupancy: only when a declaration is checked
        _fifo_events(st, s.id, src[:, same], w.start[same])
    st.add(s.id, "FD", nfd)
    st.add(s.id, "OD", w.n - nfd)
    st.add(s.id, "ID", w.n - nfd)
    code = np.where(same, CODE["FD"], CODE["ID"]).astype(np.int8)
    st.write(s.var, w.pos, x, done, code, s.id, f"{st.pra.name}: {s.id} writes {s.var} twice")


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
