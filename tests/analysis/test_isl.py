"""Conversions between isl's piecewise quasi-polynomials and polyjoule's formulas."""

from __future__ import annotations

import random

import pytest

from polyjoule.analysis import _isl, counts
from polyjoule.library.kernels import get
from polyjoule.mapping.tiling import Tiling


@pytest.mark.parametrize("kernel,array", [("heat-3d", (2, 2)), ("lu", (2, 2)), ("trmm", (1, 4))])
def test_formula_to_isl_and_back_keeps_every_value(kernel, array):
    """``from_formula`` then ``to_formula`` gives the same value at random integer points
    (floors, rational coefficients and unions of conjunctions included)."""
    rng = random.Random(7)
    pra = get(kernel).phases[0]
    vols, _ = counts.derive(pra, Tiling.of(pra, array))
    checked = 0
    for v in vols:
        f = v.formula
        back = _isl.to_formula(_isl.from_formula(f, list(f.vars)), list(f.vars))
        for _ in range(30):
            env = {x: rng.randint(1, 9) for x in f.vars}
            assert back.evaluate(env) == f.evaluate(env)
            checked += 1
    assert checked
