"""Where no scanning order is feasible (small tiles of a stencil), the search schedules a
mapping by the integer program, as ``analyze`` does: each such mapping costs what
``analyze`` says and runs in the simulator within the declared capacities."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from polyjoule.analysis.simulator import simulate
from polyjoule.library.kernels import get
from polyjoule.mapping.placement import place_kernel
from polyjoule.targets.tcpa.array import default_array
from polyjoule.targets.tcpa.target import TcpaTarget, evaluate, mapping_of, search

from .test_search_builtins import _check_best


@pytest.mark.parametrize("sizes", [{"TSTEPS": 3, "N": 4}, {"TSTEPS": 6, "N": 9}])
def test_points_without_a_scanning_order_are_scheduled_by_the_integer_program(sizes) -> None:
    k = get("jacobi-1d")
    vals = {p: np.asarray([v]) for p, v in sizes.items()}
    tgt = TcpaTarget()
    res = search(tgt, k, vals, top=1000)
    assert res.considered == res.accepted + sum(res.census.counts.values())
    ilp = [row for row in res.candidates if row["order"] == "auto"]
    assert ilp, "these sizes have tile sizes no scanning order runs"
    for row in ilp:
        _check_best(tgt, "jacobi-1d", row)


#: stencils whose small tiles no scanning order runs, with the sizes drawn for them
STENCILS = {"jacobi-1d": {"TSTEPS": (3, 9), "N": (4, 13)},
            "jacobi-2d": {"TSTEPS": (3, 6), "N": (4, 10)},
            "seidel-2d": {"TSTEPS": (3, 6), "N": (4, 8)},
            "fdtd-2d": {"TMAX": (3, 6), "NX": (4, 7), "NY": (4, 8)}}
PE_RULES = ("fd-depth", "fd-count", "rd-count")


def _ilp_rows(name: str, rng: np.random.Generator) -> list[dict]:
    """The search's mappings of ``name`` the integer program schedules, at random sizes
    (every PE capacity relieved: the refused ones too)."""
    k = get(name)
    vals = {p: rng.integers(lo, hi, size=4) for p, (lo, hi) in STENCILS[name].items()}
    res = search(TcpaTarget(), k, vals, frozenset(PE_RULES), top=10_000)
    return [row for row in res.candidates if row["order"] == "auto"]


def _declared(use: dict, rng: np.random.Generator) -> list[tuple[int, int, int]]:
    """(FIFO depth, FIFOs, RD registers) to declare: at the simulated use, one below it
    along each rule, and one drawn at random."""
    d, f, r = (int(use[c]) for c in PE_RULES)
    return [(d, f, r), (d - 1, f, r), (d, f - 1, r), (d, f, r - 1),
            tuple(int(rng.integers(1, 2 * x + 2)) for x in (d, f, r))]  # type: ignore[list-item]


def _array(shape: tuple[int, int], depth: int, fifos: int, rd: int):
    a = default_array()
    return dataclasses.replace(a, rows=shape[0], cols=shape[1], pe=dataclasses.replace(
        a.pe, fd_depth=max(depth, 0), fd_fifos=max(fifos, 0), rd_registers=max(rd, 0)))


def _warned(placed, a, m) -> set[str]:
    """The causes ``analyze``'s capacity warning names for mapping ``m`` on array ``a``."""
    from polyjoule.analysis.analyze import analyze
    from polyjoule.targets.tcpa.pricing import capacity_causes

    an = analyze(placed, a, tile=m.tile, values=m.values)
    return set(capacity_causes(an, m.values, an.evaluate(m.values)).masks)


@pytest.fixture(params=["skew", "ilp"])
def small_tiles(request, monkeypatch) -> str:
    """The schedule of the small tiles no scanning order runs: the skewed families, or
    (families withheld, as before they existed) the integer program per point."""
    from polyjoule.analysis.schedule import Schedule
    from polyjoule.analysis.skew import Skewed
    from polyjoule.targets.tcpa.pricing import clear_memos

    if request.param == "ilp":
        monkeypatch.setattr(Schedule, "skew", property(lambda self: Skewed([])))
    clear_memos()
    yield request.param
    clear_memos()


def test_pe_rules_at_integer_program_points_are_the_simulated_use(small_tiles: str) -> None:
    """Under a schedule of the integer program or a skewed family the FIFO depth is the
    values in flight the schedule leaves (counted on the tiles' points; ``lambda_J . d``
    only bounds it: empty issue slots, boundary statements), so a mapping is refused for a
    PE capacity exactly when its simulation exceeds it: over stencils, placements, arrays,
    tile sizes, sizes and declared capacities (at, one below and around the use)."""
    rng = np.random.default_rng(12)
    checked = {name: 0 for name in STENCILS}
    methods: set[str] = set()
    for name in STENCILS:
        k = get(name)
        rows = _ilp_rows(name, rng)
        assert rows, name
        for i in rng.choice(len(rows), size=min(3, len(rows)), replace=False):
            m = mapping_of(rows[int(i)])
            placed = place_kernel(k, m.axes)
            run = simulate(placed, m.array, m.tile, m.values, capacities=default_array()
                           .capacities("fp32"), enforce=False)
            assert run.ok and run.phases[0].schedule.method in ("ilp", "skew")
            methods.add(run.phases[0].schedule.method)
            for depth, fifos, rd in _declared(run.usage, rng):
                a = _array(m.array, depth, fifos, rd)
                b = evaluate(TcpaTarget(a), k, m.array, None,
                             {p: np.asarray([v]) for p, v in m.values.items()},
                             axes=m.axes, tile=m.tile)
                refused = {c for c, mask in b.causes.masks.items() if bool(mask[0])}
                lim = dict(zip(PE_RULES, (depth, fifos, rd), strict=True))
                for c in PE_RULES:
                    assert (run.usage[c] > lim[c]) == (c in refused), (
                        name, m.label, m.values, c, run.usage[c], lim[c], refused)
                assert not refused - set(PE_RULES) - {"dram-bandwidth", "iob-capacity"}
                assert int(b.price["latency"][0]) == run.makespan
                if not checked[name]:  # analyze's warning asks the same rules
                    assert _warned(placed, a, m) == refused, (name, m.label, refused)
                checked[name] += 1
    assert all(n >= 5 for n in checked.values()), checked
    assert methods == {small_tiles}, methods


def test_analyze_names_the_causes_the_search_refuses_an_ilp_point_for() -> None:
    """``analyze``'s capacity warning asks the same FIFO rules of the integer program's
    schedule as the search (before, it skipped them there)."""
    from polyjoule.analysis.analyze import analyze
    from polyjoule.targets.tcpa.pricing import capacity_causes

    k = get("jacobi-1d")
    vals = {"TSTEPS": 4, "N": 6}  # 2 values in flight in one FIFO, 7 FIFOs in one PE
    a = _array((2, 2), 1, 1, 16)
    an = analyze(k, a)
    assert an.schedules()[0].at(vals).method in {"skew", "ilp"}
    named = capacity_causes(an, vals, an.evaluate(vals)).masks
    b = evaluate(TcpaTarget(a), k, (2, 2), None, {p: np.asarray([v]) for p, v in vals.items()})
    refused = {c for c, m in b.causes.masks.items() if bool(m[0])}
    assert set(named) == refused and {"fd-depth", "fd-count"} <= refused
