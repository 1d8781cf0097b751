"""Every built-in kernel: simulated outputs equal numpy's and symbolic counts equal simulated
ones, at MINI and SMALL on two array shapes (the simulator and the analysis share no code)."""

from __future__ import annotations

import pytest

from polyjoule.analysis import analyze
from polyjoule.analysis import simulator as sim
from polyjoule.library import kernels as registry

#: Array shapes and datasets per kernel: every kernel at MINI and SMALL on two shapes, except
#: where noted. The 2-D time-iterated stencils are simulated on 1-D arrays here (their 2-D
#: runs are in tests/analysis/simulator/test_validation.py); jacobi-1d also on a 2-D array.
BOTH = ("MINI", "SMALL")
PLAN: dict[str, list[tuple[tuple[int, int], tuple[str, ...]]]] = {
    name: [((2, 2), BOTH), ((1, 4), BOTH)] for name in registry.names()}
PLAN["jacobi-1d"] = [((2, 2), BOTH), ((1, 4), BOTH)]
PLAN["jacobi-2d"] = [((1, 3), BOTH), ((1, 4), BOTH)]
PLAN["fdtd-2d"] = [((1, 3), BOTH), ((1, 4), BOTH)]
# beyond the brief's kernel list, trimmed to keep the suite within its time budget:
PLAN["seidel-2d"] = [((1, 3), BOTH), ((1, 4), ("MINI",))]
PLAN["heat-3d"] = [((1, 3), ("SMALL",))]
PLAN["floyd-warshall"] = [((2, 2), BOTH), ((1, 4), ("MINI",))]  # SMALL: 5.8M points, ~80 s


@pytest.mark.parametrize("name, array, datasets",
                         [(n, a, d) for n in registry.names() for a, d in PLAN[n]])
def test_simulation_matches_numpy_and_symbolic_counts(
        name: str, array: tuple[int, int], datasets: tuple[str, ...]) -> None:
    k = registry.get(name)
    a = analyze(k, array=array, values=dict(k.datasets[datasets[0]]))
    for ds in datasets:
        values = dict(k.datasets[ds])
        s = sim.simulate(k, array, values=values)
        assert s.ok, (ds, s.checks, s.violations)
        r = a.evaluate(values)
        assert r.counts == s.counts, (ds, r.counts, s.counts)
