"""The walk of one phase: band by band, wavefront by wavefront, statement by statement.

Every instance runs at its scheduled cycle ``start(i) + tau_q`` on its PE ``k = i // p``;
all instances of one statement in a wavefront run in one numpy operation, statements in
dependence order within a wavefront. This order yields exactly the values of the cycle order
(single assignment, causality checked against the schedule's cycles).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from polyjoule.analysis.schedule import ConcreteSchedule
from polyjoule.analysis.sim_checks import check_issue_rate, usage
from polyjoule.analysis.sim_order import (
    band_points,
    bands,
    lin,
    linear_domain,
    reach,
    sigma,
    wavefront_sizes,
    wavefronts,
)
from polyjoule.analysis.sim_state import Band, PhaseState
from polyjoule.analysis.sim_statements import (
    Instances,
    Move,
    condition,
    instances,
    run_compute,
    run_input,
    run_output,
    run_transport,
)
from polyjoule.model.pra import PRA
from polyjoule.targets.tcpa.locations import CLASSES

Progress = Callable[[int], None]  # called with the points (box upper bound) just walked


@dataclass
class PhaseResult:
    """Counts, makespan and schedule of one phase."""

    name: str
    counts: dict[str, int]
    ops: dict[str, int]
    makespan: int
    schedule: ConcreteSchedule
    instances: int
    dims: tuple[str, ...] = ()
    by_statement: dict[str, dict[str, int]] = field(default_factory=dict)
    usage: dict[str, float] = field(default_factory=dict)  # peak use per capacity cause
    peak_band_bytes: int = 0  # registers held at once (the streamed window)


def extents(pra: PRA, values: Mapping[str, int]) -> list[int]:
    """The phase's box extents at ``values``."""
    return [int(d.extent.evaluate(values)) for d in pra.dims]


def run_phase(pra: PRA, cs: ConcreteSchedule, vals: Mapping[str, int],
              dram: dict[str, np.ndarray], written: dict[str, np.ndarray], violate: Callable,
              measure: bool = True, chunk: int = 1 << 22,
              progress: Progress | None = None) -> PhaseResult:
    """Run one phase in bands of about ``chunk`` points; see the module docstring."""
    ext = extents(pra, vals)
    sig = sigma(pra, ext)
    domain = linear_domain(pra, vals, ext)
    st = _phase_state(pra, cs, vals, ext, dram, written, violate, measure, reach(pra, sig))
    plan = _Plan.of(pra, vals, sig, cs)
    first, sizes = wavefront_sizes(sig, ext)
    strides = st.strides
    for s0, s1 in bands(sig, ext, chunk):
        coords, keys = band_points(sig, ext, s0, s1, domain)
        waves = {key: (a, b) for key, a, b in wavefronts(keys)}
        flat = strides @ coords.astype(np.int64) if coords.size else np.zeros(0, np.int64)
        st.enter(Band(coords, flat, waves, s0, s1 - 1))
        del keys
        for key, (a, b) in waves.items():
            _wave(st, plan, key, a, b)
        if progress is not None:
            progress(int(sizes[s0 - first:s1 - first].sum()))
    st.window.clear()
    check_issue_rate(cs, ext, domain, violate, pra.name)
    use = usage(st.fifo, st.rd_vars) if measure else {}
    return PhaseResult(pra.name, st.counts, dict(sorted(st.ops.items())), st.makespan, cs,
                       st.instances, pra.dim_names, st.by_statement, use, st.peak_band_bytes)


@dataclass
class _Plan:
    """Per statement, in dependence order: the statement, its condition, its transport
    distance and how many wavefronts back its source lies."""

    rows: list[tuple]

    @classmethod
    def of(cls, pra: PRA, vals: Mapping[str, int], sig: np.ndarray, cs: ConcreteSchedule
           ) -> _Plan:
        by_id = {s.id: s for s in pra.statements}
        ext = extents(pra, vals)
        strides = [int(np.prod(ext[l + 1:])) for l in range(pra.n)]
        rows = []
        for sid in cs.timing.topo:
            s = by_id[sid]
            mv = None
            if s.kind == "transport":
                d = np.array(s.dep, dtype=np.int64)
                mv = Move(d, tuple(int(l) for l in np.flatnonzero(d)), int(sig @ d),
                          int(sum(x * y for x, y in zip(strides, d.tolist(), strict=True))))
            rows.append((s, condition(s, pra.dim_names, vals), mv,
                         cs.timing.tau[sid], cs.timing.w[sid]))
        return cls(rows)


def _wave(st: PhaseState, plan: _Plan, key: int, a: int, b: int) -> None:
    """Every statement's instances in wavefront ``key`` (positions [a, b) of the band)."""
    c = st.band.coords[:, a:b].astype(np.int64)
    start = np.full(b - a, st.cs.offset, dtype=np.int64)
    for l in range(c.shape[0]):
        if st.tiled[l]:
            k, j = np.divmod(c[l], st.p[l])
            start += st.lj[l] * j + st.lk[l] * k
        else:
            start += st.lj[l] * c[l]
    for s, cond, mv, tau, wq in plan.rows:
        m = instances(cond, c)
        if m is None:
            w = Instances(c, slice(a, b), start, key, b - a)
        else:
            idx = np.flatnonzero(m)
            if not idx.size:
                continue
            w = Instances(c[:, idx], a + idx, start[idx], key, idx.size)
        st.instances += w.n
        at = w.start + tau
        done = at + wq
        st.makespan = max(st.makespan, int(done.max()))
        if s.kind == "input":
            run_input(st, s, w, done)
        elif s.kind == "output":
            run_output(st, s, w, at)
        elif s.kind == "compute":
            run_compute(st, s, w, at, done)
        else:
            run_transport(st, s, w, mv, at, done)


def _phase_state(pra: PRA, cs: ConcreteSchedule, vals: Mapping[str, int], ext: list[int],
                 dram: dict[str, np.ndarray], written: dict[str, np.ndarray], violate: Callable,
                 measure: bool, back: int) -> PhaseState:
    """Empty registers and counters for one phase, and its statements' affine data."""
    n, dims = pra.n, pra.dim_names
    p = np.array(cs.p, dtype=np.int64)
    return PhaseState(
        pra=pra, cs=cs, ext=np.array(ext),
        strides=np.array([int(np.prod(ext[l + 1:])) for l in range(n)], dtype=np.int64),
        p=p, lj=np.array(cs.lambda_J, dtype=np.int64), lk=np.array(cs.lambda_K, dtype=np.int64),
        tiled=np.array([t > 1 for t in cs.t], dtype=bool) | (p < np.array(ext)),
        dram=dram, written=written, violate=violate, measure=measure,
        variables=sorted({s.var for s in pra.statements if s.kind != "output"}),
        tdt=np.int64 if cs.latency + 8 >= 2**31 - 1 else np.int32, reach=back,
        counts=dict.fromkeys(CLASSES, 0),
        by_statement={s.id: {} for s in pra.statements},
        ops={op: 0 for s in pra.statements if s.expr is not None for op, _ in s.expr.ops},
        scalars={**{q: vals[q] for q in pra.params}, **dict(pra.scalars)},  # N: an immediate
        subs={s.id: [lin(a, dims, vals) for a in s.index] for s in pra.statements if s.index},
        fifo_id={s.id: q for q, s in enumerate(pra.statements)})
