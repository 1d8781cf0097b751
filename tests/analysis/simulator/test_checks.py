"""The simulator's output check names the reference it compared with: numpy semantics for
a built-in kernel or an einsum, the C program for a C file."""

from __future__ import annotations

import numpy as np

from polyjoule.analysis.sim_checks import matches_reference, reference_label
from polyjoule.frontends.crun import CReference
from polyjoule.library.kernels import get


def _differences(label: str) -> list[str]:
    seen: list[str] = []
    ok = matches_reference({"y": np.array([1.0, 2.0, 3.0])}, {"y": np.array([1.0, 2.5, 3.5])},
                           lambda msg, n: seen.append(msg), label)
    assert not ok
    return seen


def test_a_builtin_kernel_is_checked_against_numpy():
    label = reference_label(get("gesummv").reference)
    assert label == "the numpy reference"
    assert _differences(label) == ["output y: 2 elements differ from the numpy reference"]


def test_a_c_kernel_is_checked_against_its_c_program():
    ref = CReference("void k(int n, double y[n]) { }", "k.c", ())
    label = reference_label(ref)
    assert label == "the C reference (k.c run by the C interpreter)"
    assert _differences(label) == [f"output y: 2 elements differ from {label}"]
