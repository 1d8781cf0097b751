"""Reference simulator: runs a mapped, scheduled kernel on the array model and counts.

It is the independent witness of the symbolic analysis, so it shares no counting code with
it: it never looks at the tiling's cases or access paths. It executes every statement
instance of every phase at its scheduled cycle ``start(i) + tau_q`` on its PE ``k = i // p``,
moves the actual numbers through the register class the mapping gives them, and counts:

* input ``x[i] = X[f(i)]``: DR read, I/O buffer, input port of PE(i)   (DR, IOb, ID);
* output ``Y[f(i)] = y[i]``: output port of PE(i), I/O buffer, DRAM    (OD, IOb, DR);
* compute: one RD read per operand occurrence, one RD write, its operations;
* transport ``x[i] = y[i-d]``: ``d = 0`` RD; the producer PE ``(i-d) // p`` equal to the
  consumer PE ``i // p`` -> the PE's feedback FIFO (FD); a neighbouring PE -> its output
  port and the consumer's input port (OD + ID); any other PE is a causality error.

Every value is written once (single assignment) with the cycle it becomes ready and its
register class; every read checks the value exists, is ready by the read cycle and sits in
a PE register; no PE starts two iterations less than ``pi`` cycles apart. Outputs are
compared with the kernel's numpy reference on random inputs.

Vectorised: points are processed in wavefronts of a linear order ``sigma`` that every
non-zero dependence increases (``sigma . d >= 1``), all instances of one statement in a
wavefront in one numpy operation, statements in dependence order within a wavefront. This
order yields exactly the values of the cycle order (single assignment, causality checked
against the schedule's cycles), at a cost of a few numpy calls per wavefront.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyjoule.analysis.schedule import ConcreteSchedule, kernel_schedules
from polyjoule.errors import InfeasibleSchedule, ResourceLimitError
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.pra import PRA, Kernel
from polyjoule.targets.tcpa.locations import CLASSES

_CODE = {"RD": 1, "FD": 2, "ID": 3}
#: Default memory bound of one simulation.
MEMORY_LIMIT = 2 * 1024**3
_MAX_VIOLATIONS = 20


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


@dataclass
class SimResult:
    """What a simulation measured and checked."""

    kernel: str
    values: dict[str, int]
    array: tuple[int, int]
    phases: list[PhaseResult]
    outputs: dict[str, np.ndarray]
    reference: dict[str, np.ndarray] | None
    checks: dict[str, bool]
    violations: list[str]
    seconds: float
    dtypes: dict[str, str] = field(default_factory=dict)

    @property
    def usage(self) -> dict[str, float]:
        """Peak use per capacity cause over the phases (``fd-depth``: deepest FIFO, ...)."""
        out: dict[str, float] = {}
        for ph in self.phases:
            for k in ("fd-depth", "fd-count", "rd-count"):
                out[k] = max(out.get(k, 0), ph.usage.get(k, 0))
        pes = max((int(np.prod(ph.schedule.t)) for ph in self.phases), default=1)
        out["iob-capacity"] = -(-self.counts["IOb"] // max(pes, 1))
        out["dram-bandwidth"] = self.counts["DR"] / max(self.makespan, 1)
        return out

    @property
    def counts(self) -> dict[str, Any]:
        """Per class over all phases, plus ``ops`` -> {op: count} (the analysis' layout)."""
        out: dict[str, Any] = dict.fromkeys(CLASSES, 0)
        ops: dict[str, int] = {}
        for ph in self.phases:
            for c in CLASSES:
                out[c] += ph.counts[c]
            for op, n in ph.ops.items():
                ops[op] = ops.get(op, 0) + n
        out["ops"] = dict(sorted(ops.items()))
        return out

    @property
    def makespan(self) -> int:
        """Phases run one after another."""
        return sum(ph.makespan for ph in self.phases)

    @property
    def ok(self) -> bool:
        return all(self.checks.values())

    def energy_pj(self, table: Any) -> dict[str, Any]:
        """Energy of the measured counts under an :class:`EnergyTable` (total, by class, by op)."""
        by_class = dict.fromkeys(CLASSES, 0.0)
        by_op: dict[str, float] = {}
        for ph in self.phases:
            for c in CLASSES:
                by_class[c] += ph.counts[c] * table.access_pj[c]
            for op, n in ph.ops.items():
                by_op[op] = by_op.get(op, 0.0) + n * table.op(self.dtypes[ph.name], op)
        return {"total": sum(by_class.values()) + sum(by_op.values()), "by_class": by_class,
                "by_op": dict(sorted(by_op.items()))}

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel, "values": self.values, "array": list(self.array),
            "counts": self.counts, "makespan_cycles": self.makespan,
            "phases": [{"phase": ph.name, "makespan_cycles": ph.makespan,
                        "instances": ph.instances, "counts": ph.counts, "ops": ph.ops,
                        "by_statement": ph.by_statement,
                        "schedule": ph.schedule.to_json(ph.dims)}
                       for ph in self.phases],
            "checks": self.checks, "violations": self.violations, "seconds": self.seconds,
        }


