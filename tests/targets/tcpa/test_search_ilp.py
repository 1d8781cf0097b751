"""Where no scanning order is feasible (small tiles of a stencil), the search schedules a
mapping by the integer program, as ``analyze`` does: each such mapping costs what
``analyze`` says and runs in the simulator within the declared capacities."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from polyjoule.analysis.schedule import kernel_schedules
from polyjoule.analysis.simulator import simulate
from polyjoule.errors import PolyjouleError
from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.array import default_array
from polyjoule.targets.tcpa.target import TcpaTarget, evaluate, search

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


def test_fifo_rules_of_an_integer_program_schedule_bound_the_simulated_use() -> None:
    """Under a schedule of the integer program the FIFO count is exact and the depth an
    upper bound (``lambda_J . d`` cycles; its slack may leave issue slots empty): a
    mapping accepted is never caught exceeding a FIFO capacity in simulation."""
    k = get("jacobi-1d")
    checked = 0
    for shape in [(2, 2), (1, 2), (2, 4)]:
        for vals in ({"TSTEPS": t, "N": n} for t in (3, 4, 5) for n in (4, 6, 8)):
            try:
                if kernel_schedules(k, shape)[0].at(vals).method == "scan":
                    continue
            except PolyjouleError:  # refused structurally: nothing to simulate
                continue
            for depth, fifos in ((1, 1), (2, 3), (4, 3)):
                a = default_array()
                a = dataclasses.replace(a, rows=shape[0], cols=shape[1], pe=dataclasses.replace(
                    a.pe, fd_depth=depth, fd_fifos=fifos))
                b = evaluate(TcpaTarget(a), k, shape, None,
                             {p: np.asarray([v]) for p, v in vals.items()})
                refused = {c for c, m in b.causes.masks.items() if bool(m[0])}
                caps = a.capacities("fp32")
                run = simulate(k, shape, values=vals, capacities=caps, enforce=False)
                assert (run.usage["fd-count"] > fifos) == ("fd-count" in refused)
                assert run.usage["fd-depth"] <= depth or "fd-depth" in refused
                checked += 1
    assert checked >= 6


def test_analyze_names_the_causes_the_search_refuses_an_ilp_point_for() -> None:
    """``analyze``'s capacity warning asks the same FIFO rules of the integer program's
    schedule as the search (before, it skipped them there)."""
    from polyjoule.analysis.analyze import analyze
    from polyjoule.targets.tcpa.pricing import capacity_causes

    k = get("jacobi-1d")
    vals = {"TSTEPS": 3, "N": 4}
    a = default_array()
    a = dataclasses.replace(a, rows=2, cols=2,
                            pe=dataclasses.replace(a.pe, fd_depth=1, fd_fifos=1))
    an = analyze(k, a)
    assert an.schedules()[0].at(vals).method in {"skew", "ilp"}
    named = capacity_causes(an, vals, an.evaluate(vals)).masks
    b = evaluate(TcpaTarget(a), k, (2, 2), None, {p: np.asarray([v]) for p, v in vals.items()})
    refused = {c for c, m in b.causes.masks.items() if bool(m[0])}
    assert set(named) == refused and {"fd-depth", "fd-count"} <= refused
