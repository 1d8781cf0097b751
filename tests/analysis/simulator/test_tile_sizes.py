"""Every tile size from 1 to 5 on 1x4, 2x2, 3x2, 4x4 and 8x8: symbolic counts, energy and
latency equal the simulator's (scanning orders where they fit, the integer program's
schedules where they do not, e.g. stencils on tiles of 1 and 2).

The default run covers the stencils on the small arrays and two dense kernels everywhere
(about 45 s); POLYJOULE_FULL_VALIDATION=1 runs every built-in kernel on every array.
"""

from __future__ import annotations

import os

import pytest

from polyjoule.analysis.schedule import kernel_latency
from polyjoule.analysis.simulator import simulate
from polyjoule.cli.simulate import compare
from polyjoule.errors import PolyjouleError
from polyjoule.library import kernels as registry
from polyjoule.mapping.tiling import Tiling
from polyjoule.targets.tcpa.energy import default_table

from .conftest import analysis, schedules

ARRAYS = [(1, 4), (2, 2), (3, 2), (4, 4), (8, 8)]
TILES = set(range(1, 6))

if os.environ.get("POLYJOULE_FULL_VALIDATION"):
    CASES = [(n, a) for n in registry.names() for a in ARRAYS]
else:
    CASES = [(n, a) for n in ("jacobi-1d", "jacobi-2d", "seidel-2d") for a in ARRAYS[:3]]
    CASES += [(n, a) for n in ("gesummv", "gemm") for a in ARRAYS]
    CASES += [("heat-3d", (2, 2)), ("fdtd-2d", (2, 2))]


def tile_sizes(name: str, array: tuple[int, int], values: dict[str, int]) -> set[int]:
    """Tile sizes of the tiled dims of every phase at ``values``."""
    out: set[int] = set()
    for pra in registry.get(name).phases:
        tl = Tiling.of(pra, array)
        out |= {int(p) for l, p in enumerate(tl.sizes_many(pra, values)) if tl.tiled(l)}
    return out


def covering_sizes(name: str, array: tuple[int, int]) -> list[dict[str, int]]:
    """Parameter values, smallest first, until every tile size 1..5 has occurred at a legal
    point (points refused by the tiling rules, e.g. a tile below a dependence distance, are
    skipped)."""
    k = registry.get(name)
    params = list(dict((p, lo) for ph in k.phases for p, lo in ph.param_min).items())
    seen: set[int] = set()
    out = []
    for v in range(1, 60):
        vals = {p: max(lo, v + n % 2) for n, (p, lo) in enumerate(params)}
        new = (tile_sizes(name, array, vals) & TILES) - seen
        if not new:
            continue
        try:
            kernel_latency(schedules(name, array), vals)
        except PolyjouleError:
            continue
        out.append(vals)
        seen |= new
        if seen == TILES:
            break
    assert seen == TILES, f"{name} on {array}: tile sizes {sorted(TILES - seen)} never occur"
    return out


@pytest.mark.parametrize("name, array", CASES, ids=[f"{n}-{a[0]}x{a[1]}" for n, a in CASES])
def test_every_tile_size_validates(name: str, array: tuple[int, int]) -> None:
    k = registry.get(name)
    table = default_table()
    for values in covering_sizes(name, array):
        r = simulate(k, array, values=values)
        assert r.ok, (values, r.checks, r.violations)
        latency = kernel_latency(schedules(name, array), values)
        sym = analysis(name, array).evaluate(values)
        rows = compare(sym.counts, sym.energy_pj, latency, r.counts, r.energy_pj(table), r.makespan)
        assert [row for row in rows if not row[3]] == [], values
        assert latency == r.makespan and sym.counts == r.counts, values


def test_small_stencil_tiles_need_the_program() -> None:
    """The covering sizes of jacobi-1d on 2x2 include points no scanning order runs."""
    s = schedules("jacobi-1d", (2, 2))[0]
    methods = {s.at(v).method for v in covering_sizes("jacobi-1d", (2, 2))}
    assert methods == {"scan", "skew"}  # skewed orders; the program where none is causal
