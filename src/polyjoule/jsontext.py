"""The one JSON writer: strict JSON only (never ``NaN`` or ``Infinity``), numpy values as
their Python equivalents, exact integers at any size.

Python's ``json`` writes ``NaN`` by default, which most parsers refuse; every JSON text
polyjoule prints or writes goes through :func:`dumps`, and a non-finite number is a
:class:`~polyjoule.errors.NonFiniteValueError` naming the field that holds it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from polyjoule.errors import NonFiniteValueError


def plain(x: Any) -> Any:
    """A numpy scalar or array as Python values (``json``'s ``default`` hook)."""
    import numpy as np

    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, set | frozenset | tuple):
        return list(x)
    raise TypeError(f"{type(x).__name__} is not JSON serialisable")


def dumps(obj: Any, *, what: str = "JSON output", **kw: Any) -> str:
    """``json.dumps(obj)`` refusing non-finite numbers (``what`` names the document)."""
    try:
        return json.dumps(obj, allow_nan=False, default=plain, **kw)
    except ValueError as e:
        if "JSON compliant" not in str(e):
            raise
        where = next(_non_finite(obj, ""), "?")
        raise NonFiniteValueError(f"{what}: {where} is not a finite number "
                                  "(JSON has no NaN or infinity)") from None


def _non_finite(x: Any, path: str) -> Iterator[str]:
    """Paths of the non-finite floats in ``x`` (depth first)."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _non_finite(v, f"{path}.{k}" if path else str(k))
        return
    if isinstance(x, list | tuple):
        for i, v in enumerate(x):
            yield from _non_finite(v, f"{path}[{i}]")
        return
    try:
        v = plain(x) if not isinstance(x, float | int | str | bool | type(None)) else x
    except TypeError:
        return
    if isinstance(v, list):
        yield from _non_finite(v, path)
    elif isinstance(v, float) and not math.isfinite(v):
        yield f"{path or 'value'} = {v}"
