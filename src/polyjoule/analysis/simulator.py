"""Reference simulator: runs a mapped, scheduled kernel on the array model and counts.

It is the independent witness of the symbolic analysis, so it shares no counting code with
it: it never looks at the tiling's cases or access paths. It executes every statement
instance of every phase at its scheduled cycle ``start(i) + tau_q`` on its PE ``k = i // p``,
moves the actual numbers through the register class the mapping gives them, and counts
(per statement kind: :mod:`~polyjoule.analysis.sim_statements`).

Every value is written once (single assignment) with the cycle it becomes ready and its
register class; every read checks the value exists, is ready by the read cycle and sits in
a PE register; no PE starts two iterations less than ``pi`` cycles apart. Outputs are
compared with the kernel's reference (numpy semantics, or the C program of a C
file) on random inputs.

Streamed: points are processed in wavefronts of a dependence-respecting order
(:mod:`~polyjoule.analysis.sim_order`), a band of wavefronts at a time
(:mod:`~polyjoule.analysis.sim_walk`), holding registers only for the wavefronts a later
one can still read (:mod:`~polyjoule.analysis.sim_state`). Memory follows the band, so any
size runs within ``memory_limit``; time follows the iteration count
(:func:`estimate_seconds`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyjoule.analysis.schedule import ConcreteSchedule, kernel_schedules
from polyjoule.analysis.sim_checks import (
    matches_reference,
    over_capacity,
    reference_label,
    tile_points,
)
from polyjoule.analysis.sim_order import reach, sigma, widest_wavefront
from polyjoule.analysis.sim_walk import PhaseResult, extents, run_phase
from polyjoule.errors import ResourceLimitError
from polyjoule.model.pra import PRA, Kernel
from polyjoule.targets.tcpa.locations import CLASSES

__all__ = ["MEMORY_LIMIT", "PhaseResult", "SimResult", "estimate_bytes", "estimate_seconds",
           "plan", "simulate"]

#: Default memory bound of one simulation.
MEMORY_LIMIT = 2 * 1024**3
#: Largest band of a run (points): larger bands only cost cache, not time.
CHUNK_MAX = 1 << 20
#: CPU seconds per point and statement of the walk on the project's machine (gemm on 16x16:
#: 2.5e-8 at LARGE, 2.9e-8 at 1/8 of LARGE; benchmarks/bench_sim_large.py). A loaded
#: machine's wall time is a multiple of it; the progress bar shows the actual rate.
SECONDS_PER_INSTANCE = 2.5e-8
_MAX_VIOLATIONS = 20


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


# ----------------------------------------------------------------------------- sizes


def iterations(kernel: Kernel, values: Mapping[str, int]) -> int:
    """Points of every phase's box: what a run walks (the domain may hold fewer)."""
    return sum(math.prod(max(0, e) for e in extents(pra, values)) for pra in kernel.phases)


def estimate_bytes(kernel: Kernel, values: Mapping[str, int]) -> int:
    """Memory a run would need with every point's registers held at once: the size of the
    run (callers gate slow runs on it); a streamed run needs far less (:func:`plan`)."""
    peak = 0
    for pra in kernel.phases:
        box = math.prod(max(1, e) for e in extents(pra, values))
        peak = max(peak, box * (17 * _nvars(pra) + 8 * pra.n + 72))
    return peak + _tensor_bytes(kernel, values)


def estimate_seconds(kernel: Kernel, values: Mapping[str, int]) -> float:
    """A run's time on an unloaded core of the project's machine, from its points and
    statements (:data:`SECONDS_PER_INSTANCE`)."""
    return sum(SECONDS_PER_INSTANCE * len(pra.statements)
               * math.prod(max(0, e) for e in extents(pra, values))
               for pra in kernel.phases)


@dataclass(frozen=True)
class Plan:
    """How a run streams: points per band, and the memory it then needs at most."""

    chunk: int
    bytes: int


