"""Why floyd-warshall.c stays refused, computed (docs/kernels.md, "What the refusals mean").

In pivot steps ``(k, i, j)`` the read ``path[i][k]`` sees its element as it entered step ``k``
(``j < k``) and as the write of step ``k`` left it (``j > k``); ``path[k][j]`` likewise along
``i``. Two ways out were checked, and neither keeps the program's values on every input:

1. C's own coordinates: with C's exact dataflow, no schedule independent of the size exists
   (the value step ``k - 1`` leaves in column ``k`` is read at every ``j < k`` of step
   ``k``): no uniform PRA in ``(k, i, j)``, whatever its statements.
2. The built-in's rotation reads the pivot row and column as they entered the step, as if
   the step's writes left them unchanged. They do exactly when ``path[k][k] >= 0`` at step
   ``k``: ``min(p, p + path[k][k])`` is ``p`` then, and ``p + path[k][k]`` otherwise. The
   program does not ensure it (a negative cycle makes it fail), so the rotation is not a
   reordering of the program: with a negative diagonal entry its result differs from C's.

What is left open: C's exact dataflow placed in the rotated coordinates does keep a schedule
independent of the size (computed below), so an exact rotated PRA (the rows and columns
before the pivot reading the old pivot values from step ``k - 1``) may exist; it is not
derived.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from pra_brute import execute  # noqa: E402
from schedule_cone import Trace, smallest_schedule  # noqa: E402

from polyjoule.errors import NotUniformError  # noqa: E402
from polyjoule.frontends.cnest import c_kernel  # noqa: E402
from polyjoule.frontends.crun import c_program  # noqa: E402
from polyjoule.library import kernels as registry  # noqa: E402

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


def test_the_file_is_refused_with_the_data_condition() -> None:
    with pytest.raises(NotUniformError) as e:
        c_kernel(FW.read_text(), str(FW), include_dirs=[ROOT / "utilities"])
    msg = str(e.value)
    assert "path[i][k] reads path" in msg and "as it entered step k" in msg
    assert "leaves the element unchanged" in msg and "\n" not in msg
