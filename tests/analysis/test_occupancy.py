"""The FIFO use counted on the tiles' points equals the simulator's measured occupancy: the
values in flight per FIFO (most over time, per PE and transport) and the FIFOs per PE."""

from __future__ import annotations

import numpy as np

from polyjoule.analysis.occupancy import fifo_use, window
from polyjoule.analysis.simulator import simulate
from polyjoule.errors import PolyjouleError
from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.array import default_array

#: stencils (negative distances, schedules of the integer program at small tiles) and
#: kernels whose transports' conditions couple two dims (every tile counted)
KERNELS = ["jacobi-1d", "seidel-2d", "fdtd-2d", "trisolv", "lu", "syrk", "cholesky", "gesummv"]


def test_a_window_holds_the_starts_of_its_cycles() -> None:
    """Values pushed ``wait`` cycles before their consumer starts: at most the starts one
    window of ``wait`` cycles holds (a hand count)."""
    starts = np.array([0, 1, 2, 10, 12, 13, 14, 15])
    assert window(starts, 1) == 1
    assert window(starts, 3) == 3  # 0, 1, 2 (or 12, 13, 14)
    assert window(starts, 4) == 4  # 12..15
    assert window(starts, 11) == 5  # 5..15: 10, 12, 13, 14, 15
    sparse = np.array([0, 100, 101, 1000])  # starts far apart: counted sorted
    assert window(sparse, 2) == 2 and window(sparse, 101) == 2 and window(sparse, 102) == 3
    assert window(sparse, 1001) == 4
    assert window(starts, 0) == 0 and window(np.array([], dtype=np.int64), 5) == 0


def test_counted_use_equals_the_simulated_occupancy() -> None:
    """Random kernels, arrays and sizes, every phase: the count from the schedule and the
    tiles' points against the simulator's push/pop events."""
    rng = np.random.default_rng(5)
    caps = default_array().capacities("fp32")
    seen = {"ilp": 0, "scan": 0, "skew": 0}
    for _ in range(14):
        k = get(KERNELS[int(rng.integers(len(KERNELS)))])
        shape = (int(rng.choice([1, 2])), int(rng.choice([2, 4])))
        vals = {p: int(rng.integers(max(lo, 3), 10)) for ph in k.phases for p, lo in ph.param_min}
        try:
            run = simulate(k, shape, values=vals, capacities=caps, enforce=False)
        except PolyjouleError:  # refused structurally at these sizes: nothing to count
            continue
        for pra, ph in zip(k.phases, run.phases, strict=True):
            cs = ph.schedule
            use = fifo_use(pra, cs.lambda_J, cs.p, {p: vals[p] for p in pra.params})
            assert (use.depth, use.count) == (ph.usage["fd-depth"], ph.usage["fd-count"]), (
                k.name, shape, vals, pra.name, cs.method, use, ph.usage)
            seen[cs.method] += 1
    assert seen["scan"] >= 6 and seen["ilp"] + seen["skew"] >= 1

