"""Elimination nests in pivot steps (frontends/creorder.py, cflow.py, cforward.py,
localize/pivots.py): LU variants that PolyBench does not hold, written in C here, localise;
their PRAs, simulated, compute what numpy running the same loops computes; nests whose
reordering would change a value are refused with the reason."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from polyjoule.analysis.simulator import simulate
from polyjoule.errors import NotUniformError
from polyjoule.frontends.cnest import c_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from polybench_c import CLASS_D  # noqa: E402
from pra_brute import kernel_counts  # noqa: E402

RIGHT_LOOKING = """
void rl(int n, double A[n][n]) {
  int i, j, k;
  for (k = 0; k < n; k++)
    for (i = k + 1; i < n; i++) {
      A[i][k] = A[i][k] / A[k][k];
      for (j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
    }
}
"""

CROUT = """
void crout(int n, double A[n][n]) {
  int i, j, k;
  for (j = 0; j < n; j++) {
    for (i = j; i < n; i++)
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
    for (i = j + 1; i < n; i++) {
      for (k = 0; k < j; k++)
        A[j][i] -= A[j][k] * A[k][i];
      A[j][i] /= A[j][j];
    }
  }
}
"""

LEFT_LOOKING = """
void left(int n, double A[n][n]) {
  int i, j, k;
  for (j = 0; j < n; j++) {
    for (k = 0; k < j; k++)
      for (i = k + 1; i < n; i++)
        A[i][j] -= A[i][k] * A[k][j];
    for (i = j + 1; i < n; i++)
      A[i][j] /= A[j][j];
  }
}
"""

# Cholesky by rows with the running value in a scalar (LUDCMP's style), the upper triangle
# untouched: the scalar is forwarded into the element.
CHOLESKY_W = """
void chol(int n, double A[n][n]) {
  int i, j, k;
  double w;
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[j][k];
      A[i][j] = w / A[j][j];
    }
    w = A[i][i];
    for (k = 0; k < i; k++)
      w -= A[i][k] * A[i][k];
    A[i][i] = sqrt(w);
  }
}
"""


def _right_looking(a: np.ndarray) -> np.ndarray:
    n = len(a)
    for k in range(n):
        for i in range(k + 1, n):
            a[i, k] = a[i, k] / a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] * a[k, j]
    return a


def _crout(a: np.ndarray) -> np.ndarray:
    n = len(a)
    for j in range(n):
        for i in range(j, n):
            for k in range(j):
                a[i, j] -= a[i, k] * a[k, j]
        for i in range(j + 1, n):
            for k in range(j):
                a[j, i] -= a[j, k] * a[k, i]
            a[j, i] /= a[j, j]
    return a


def _left_looking(a: np.ndarray) -> np.ndarray:
    n = len(a)
    for j in range(n):
        for k in range(j):
            for i in range(k + 1, n):
                a[i, j] -= a[i, k] * a[k, j]
        for i in range(j + 1, n):
            a[i, j] /= a[j, j]
    return a


def _cholesky(a: np.ndarray) -> np.ndarray:
    n = len(a)
    for i in range(n):
        for j in range(i):
            w = a[i, j]
            for k in range(j):
                w -= a[i, k] * a[j, k]
            a[i, j] = w / a[j, j]
        w = a[i, i]
        for k in range(i):
            w -= a[i, k] * a[i, k]
        a[i, i] = np.sqrt(w)
    return a


CASES: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray]]] = {
    "right-looking": (RIGHT_LOOKING, _right_looking),
    "crout": (CROUT, _crout),
    "left-looking": (LEFT_LOOKING, _left_looking),
    "cholesky-w": (CHOLESKY_W, _cholesky),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("array", [(2, 2), (1, 3)])
def test_unseen_elimination_simulates_to_numpy(case: str, array: tuple[int, int]) -> None:
    """The localised PRA, simulated, equals numpy running the C loops on the same input."""
    text, loops = CASES[case]
    k = c_kernel(text, f"{case}.c")
    seen: dict[str, np.ndarray] = {}

    def reference(tensors: dict[str, np.ndarray], env: dict[str, float]) -> dict[str, np.ndarray]:
        seen["A"] = tensors["A"].copy()
        return {"A": loops(tensors["A"].copy())}

    k = dataclasses.replace(k, reference=reference)
    s = simulate(k, array, values={"n": 7})
    assert s.ok, (s.checks, s.violations)
    want = loops(seen["A"].copy())
    assert not np.allclose(want, seen["A"])  # the kernel changed its input
    np.testing.assert_allclose(s.outputs["A"], want, rtol=1e-12)


def test_variants_localise_in_right_looking_steps() -> None:
    """PolyBench's lu and the k-outer right-looking LU become the same step space."""
    root = Path(__file__).with_name("polybench_c")
    lu = root / "linear-algebra" / "solvers" / "lu" / "lu.c"
    a = c_kernel(lu.read_text(), str(lu), include_dirs=[root / "utilities"])
    b = c_kernel(RIGHT_LOOKING, "rl.c")
    dims = [[(d.name, str(d.lower), str(d.upper)) for d in k.phases[0].dims] for k in (a, b)]
    assert dims[0] == [(x, lo, hi.replace("n", "N")) for x, lo, hi in dims[1]]
    got = kernel_counts(a, {"N": 9}, (2, 2))
    want = kernel_counts(b, {"n": 9}, (2, 2))
    assert (got["ops"], got["kinds"]) == (want["ops"], want["kinds"])