def plan(kernel: Kernel, values: Mapping[str, int], memory_limit: int = MEMORY_LIMIT,
         chunk: int | None = None, measure: bool = False,
         concrete: Sequence[ConcreteSchedule] | None = None) -> Plan:
    """The largest band (up to :data:`CHUNK_MAX`) that keeps the run within
    ``memory_limit``; :class:`ResourceLimitError` when even one wavefront and one tile (the
    pipeline-interval check, with ``concrete`` schedules; else a wavefront) do not fit."""
    fixed = _tensor_bytes(kernel, values)
    per_band = 0  # bytes per point of band held, over the phases' worst
    floor = 0     # bytes that do not shrink with the band: wavefront temporaries, a tile
    box = 1       # a band never holds more than a phase's box
    for q, pra in enumerate(kernel.phases):
        ext = extents(pra, values)
        if not all(e > 0 for e in ext):
            continue
        box = max(box, math.prod(ext))
        sig = sigma(pra, ext)
        bands = reach(pra, sig) + 1
        widest = widest_wavefront(sig, ext)
        point = 4 * pra.n + 8 + _nvars(pra) * 17 + 8 * pra.n + 16
        per_band = max(per_band, bands * point)
        tile = tile_points(concrete[q], ext) if concrete else widest
        floor = max(floor, widest * (bands * point + 8 * pra.n + 160), tile * (8 * pra.n + 40))
        if measure:  # FIFO occupancy events are kept for the whole run
            fixed += 24 * math.prod(ext) * sum(1 for s in pra.statements
                                                  if s.kind == "transport")
    room = memory_limit - fixed - floor
    if per_band == 0:
        return Plan(chunk or CHUNK_MAX, fixed)
    chunk = min(chunk or max(1, room // per_band), CHUNK_MAX if chunk is None else box, box)
    need = fixed + floor + chunk * per_band
    if room < per_band or need > memory_limit:
        raise ResourceLimitError(
            f"simulate: {kernel.name} at {', '.join(f'{k}={v}' for k, v in values.items())} "
            f"needs about {_gib(need)} GiB even streamed, over the simulator's limit of "
            f"{_gib(memory_limit)} GiB (use smaller sizes or raise --memory-limit; the "
            f"symbolic analysis has no limit)")
    return Plan(chunk, need)


def _nvars(pra: PRA) -> int:
    return len({s.var for s in pra.statements if s.kind != "output"})


def _tensor_bytes(kernel: Kernel, values: Mapping[str, int]) -> int:
    """Tensors in DRAM, their inputs' copies, written flags and the numpy reference."""
    total = 0
    for t in kernel.tensors().values():
        total += 16 * math.prod(max(0, int(s.evaluate(values))) for s in t.shape)
    return 2 * total


# ----------------------------------------------------------------------------- simulate


def simulate(kernel: Kernel, array: tuple[int, ...] = (8, 8), tile: tuple[int, ...] | None = None,
             values: Mapping[str, int] | None = None, pi: int = 1, w: int = 1,
             order: Sequence[int | str] | None = None, op_latency: Mapping[str, int] | None = None,
             seed: int = 0, memory_limit: int = MEMORY_LIMIT, capacities: Any = None,
             enforce: bool = True, chunk: int | None = None,
             progress: Callable[[int, int], None] | None = None) -> SimResult:
    """Simulate ``kernel`` on ``array`` at parameter ``values``; see the module docstring.

    ``capacities`` (a declaration's :class:`~polyjoule.targets.tcpa.array.Capacities`): the
    run fails (check ``capacity``) where it uses more than declared; ``enforce=False``
    measures the use (``SimResult.usage``) without failing, to show a refused mapping
    exceeding its capacity. ``chunk``: points per band (default: the most that fit
    ``memory_limit``); the results do not depend on it. ``progress(done, total)``: called
    after every band with points walked so far (box points, an upper bound of the domain's).
    """
    t0 = time.perf_counter()
    vals = {k: int(v) for k, v in (values or {}).items()}
    for ph in kernel.phases:
        ph.check_params(vals)
    schedules = kernel_schedules(kernel, array, tile, pi, w, order, op_latency)
    concrete = [s.at({p: vals[p] for p in s.pra.params}) for s in schedules]
    band = plan(kernel, vals, memory_limit, chunk, capacities is not None, concrete).chunk
    dram, written, inputs = _tensors(kernel, vals, np.random.default_rng(seed))
    violations: list[str] = []
    nviol = [0]

    def violate(msg: str, n: int) -> None:
        nviol[0] += n
        if len(violations) < _MAX_VIOLATIONS:
            violations.append(msg)

    walked = [0, iterations(kernel, vals)]

    def step(n: int) -> None:
        walked[0] += n
        if progress is not None:
            progress(walked[0], walked[1])

    phases = []
    scalars: dict[str, float] = {}
    dtypes: dict[str, str] = {}
    for pra, cs in zip(kernel.phases, concrete, strict=True):
        scalars.update(dict(pra.scalars))
        dtypes[pra.name] = pra.dtype
        phases.append(run_phase(pra, cs, vals, dram, written, violate,
                                measure=capacities is not None, chunk=band, progress=step))
    ref = None
    match = True
    if kernel.reference is not None:
        ref = kernel.reference({k: v.copy() for k, v in inputs.items()}, {**scalars, **vals})
        match = matches_reference(ref, dram, violate, reference_label(kernel.reference))
    outputs = {k: dram[k] for k, t in kernel.tensors().items() if t.kind in ("output", "inout")}
    unwritten = sum(int(np.sum(~written[k])) for k, t in kernel.tensors().items() if t.kind == "output")
    checks = {"causality": nviol[0] == 0, "outputs_written": unwritten == 0,
              "outputs_match_reference": match if ref is not None else True}
    if unwritten:
        violations.append(f"{unwritten} output elements never written")
    if capacities is not None and enforce:
        over = over_capacity(SimResult(kernel.name, vals, (1, 1), phases, {}, None, {}, [], 0.0)
                             .usage, capacities)
        checks["capacity"] = not over
        violations.extend(over)
    return SimResult(kernel.name, vals, (array[0], array[1]) if len(array) == 2 else (1, array[0]),
                     phases, outputs, ref, checks, violations, time.perf_counter() - t0, dtypes)


def _tensors(kernel: Kernel, vals: Mapping[str, int], rng: np.random.Generator
             ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray]]:
    """DRAM (inputs random in [0.5, 1.5), outputs NaN), written flags, the inputs' copies."""
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
    return dram, written, inputs


def _gib(nbytes: float) -> str:
    """Bytes in GiB: one decimal from 1 GiB up, else three significant digits (a limit of
    0.0001 GiB is not "0.0")."""
    g = nbytes / 2**30
    return f"{g:,.1f}" if g >= 1 else f"{g:.3g}"
