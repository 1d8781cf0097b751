"""A size parameter as a value in a computation (``x[i] / N``; PolyBench's ``float_n``, which
the harness sets to ``N``): an immediate of the run, evaluated at the run's sizes by the
simulator, the brute-force executor and the C reference, never fixed at one dataset."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from polyjoule.analysis.simulator import simulate
from polyjoule.frontends.cnest import c_kernel
from polyjoule.frontends.cpre import harness_sizes
from polyjoule.frontends.crun import CReference, with_c_reference
from polyjoule.frontends.pra_yaml import load_kernel_data

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from pra_brute import execute, kernel_counts, random_inputs  # noqa: E402

MEAN = """
void mean(int N, double A[N][N], double m[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    m[i] = 0.0;
    for (j = 0; j < N; j++)
      m[i] += A[i][j];
    m[i] = m[i] / (double) N;
  }
}
"""

HARNESS = """
#define N 6
static void init_array(int n, double *scale, double x[N]) {
  int i;
  *scale = (double) n;
  for (i = 0; i < n; i++) x[i] = i;
}
static void kernel_scaled(int n, double scale, double x[N], double y[N]) {
  int i;
#pragma scop
  for (i = 0; i < _PB_N; i++)
    y[i] = x[i] * scale - scale;
#pragma endscop
}
static void print_array(int n, double y[N]) { }
int main(void) {
  int n = N;
  double scale;
  double x[N], y[N];
  init_array(n, &scale, x);
  kernel_scaled(n, scale, x, y);
  print_array(n, y);
  return 0;
}
"""


def mean_numpy(tensors: Mapping[str, np.ndarray], env: Mapping[str, float]) -> dict:
    return {"m": tensors["A"].sum(axis=1) / env["N"]}


def test_a_size_in_a_computation_is_a_parameter() -> None:
    k = c_kernel(MEAN, "mean.c")
    ph = k.phases[0]
    assert not ph.scalars and ph.params == ("N",)
    assert any(s.expr is not None and "/ N" in s.expr.text for s in ph.statements)
    assert kernel_counts(k, {"N": 5})["ops"]["div"] == 5  # a parameter costs no operation


@pytest.mark.parametrize("n", [3, 7])
def test_a_size_value_simulates_at_every_size(n: int) -> None:
    k = replace(c_kernel(MEAN, "mean.c"), reference=mean_numpy)
    r = simulate(k, (2, 2), values={"N": n})
    assert r.ok and r.checks["outputs_match_reference"], r.violations
    inputs = random_inputs(k, {"N": n}, seed=3)
    got = execute(k, {"N": n}, inputs)["m"]
    np.testing.assert_allclose(got, inputs["A"].sum(axis=1) / n, rtol=1e-12)


def test_the_harness_sets_a_scalar_to_a_size() -> None:
    assert harness_sizes(HARNESS.replace("_PB_N", "N"), ["N"]) == {"scale": "N"}
    assert harness_sizes("int n = N; *s = (double) n;", ["M"]) == {}
    text = HARNESS.replace("#define N 6", "#define _PB_N N\n#ifndef N\n#define N 6\n#endif")
    k = c_kernel(text, "scaled.c", datasets={})
    ph = k.phases[0]
    assert [s.expr.text for s in ph.statements if s.kind == "compute"] == ["x * N - N"]
    checked = with_c_reference(k, text, "scaled.c")
    assert isinstance(checked.reference, CReference)
    for n in (4, 9):  # the C program sets scale = n; so does the PRA, at any size
        r = simulate(checked, (1, 2), values={"N": n})
        assert r.ok and r.checks["outputs_match_reference"], r.violations


PRA = """
version: 1
name: centre
params: {N: 1}
dims:
  - {name: i, lower: 0, upper: N - 1}
tensors:
  x: {shape: [N], kind: input}
  y: {shape: [N], kind: output}
statements:
  - {id: S1, var: a, input: "x[i]"}
  - {id: S2, var: b, compute: "a - (N - 1) / 2"}
  - {id: S3, var: b, output: "y[i]"}
"""


def test_a_pra_computation_reads_a_parameter() -> None:
    k = load_kernel_data(yaml.safe_load(PRA), "centre.yaml")
    assert kernel_counts(k, {"N": 4})["ops"] == {"sub": 8, "div": 4}
    inputs = random_inputs(k, {"N": 5}, seed=1)
    np.testing.assert_allclose(execute(k, {"N": 5}, inputs)["y"], inputs["x"] - 2.0)
    ref = replace(k, reference=lambda t, env: {"y": t["x"] - (env["N"] - 1) / 2})
    r = simulate(ref, (1, 2), values={"N": 5})
    assert r.ok and r.checks["outputs_match_reference"], r.violations
