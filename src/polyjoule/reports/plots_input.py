"""A sweep's CSV or JSON output read back as columns, malformed input refused in one line.

Whatever a plot draws must be a number the sweep wrote: a file that is not a sweep's output,
a ragged row, text in a numeric column or a NaN energy is a :class:`SpecError` naming the
file and the field, never a traceback or a silently missing bar.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from polyjoule.errors import InputLimitError, SpecError
from polyjoule.frontends.specfile import read_text

#: columns of text (the mapping, the energy table, the dataset preset)
TEXT = frozenset({"array", "tile", "order", "table", "dataset"})
#: numeric columns that may be empty (a kernel without operations has no energy per op)
NULLABLE = frozenset({"energy_per_op_pj"})
#: the columns every sweep output has
REQUIRED = ("energy_pj", "latency_cycles", "array")
#: numeric columns by name (besides ``energy.*``, ``ops.*``, ``static.*`` and the sizes)
NUMERIC = frozenset({"pes", "RD", "FD", "ID", "OD", "IOb", "DR", "work", "energy_pj", "dynamic_pj",
                     "latency_cycles", "utilisation", "latency_seconds", "static_pj", "total_pj",
                     "power_mw", "throughput_ips", "energy_per_op_pj", "edp"})


def load(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A sweep's CSV or JSON output as columns (and its metadata, JSON only)."""
    p = Path(path)
    if not p.is_file():
        raise SpecError(f"{p}: no such sweep file")
    text = read_text(p)
    if not text.strip():
        raise SpecError(f"{p}: an empty file, not a sweep output (give the --csv or --json "
                        "file of polyjoule sweep)")
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
            if not isinstance(data, dict) or "points" not in data:
                raise SpecError(f"{p}: not a polyjoule sweep output (no 'points' list)")
            rows = _json_rows(data["points"], p)
            meta = {k: v for k, v in data.items() if k != "points"}
        else:
            rows = _csv_rows(text, p)
            meta = {}
    except (ValueError, csv.Error) as e:
        raise SpecError(f"{p}: not a polyjoule sweep output ({e})") from None
    except RecursionError:
        raise InputLimitError(f"{p}: nested too deeply for a sweep output") from None
    return _columns(rows, p), meta


def _json_rows(rows: Any, p: Path) -> list[dict[str, Any]]:
    """The design points: a non-empty list of records, every one with the same columns."""
    if not isinstance(rows, list) or not rows:
        raise SpecError(f"{p}: points: not a non-empty list of design points")
    for n, r in enumerate(rows):
        if not isinstance(r, dict):
            raise SpecError(f"{p}: points[{n}]: not a record of the sweep's columns")
        if list(r) != list(rows[0]):
            raise SpecError(f"{p}: points[{n}]: columns differ from points[0] (a ragged row)")
    _required(rows[0], p)
    return rows


def _csv_rows(text: str, p: Path) -> list[dict[str, Any]]:
    """The CSV's records; a short or long line is ragged (named by its line number)."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows = []
    for r in reader:
        if None in r or None in r.values():
            raise SpecError(f"{p}: line {reader.line_num}: not a record of the header's "
                            f"{len(reader.fieldnames or [])} columns (a ragged row)")
        rows.append(r)
    if not rows:
        raise SpecError(f"{p}: no design points (a header and no rows)")
    _required(rows[0], p)
    return rows


def _required(row: dict[str, Any], p: Path) -> None:
    for need in REQUIRED:
        if need not in row:
            raise SpecError(f"{p}: not a polyjoule sweep output (no column {need!r})")


def _number(v: Any, where: str, nullable: bool) -> float:
    """``v`` as a float; empty (None, "") only where ``nullable``; never NaN or inf."""
    if nullable and (v is None or v == ""):
        return math.nan
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise SpecError(f"{where}: {v!r} is not a number")
    try:
        x = float(v)
    except (ValueError, OverflowError):
        raise SpecError(f"{where}: {v!r} is not a number") from None
    if not math.isfinite(x):
        raise SpecError(f"{where}: {v!r} is not a finite number")
    return x


def _is_number(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int | float):
        return True
    try:
        float(v)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _numeric(k: str, keys: list[str], first: Any) -> bool:
    """Whether the sweep writes numbers in column ``k``: by name, the problem sizes (between
    ``dataset`` and ``RD``), or, for a column this reader does not know, by its first value."""
    if k in NUMERIC or k.split(".", 1)[0] in ("energy", "ops", "static"):
        return True
    if "dataset" in keys and "RD" in keys and keys.index("dataset") < keys.index(k) < keys.index("RD"):
        return True
    return k not in TEXT and k != "pareto" and _is_number(first)


def _columns(rows: list[dict[str, Any]], p: Path) -> dict[str, np.ndarray]:
    """Columns by kind: text, Pareto flags, numbers (every value finite; energy and latency
    not negative)."""
    cols: dict[str, np.ndarray] = {}
    keys = list(rows[0])
    for k in keys:
        vals = [r[k] for r in rows]
        if not _numeric(k, keys, vals[0]) and k != "pareto":
            cols[k] = np.asarray(["" if v is None else str(v) for v in vals], dtype=object)
        elif k == "pareto":
            cols[k] = np.asarray([v in (True, "True", "true", "1", 1) for v in vals])
        else:
            cols[k] = np.asarray([_number(v, f"{p}: points[{n}].{k}", k in NULLABLE)
                                  for n, v in enumerate(vals)])
            if k in ("energy_pj", "latency_cycles", "total_pj") and (cols[k] < 0).any():
                n = int(np.argmax(cols[k] < 0))  # the first: named as a NaN is
                raise SpecError(f"{p}: points[{n}].{k}: {vals[n]!r} is negative "
                                f"({'a latency' if k == 'latency_cycles' else 'an energy'} "
                                "is never below 0)")
    return cols
