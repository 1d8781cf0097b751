"""Successive pointwise updates of one element compose (frontends/localize/compose.py):
correlation's centring, simulated against its C loops."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pytest

from polyjoule.analysis import simulator as sim
from polyjoule.errors import NotUniformError
from polyjoule.frontends.cnest import c_kernel

CENTRE = """
void centre(int N, int M, double data[N][M], double mean[M], double sd[M]) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= sqrt(2.0) * sd[j];
      data[i][j] = data[i][j] * data[i][j] + 1.0;
    }
}
"""


def centre_c(t: Mapping[str, np.ndarray], env: Mapping[str, float]) -> dict:
    d = t["data"].copy()
    for i in range(d.shape[0]):
        for j in range(d.shape[1]):
            d[i][j] -= t["mean"][j]
            d[i][j] /= np.sqrt(2.0) * t["sd"][j]
            d[i][j] = d[i][j] * d[i][j] + 1.0
    return {"data": d}


def test_three_updates_become_one_compute() -> None:
    ph = c_kernel(CENTRE, "centre.c").phases[0]
    computes = [s for s in ph.statements if s.kind == "compute"]
    assert len(computes) == 1
    assert {op for op, _n in computes[0].expr.ops} >= {"sub", "div", "sqrt", "mul", "add"}


@pytest.mark.parametrize("array", [(2, 2), (1, 3)])
def test_composed_updates_simulate_to_the_c_loops(array: tuple[int, int]) -> None:
    k = replace(c_kernel(CENTRE, "centre.c"), reference=centre_c)
    s = sim.simulate(k, array, values={"N": 5, "M": 4})
    assert s.checks["outputs_match_reference"] and s.ok, (s.checks, s.violations)


def test_an_update_of_an_accumulated_element_is_not_composed() -> None:
    """y[i] += A[i][j]; y[i] *= 2 inside the j loop: a reduction, left to the refusal."""
    src = ("void f(int N, double A[N][N], double y[N]) {\n for (i = 0; i < N; i++)\n"
           "  for (j = 0; j < N; j++) { y[i] += A[i][j]; y[i] *= 2.0; }\n}\n")
    with pytest.raises(NotUniformError):
        c_kernel(src, "f.c")
