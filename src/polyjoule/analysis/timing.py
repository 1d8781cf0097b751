"""Offsets and latencies of the statements of one iteration (method sheet section 5).

Statement ``q`` runs at offset ``tau_q`` inside its iteration for ``w_q`` cycles (compute
``w`` or a per-op override, input 1 for the DR -> IOb -> ID hop, transport 0, output 0).
``tau_q`` is the longest path over zero-dependence reads of one iteration. A transport with
``d != 0`` is a register read with no zero-dependence input: it is placed as late as its
first zero-dependence reader, which is what makes ``lambda . d >= w`` enough for a
recurrence like ``s = s' + t``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from polyjoule.errors import InfeasibleSchedule
from polyjoule.model.pra import PRA, Statement

#: Cycles of an input hop (DR -> IOb -> ID), a transport (register read) and an output.
KIND_LATENCY = {"input": 1, "transport": 0, "output": 0}


@dataclass(frozen=True)
class Timing:
    """Offsets ``tau`` and latencies ``w`` per statement id, and one iteration's latency."""

    tau: Mapping[str, int]
    w: Mapping[str, int]
    topo: tuple[str, ...]  # an order respecting zero-dependence reads
    L_c: int

    def fin(self, sid: str) -> int:
        return self.tau[sid] + self.w[sid]


def _zero_reads(s: Statement) -> tuple[str, ...]:
    """Variables ``s`` reads at its own iteration."""
    if s.kind == "transport":
        return (s.source,) if not any(s.dep or ()) else ()  # type: ignore[return-value]
    return s.reads


def _latencies(pra: PRA, w: int, op_latency: Mapping[str, int] | None) -> dict[str, int]:
    """``w_q``: compute ``w`` (or its slowest op's override), else the kind's latency."""
    ops_w = dict(op_latency or {})
    lat: dict[str, int] = {}
    for s in pra.statements:
        if s.kind == "compute":
            assert s.expr is not None
            lat[s.id] = max((int(ops_w.get(op, w)) for op, _ in s.expr.ops), default=int(w))
        else:
            lat[s.id] = KIND_LATENCY[s.kind]
    return lat


def _zero_preds(pra: PRA) -> dict[str, list[str]]:
    """Per statement: the statements writing what it reads at its own iteration."""
    writers: dict[str, list[str]] = {}
    for s in pra.statements:
        if s.kind != "output":
            writers.setdefault(s.var, []).append(s.id)
    return {s.id: sorted({wid for v in _zero_reads(s) for wid in writers.get(v, [])})
            for s in pra.statements}


def zero_cycle(pra: PRA) -> list[str]:
    """Statements no order of one iteration can run (a zero-dependence cycle and what
    waits on it), sorted; empty when every statement has its turn. A file's loader asks
    this to refuse such a PRA by its file and field before any schedule does."""
    preds = _zero_preds(pra)
    return sorted(set(preds) - set(_kahn(pra, preds)))


def _kahn(pra: PRA, preds: Mapping[str, list[str]]) -> list[str]:
    """Kahn's algorithm in statement order: the statements that can run, in an order."""
    indeg = {sid: len(ps) for sid, ps in preds.items()}
    succs: dict[str, list[str]] = {sid: [] for sid in preds}
    for sid, ps in preds.items():
        for q in ps:
            succs[q].append(sid)
    ready = [s.id for s in pra.statements if indeg[s.id] == 0]
    topo: list[str] = []
    while ready:
        sid = ready.pop(0)
        topo.append(sid)
        for r in succs[sid]:
            indeg[r] -= 1
            if indeg[r] == 0:
                ready.append(r)
    return topo


def _topological(pra: PRA, preds: Mapping[str, list[str]]) -> list[str]:
    """An order of one iteration's statements; a zero-dependence cycle has no schedule."""
    topo = _kahn(pra, preds)
    if len(topo) != len(preds):
        bad = sorted(set(preds) - set(topo))
        raise InfeasibleSchedule(f"{pra.name}: zero-dependence cycle through {', '.join(bad)}")
    return topo


def statement_timing(pra: PRA, w: int = 1, op_latency: Mapping[str, int] | None = None) -> Timing:
    """``tau_q`` (longest zero-dependence path) and ``w_q`` for every statement of ``pra``."""
    if int(w) != w or w < 0:
        raise InfeasibleSchedule(f"--w {w}: the operation latency must be a non-negative integer")
    lat = _latencies(pra, w, op_latency)
    preds = _zero_preds(pra)
    topo = _topological(pra, preds)
    tau: dict[str, int] = {}
    for sid in topo:
        tau[sid] = max((tau[q] + lat[q] for q in preds[sid]), default=0)
    # a d != 0 transport is read when its first zero-dependence reader starts (as late as possible)
    for s in pra.statements:
        if s.kind == "transport" and any(s.dep or ()):
            readers = [r.id for r in pra.statements if s.id in preds[r.id]]
            if readers:
                tau[s.id] = min(tau[r] for r in readers)
    order = {sid: n for n, sid in enumerate(topo)}
    # by offset, then dependence order (a zero-latency writer and its reader share an offset)
    topo_final = tuple(sorted(topo, key=lambda sid: (tau[sid], order[sid])))
    return Timing(tau, lat, topo_final, max(tau[s] + lat[s] for s in tau))
