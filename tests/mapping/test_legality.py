"""One legality rule: analyze, the sweep, the compiled latency and the validate path agree.

Random design points (seeded) over every built-in kernel on 1x4, 2x2, 3x2 and 8x8 arrays, with
automatic and explicit tile sizes: each path must give the same verdict (legal, or the same
named reason) and, where legal, the same latency. The four paths are separate code: the
scalar formula interpreter (``Analysis.evaluate``) with the report's schedule, the sweep's
vectorised verdict, the generated latency function, and the simulator's ``Schedule.at``.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from polyjoule import analyze
from polyjoule.analysis.latency import schedule_report
from polyjoule.analysis.schedule import kernel_latency, kernel_schedules
from polyjoule.dse.cache import MemoryStore
from polyjoule.dse.space import MappingSpec, SizeGrid
from polyjoule.dse.sweep import SweepSpec, feasible, latency_many, run_sweep, schedules_for
from polyjoule.errors import PolyjouleError
from polyjoule.library.kernels import get, names
from polyjoule.mapping.legality import CAUSES, Illegal

ARRAYS = [(1, 4), (2, 2), (3, 2), (8, 8)]
POINTS = 4


def _grid(kernel: Any, rng: random.Random) -> SizeGrid:
    lo = {p: v for ph in kernel.phases for p, v in ph.param_min}
    rows = [{p: lo.get(p, 1) + rng.randrange(0, 10) for p in kernel.params} for _ in range(POINTS)]
    rows.append({p: lo.get(p, 1) + 17 for p in kernel.params})  # usually legal everywhere
    values = {p: np.asarray([r[p] for r in rows], dtype=np.int64) for p in kernel.params}
    return SizeGrid(tuple(kernel.params), values, np.full(len(rows), "", dtype=object))


def _scalar(fn: Any) -> tuple[Illegal | None, int | None]:
    """(reason, latency) of one path at one point."""
    try:
        return None, int(fn())
    except PolyjouleError as e:
        why = getattr(e, "reason", None)
        assert isinstance(why, Illegal), f"refused without a named reason: {e}"
        return why, None


def _sweep(kernel: Any, grid: SizeGrid, maps: list[MappingSpec], store: Any) -> list[tuple[Any, Any]]:
    """Per mapping: (verdict, latency per grid point or None) from ``run_sweep``."""
    try:
        r = run_sweep(SweepSpec(kernel, grid, maps, skip_infeasible=True), store=store)
    except PolyjouleError as e:
        assert "no design point is feasible" in str(e), e
        return [(feasible(kernel, m, grid.values, schedules_for(kernel, m)), None) for m in maps]
    out = []
    for mr in r.mapping_results:
        lat = dict(zip(mr.index.tolist(), mr.latency.tolist(), strict=True))
        out.append((mr.verdict, lat))
    return out


@pytest.mark.parametrize("name", names())
def test_four_paths_agree(name: str) -> None:
    kernel = get(name)
    rng = random.Random(f"legality-{name}")
    store = MemoryStore()
    disagreements: list[str] = []
    tiled = rng.choice(ARRAYS)  # explicit tile sizes on one array per kernel (runtime)
    for array in ARRAYS:
        grid = _grid(kernel, rng)
        tiles: list[tuple[int, ...] | None] = [None]
        if len(kernel.phases) == 1 and array == tiled:
            tiles.append(tuple(rng.randrange(1, 5) for _ in range(kernel.phases[0].n)))
        maps = [MappingSpec(array, t, None) for t in tiles]
        swept = _sweep(kernel, grid, maps, store)
        for m, (verdict, sweep_lat) in zip(maps, swept, strict=True):
            a = analyze(kernel, array, m.tile, store=store)
            scheds = kernel_schedules(kernel, array, m.tile)
            compiled = latency_many(scheds, grid.values)
            for i in range(len(grid)):
                v = {p: int(x[i]) for p, x in grid.values.items()}
                got = {
                    "analyze": _scalar(lambda a=a, v=v: a.evaluate(v) and
                                       schedule_report(a, v)["latency_cycles"]),
                    "validate": _scalar(lambda v=v: kernel_latency(scheds, v)),
                    "sweep": (verdict.reason(i), None if sweep_lat is None else sweep_lat.get(i)),
                    "compiled": (verdict.reason(i) if compiled[i] < 0 else None,
                                 int(compiled[i]) if compiled[i] >= 0 else None),
                }
                if len(set(got.values())) != 1:
                    disagreements.append(f"{array} tile={m.tile} {v}: {got}")
                why = got["analyze"][0]
                assert why is None or why.cause in CAUSES
    assert not disagreements, "\n".join(disagreements[:5])


def test_phase_causes_reports_every_cause_phase_verdict_only_the_first() -> None:
    from polyjoule.library.kernels import get as get_kernel
    from polyjoule.mapping.legality import phase_causes, phase_verdict
    from polyjoule.mapping.tiling import Tiling

    pra = get_kernel("jacobi-1d").phases[0]
    tiling = Tiling.of(pra, (8, 8), (1, 1))
    vals = {"TSTEPS": np.asarray([20, 4]), "N": np.asarray([30, 30])}
    causes = phase_causes(pra, tiling, vals)
    assert causes.masks["too-many-tiles"].tolist() == [True, True]
    assert causes.masks["tile-below-dependence"].tolist() == [True, True]
    first = phase_verdict(pra, tiling, vals)
    assert {first.reason(i).cause for i in range(2)} <= set(causes.masks)
    assert not causes.ok.any()
