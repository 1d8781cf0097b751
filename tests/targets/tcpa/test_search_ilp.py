"""Where no scanning order is feasible (small tiles of a stencil), the search schedules a
mapping by the integer program, as ``analyze`` does: each such mapping costs what
``analyze`` says and runs in the simulator within the declared capacities."""

from __future__ import annotations

import numpy as np
import pytest

from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.target import TcpaTarget, search

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
