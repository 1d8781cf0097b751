"""Time-iterated stencils that are not in PolyBench, written PolyBench-style: the localised
PRA, executed point by point, equals the C code run as written (numpy arrays updated in
place, loop by loop); simulated, its symbolic counts equal the simulated ones. Kernels of
another shape keep the reason the nest path gives them."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from pra_brute import execute, random_inputs  # noqa: E402

from polyjoule.analysis import analyze  # noqa: E402
from polyjoule.analysis import simulator as sim  # noqa: E402
from polyjoule.errors import NotUniformError  # noqa: E402
from polyjoule.frontends.cnest import c_kernel  # noqa: E402
from polyjoule.model.pra import Kernel  # noqa: E402

JACOBI5 = """
void kernel_jacobi5(int tsteps, int n, double A[N], double B[N])
{
  int t, i;
#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++)
    {
      for (i = 2; i < _PB_N - 2; i++)
        B[i] = 0.2 * (A[i-2] + A[i-1] + A[i] + A[i+1] + A[i+2]);
      for (i = 2; i < _PB_N - 2; i++)
        A[i] = 0.2 * (B[i-2] + B[i-1] + B[i] + B[i+1] + B[i+2]);
    }
#pragma endscop
}
"""


def jacobi5(a: np.ndarray, b: np.ndarray, steps: int) -> None:
    n = len(a)
    for _t in range(steps):
        for i in range(2, n - 2):
            b[i] = 0.2 * (a[i - 2] + a[i - 1] + a[i] + a[i + 1] + a[i + 2])
        for i in range(2, n - 2):
            a[i] = 0.2 * (b[i - 2] + b[i - 1] + b[i] + b[i + 1] + b[i + 2])


JACOBI9 = """
void kernel_jacobi9(int tsteps, int n, double A[N][N], double B[N][N])
{
  int t, i, j;
#pragma scop
  for (t = 1; t <= _PB_TSTEPS; t++)
    {
      for (i = 1; i < _PB_N - 1; i++)
        for (j = 1; j < _PB_N - 1; j++)
          B[i][j] = (A[i-1][j-1] + A[i-1][j] + A[i-1][j+1]
                     + A[i][j-1] + A[i][j] + A[i][j+1]
                     + A[i+1][j-1] + A[i+1][j] + A[i+1][j+1]) / 9.0;
      for (i = 1; i < _PB_N - 1; i++)
        for (j = 1; j < _PB_N - 1; j++)
          A[i][j] = B[i][j];
    }
#pragma endscop
}
"""


def jacobi9(a: np.ndarray, b: np.ndarray, steps: int) -> None:
    n = len(a)
    for _t in range(steps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                b[i, j] = (a[i - 1, j - 1] + a[i - 1, j] + a[i - 1, j + 1]
                           + a[i, j - 1] + a[i, j] + a[i, j + 1]
                           + a[i + 1, j - 1] + a[i + 1, j] + a[i + 1, j + 1]) / 9.0
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                a[i, j] = b[i, j]


SEIDEL1 = """
void kernel_relax(int tsteps, int n, double A[N], double w[N])
{
  int t, i;
#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++)
    for (i = 1; i < _PB_N - 1; i++)
      A[i] += w[i] * (A[i-1] - 2.0 * A[i] + A[i+1]);
#pragma endscop
}
"""


def seidel1(a: np.ndarray, w: np.ndarray, steps: int) -> None:
    n = len(a)
    for _t in range(steps):
        for i in range(1, n - 1):
            a[i] += w[i] * (a[i - 1] - 2.0 * a[i] + a[i + 1])


CHAIN = """
void kernel_chain(int tsteps, int n, double A[N], double B[N], double C[N])
{
  int t, i;
#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++)
    {
      for (i = 1; i < _PB_N - 1; i++)
        {
          B[i] = 0.5 * (A[i-1] + A[i+1]);
          C[i] = B[i] * A[i] - C[i-1];
        }
      for (i = 0; i < _PB_N - 1; i++)
        A[i] = 0.25 * (C[i] + 2.0 * C[i+1] + B[i]);
    }
#pragma endscop
}
"""


def chain(a: np.ndarray, b: np.ndarray, c: np.ndarray, steps: int) -> None:
    n = len(a)
    for _t in range(steps):
        for i in range(1, n - 1):
            b[i] = 0.5 * (a[i - 1] + a[i + 1])
            c[i] = b[i] * a[i] - c[i - 1]
        for i in range(0, n - 1):
            a[i] = 0.25 * (c[i] + 2.0 * c[i + 1] + b[i])


DECAY = """
void kernel_decay(int tsteps, int n, double A[N], double B[N])
{
  int t, i;
#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++)
    for (i = 1; i < _PB_N - 1; i++)
      A[i] = 0.3 * A[i] + B[i];
#pragma endscop
}
"""


def decay(a: np.ndarray, b: np.ndarray, steps: int) -> None:
    """One sweep that reads only the element it writes (and an input): the nest path takes
    ``t`` for a loop that overwrites ``A[i]``; the stencil rule carries it along ``t``."""
    for _t in range(steps):
        for i in range(1, len(a) - 1):
            a[i] = 0.3 * a[i] + b[i]


GLOBAL = """
double A[N];
double B[N];
void kernel_glob(int tsteps, int n)
{
  int t, i;
  for (t = 0; t < _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      B[i] = 0.5 * (A[i - 1] + A[i + 1]);
    for (i = 1; i < _PB_N - 1; i++)
      A[i] = B[i];
  }
}
"""


def glob(a: np.ndarray, b: np.ndarray, steps: int) -> None:
    """Arrays declared at file scope: their declared extent, not the loops' (N, not N - 1)."""
    for _t in range(steps):
        for i in range(1, len(a) - 1):
            b[i] = 0.5 * (a[i - 1] + a[i + 1])
        for i in range(1, len(a) - 1):
            a[i] = b[i]


