"""Every built-in kernel on the TCPA target (the shipped declaration): a ranked list and a
census at its MINI sizes; the best mapping priced alone by ``analyze`` (placement and tile
sizes given) costs what the search said, and the simulator (the independent witness) runs it
within the declared capacities with the same counts, energy and latency."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from polyjoule.analysis.analyze import analyze
from polyjoule.analysis.simulator import simulate
from polyjoule.library.kernels import get, names
from polyjoule.mapping.placement import place_kernel
from polyjoule.targets.tcpa.array import default_array
from polyjoule.targets.tcpa.target import TcpaTarget, mapping_of, search
from polyjoule.targets.tcpa.tiles import candidates

CAPACITY = frozenset({"fd-depth", "fd-count", "rd-count", "iob-capacity", "dram-bandwidth"})


def _fifos(count: int, depth: int):
    """The shipped declaration with ``count`` FD FIFOs of ``depth`` words per PE."""
    a = default_array()
    return dataclasses.replace(a, pe=dataclasses.replace(a.pe, fd_fifos=count, fd_depth=depth))


def _check_best(tgt: TcpaTarget, name: str, best: dict) -> None:
    """``analyze`` and the simulator on the search's best mapping, as the CLI would run them."""
    k = get(name)
    m = mapping_of(best)
    placed = place_kernel(k, m.axes)
    grid = dataclasses.replace(tgt.array, rows=m.array[0], cols=m.array[1])
    r = analyze(placed, grid, tile=m.tile, values=m.values).evaluate(m.values)
    assert r.latency_cycles == best["latency"], (name, best["mapping"])
    assert r.energy_pj["dynamic"] == pytest.approx(best["dynamic_pj"], rel=1e-9)
    assert r.power.total_pj == pytest.approx(best["energy_pj"], rel=1e-6)
    assert r.energy_pj["total"] == pytest.approx(best["total_pj"], rel=1e-6)  # one name, one meaning
    assert r.energy_pj["static"] == pytest.approx(best["static_pj"], rel=1e-6, abs=1e-3)
    sim = simulate(placed, m.array, m.tile, m.values, order=m.order,
                   capacities=tgt.array.capacities(k.phases[0].dtype))
    assert sim.ok, (name, best["mapping"], sim.violations[:2])
    assert sim.makespan == best["latency"]
    priced = grid.energy.at_width(grid.bits(k.phases[0].dtype))
    assert sim.energy_pj(priced)["total"] == pytest.approx(r.energy_pj["dynamic"], rel=1e-9)
    for c in ("RD", "FD", "ID", "OD", "IOb", "DR"):
        assert sim.counts[c] == r.counts[c], (name, c)


@pytest.mark.parametrize("name", names())
def test_every_builtin_maps_on_the_shipped_declaration(name: str) -> None:
    """The done-means of issue 12: a ranked list and a census for every built-in on the
    default declaration, the best mapping equal to ``analyze`` and valid in simulation."""
    k = get(name)
    vals = {p: np.asarray([v]) for p, v in k.resolve(None, "MINI").items()}
    tgt = TcpaTarget()
    res = search(tgt, k, vals, top=3)
    assert res.considered == res.accepted + sum(res.census.counts.values())
    assert res.best is not None, (name, dict(res.census.counts))
    _check_best(tgt, name, res.best)


@pytest.mark.parametrize("name", ["jacobi-2d", "floyd-warshall"])
def test_the_old_declaration_refuses_what_the_simulator_sees_exceeded(name: str) -> None:
    """On 8 FIFOs of 32 words (the declaration before) nothing fits: every refusal is a
    capacity, and the relieved best mapping exceeds it when simulated unchecked."""
    k = get(name)
    vals = {p: np.asarray([v]) for p, v in k.resolve(None, "MINI").items()}
    tgt = TcpaTarget(_fifos(8, 32))
    assert search(tgt, k, vals, top=1).best is None
    relieved = search(tgt, k, vals, CAPACITY, top=1)
    assert relieved.best is not None
    m = mapping_of(relieved.best)
    caps = tgt.array.capacities(k.phases[0].dtype)
    run = simulate(place_kernel(k, m.axes), m.array, m.tile, m.values, order=m.order,
                   capacities=caps, enforce=False)
    assert run.ok and (run.usage["fd-count"] > caps.fd_count
                       or run.usage["fd-depth"] > caps.fd_depth_words)


def test_time_stays_off_the_array_for_stencils() -> None:
    """Before placements the time dim always took the array's first axis; with them the
    best jacobi-2d mapping spreads the two space dims."""
    k = get("jacobi-2d")
    vals = {p: np.asarray([v]) for p, v in k.resolve(None, "MINI").items()}
    best = search(TcpaTarget(), k, vals, top=1).best
    assert best is not None and "t" not in mapping_of(best).axes


def test_tile_candidates_leave_part_of_an_axis_idle_once() -> None:
    e = np.asarray([100, 7, 64])
    p, ok = candidates(e, t=8, prev=4, need=2)
    for row, extent in enumerate(e):
        kept = p[row][ok[row]]
        assert kept[0] == -(-extent // 8)  # the default, always there
        assert len(set(kept.tolist())) == kept.size
        for q in kept[1:]:
            assert 4 < -(-extent // q) <= 8 and q >= 2
    assert set(p[0][ok[0]].tolist()) == {13, 15, 17, 20, 16}