# ----------------------------------------------------------------------------- helpers


def _lin(a: Affine, dims: Sequence[str], values: Mapping[str, int]) -> tuple[np.ndarray, int]:
    """``a`` as (coefficients over dims, constant with parameters substituted)."""
    co = a.coeffs
    vec = np.array([co.get(d, 0) for d in dims], dtype=np.int64)
    const = a.const + sum(v * int(values[k]) for k, v in a.terms if k not in dims)
    return vec, const


def _holds(cons: Sequence[Constraint], dims: Sequence[str], values: Mapping[str, int],
           coords: np.ndarray) -> np.ndarray:
    mask = np.ones(coords.shape[1], dtype=bool)
    for c in cons:
        vec, const = _lin(c.expr, dims, values)
        v = vec @ coords + const if coords.shape[1] else np.zeros(0, dtype=np.int64)
        mask &= (v == 0) if c.eq else (v >= 0)
    return mask


def _sigma(pra: PRA, extents: Sequence[int]) -> np.ndarray:
    """A small integer vector with ``sigma . d >= 1`` for every non-zero dep (non-negative
    when one exists)."""
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


def estimate_bytes(kernel: Kernel, values: Mapping[str, int]) -> int:
    """Peak memory of a simulation (box storages per variable, point lists, tensors)."""
    total_t = 0
    for t in kernel.tensors().values():
        total_t += 16 * int(np.prod([max(0, s.evaluate(values)) for s in t.shape]))
    peak = 0
    for pra in kernel.phases:
        box = int(np.prod([max(1, d.extent.evaluate(values)) for d in pra.dims]))
        nvars = len({s.var for s in pra.statements if s.kind != "output"})
        peak = max(peak, box * (17 * nvars + 8 * pra.n + 72))
    return peak + 2 * total_t


# ----------------------------------------------------------------------------- simulate


