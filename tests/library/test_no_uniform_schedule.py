"""durbin, gramschmidt, nussinov: no uniform localisation in their own index space, computed.

Each kernel's PolyBench/C loops run in Python on small sizes (:class:`schedule_cone.Trace`
records which write each read sees); the instances of the statement the argument is about
sit at their natural points, every other instance anywhere. The smallest schedule that gives
every displacement between dependent instances the cycles its path needs grows with the size
(with dependence vectors up to 1 or 2 long along an axis): no schedule, hence no uniform PRA,
is independent of the size. The same computation on trisolv, which is localised, stays at 1.
The arguments are spelled out in docs/kernels.md and ``polybench_c.NOT_BUILT``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from schedule_cone import Trace, smallest_schedule  # noqa: E402


def gramschmidt(m: int, n: int = 4, down: bool = False) -> Trace:
    """The norm of column k at (k, i) (``down``: the sum run the other way along i)."""
    t = Trace()
    rows = range(m - 1, -1, -1) if down else range(m)
    for k in range(n):
        t.op([], [("nrm", ())])
        for i in rows:
            t.op([("nrm", ()), ("A", (i, k))], [("nrm", ())], anchor=(k, i))
        t.op([("nrm", ())], [("R", (k, k))])
        for i in range(m):
            t.op([("A", (i, k)), ("R", (k, k))], [("Q", (i, k))])
        for j in range(k + 1, n):
            t.op([], [("R", (k, j))])
            for i in range(m):
                t.op([("R", (k, j)), ("Q", (i, k)), ("A", (i, j))], [("R", (k, j))])
            for i in range(m):
                t.op([("A", (i, j)), ("Q", (i, k)), ("R", (k, j))], [("A", (i, j))])
    return t


def durbin(n: int) -> Trace:
    """``z[i] = y[i] + alpha * y[k-i-1]`` of step k at (k, i)."""
    t = Trace()
    t.op([("r", (0,))], [("y", (0,))])
    t.op([], [("beta", ())])
    t.op([("r", (0,))], [("alpha", ())])
    for k in range(1, n):
        t.op([("alpha", ()), ("beta", ())], [("beta", ())])
        t.op([], [("sum", ())])
        for i in range(k):
            t.op([("sum", ()), ("r", (k - i - 1,)), ("y", (i,))], [("sum", ())])
        t.op([("r", (k,)), ("sum", ()), ("beta", ())], [("alpha", ())])
        for i in range(k):
            t.op([("y", (i,)), ("alpha", ()), ("y", (k - i - 1,))], [("z", (i,))], anchor=(k, i))
        for i in range(k):
            t.op([("z", (i,))], [("y", (i,))])
        t.op([("alpha", ())], [("y", (k,))])
    return t


def nussinov(n: int, down: bool = False) -> Trace:
    """The split ``k`` of ``table[i][j]`` at (i, j, k) (``down``: the max run down k)."""
    t = Trace()

    def cell(a: int, b: int) -> tuple[str, tuple[int, ...]]:
        return ("table", (a, b))

    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            t.op([cell(i, j), cell(i, j - 1)], [cell(i, j)])
            if i + 1 < n:
                t.op([cell(i, j), cell(i + 1, j)], [cell(i, j)])
                t.op([cell(i, j), cell(i + 1, j - 1), ("seq", (i,)), ("seq", (j,))], [cell(i, j)])
            for k in (range(j - 1, i, -1) if down else range(i + 1, j)):
                t.op([cell(i, j), cell(i, k), cell(k + 1, j)], [cell(i, j)], anchor=(i, j, k))
    return t


def trisolv(n: int) -> Trace:
    """The control: ``x[i] -= L[i][j] * x[j]`` at (i, j); localised, a schedule of 1 fits."""
    t = Trace()
    for i in range(n):
        t.op([("b", (i,))], [("x", (i,))])
        for j in range(i):
            t.op([("x", (i,)), ("L", (i, j)), ("x", (j,))], [("x", (i,))], anchor=(i, j))
        t.op([("x", (i,)), ("L", (i, i))], [("x", (i,))])
    return t


def _smallest(trace: Trace, step: int) -> int:
    found = smallest_schedule(trace.displacements(), step, bound=16)
    assert found is not None
    return found


@pytest.mark.parametrize("step", [1, 2])
@pytest.mark.parametrize("kernel, sizes", [
    ("gramschmidt", (3, 4, 6, 8)), ("gramschmidt-down", (3, 4, 6, 8)),
    ("durbin", (4, 6, 8, 10)),
    ("nussinov", (5, 6, 8)), ("nussinov-down", (5, 6, 8)),
])
def test_the_smallest_schedule_grows_with_the_size(kernel: str, sizes: tuple[int, ...],
                                                  step: int) -> None:
    make = {"gramschmidt": gramschmidt, "durbin": durbin, "nussinov": nussinov,
            "gramschmidt-down": lambda m: gramschmidt(m, down=True),
            "nussinov-down": lambda n: nussinov(n, down=True)}[kernel]
    found = [_smallest(make(s), step) for s in sizes]
    assert all(a < b for a, b in zip(found, found[1:], strict=False)), found


def test_the_control_kernel_keeps_a_constant_schedule() -> None:
    assert {_smallest(trisolv(n), 1) for n in (4, 6, 8, 10)} == {1}


def test_gramschmidt_norm_must_cross_the_column_back() -> None:
    """The path from the norm's last row of step k to its first row of step k + 1."""
    m = 6
    assert (1, -(m - 1)) in gramschmidt(m).displacements()
    assert (1, m - 1) in gramschmidt(m, down=True).displacements()


def test_durbin_mirror_runs_both_ways_along_i() -> None:
    """Step k reads y[k-i-1], which step k-1 wrote at i' = k-i-1: both signs along i."""
    found = durbin(8).displacements()
    assert (1, -5) in found and (1, 5) in found


def test_nussinov_value_returns_against_its_chain() -> None:
    """table[i][j], finished at split j-1, is read two rows up at split i-1."""
    n = 8
    found = nussinov(n).displacements()
    assert (-2, 0, -(n - 3)) in found  # from (i, j, j-1) to (i-2, j, i-1), j - i = n - 3
