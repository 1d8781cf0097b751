"""The int64 guard of generated vectorised functions: int64 only where nothing can wrap."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy

from polyjoule.analysis.exact import narrow, ratio, scaled, total
from polyjoule.analysis.intprint import SAFE, bound, bounder, compile_exprs, safe_top

a, b, c = sympy.symbols("a b c", integer=True)


def test_intermediate_overflow_goes_exact() -> None:
    """a*b*c - a*b*c + floor((a*b - 1)/c): the products leave int64 at a = b = c = 2**40
    (numpy would wrap them), the value does not; the guard computes it on Python ints."""
    e = a * b * c - a * b * (c - 1) + sympy.floor((a * b - 1) / c)
    f = compile_exprs([e], ["a", "b", "c"], {}, vector=True)
    x = np.array([3, 2**40, 2**62], dtype=np.int64)
    got = f(x, x, x)
    want = [int(v) * int(v) + (int(v) * int(v) - 1) // int(v) for v in x]
    assert [int(g) for g in got] == want
    small = np.arange(1, 50, dtype=np.int64)
    assert f.fits([small, small, small]) and not f.fits([x, x, x])
    assert np.asarray(f(small, small, small)).dtype == np.int64


def test_safe_top_is_a_bound() -> None:
    e = a**3 + sympy.Mod(b, c) * a
    top = safe_top([e])
    assert bound(e, float(top)) < SAFE <= bound(e, float(4 * top))


def test_bounder_is_bound_at_every_top() -> None:
    """The bound walked once (a function of top) equals the walk at each top."""
    e = sympy.floor((a * b - 1) / c) ** 2 + sympy.ceiling(a / 3) * sympy.Max(b, 7) - 5 * c
    f = bounder(e)
    for k in range(0, 64, 5):
        assert f(float(2**k)) == bound(e, float(2**k))


def test_column_arithmetic_rounds_once() -> None:
    big = np.array([2**70 + 1, 3], dtype=object)
    assert narrow(big).dtype == object and narrow(np.array([5], dtype=object)).dtype == np.int64
    assert scaled(big, 0.1).tolist() == [float((2**70 + 1) * Fraction(0.1)),
                                         3 * 0.1]
    assert ratio(big, np.array([3, 7], dtype=object)).tolist() == [(2**70 + 1) / 3, 3 / 7]
    top = np.array([2**62, 2**62], dtype=np.int64)
    assert total([top, top]).tolist() == [2**63, 2**63]  # would wrap in int64
