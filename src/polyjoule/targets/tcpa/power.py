"""Static energy, power and throughput of a run on a declared array (pure functions).

Dynamic energy (accesses and operations) comes from the analysis; here the declaration's
leakage adds the static part: every component leaks for the whole run, busy or not, so
static energy = leakage power x latency / clock. :func:`power_summary` prices one run,
:func:`power_columns` many (numpy, float64; the same arithmetic in the same order, so a
point of a sweep equals the scalar result). The instances per component
(``docs/arch.md``): ``pe`` one per PE; ``register_file`` one per register word (RD plus
ID/OD port registers) per PE; ``fifo`` one per FD word (FIFOs x depth) per PE;
``io_buffer`` one per word of I/O-buffer capacity over all borders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyjoule.errors import ParameterRangeError
from polyjoule.targets.tcpa.array import ProcessorArray

PJ_PER_UW_S = 1e6  # 1 uW for 1 s = 1 uJ = 1e6 pJ


def instances(array: ProcessorArray) -> dict[str, int]:
    """How many instances of each component the array has (the unit of its costs)."""
    n = array.n_pes
    return {
        "pe": n,
        "register_file": n * array.pe.register_words,
        "fifo": n * array.pe.fifo_words,
        "io_buffer": sum(b.capacity_words for b in array.io_buffers),
    }


def leakage_uw(array: ProcessorArray) -> dict[str, float]:
    """Leakage power per component over the whole array, in uW."""
    return {c: k * array.components[c].leakage_uw for c, k in instances(array).items()}


def area_um2(array: ProcessorArray) -> dict[str, float]:
    """Area per component over the whole array, in um^2."""
    return {c: k * array.components[c].area_um2 for c, k in instances(array).items()}


def seconds(array: ProcessorArray, latency_cycles: int) -> float:
    """Wall time of ``latency_cycles`` at the declared clock."""
    if latency_cycles < 1:
        raise ParameterRangeError(f"latency {latency_cycles} cycles: a run takes at least 1 cycle")
    return latency_cycles * array.cycle_seconds


def static_pj(array: ProcessorArray, latency_cycles: int) -> dict[str, float]:
    """Leakage energy per component over a run of ``latency_cycles``, in pJ."""
    t = seconds(array, latency_cycles)
    return {c: p * t * PJ_PER_UW_S for c, p in leakage_uw(array).items()}


@dataclass(frozen=True)
class PowerSummary:
    """Dynamic vs static energy, average power and throughput of one run."""

    latency_cycles: int
    seconds: float
    dynamic_pj: float
    static_pj: float
    static_pj_by_component: Mapping[str, float]
    total_pj: float
    power_mw: float  # average over the run
    throughput_ips: float  # loop iterations per second at the declared clock
    energy_per_op_pj: float | None  # total energy / operations (None without operations)

    def to_json(self) -> dict[str, object]:
        return {
            "latency_seconds": self.seconds, "dynamic_pj": self.dynamic_pj,
            "static_pj": self.static_pj, "static_pj_by_component": dict(self.static_pj_by_component),
            "total_pj": self.total_pj, "power_mw": self.power_mw,
            "throughput_ips": self.throughput_ips, "energy_per_op_pj": self.energy_per_op_pj,
        }


def power_summary(array: ProcessorArray, latency_cycles: int, dynamic_pj: float,
                  operations: int, iterations: int) -> PowerSummary:
    """Static energy, power and throughput of a run with ``dynamic_pj`` of accesses and
    operations, ``operations`` operations and ``iterations`` loop iterations."""
    t = seconds(array, latency_cycles)
    by_component = static_pj(array, latency_cycles)
    static = sum(by_component.values())
    total = dynamic_pj + static
    return PowerSummary(
        latency_cycles, t, dynamic_pj, static, by_component, total,
        power_mw=total * 1e-12 / t * 1e3,
        throughput_ips=iterations / t,
        energy_per_op_pj=total / operations if operations > 0 else None,
    )


def power_columns(array: ProcessorArray, latency_cycles: Any, dynamic_pj: Any,
                  operations: Any, iterations: Any) -> dict[str, np.ndarray]:
    """:func:`power_summary` for arrays of runs: ``latency_seconds``, ``static.<component>``,
    ``static_pj``, ``total_pj``, ``power_mw``, ``throughput_ips``, ``energy_per_op_pj``
    (NaN where a run has no operations). float64 throughout: counts beyond int64 arrive
    as Python integers (object arrays) and are converted once, so nothing wraps around."""
    lat = np.asarray(latency_cycles)
    if lat.size and np.any(lat < 1):
        raise ParameterRangeError("latency below 1 cycle: a run takes at least 1 cycle")
    t = np.asarray(lat, dtype=np.float64) * array.cycle_seconds
    out: dict[str, np.ndarray] = {"latency_seconds": t}
    static: Any = 0
    for c, p in leakage_uw(array).items():
        out[f"static.{c}"] = p * t * PJ_PER_UW_S
        static = static + out[f"static.{c}"]
    total = np.asarray(dynamic_pj, dtype=np.float64) + static
    ops = np.asarray(operations, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_op = np.where(ops > 0, total / np.where(ops > 0, ops, 1.0), np.nan)
    out.update(static_pj=np.asarray(static, dtype=np.float64), total_pj=total,
               power_mw=total * 1e-12 / t * 1e3,
               throughput_ips=np.asarray(iterations, dtype=np.float64) / t,
               energy_per_op_pj=per_op)
    return out
