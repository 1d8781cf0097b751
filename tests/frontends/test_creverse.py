"""Downward loops (frontends/creverse.py): independent iterations run upward; otherwise the
index is mirrored, with the reduction loops that index the same elements."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pycparser import c_generator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from pra_brute import execute  # noqa: E402

from polyjoule.errors import NotUniformError  # noqa: E402
from polyjoule.frontends.cnest import _parse, c_kernel  # noqa: E402
from polyjoule.frontends.cpre import strip_directives as _strip  # noqa: E402
from polyjoule.frontends.creverse import reverse_downward  # noqa: E402


def _rewritten(text: str) -> str:
    fn = _parse(_strip(text), "x.c").ext[0]
    reverse_downward(fn.body)
    return c_generator.CGenerator().visit(fn.body)


def test_independent_iterations_just_run_upward() -> None:
    out = _rewritten("void f(int N, double A[N], double C[N]) {\n"
                     "for (i = N; i > 0; i--) C[i - 1] = 2.0 * A[i - 1];\n}\n")
    assert "for (i = 0 + 1; i <= N; i++)" in out and "C[i - 1]" in out


def test_a_carried_loop_is_mirrored_with_its_reductions() -> None:
    out = _rewritten("void f(int N, double U[N][N], double x[N]) {\n"
                     "for (i = N - 1; i >= 0; i--) { for (j = i + 1; j < N; j++)\n"
                     "  x[i] -= U[i][j] * x[j]; x[i] = x[i] / U[i][i]; }\n}\n")
    assert "for (i = 0; i <= ((N - 1) - 0); i++)" in out
    assert "x[(N - 1) - i] -= U[(N - 1) - i][(N - 1) - j] * x[(N - 1) - j]" in out


def test_downward_pointwise_loop_computes_the_c_loop() -> None:
    k = c_kernel("void f(int N, double A[N], double C[N]) {\n"
                 "for (i = N - 1; i >= 0; i--) C[i] = 2.0 * A[i];\n}\n", "down.c")
    a = np.arange(1.0, 6.0)
    np.testing.assert_allclose(execute(k, {"N": 5}, {"A": a})["C"], 2.0 * a)


def test_a_downward_prefix_recurrence_stays_refused() -> None:
    """y[i] reads y[i + 1] of the previous iteration: mirrored, still an in-place update."""
    with pytest.raises(NotUniformError):
        c_kernel("void f(int N, double y[N]) {\n"
                 "for (i = N - 2; i >= 0; i--) y[i] = y[i] + y[i + 1];\n}\n", "rec.c")


def test_a_downward_loop_around_an_inner_loop_runs_upward() -> None:
    """``for (i = N - 1; i >= 0; i--) for (j ...) y[i] += A[i][j] * x[j]``: every row is
    its own; the inner loop's counter is not data (it made the rows look dependent and the
    nest was refused as a step ``i--``). The PRA computes what the C loop does."""
    text = ("void f(int N, double A[N][N], double x[N], double y[N]) {\n  int i, j;\n"
            "  for (i = N - 1; i >= 0; i--) {\n    y[i] = 0.0;\n"
            "    for (j = 0; j < N; j++)\n      y[i] += A[i][j] * x[j];\n  }\n}\n")
    assert "for (i = 0; i <= (N - 1); i++)" in _rewritten(text)
    k = c_kernel(text, "down.c")
    rng = np.random.default_rng(3)
    a, x = rng.standard_normal((6, 6)), rng.standard_normal(6)
    np.testing.assert_allclose(execute(k, {"N": 6}, {"A": a, "x": x})["y"], a @ x)