def simulate(kernel: Kernel, array: tuple[int, ...] = (8, 8), tile: tuple[int, ...] | None = None,
             values: Mapping[str, int] | None = None, pi: int = 1, w: int = 1,
             order: Sequence[int | str] | None = None, op_latency: Mapping[str, int] | None = None,
             seed: int = 0, memory_limit: int = MEMORY_LIMIT, capacities: Any = None,
             enforce: bool = True) -> SimResult:
    """Simulate ``kernel`` on ``array`` at parameter ``values``; see the module docstring.

    ``capacities`` (a declaration's :class:`~polyjoule.targets.tcpa.array.Capacities`): the
    run fails (check ``capacity``) where it uses more than declared; ``enforce=False``
    measures the use (``SimResult.usage``) without failing, to show a refused mapping
    exceeding its capacity.
    """
    t0 = time.perf_counter()
    vals = {k: int(v) for k, v in (values or {}).items()}
    for ph in kernel.phases:
        ph.check_params(vals)
    need = estimate_bytes(kernel, vals)
    if need > memory_limit:
        raise ResourceLimitError(
            f"simulate: {kernel.name} at {', '.join(f'{k}={v}' for k, v in vals.items())} needs "
            f"about {need / 2**30:.1f} GiB, over the simulator's limit of "
            f"{memory_limit / 2**30:.1f} GiB (use smaller sizes; the symbolic analysis has no limit)")
    schedules = kernel_schedules(kernel, array, tile, pi, w, order, op_latency)
    concrete = [s.at({p: vals[p] for p in s.pra.params}) for s in schedules]
    rng = np.random.default_rng(seed)
    dram: dict[str, np.ndarray] = {}
    written: dict[str, np.ndarray] = {}
    inputs: dict[str, np.ndarray] = {}
    for name, t in kernel.tensors().items():
        shape = tuple(int(s.evaluate(vals)) for s in t.shape)
        if t.kind in ("input", "inout"):
            inputs[name] = rng.uniform(0.5, 1.5, size=shape)
            if len(shape) == 2 and shape[0] == shape[1]:  # dominant diagonal: SPD for cholesky
                inputs[name] += np.eye(shape[0]) * shape[0]
            dram[name] = inputs[name].copy()
            written[name] = np.ones(shape, dtype=bool)
        else:
            dram[name] = np.full(shape, np.nan)
            written[name] = np.zeros(shape, dtype=bool)
    violations: list[str] = []
    nviol = [0]

    def violate(msg: str, n: int) -> None:
        nviol[0] += n
        if len(violations) < _MAX_VIOLATIONS:
            violations.append(msg)

    phases = []
    scalars: dict[str, float] = {}
    dtypes: dict[str, str] = {}
    for pra, cs in zip(kernel.phases, concrete, strict=True):
        scalars.update(dict(pra.scalars))
        dtypes[pra.name] = pra.dtype
        phases.append(_run_phase(pra, cs, vals, dram, written, violate,
                                 measure=capacities is not None))
    ref = None
    match = True
    if kernel.reference is not None:
        ref = kernel.reference({k: v.copy() for k, v in inputs.items()}, {**scalars, **vals})
        match = _matches_reference(ref, dram, violate)
    outputs = {k: dram[k] for k, t in kernel.tensors().items() if t.kind in ("output", "inout")}
    unwritten = sum(int(np.sum(~written[k])) for k, t in kernel.tensors().items() if t.kind == "output")
    checks = {"causality": nviol[0] == 0, "outputs_written": unwritten == 0,
              "outputs_match_reference": match if ref is not None else True}
    if unwritten:
        violations.append(f"{unwritten} output elements never written")
    if capacities is not None and enforce:
        over = _over_capacity(SimResult(kernel.name, vals, (1, 1), phases, {}, None, {}, [], 0.0)
                              .usage, capacities)
        checks["capacity"] = not over
        violations.extend(over)
    return SimResult(kernel.name, vals, (array[0], array[1]) if len(array) == 2 else (1, array[0]),
                     phases, outputs, ref, checks, violations, time.perf_counter() - t0, dtypes)



def _matches_reference(ref: Mapping[str, Any], dram: Mapping[str, np.ndarray],
                       violate: Any) -> bool:
    """Whether every output the numpy reference computes equals the simulated one."""
    match = True
    for name, want in ref.items():
        got = dram.get(name)
        want = np.asarray(want, dtype=np.float64)
        if got is None or got.shape != want.shape:
            match = False
            violate(f"output {name}: shape {None if got is None else got.shape} != {want.shape}", 1)
            continue
        scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
        if not np.allclose(got, want, rtol=1e-9, atol=1e-9 * scale, equal_nan=False):
            match = False
            bad = int(np.sum(~np.isclose(got, want, rtol=1e-9, atol=1e-9 * scale)))
            violate(f"output {name}: {bad} elements differ from the numpy reference", 0)
    return match


