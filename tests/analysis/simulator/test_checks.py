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


def test_nan_equals_nan_and_an_infinity_the_same_infinity():
    """``sqrtf`` of a negative is NaN on both sides: equal there, not a difference; an
    infinity in the reference used to make the tolerance infinite (every element agreed)."""
    from polyjoule.analysis.sim_checks import differing

    want = np.array([np.nan, np.inf, -np.inf, 1.0, np.nan, 2.0])
    got = np.array([np.nan, np.inf, np.inf, 1.0, 0.0, 7.0])
    assert differing(got, want).tolist() == [False, False, True, False, True, True]
    assert not differing(np.array([1e300, 1.0]), np.array([1e300, 1.0])).any()


def test_an_output_of_nans_matches_a_reference_of_nans():
    seen: list[str] = []
    nan = np.full(3, np.nan)
    assert matches_reference({"B": nan}, {"B": nan.copy()}, lambda m, n: seen.append(m))
    assert seen == []
