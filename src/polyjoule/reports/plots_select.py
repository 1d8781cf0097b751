"""Which design points a plot draws: ``--where`` filters, problem sizes, one mapping per group.

``--where KEY=V`` repeated on one key is an OR (``--where NI=256 --where NI=512`` keeps both
sizes), different keys AND. A filter that keeps nothing, or a selection a plot cannot draw
readably (several scanning orders in one breakdown, more sizes than panels), is refused in
one line that lists the values there are, so the next command can be typed from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from polyjoule.errors import EmptySelectionError, PlotSelectionError, SpecError

#: most panels in one figure (a 3 x 3 grid); more sizes are chosen with ``--where``
MAX_PANELS = 9

Where = Mapping[str, str | Sequence[str]]


def parse_where(items: Iterable[str]) -> dict[str, list[str]]:
    """``["NI=256", "NI=512", "array=8x8"]`` -> ``{"NI": ["256", "512"], "array": ["8x8"]}``."""
    where: dict[str, list[str]] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise SpecError(f"--where: {item!r} is not COLUMN=VALUE")
        where.setdefault(key.strip(), []).append(value.strip())
    return where


def _normal(where: Where | None) -> dict[str, list[str]]:
    return {k: [v] if isinstance(v, str) else list(v) for k, v in (where or {}).items()}


def text(v: object) -> str:
    """A cell as the user types it: ``256`` not ``256.0``."""
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))
    return str(v)


def numbers(col: np.ndarray) -> np.ndarray | None:
    """A column as floats if it holds numbers (numpy numbers, or exact Python integers in an
    object column), else None (text)."""
    if col.dtype.kind in "fiu":
        return col.astype(float)
    if col.dtype.kind == "O" and len(col) and all(
            isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
            for v in col):
        return np.asarray([float(v) for v in col])
    return None


def values(col: np.ndarray, mask: np.ndarray | None = None) -> list[str]:
    """The distinct values of a column (numbers in numeric order), as typed."""
    c = col if mask is None else col[mask]
    x = numbers(c)
    if x is not None:
        return [text(v) for v in np.unique(x[~np.isnan(x)])]
    return list(dict.fromkeys(str(v) for v in c))


def listing(vals: Sequence[str], limit: int = 10, noun: str = "values") -> str:
    """``8, 16, 24, ..., 1024 (128 values)``: short enough for one line."""
    if len(vals) <= limit:
        return ", ".join(vals)
    head, tail = vals[: limit - 3], vals[-2:]
    return f"{', '.join(head)}, ..., {', '.join(tail)} ({len(vals)} {noun})"


def _match(col: np.ndarray, key: str, wanted: list[str]) -> np.ndarray:
    """Points whose ``key`` is any of ``wanted`` (numbers compared as numbers)."""
    x = numbers(col)
    if x is None:
        return np.isin(col.astype(str), wanted)
    hit = np.zeros(len(col), dtype=bool)
    for v in wanted:
        try:
            hit |= np.isclose(x, float(v), rtol=1e-12, atol=0)
        except ValueError:
            raise SpecError(f"--where: {key}={v!r}: {key} is numeric") from None
    return hit


def select(cols: Mapping[str, np.ndarray], where: Where | None) -> np.ndarray:
    """The points every key of ``where`` keeps (OR within a key, AND across keys)."""
    mask = np.ones(len(cols["energy_pj"]), dtype=bool)
    before: list[str] = []
    for key, wanted in _normal(where).items():
        if key not in cols:
            known = listing(list(cols), 12, "columns")
            raise SpecError(f"--where: no column {key!r} (columns: {known})")
        kept = mask & _match(cols[key], key, wanted)
        if not kept.any():
            there = f" among the points with {' and '.join(before)}" if before else ""
            raise EmptySelectionError(
                f"--where {key}={'|'.join(wanted)}: no design point matches; {key} takes "
                f"{listing(values(cols[key], mask))}{there}")
        mask = kept
        before.append(f"{key}={'|'.join(wanted)}")
    return mask


def params(cols: Mapping[str, np.ndarray]) -> list[str]:
    """Problem-size parameter columns: between ``dataset`` and the first count column."""
    keys = list(cols)
    if "dataset" in keys and "RD" in keys:
        return keys[keys.index("dataset") + 1: keys.index("RD")]
    return []


def size_label(cols: Mapping[str, np.ndarray], i: int, names: Sequence[str]) -> str:
    """A problem size as a title: ``NI = NJ = NK = 256`` when they agree, else ``NI=256, ...``."""
    vals = [text(cols[p][i]) for p in names]
    label = (f"{' = '.join(names)} = {vals[0]}" if len(set(vals)) == 1 and len(vals) > 1
             else ", ".join(f"{p}={v}" for p, v in zip(names, vals, strict=True)))
    dataset = str(cols["dataset"][i]) if "dataset" in cols else ""
    return f"{dataset} ({label})" if dataset else label


def one_value(cols: Mapping[str, np.ndarray], mask: np.ndarray, key: str, what: str,
              plot: str) -> str | None:
    """The single value ``key`` has among the selected points; several are refused."""
    if key not in cols:
        return None
    vals = values(cols[key], mask)
    if len(vals) > 1:
        raise PlotSelectionError(
            f"{plot}: the selection has {len(vals)} {what} ({listing(vals, 6)}); draw one with "
            f"--where {key}={vals[0]}")
    return vals[0]


def too_many(n: int, what: str, key: str, vals: Sequence[str], plot: str, limit: int) -> None:
    """Refuse more groups than a figure shows readably, naming the ``--where`` that narrows."""
    if n > limit:
        example = " ".join(f"--where {key}={v}" for v in vals[:2])
        raise PlotSelectionError(
            f"{plot}: {n} {what}, at most {limit} panels; choose with {example} ...; "
            f"{key} takes {listing(list(vals), 8)}")