@dataclass
class _Phase:
    """One phase's machine state during a run: the schedule's vectors, every variable's
    value / ready cycle / register class, and what the run has counted so far."""

    pra: PRA
    cs: ConcreteSchedule
    ext: np.ndarray
    strides: np.ndarray
    p: np.ndarray
    lj: np.ndarray
    lk: np.ndarray
    tiled: np.ndarray
    dram: dict[str, np.ndarray]
    written: dict[str, np.ndarray]
    violate: Any
    measure: bool
    val: dict[str, np.ndarray]
    ready: dict[str, np.ndarray]
    cls: dict[str, np.ndarray]
    cond: dict[str, list[tuple[np.ndarray, int, bool]]]
    subs: dict[str, list[tuple[np.ndarray, int]]]
    deps: dict[str, np.ndarray]
    counts: dict[str, int]
    by_statement: dict[str, dict[str, int]]
    ops: dict[str, int]
    scalars: dict[str, float]
    fifo_id: dict[str, int]
    fifo: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    rd_vars: set[str] = field(default_factory=set)
    makespan: int = 0
    instances: int = 0

    def add(self, sid: str, c: str, n: int) -> None:
        self.counts[c] += n
        self.by_statement[sid][c] = self.by_statement[sid].get(c, 0) + n

    def read(self, v: str, f: np.ndarray, at: np.ndarray, sid: str) -> np.ndarray:
        """The values of ``v`` at flat points ``f``, checking each is written, ready by
        ``at`` and held in a PE register."""
        r = self.ready[v][f]
        bad = r < 0
        if bad.any():
            self.violate(f"{self.pra.name}: {sid} reads {v} before it is written "
                         f"({int(bad.sum())} reads)", int(bad.sum()))
        late = (r > at) & ~bad
        if late.any():
            self.violate(f"{self.pra.name}: {sid} reads {v} before it is ready "
                         f"({int(late.sum())} reads)", int(late.sum()))
        wrong = (self.cls[v][f] == 0) & ~bad
        if wrong.any():
            self.violate(f"{self.pra.name}: {sid} reads {v} from outside the PE's registers",
                         int(wrong.sum()))
        return self.val[v][f]

    def write(self, v: str, f: np.ndarray, x: Any, at: np.ndarray, code: Any, sid: str,
              what: str | None = None) -> None:
        """Single assignment of ``v`` at ``f``: value, ready cycle, register class."""
        again = self.ready[v][f] >= 0
        if again.any():
            self.violate(what or f"{self.pra.name}: {sid} writes {v} twice at "
                         f"{int(again.sum())} points", int(again.sum()))
        self.val[v][f] = x
        self.ready[v][f] = at
        self.cls[v][f] = code


