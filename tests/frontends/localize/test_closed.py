"""Closing a triangular inner loop and settling reads of the written array by dataflow
(frontends/localize/closed.py, dataflow.py), on kernels that are not built in: each is
simulated and its outputs compared with numpy running the same C loops, and its symbolic
counts with the simulated ones."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

import numpy as np
import pytest

from polyjoule.analysis import analyze
from polyjoule.analysis import simulator as sim
from polyjoule.errors import NotUniformError
from polyjoule.frontends.cnest import c_kernel
from polyjoule.model.pra import Kernel

Arrays = dict[str, np.ndarray]

#: unit lower triangular forward substitution, no division: the chain's finished value
#: (on the closed diagonal j == i) is read by the later rows
FORWARD = """
void forward(int N, double L[N][N], double b[N], double x[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
  }
}
"""


def forward_c(t: Mapping[str, np.ndarray], env: Mapping[str, float]) -> Arrays:
    L, b, n = t["L"], t["b"], int(env["N"])
    x = np.zeros(n)
    for i in range(n):
        x[i] = b[i]
        for j in range(i):
            x[i] -= L[i][j] * x[j]
    return {"x": x}


#: in-place upper triangular matrix-vector product x = U x: the row reads x[j], j > i,
#: before row j overwrites it (the input), and the inner loop is empty at i = N - 1
TRMV = """
void trmv(int N, double U[N][N], double x[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    x[i] = U[i][i] * x[i];
    for (j = i + 1; j < N; j++)
      x[i] += U[i][j] * x[j];
  }
}
"""


def trmv_c(t: Mapping[str, np.ndarray], env: Mapping[str, float]) -> Arrays:
    U, x, n = t["U"], t["x"].copy(), int(env["N"])
    for i in range(n):
        x[i] = U[i][i] * x[i]
        for j in range(i + 1, n):
            x[i] += U[i][j] * x[j]
    return {"x": x}


#: forward substitution with several right-hand sides, the matrix read by column: the
#: finished X[j][c] travels along i in a 3-D nest
MULTI = """
void multi(int N, int C, double L[N][N], double B[N][C], double X[N][C]) {
  int i, c, j;
  for (i = 0; i < N; i++)
    for (c = 0; c < C; c++) {
      X[i][c] = B[i][c];
      for (j = 0; j < i; j++)
        X[i][c] -= L[j][i] * X[j][c];
      X[i][c] = X[i][c] / L[i][i];
    }
}
"""


def multi_c(t: Mapping[str, np.ndarray], env: Mapping[str, float]) -> Arrays:
    L, B = t["L"], t["B"]
    n, m = int(env["N"]), int(env["C"])
    X = np.zeros((n, m))
    for i in range(n):
        for c in range(m):
            X[i][c] = B[i][c]
            for j in range(i):
                X[i][c] -= L[j][i] * X[j][c]
            X[i][c] = X[i][c] / L[i][i]
    return {"X": X}


#: back substitution U x = b with the subscripts mirrored by hand (upward loops)
BACK_MIRRORED = """
void back(int N, double U[N][N], double b[N], double x[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    x[N-1-i] = b[N-1-i];
    for (j = 0; j < i; j++)
      x[N-1-i] -= U[N-1-i][N-1-j] * x[N-1-j];
    x[N-1-i] = x[N-1-i] / U[N-1-i][N-1-i];
  }
}
"""

#: back substitution as ludcmp writes it: a downward loop (frontends/creverse.py mirrors it)
BACK = """
void back(int N, double U[N][N], double b[N], double x[N]) {
  int i, j;
  for (i = N - 1; i >= 0; i--) {
    x[i] = b[i];
    for (j = i + 1; j < N; j++)
      x[i] -= U[i][j] * x[j];
    x[i] = x[i] / U[i][i];
  }
}
"""


def back_c(t: Mapping[str, np.ndarray], env: Mapping[str, float]) -> Arrays:
    U, b, n = t["U"], t["b"], int(env["N"])
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = b[i]
        for j in range(i + 1, n):
            x[i] -= U[i][j] * x[j]
        x[i] = x[i] / U[i][i]
    return {"x": x}


#: symmetric matrix-vector product from the lower triangle, y += A x (symm's structure in
#: 2-D): t (a scalar, expanded) runs along k; y[k] keeps accumulating at i > k the value the
#: statement after the k loop finished at i = k (a carried chain along i)
SYMV = """
void symv(int N, double A[N][N], double x[N], double y[N]) {
  int i, k;
  double t;
  for (i = 0; i < N; i++) {
    t = 0.0;
    for (k = 0; k < i; k++) {
      y[k] += A[i][k] * x[i];
      t += A[i][k] * x[k];
    }
    y[i] = y[i] + A[i][i] * x[i] + t;
  }
}
"""


def symv_c(t: Mapping[str, np.ndarray], env: Mapping[str, float]) -> Arrays:
    A, x, y, n = t["A"], t["x"], t["y"].copy(), int(env["N"])
    for i in range(n):
        acc = 0.0
        for k in range(i):
            y[k] += A[i][k] * x[i]
            acc += A[i][k] * x[k]
        y[i] = y[i] + A[i][i] * x[i] + acc
    return {"y": y}


CASES: dict[str, tuple[str, Callable[..., Arrays], dict[str, int]]] = {
    "symv": (SYMV, symv_c, {"N": 7}),
    "back": (BACK, back_c, {"N": 7}),
    "back-mirrored": (BACK_MIRRORED, back_c, {"N": 6}),
    "forward": (FORWARD, forward_c, {"N": 7}),
    "trmv": (TRMV, trmv_c, {"N": 6}),
    "multi": (MULTI, multi_c, {"N": 5, "C": 3}),
}


def _kernel(name: str) -> tuple[Kernel, dict[str, int]]:
    text, ref, values = CASES[name]
    return replace(c_kernel(text, f"{name}.c"), reference=ref), values


def test_back_substitution_is_forward_substitution_mirrored() -> None:
    """i-- and the j loop over the same elements are mirrored by N - 1: the triangle runs
    from 0 and the finished x travels along i, as in forward substitution."""
    k, _ = _kernel("back")
    ph = k.phases[0]
    assert [(str(d.lower), str(d.upper)) for d in ph.dims] == [("0", "N - 1"), ("0", "i")]
    assert [str(s.index[0]) for s in ph.statements if s.kind == "output"] == ["N - i - 1"]
    assert {s.dep for s in ph.statements if s.kind == "transport"} == {(1, 0), (0, 1)}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("array", [(2, 2), (1, 4)])
def test_simulated_outputs_equal_the_c_loops(name: str, array: tuple[int, int]) -> None:
    k, values = _kernel(name)
    s = sim.simulate(k, array, values=values)
    assert s.checks["outputs_match_reference"], s.violations
    assert s.ok, (s.checks, s.violations)
    assert analyze(k, array=array, values=values).evaluate(values).counts == s.counts


def test_forward_finished_value_travels_down_its_column() -> None:
    """x[j] leaves the diagonal (j, j) and moves along i: dependence (1, 0), one DRAM read
    of b and of each L element, no read of x."""
    k, _ = _kernel("forward")
    st = k.phases[0].statements
    assert [str(d.upper) for d in k.phases[0].dims] == ["N - 1", "i"]  # closed onto j == i
    assert {s.dep for s in st if s.kind == "transport"} == {(1, 0), (0, 1)}
    assert {s.tensor for s in st if s.kind == "input"} == {"L", "b"}


def test_trmv_reads_the_input_before_it_is_overwritten() -> None:
    k, _ = _kernel("trmv")
    ph = k.phases[0]
    assert str(ph.dims[1].lower) == "i"  # closed at its lower end: the start lives at j == i
    assert {t.name: t.kind for t in ph.tensors}["x"] == "inout"


@pytest.mark.parametrize("read", ["x[j + 1]", "x[i]"])
def test_a_read_of_the_same_outer_iteration_stays_refused(read: str) -> None:
    """``x[j + 1]`` at ``j == i - 1`` is the element the row is computing: neither the input
    nor a finished value."""
    with pytest.raises(NotUniformError):
        c_kernel(FORWARD.replace("L[i][j] * x[j]", f"L[i][j] * {read}"), "bad.c")


def test_symv_carries_the_finished_value_along_i() -> None:
    k, _ = _kernel("symv")
    st = k.phases[0].statements
    out = [s for s in st if s.kind == "output"]
    assert [str(s.index[0]) for s in out] == ["k"]  # y[k] leaves where i ends
    assert "t" not in {t.name for t in k.phases[0].tensors}  # the expanded scalar: no DRAM