def test_a_read_on_both_sides_of_its_write_is_refused() -> None:
    """A closure written as Floyd-Warshall: row k is read before and after step k writes
    it, so no one broadcast carries it in (k, i, j); over the full square it goes to rotated
    pivot steps (tests/frontends/test_crotate.py), over a triangle it stays refused."""
    text = """
void closure(int n, double R[n][n]) {
  int i, j, k;
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        R[i][j] = max(R[i][j], min(R[i][k], R[k][j]));
}
"""
    assert c_kernel(text, "closure.c").phases[0].dim_names == ("k", "i", "j")
    with pytest.raises(NotUniformError, match=r"closure.c:7:\d+: R\[i\]\[k\] reads R, which R\[i\]\[j\] "
                                              r".* both as it entered step k"):
        c_kernel(text.replace("for (j = 0;", "for (j = i;"), "closure.c")


def test_gauss_jordan_is_refused() -> None:
    """Gauss-Jordan normalises the pivot row at step k and needs it in the rows above and
    below: run in (k, i, j) order, the rows above would read it before it is normalised."""
    text = """
void gj(int n, double A[n][n]) {
  int i, j, k;
  for (k = 0; k < n; k++) {
    for (j = k + 1; j < n; j++)
      A[k][j] = A[k][j] / A[k][k];
    for (i = 0; i < k; i++)
      for (j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
    for (i = k + 1; i < n; i++)
      for (j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
  }
}
"""
    with pytest.raises(NotUniformError, match=r"gj.c:6:\d+: A is updated in place, but no "
                                              r"order in pivot steps"):
        c_kernel(text, "gj.c")


def test_a_reordering_that_changes_values_is_refused() -> None:
    """Row i reads rows k > i before they are updated: in pivot steps it would read them
    after, so isl's dataflow differs and the nest is refused."""
    text = """
void rows(int n, double A[n][n]) {
  int i, j, k;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        A[i][j] += A[k][j] * A[i][k];
}
"""
    with pytest.raises(NotUniformError, match=r"rows.c:7:\d+: A is updated in place, but no "
                                              r"order in pivot steps"):
        c_kernel(text, "rows.c")


def test_a_scalar_whose_element_is_read_in_its_span_is_not_forwarded() -> None:
    """``w`` stands for A[i][j], but A[i][k] reaches A[i][j] at k == j: no forwarding, and
    the nest keeps the reason it had (the pivot read at a varying distance)."""
    text = """
void alias(int n, double A[n][n]) {
  int i, j, k;
  double w;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < n; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
}
"""
    with pytest.raises(NotUniformError, match=r"alias.c:\d+:\d+: A\[\w\]\[\w\] reads A, which"):
        c_kernel(text, "alias.c")


def test_a_scalar_whose_element_is_written_in_its_span_is_not_forwarded() -> None:
    """Another statement of the span writes A[i][k], which is A[i][j] at k == j."""
    text = """
void alias(int n, double A[n][n]) {
  int i, j, k;
  double w;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < n; k++) {
        A[i][k] = A[i][k] * 2.0;
        w -= A[k][j];
      }
      A[i][j] = w / A[j][j];
    }
}
"""
    with pytest.raises(NotUniformError, match=r"alias.c:\d+:\d+: A\[\w\]\[\w\] reads A, "
                                              r"which A\[\w\]\[\w\]"):
        c_kernel(text, "alias.c")


def test_class_d_eliminations_in_pivot_steps() -> None:
    """PolyBench's lu and cholesky scops localise in (k, i, j); ludcmp's LU nest does too,
    then its forward and (mirrored) backward substitutions in (i, j)."""
    for name in ("lu", "cholesky"):
        k = c_kernel(CLASS_D[name], f"{name}.c")
        assert [d.name for d in k.phases[0].dims] == ["k", "i", "j"]
    k = c_kernel(CLASS_D["ludcmp"], "ludcmp.c")
    assert [ph.dim_names for ph in k.phases] == [("k", "i", "j"), ("i", "j"), ("i", "j")]


@pytest.mark.parametrize("name", ["lu", "cholesky", "ludcmp"])
def test_polybench_file_simulates_to_the_builtin_reference(name: str) -> None:
    """The PRA derived from the distributed file, simulated on 2x2 at N = 9, equals the
    built-in kernel's numpy reference (PolyBench's loop order)."""
    from polyjoule.library import kernels as registry

    root = Path(__file__).with_name("polybench_c")
    f = next(root.glob(f"*/**/{name}.c"))
    k = c_kernel(f.read_text(), str(f), include_dirs=[root / "utilities"])
    k = dataclasses.replace(k, reference=registry.get(name).reference)
    s = simulate(k, (2, 2), values={"N": 9})
    assert s.ok and s.reference is not None, (s.checks, s.violations)