Run = Callable[..., None]
CASES: dict[str, tuple[str, Run, tuple[str, ...], dict[str, int]]] = {
    "jacobi5": (JACOBI5, jacobi5, ("A", "B"), {"TSTEPS": 5, "N": 13}),
    "jacobi9": (JACOBI9, jacobi9, ("A", "B"), {"TSTEPS": 4, "N": 7}),
    "relax": (SEIDEL1, seidel1, ("A", "w"), {"TSTEPS": 6, "N": 11}),
    "chain": (CHAIN, chain, ("A", "B", "C"), {"TSTEPS": 4, "N": 9}),
    "decay": (DECAY, decay, ("A", "B"), {"TSTEPS": 5, "N": 8}),
    "glob": (GLOBAL, glob, ("A", "B"), {"TSTEPS": 3, "N": 9}),
}


def _load(name: str) -> Kernel:
    return c_kernel(CASES[name][0], f"{name}.c")


@pytest.mark.parametrize("name", sorted(CASES))
def test_stencil_computes_the_c_code(name: str) -> None:
    text, run, arrays, values = CASES[name]
    k = _load(name)
    inputs = random_inputs(k, values, seed=3)
    want = {a: np.array(inputs[a]) for a in arrays}
    run(*(want[a] for a in arrays), values["TSTEPS"])
    got = execute(k, values, inputs)
    for a in arrays:
        np.testing.assert_allclose(got[a], want[a], rtol=1e-12, err_msg=a)


@pytest.mark.parametrize("name", sorted(CASES))
def test_stencil_simulates_with_the_symbolic_counts(name: str) -> None:
    k = _load(name)
    values = CASES[name][3]
    s = sim.simulate(k, (2, 2), values=values)
    assert s.ok, (s.checks, s.violations)
    assert analyze(k, array=(2, 2), values=values).evaluate(values).counts == s.counts


def test_sweeps_are_shifted_to_non_negative_dependences() -> None:
    """The second 5-point sweep computes A_t[i-2] at (t, i): its reads of B lie at (0, 0..4);
    the first sweep's reads of A_{t-1} at (1, -4..0)."""
    ph = _load("jacobi5").phases[0]
    deps = {s.source: set() for s in ph.statements if s.kind == "transport"}
    for s in ph.statements:
        if s.kind == "transport" and s.source != s.var:
            deps[s.source].add(s.dep)
    assert deps["b"] == {(0, 1), (0, 2), (0, 3), (0, 4)}  # (0, 0) is b itself, no transport
    assert deps["a"] == {(1, 0), (1, -1), (1, -2), (1, -3), (1, -4)}
    computes = [s for s in ph.statements if s.kind == "compute" and s.var == "a"]
    assert {str(c) for s in computes for c in s.when} >= {"i - 4 >= 0"}


def test_gauss_seidel_reads_this_step_behind_and_the_last_step_ahead() -> None:
    ph = _load("relax").phases[0]
    deps = {s.dep for s in ph.statements if s.kind == "transport" and s.source == "a"}
    assert deps == {(0, 1), (1, 0), (1, -1)}


@pytest.mark.parametrize("body, reason", [
    ("for (i = t + 1; i < _PB_N - 1; i++) A[i] = 0.5 * (A[i-1] + A[i+1]);",
     r"loop i of a time-iterated sweep has bounds that depend on other loops"),
    ("for (i = 1; i < _PB_N - 1; i++) for (j = 1; j < _PB_N - 1; j++) "
     "C[j][i] = 0.5 * (C[j][i-1] + C[j][i+1]);",
     r"C\[j\]\[i\] is written with the loops i, j in its subscripts once each and in loop "
     r"order only"),
    ("for (i = 1; i < _PB_N - 1; i++) { A[i] = 0.5 * (A[i-1] + A[i+1]); "
     "for (j = 1; j < _PB_N - 1; j++) C[i][j] = C[i][j-1]; }", r"reads A in place"),
])
def test_time_loops_the_rule_cannot_order_are_refused(body: str, reason: str) -> None:
    text = ("void kernel_k(int n, double A[N], double C[N][N]) { int t, i, j;\n"
            f"for (t = 0; t < _PB_TSTEPS; t++) {{ {body} }} }}")
    with pytest.raises(NotUniformError, match=reason) as e:
        c_kernel(text, "k.c")
    assert str(e.value).startswith("k.c:") and "\n" not in str(e.value)


def test_pointwise_sweeps_in_a_time_loop_localise() -> None:
    """Two pointwise sweeps ping-pong: the nest path refuses the time loop holding two loops;
    the stencil rule fuses them at distance 0 (no shift, no transport between them)."""
    text = """void kernel_pp(int n, double A[N], double B[N]) { int t, i;
    for (t = 0; t < _PB_T; t++) {
      for (i = 0; i < _PB_N; i++) B[i] = A[i] + 1.0;
      for (i = 0; i < _PB_N; i++) A[i] = 2.0 * B[i];
    } }"""
    k = c_kernel(text, "pp.c")
    values = {"T": 3, "N": 5}
    inputs = random_inputs(k, values, seed=1)
    got = execute(k, values, inputs)
    np.testing.assert_allclose(got["A"], (((inputs["A"] + 1) * 2 + 1) * 2 + 1) * 2)
    assert {s.dep for s in k.phases[0].statements if s.kind == "transport"} == {(1, 0)}