def _wavefronts(pra: PRA, ext: list[int], vals: Mapping[str, int]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every point of the domain in wavefront (``sigma``) order, and where each wavefront
    starts and ends in it."""
    n = pra.n
    box = int(np.prod(ext))
    sig = _sigma(pra, ext)
    coords = np.indices(ext, dtype=np.int32).reshape(n, box)
    coords = coords[:, _holds(pra.domain(), pra.dim_names, vals, coords)]
    key = sig @ coords
    perm = np.argsort(key, kind="stable")
    coords = coords[:, perm]
    key = key[perm]
    del perm
    bounds = np.flatnonzero(np.diff(key)) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [key.size]])
    return coords, starts, ends


def _phase_state(pra: PRA, cs: ConcreteSchedule, vals: Mapping[str, int], ext: list[int],
                 dram: dict[str, np.ndarray], written: dict[str, np.ndarray], violate: Any,
                 measure: bool) -> _Phase:
    """Empty registers and counters for one phase, and its statements' affine data."""
    n, dims = pra.n, pra.dim_names
    box = int(np.prod(ext))
    p = np.array(cs.p, dtype=np.int64)
    tdt = np.int64 if cs.latency + 8 >= 2**31 - 1 else np.int32
    variables = sorted({s.var for s in pra.statements if s.kind != "output"})
    return _Phase(
        pra=pra, cs=cs, ext=np.array(ext),
        strides=np.array([int(np.prod(ext[l + 1:])) for l in range(n)], dtype=np.int64),
        p=p, lj=np.array(cs.lambda_J, dtype=np.int64), lk=np.array(cs.lambda_K, dtype=np.int64),
        tiled=np.array([t > 1 for t in cs.t], dtype=bool) | (p < np.array(ext)),
        dram=dram, written=written, violate=violate, measure=measure,
        val={v: np.zeros(box) for v in variables},
        ready={v: np.full(box, -1, dtype=tdt) for v in variables},
        cls={v: np.zeros(box, dtype=np.int8) for v in variables},
        cond={s.id: [(*_lin(c.expr, dims, vals), c.eq) for c in s.when] for s in pra.statements},
        subs={s.id: [_lin(a, dims, vals) for a in s.index] for s in pra.statements if s.index},
        deps={s.id: np.array(s.dep, dtype=np.int64) for s in pra.statements
              if s.kind == "transport"},
        counts=dict.fromkeys(CLASSES, 0),
        by_statement={s.id: {} for s in pra.statements},
        ops={op: 0 for s in pra.statements if s.expr is not None for op, _ in s.expr.ops},
        scalars=dict(pra.scalars), fifo_id={s.id: q for q, s in enumerate(pra.statements)})


def _run_phase(pra: PRA, cs: ConcreteSchedule, vals: Mapping[str, int],
               dram: dict[str, np.ndarray], written: dict[str, np.ndarray],
               violate: Any, measure: bool = True) -> PhaseResult:
    """Run one phase wavefront by wavefront, the statements of a wavefront in dependence
    order, each statement's instances in one numpy operation."""
    ext = [int(d.extent.evaluate(vals)) for d in pra.dims]
    coords, starts, ends = _wavefronts(pra, ext, vals)
    st = _phase_state(pra, cs, vals, ext, dram, written, violate, measure)
    by_id = {s.id: s for s in pra.statements}
    tau, wq = cs.timing.tau, cs.timing.w
    for a, b in zip(starts, ends, strict=True):
        c = coords[:, a:b].astype(np.int64)
        flat = st.strides @ c
        k = c // st.p[:, None]
        start = st.lj @ (c - k * st.p[:, None]) + st.lk @ k + cs.offset
        for sid in cs.timing.topo:
            m = np.ones(c.shape[1], dtype=bool)
            for vec, const, eq in st.cond[sid]:
                e = vec @ c + const
                m &= (e == 0) if eq else (e >= 0)
            cnt = int(m.sum())
            if not cnt:
                continue
            st.instances += cnt
            s = by_id[sid]
            f = flat[m]
            sm = start[m]
            at = sm + tau[sid]
            done = at + wq[sid]
            st.makespan = max(st.makespan, int(done.max()))
            if s.kind == "input":
                _input(st, s, c[:, m], f, done, cnt)
            elif s.kind == "output":
                _output(st, s, c[:, m], f, at, cnt)
            elif s.kind == "compute":
                _compute(st, s, f, at, done, cnt)
            else:
                _transport(st, s, c[:, m], f, sm, at, done, cnt)
    _check_issue_rate(st, coords)
    del coords
    usage = _usage(st.fifo, st.rd_vars) if measure else {}
    return PhaseResult(pra.name, st.counts, dict(sorted(st.ops.items())), st.makespan, cs,
                       st.instances, pra.dim_names, st.by_statement, usage)


def _subscripts(st: _Phase, s: Any, cm: np.ndarray, verb: str, cnt: int
                ) -> tuple[np.ndarray, ...] | None:
    """The tensor subscripts of ``s`` at points ``cm``; None (and a violation) if any is
    out of the tensor's bounds."""
    idx = tuple(vec @ cm + const for vec, const in st.subs[s.id])
    arr = st.dram[s.tensor]
    if any(((x < 0) | (x >= dim)).any() for x, dim in zip(idx, arr.shape, strict=True)):
        st.violate(f"{st.pra.name}: {s.id} {verb} {s.tensor} out of bounds", cnt)
        return None
    return idx


def _input(st: _Phase, s: Any, cm: np.ndarray, f: np.ndarray, done: np.ndarray,
           cnt: int) -> None:
    """``x[i] = X[f(i)]``: DRAM -> I/O buffer -> the PE's input port."""
    assert s.tensor is not None
    idx = _subscripts(st, s, cm, "reads", cnt)
    if idx is None:
        return
    if not st.written[s.tensor][idx].all():
        st.violate(f"{st.pra.name}: {s.id} reads {s.tensor} elements never written", cnt)
    st.write(s.var, f, st.dram[s.tensor][idx], done, _CODE["ID"], s.id)
    st.add(s.id, "DR", cnt)
    st.add(s.id, "IOb", cnt)
    st.add(s.id, "ID", cnt)


def _output(st: _Phase, s: Any, cm: np.ndarray, f: np.ndarray, at: np.ndarray,
            cnt: int) -> None:
    """``Y[f(i)] = y[i]``: the PE's output port -> I/O buffer -> DRAM."""
    assert s.tensor is not None
    x = st.read(s.var, f, at, s.id)
    idx = _subscripts(st, s, cm, "writes", cnt)
    if idx is None:
        return
    st.dram[s.tensor][idx] = x
    st.written[s.tensor][idx] = True
    st.add(s.id, "OD", cnt)
    st.add(s.id, "IOb", cnt)
    st.add(s.id, "DR", cnt)


def _compute(st: _Phase, s: Any, f: np.ndarray, at: np.ndarray, done: np.ndarray,
             cnt: int) -> None:
    """One RD read per operand occurrence, one RD write, the expression's operations."""
    assert s.expr is not None
    operands = {v: st.read(v, f, at, s.id) for v in dict.fromkeys(s.expr.operands)}
    x = np.broadcast_to(np.asarray(s.expr.evaluate(operands, st.scalars),
                                   dtype=np.float64), f.shape)
    st.write(s.var, f, x, done, _CODE["RD"], s.id)
    st.rd_vars.add(s.var)
    st.add(s.id, "RD", cnt * (len(s.expr.operands) + 1))
    for op, q in s.expr.ops:
        st.ops[op] = st.ops.get(op, 0) + cnt * q


def _transport(st: _Phase, s: Any, cm: np.ndarray, f: np.ndarray, sm: np.ndarray,
               at: np.ndarray, done: np.ndarray, cnt: int) -> None:
    """``x[i] = y[i-d]``: RD (``d = 0``), the PE's feedback FIFO (same PE) or output +
    input port (neighbouring PE); any other PE is a causality error."""
    assert s.source is not None
    d = st.deps[s.id]
    if not d.any():
        st.write(s.var, f, st.read(s.source, f, at, s.id), done, _CODE["RD"], s.id)
        st.rd_vars.add(s.var)
        st.add(s.id, "RD", cnt)
        return
    ext = st.ext[:, None]
    src = cm - d[:, None]
    inside = np.all((src >= 0) & (src < ext), axis=0)
    if not inside.all():
        st.violate(f"{st.pra.name}: {s.id} reads {s.source} outside the iteration space",
                   int((~inside).sum()))
        src = np.clip(src, 0, ext - 1)
    x = st.read(s.source, st.strides @ src, at, s.id)
    p = st.p[:, None]
    dk = (cm // p) - (src // p)
    dk[~st.tiled] = 0
    same = ~dk.any(axis=0)
    far = np.abs(dk).max(axis=0) > 1
    if far.any():
        st.violate(f"{st.pra.name}: {s.id} moves {s.source} between PEs that are not "
                   f"neighbours ({int(far.sum())} values)", int(far.sum()))
    nfd = int(same.sum())
    if nfd and st.measure:  # FIFO occupancy: only when a declaration is checked
        _fifo_events(st, s.id, src[:, same], sm[same])
    st.add(s.id, "FD", nfd)
    st.add(s.id, "OD", cnt - nfd)
    st.add(s.id, "ID", cnt - nfd)
    code = np.where(same, _CODE["FD"], _CODE["ID"]).astype(np.int8)
    st.write(s.var, f, x, done, code, s.id, f"{st.pra.name}: {s.id} writes {s.var} twice")


def _fifo_events(st: _Phase, sid: str, src: np.ndarray, popped: np.ndarray) -> None:
    """Record the ``[push, pop)`` interval of the values that stay in their PE, keyed by
    (PE, FIFO): pushed when the producer iteration starts, popped when the consumer does."""
    p = st.p[:, None]
    ks = src // p
    pushed = st.lj @ (src - ks * p) + st.lk @ ks
    pe_id = np.zeros(src.shape[1], dtype=np.int64)
    for l, t in enumerate(st.cs.t):
        pe_id = pe_id * (int(t) + 1) + ks[l]
    st.fifo.append((pe_id * _FIFO_SLOTS + st.fifo_id[sid], pushed, popped))


def _check_issue_rate(st: _Phase, coords: np.ndarray) -> None:
    """A PE starts at most one iteration every ``pi`` cycles."""
    cs = st.cs
    start = np.zeros(coords.shape[1], dtype=np.int64)
    pe = np.zeros(coords.shape[1], dtype=np.int64)
    for l in range(st.pra.n):
        kl = coords[l].astype(np.int64) // st.p[l]
        start += st.lj[l] * (coords[l] - kl * st.p[l]) + st.lk[l] * kl
        pe = pe * (int(cs.t[l]) + 1) + kl
    if start.size > 1:
        o = np.lexsort((start, pe))
        same = pe[o][1:] == pe[o][:-1]
        gaps = np.diff(start[o])[same]
        if gaps.size and int(gaps.min()) < cs.pi:
            st.violate(f"{st.pra.name}: a PE starts iterations {int(gaps.min())} cycles apart "
                       f"(pipeline interval {cs.pi})", int((gaps < cs.pi).sum()))


# ----------------------------------------------------------------------------- capacities


def _fifo_peak(events: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[int, int]:
    """(most values one FIFO holds at once, most FIFOs one PE uses) from the intervals
    ``[push, pop)`` of every value that stayed in a PE, per (PE, FIFO)."""
    if not events:
        return 0, 0
    owner = np.concatenate([e[0] for e in events])
    push = np.concatenate([e[1] for e in events])
    pop = np.concatenate([e[2] for e in events])
    fifos = np.unique(owner)
    per_pe = np.unique(fifos // _FIFO_SLOTS, return_counts=True)[1]
    key = np.concatenate([owner, owner])
    at = np.concatenate([push, pop])
    step = np.concatenate([np.ones_like(push), -np.ones_like(pop)])
    o = np.lexsort((step, at, key))  # a pop before a push at the same cycle
    key, step = key[o], step[o]
    level = np.cumsum(step)
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    base = np.repeat(level[first] - step[first], np.diff(np.r_[first, key.size]))
    return int((level - base).max()), int(per_pe.max())


_FIFO_SLOTS = 1 << 8  # FIFO ids per PE in the (PE, FIFO) key


def _usage(fifo: list[tuple[np.ndarray, np.ndarray, np.ndarray]], rd_vars: set[str]
           ) -> dict[str, float]:
    """Peak use of the PE capacities in one phase, measured on the run (the I/O buffer and
    DRAM use are over the whole run: :attr:`SimResult.usage`)."""
    depth, nfifo = _fifo_peak(fifo)
    return {"fd-depth": depth, "fd-count": nfifo, "rd-count": len(rd_vars)}


def _over_capacity(usage: Mapping[str, float], caps: Any) -> list[str]:
    """One line per capacity the run exceeded."""
    limits = {"fd-depth": caps.fd_depth_words, "fd-count": caps.fd_count,
              "rd-count": caps.rd_count,
              "iob-capacity": min(caps.iob_capacity_words.values(), default=0),
              "dram-bandwidth": caps.dram_bandwidth_words_per_cycle}
    return [f"{cause} exceeded: uses {usage[cause]:g}, declared {lim:g}"
            for cause, lim in limits.items() if usage.get(cause, 0) > lim]

