"""Pivot steps on rotated indices (frontends/crotate.py, frontends/localize/rotated.py):
floyd-warshall.c as distributed, and closures written outside PolyBench, localise with C's
dataflow kept exactly.

Why the rotation, computed (docs/kernels.md): in pivot steps ``(k, i, j)`` the read
``path[i][k]`` sees its element as it entered step ``k`` (``j < k``) and as the write of step
``k`` left it (``j > k``); with C's dataflow no schedule independent of the size exists in
those coordinates (the value step ``k - 1`` leaves in column ``k`` is read at every ``j < k``
of step ``k``), while on rotated indices one of 3 cycles fits at every size. The built-in's
rotation reads the pivot row and column as they entered the step everywhere, exact only when
``path[k][k] >= 0`` at step ``k`` (``min(p, p + path[k][k])`` is ``p`` then): with a negative
diagonal entry it differs from C, and the derived PRA (both values carried) does not.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from pra_brute import execute, kernel_counts  # noqa: E402
from schedule_cone import Trace, smallest_schedule  # noqa: E402

from polyjoule.analysis import analyze  # noqa: E402
from polyjoule.analysis import simulator as sim  # noqa: E402
from polyjoule.errors import NotUniformError  # noqa: E402
from polyjoule.frontends.cnest import c_kernel  # noqa: E402
from polyjoule.frontends.crun import (
    c_program,  # noqa: E402
    with_c_reference,  # noqa: E402
)
from polyjoule.library import kernels as registry  # noqa: E402
from polyjoule.model.pra import Kernel  # noqa: E402

ROOT = Path(__file__).with_name("polybench_c")
FW = ROOT / "medley" / "floyd-warshall" / "floyd-warshall.c"


def _trace(n: int, rotated: bool, entry: bool) -> Trace:
    """The (k, i, j) loops, each instance at its C point or at the rotated one
    ``(k, (i - k) mod n, (j - k) mod n)``; ``entry``: the pivot row and column read as they
    entered the step (the built-in's dataflow), else as C reads them."""
    t = Trace()
    for k in range(n):
        if entry:
            for x in range(n):
                t.op([("p", (x, k))], [("col", (x, k))])
                t.op([("p", (k, x))], [("row", (k, x))])
        for i in range(n):
            for j in range(n):
                at = (k, (i - k) % n, (j - k) % n) if rotated else (k, i, j)
                pivots = [("col", (i, k)), ("row", (k, j))] if entry else [("p", (i, k)),
                                                                           ("p", (k, j))]
                t.op([("p", (i, j)), *pivots], [("p", (i, j))], anchor=at)
    return t


def _smallest(n: int, rotated: bool, entry: bool) -> int:
    found = smallest_schedule(_trace(n, rotated, entry).displacements(), 1, bound=16)
    assert found is not None
    return found


def test_c_dataflow_in_c_coordinates_has_no_size_independent_schedule() -> None:
    found = [_smallest(n, rotated=False, entry=False) for n in (3, 4, 5, 6)]
    assert found == [4, 6, 8, 10]


def test_c_dataflow_reads_column_k_from_the_step_before_at_every_j_below_k() -> None:
    """The displacement (1, 0, -(n - 1)): from (k - 1, i, k) to (k, i, 0), k = n - 1."""
    n = 6
    assert (1, 0, -(n - 1)) in _trace(n, rotated=False, entry=False).displacements()


def test_rotated_coordinates_keep_a_constant_schedule() -> None:
    """The built-in's dataflow and C's both fit a schedule of 3 at every size once rotated
    (the open question above); C's coordinates need one that grows even with the
    built-in's dataflow."""
    assert {_smallest(n, rotated=True, entry=True) for n in (4, 5, 6, 7)} == {3}
    assert {_smallest(n, rotated=True, entry=False) for n in (4, 5, 6, 7)} == {3}
    assert [_smallest(n, rotated=False, entry=True) for n in (4, 5, 6, 7)] == [3, 4, 5, 6]


def _c_and_builtin(path: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = path.shape[0]
    prog = c_program(FW.read_text(), str(FW), include_dirs=[ROOT / "utilities"], widen=True)
    c = prog.run({"path": path.copy()}, {"N": n}, {"path": (n, n)})["path"]
    hand = execute(registry.get("floyd-warshall"), {"N": n}, {"path": path.copy()})["path"]
    return c, hand


def test_builtin_rotation_computes_c_without_a_negative_diagonal() -> None:
    rng = np.random.default_rng(3)
    path = rng.uniform(0.0, 5.0, (7, 7))
    c, hand = _c_and_builtin(path)
    assert not np.array_equal(c, path)  # the input is not already closed
    np.testing.assert_array_equal(c, hand)


@pytest.mark.parametrize("pivot", [0, 3, 5, 6])
def test_builtin_rotation_differs_from_c_with_a_negative_diagonal(pivot: int) -> None:
    """One negative diagonal entry: C's step ``pivot`` changes its own row and column
    (``p + path[k][k] < p``) and the rows and columns after the pivot read the new values;
    the rotation reads the old ones everywhere. At the last step no row or column comes
    after the pivot: there both agree."""
    n = 7
    rng = np.random.default_rng(4)
    path = rng.uniform(1.0, 5.0, (n, n))
    path[pivot, pivot] = -0.5
    c, hand = _c_and_builtin(path)
    assert np.allclose(c, hand) == (pivot == n - 1)



def _fw() -> Kernel:
    return c_kernel(FW.read_text(), str(FW), include_dirs=[ROOT / "utilities"])


def test_floyd_warshall_file_localises_on_rotated_indices() -> None:
    ph = _fw().phases[0]
    assert [(d.name, str(d.lower), str(d.upper)) for d in ph.dims] == [
        ("k", "0", "N - 1"), ("i", "0", "N - 1"), ("j", "0", "N - 1")]
    deps = {s.dep for s in ph.statements if s.kind == "transport"}
    # the element one row and column on from the step before, its wrap-around pieces, and
    # the pivot values along j and i
    assert deps == {(1, -1, -1), (1, 0, -1), (1, -1, 0), (1, 0, 0), (0, 0, 1), (0, 1, 0)}
    outs = sorted(", ".join(str(x) for x in s.index) for s in ph.statements
                  if s.kind == "output")
    assert outs == ["N - 1, N - 1", "N - 1, j - 1", "i - 1, N - 1", "i - 1, j - 1"]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_floyd_warshall_pra_computes_c_bit_for_bit_with_negative_diagonals(n: int) -> None:
    """The derived PRA run point by point (pra_brute) equals the C program on inputs where
    the pivot row and column change during their step, as the built-in's rotation does not."""
    prog = c_program(FW.read_text(), str(FW), include_dirs=[ROOT / "utilities"], widen=True)
    k = _fw()
    for pivot in range(n):
        rng = np.random.default_rng(10 * n + pivot)
        path = rng.uniform(1.0, 5.0, (n, n))
        path[pivot, pivot] = -0.5
        c = prog.run({"path": path.copy()}, {"N": n}, {"path": (n, n)})["path"]
        got = execute(k, {"N": n}, {"path": path.copy()})["path"]
        np.testing.assert_array_equal(got, c)


def test_floyd_warshall_counts_against_the_builtin() -> None:
    """At MINI on 4x4: the same inputs, outputs and computes; 2 N (N - 1)^2 transports more
    (the pivot row and column as they entered the step, which C reads before the pivot and
    the built-in assumes unchanged), and C's select adds the sum twice where the built-in
    takes min(v, c + r)."""
    derived, hand = _fw(), registry.get("floyd-warshall")
    mini = derived.datasets["MINI"]
    n = mini["N"]
    got, want = kernel_counts(derived, mini, (4, 4)), kernel_counts(hand, mini, (4, 4))
    for kind in ("input", "output", "compute"):
        assert got["kinds"][kind] == want["kinds"][kind]
    assert got["kinds"]["transport"] - want["kinds"]["transport"] == 2 * n * (n - 1) ** 2
    assert got["ops"] == {"add": 2 * n ** 3, "select": n ** 3}
    assert want["ops"] == {"add": n ** 3, "min": n ** 3}


@pytest.mark.parametrize("array", [(2, 2), (1, 4), (3, 2)])
def test_floyd_warshall_file_simulates_to_the_c_program(array: tuple[int, int]) -> None:
    k = with_c_reference(_fw(), FW.read_text(), str(FW), include_dirs=[ROOT / "utilities"])
    assert k.reference is not None
    values = {"N": 7}
    s = sim.simulate(k, array, values=values)
    assert s.checks["outputs_match_reference"], s.violations
    assert s.ok, (s.checks, s.violations)
    assert analyze(k, array=array, values=values).evaluate(values).counts == s.counts


#: Outside PolyBench: bottleneck (minimax) paths, the loops over j before i and the operands
#: in the other order; widest paths with an update written as an accumulation.
MINIMAX = """
void minimax(int M, double D[M][M]) {
  int p, q, r;
  for (r = 0; r < M; r++)
    for (q = 0; q < M; q++)
      for (p = 0; p < M; p++)
        D[p][q] = fmin(D[p][q], fmax(D[r][q], D[p][r]));
}
"""

WIDEST = """
void widest(int M, double W[M][M]) {
  int p, q, r;
  for (r = 0; r < M; r++)
    for (p = 0; p < M; p++)
      for (q = 0; q < M; q++)
        W[p][q] += fmax(0.0, fmin(W[p][r], W[r][q]) - W[p][q]);
}
"""

#: The pivot row only (one-sided): a rank-1 in-place update along the pivot row.
ROW_ONLY = """
void rowonly(int M, double A[M][M]) {
  int p, q, r;
  for (r = 0; r < M; r++)
    for (p = 0; p < M; p++)
      for (q = 0; q < M; q++)
        A[p][q] = A[p][q] * 0.5 + A[r][q];
}
"""


#: No read of the element itself: every point reads only the pivot row and column.
SUMS = ROW_ONLY.replace("A[p][q] * 0.5 + A[r][q]", "0.5 * (A[p][r] + A[r][q])")


@pytest.mark.parametrize("name, text", [("minimax", MINIMAX), ("widest", WIDEST),
                                        ("rowonly", ROW_ONLY), ("sums", SUMS)])
def test_closures_outside_polybench_compute_their_c_loops(name: str, text: str) -> None:
    k = c_kernel(text, f"{name}.c")
    assert [d.name for d in k.phases[0].dims] == ["r", "p", "q"]
    prog = c_program(text, f"{name}.c", widen=True)
    tensor = k.phases[0].tensors[0].name
    for m in (1, 2, 4, 6):
        rng = np.random.default_rng(m)
        a = rng.uniform(-2.0, 5.0, (m, m))
        c = prog.run({tensor: a.copy()}, {"M": m}, {tensor: (m, m)})[tensor]
        got = execute(k, {"M": m}, {tensor: a.copy()})[tensor]
        np.testing.assert_array_equal(got, c)
    ref = with_c_reference(k, text, f"{name}.c")
    s = sim.simulate(ref, (2, 2), values={"M": 6})
    assert s.checks["outputs_match_reference"] and s.ok, (s.checks, s.violations)


@pytest.mark.parametrize("body, why", [
    # a triangle, not the full cube: the rotation has no square to turn
    ("for (r = 0; r < M; r++) for (p = r; p < M; p++) for (q = 0; q < M; q++)\n"
     "  A[p][q] = fmin(A[p][q], A[p][r] + A[r][q]);", "triangle"),
    # a read off the pivot row and column (A[r][r + 0] is, A[q][r] is not)
    ("for (r = 0; r < M; r++) for (p = 0; p < M; p++) for (q = 0; q < M; q++)\n"
     "  A[p][q] = fmin(A[p][q], A[p][r] + A[q][r]);", "transposed"),
])
def test_other_shapes_keep_the_refusal(body: str, why: str) -> None:
    text = f"void f(int M, double A[M][M]) {{ int p, q, r;\n{body}\n}}"
    with pytest.raises(NotUniformError, match=r"reads A"):
        c_kernel(text, f"{why}.c")
