"""``--validate K``: re-check sampled design points of a sweep by independent means.

Each sampled point is checked twice, with exact equality:

1. the compiled vectorised evaluation against the scalar formula interpreter
   (``Formula.evaluate`` per volume, as ``Analysis.evaluate`` does) and the scalar schedule
   latency (catches code-generation and vectorisation errors);
2. against the cycle-level simulator ``polyjoule.sim.simulate`` (per-class counts, op
   counts and makespan), which shares no counting code with the analysis.

The simulator's cost grows with the iteration space, so points are sampled among those
below ``max_instances`` iterations (the symbolic side has no such limit).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from polyjoule.dse.space import MappingSpec
from polyjoule.dse.sweep import SweepResult, SweepSpec, scalar_counts
from polyjoule.model.pra import Kernel
from polyjoule.targets.tcpa.locations import CLASSES


def _box(kernel: Kernel, values: dict[str, np.ndarray]) -> np.ndarray:
    """Iteration-space size (sum over phases) of every point, vectorised."""
    total: Any = 0
    for ph in kernel.phases:
        vals = {p: values[p] for p in ph.params}
        box: Any = 1
        for d in ph.dims:
            box = box * np.maximum(1, np.asarray(d.extent.evaluate(vals), dtype=np.int64))
        total = total + box
    return np.asarray(total, dtype=np.int64)


def simulate_task(kernel: Kernel, m: MappingSpec, values: dict[str, int], pi: int, w: int) -> dict[str, Any]:
    """Worker side: simulate one design point; plain data back."""
    from polyjoule.analysis.simulator import simulate

    t0 = time.perf_counter()
    r = simulate(kernel, m.array, m.tile, values, pi, w, list(m.order) if m.order else None)
    c = r.counts
    return {"counts": {k: int(c[k]) for k in CLASSES}, "ops": {k: int(v) for k, v in c["ops"].items()},
            "latency": int(r.makespan), "ok": bool(r.ok), "checks": dict(r.checks),
            "seconds": time.perf_counter() - t0}


def sample(result: SweepResult, spec: SweepSpec, k: int, seed: int = 0,
           max_instances: int = 200_000) -> tuple[list[int], int]:
    """Row indices of up to ``k`` distinct design points small enough to simulate."""
    cols = result.columns
    if len(result) == 0:
        return [], 0
    # energy tables only rescale counts: sample among the rows of one table
    rows = np.flatnonzero(cols["table"] == cols["table"][0])
    box = _box(spec.kernel, {p: cols[p][rows] for p in result.params})
    small = rows[box <= max_instances]
    rng = np.random.default_rng(seed)
    pick = rng.choice(small, size=min(k, small.size), replace=False) if small.size else small
    return sorted(int(i) for i in pick), int(rows.size - small.size)


def _item(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x


def validate(result: SweepResult, spec: SweepSpec, k: int, executor: Any = None, seed: int = 0,
             max_instances: int = 200_000, use_simulator: bool = True,
             progress: Any = None) -> dict[str, Any]:
    """Check ``k`` sampled points; returns a report (``mismatches`` lists every disagreement)."""
    from polyjoule.analysis.schedule import kernel_latency

    rows, too_big = sample(result, spec, k, seed, max_instances)
    cols = result.columns
    by_mapping = {(r.mapping.array_text, r.mapping.tile_text, r.mapping.order_text): r
                  for r in result.mapping_results}
    have_sim = use_simulator
    if have_sim:
        import importlib.util

        have_sim = importlib.util.find_spec("polyjoule.analysis.simulator") is not None
    points: list[dict[str, Any]] = []
    sim_jobs: list[tuple[Any, ...]] = []
    for i in rows:
        mr = by_mapping[(cols["array"][i], cols["tile"][i], cols["order"][i])]
        values = {p: int(cols[p][i]) for p in result.params}
        got_counts = {c: int(cols[c][i]) for c in CLASSES}
        got_ops = {c[4:]: int(cols[c][i]) for c in cols if c.startswith("ops.") and int(cols[c][i])}
        got_lat = int(cols["latency_cycles"][i])
        scalar = scalar_counts(mr.analysis, values)
        s_counts = {c: int(scalar[c]) for c in CLASSES}
        s_ops = {k2[4:]: int(v) for k2, v in scalar.items() if k2.startswith("ops.") and v}
        s_lat = int(kernel_latency(mr.schedules, values))
        pt = {"row": i, "mapping": {"array": mr.mapping.array_text, "tile": mr.mapping.tile_text,
                                    "order": mr.mapping.order_text},
              "values": values, "counts": got_counts, "latency_cycles": got_lat,
              "scalar_agrees": s_counts == got_counts and s_ops == got_ops and s_lat == got_lat,
              "_ops": got_ops}
        if not pt["scalar_agrees"]:
            pt["scalar"] = {"counts": s_counts, "ops": s_ops, "latency_cycles": s_lat}
        points.append(pt)
        sim_jobs.append((spec.kernel, mr.mapping, values, spec.pi, spec.w))
    if have_sim and sim_jobs:
        if executor is not None:
            sims = executor.map(simulate_task, sim_jobs)
        else:
            sims = []
            for n, j in enumerate(sim_jobs):
                if progress is not None:
                    progress("validate", n, len(sim_jobs))
                sims.append(simulate_task(*j))
        for pt, s in zip(points, sims, strict=True):
            agree = (s["counts"] == pt["counts"] and {k2: v for k2, v in s["ops"].items() if v} == pt["_ops"]
                     and s["latency"] == pt["latency_cycles"] and s["ok"])
            pt["simulator_agrees"] = agree
            pt["simulator_seconds"] = s["seconds"]
            if not agree:
                pt["simulator"] = {"counts": s["counts"], "ops": s["ops"], "latency_cycles": s["latency"],
                                   "checks": s["checks"]}
    for pt in points:
        pt.pop("_ops")
    mism = [pt for pt in points if not pt["scalar_agrees"] or not pt.get("simulator_agrees", True)]
    return {
        "requested": k,
        "checked": len(points),
        "method": ("simulator + scalar evaluation" if have_sim else
                   "scalar evaluation only (simulator not available)"),
        "agree": len(points) - len(mism),
        "mismatches": len(mism),
        "too_large_to_simulate": too_big,
        "points": points,
    }


def summary(report: dict[str, Any]) -> str:
    """One line for the terminal."""
    s = (f"validated {report['checked']} of {report['requested']} sampled points "
         f"({report['method']}): {report['agree']} agree exactly, {report['mismatches']} differ")
    if report["too_large_to_simulate"]:
        s += f"; {report['too_large_to_simulate']} points too large to simulate were not sampled"
    return s
