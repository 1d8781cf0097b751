"""Integer columns that may leave int64, and the floats derived from them, rounded once.

Counts and latencies of large problems exceed int64 (GEMM at N = 1e7 runs for about 1.6e19
cycles); numpy's integer arithmetic would wrap silently, so such columns are object arrays
of Python integers. The float columns derived from them (energies, utilisation, energy per
operation) are the correctly rounded value of the exact quantity, whichever path computed
it: then a vectorised sweep and the scalar ``analyze`` agree to the last bit. The int64
fast path is kept wherever it already gives that value (magnitudes up to 2**53, where an
integer converts to float exactly).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

#: Integers up to this magnitude convert to float64 exactly.
FLOAT_EXACT = 2**53
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def top_of(args: Iterable[Any]) -> int:
    """The largest magnitude among integer arguments (arrays or scalars); exact."""
    top = 0
    for a in args:
        x = np.asarray(a)
        if x.size:
            top = max(top, abs(int(x.max())), abs(int(x.min())))
    return top


def exact(x: Any) -> np.ndarray:
    """``x`` as an object array of Python integers (arithmetic on it never wraps)."""
    a = np.asarray(x)
    return a if a.dtype == object else a.astype(object)


def integers(x: Any) -> np.ndarray:
    """Integers (arrays, scalars, Python ints of any size) as int64 where every value fits,
    else as Python integers: ``np.asarray`` gives ``uint64`` for values in ``[2**63, 2**64)``
    (casting those to int64 wraps silently) and refuses larger ones to int64."""
    a = np.asarray(x)
    if a.dtype.kind == "i" or a.dtype == bool:
        return a.astype(np.int64, copy=False)
    return narrow(a.astype(object))


def narrow(x: Any) -> np.ndarray:
    """An object array of integers back to int64 when every value fits (else unchanged)."""
    a = np.asarray(x)
    if a.dtype != object:
        return a
    if a.size == 0 or (INT64_MIN <= min(a.flat) and max(a.flat) <= INT64_MAX):
        return a.astype(np.int64)
    return a


def _small(*xs: np.ndarray) -> bool:
    """Do all of ``xs`` hold int64 (or float) values that convert to float exactly?"""
    return all(x.dtype != object and (x.dtype.kind == "f" or top_of([x]) <= FLOAT_EXACT) for x in xs)


def scaled(counts: Any, pj: float) -> np.ndarray:
    """``counts * pj`` rounded once from the exact product (float64)."""
    c = np.asarray(counts)
    if _small(c):
        return c.astype(np.float64) * pj
    f = Fraction(pj)
    return np.array([float(int(n) * f) for n in c.flat], dtype=np.float64).reshape(c.shape)


def ratio(num: Any, den: Any) -> np.ndarray:
    """``num / den`` of integer arrays, rounded once from the exact quotient (as Python's
    ``int / int``)."""
    n, d = np.broadcast_arrays(np.asarray(num), np.asarray(den))
    if _small(n, d):
        return n.astype(np.float64) / d.astype(np.float64)
    return np.array([int(a) / int(b) if int(b) else float("nan")
                     for a, b in zip(n.flat, d.flat, strict=True)],
                    dtype=np.float64).reshape(n.shape)


def times(x: Any, k: int) -> np.ndarray:
    """``x * k`` exactly (int64 when it cannot overflow)."""
    a = np.asarray(x)
    if a.dtype != object and top_of([a]) * abs(k) <= INT64_MAX:
        return a.astype(np.int64) * k
    return narrow(exact(a) * k)


def total(columns: Iterable[Any]) -> np.ndarray:
    """The exact sum of integer columns (int64 when it cannot overflow, else Python ints);
    no columns (a kernel without operations) sum to a 0 that broadcasts."""
    cols = [np.asarray(c) for c in columns]
    if not cols:
        return np.zeros((), dtype=np.int64)
    if all(c.dtype != object for c in cols) and sum(top_of([c]) for c in cols) <= INT64_MAX:
        out: Any = 0
        for c in cols:
            out = out + c.astype(np.int64)
        return np.asarray(out)
    out = 0
    for c in cols:
        out = out + exact(c)
    return narrow(out)


def to_float(x: Any) -> np.ndarray:
    """Integers as float64, each rounded once (object arrays convert element by element)."""
    return np.asarray(x, dtype=np.float64)
