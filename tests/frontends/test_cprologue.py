"""A scalar prologue (constants computed from scalars before any loop, as DERICHE's filter
coefficients) becomes scalars of the PRA (frontends/cprologue.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from polyjoule.analysis import simulator as sim
from polyjoule.errors import SpecError
from polyjoule.frontends.cnest import c_kernel

#: shared with test_crun.py (line numbers matter: the messages name them)
SCALED = (Path(__file__).parent / "c_fixtures" / "scaled.c").read_text()


def scaled_c(tensors: Mapping[str, np.ndarray], env: Mapping[str, float]) -> dict:
    """The C loops in numpy, with the prologue computed from alpha as C does."""
    alpha, n = 1.5, int(env["N"])  # alpha: PolyBench's default for a scalar argument
    k = (1.0 - math.exp(-alpha)) / math.sqrt(alpha)
    s = k * math.pow(2.0, -alpha) + 3 // 2
    A, x = tensors["A"], tensors["x"]
    y = np.zeros(n)
    for i in range(n):
        for j in range(n):
            y[i] += k * A[i][j] * x[j]
        y[i] = s * y[i]
    return {"y": y}


def test_prologue_values_are_scalars_of_the_pra() -> None:
    ph = c_kernel(SCALED, "scaled.c").phases[0]
    k = (1.0 - math.exp(-1.5)) / math.sqrt(1.5)
    assert dict(ph.scalars) == pytest.approx({"k": k, "s": k * 2 ** -1.5 + 1})  # 3 / 2 == 1 in C


@pytest.mark.parametrize("array", [(2, 2), (1, 4)])
def test_prologue_kernel_simulates_to_the_c_loops(array: tuple[int, int]) -> None:
    k = replace(c_kernel(SCALED, "scaled.c"), reference=scaled_c)
    s = sim.simulate(k, array, values={"N": 6})
    assert s.checks["outputs_match_reference"] and s.ok, (s.checks, s.violations)


def sized_c(tensors: Mapping[str, np.ndarray], env: Mapping[str, float]) -> dict:
    """The C loops with ``k = (1 - exp(-alpha)) / sqrt((double) N)``: a value of the size."""
    n = int(env["N"])
    k = (1.0 - math.exp(-1.5)) / math.sqrt(n)
    s = k * math.pow(2.0, -1.5) + 1
    return {"y": s * (tensors["A"] * k) @ tensors["x"]}


@pytest.mark.parametrize("n", [3, 6])
def test_a_value_of_a_size_is_an_expression_of_the_parameter(n: int) -> None:
    """ADI's ``DX = 1.0 / (DATA_TYPE) N``: the value follows the size of the run."""
    k = c_kernel(SCALED.replace("sqrtf(alpha)", "sqrt((double) N)"), "sized.c")
    assert "k" not in dict(k.phases[0].scalars)
    assert any("/ sqrt(N)" in s.expr.text for s in k.phases[0].statements if s.expr)
    s = sim.simulate(replace(k, reference=sized_c), (2, 2), values={"N": n})
    assert s.checks["outputs_match_reference"] and s.ok, (s.checks, s.violations)


@pytest.mark.parametrize("value, why", [("exp(-N)", r"only sqrt and fabs of a size"),
                                        ("1.0 * (N / 2)", r"an integer division")])
def test_a_size_a_computation_cannot_take_is_refused(value: str, why: str) -> None:
    with pytest.raises(SpecError, match=rf"bad.c:5:\d+: k = .*{why}.*: a size reaches"):
        c_kernel(SCALED.replace("(1.0 - exp(-alpha)) / sqrtf(alpha)", value), "bad.c")


def test_a_prologue_reading_an_array_is_still_refused() -> None:
    with pytest.raises(SpecError, match=r"statement outside any loop: 'k = x\[0\]'"):
        c_kernel(SCALED.replace("(1.0 - exp(-alpha)) / sqrtf(alpha)", "x[0]"), "bad.c")


def test_a_declared_initialiser_is_folded_too() -> None:
    src = SCALED.replace("double k, s, t;\n  k = (1.0 - exp(-alpha)) / sqrtf(alpha);",
                         "double k = (1.0 - exp(-alpha)) / sqrtf(alpha);\n  double s, t;")
    assert dict(c_kernel(src, "decl.c").phases[0].scalars) == \
        dict(c_kernel(SCALED, "scaled.c").phases[0].scalars)


def test_a_declared_initialiser_reading_an_array_is_refused() -> None:
    src = SCALED.replace("double k, s, t;\n  k = (1.0 - exp(-alpha)) / sqrtf(alpha);",
                         "double k = x[0];\n  double s, t;")
    with pytest.raises(SpecError, match=r"bad.c:4:\d+: k: initialiser 'x\[0\]' is not a constant"):
        c_kernel(src, "bad.c")
