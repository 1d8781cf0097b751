"""An array a nest writes only in part is ``inout``: its other elements keep their input
values. Checked by simulating the localised PRA against numpy running the C code."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pytest

from polyjoule.analysis import simulator as sim
from polyjoule.frontends.cnest import c_kernel

SWEEP = """
void jacobi9(int N, double A[N][N], double B[N][N]) {
  int i, j;
  for (i = 1; i < N - 1; i++)
    for (j = 1; j < N - 1; j++)
      B[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1] + A[i][j-1] + A[i][j] + A[i][j+1]
                 + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / 9.0;
}
"""
TRIANGLE = """
void lower(int N, double A[N][N], double C[N][N]) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j <= i; j++)
      C[i][j] = 2.0 * A[i][j];
}
"""
FULL = TRIANGLE.replace("j <= i", "j < N")


def sweep(t: Mapping[str, np.ndarray], env: Mapping[str, int]) -> dict[str, np.ndarray]:
    a, b = t["A"], np.array(t["B"])
    for i in range(1, env["N"] - 1):
        for j in range(1, env["N"] - 1):
            b[i, j] = a[i - 1:i + 2, j - 1:j + 2].sum() / 9.0
    return {"B": b}


def lower(t: Mapping[str, np.ndarray], env: Mapping[str, int]) -> dict[str, np.ndarray]:
    c = np.array(t["C"])
    for i in range(env["N"]):
        for j in range(i + 1):
            c[i, j] = 2.0 * t["A"][i, j]
    return {"C": c}


@pytest.mark.parametrize("text, run, name", [(SWEEP, sweep, "B"), (TRIANGLE, lower, "C")])
def test_partly_written_array_is_inout_and_simulates_as_the_c_code(text, run, name) -> None:
    k = c_kernel(text, "k.c")
    assert k.tensors()[name].kind == "inout"
    s = sim.simulate(replace(k, reference=run), (2, 2), values={"N": 7})
    assert s.ok, (s.checks, s.violations)
    assert s.checks["outputs_match_reference"] and s.checks["outputs_written"]


def test_fully_written_array_stays_an_output() -> None:
    assert c_kernel(FULL, "k.c").tensors()["C"].kind == "output"
