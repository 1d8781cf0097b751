"""Writing sweep results: CSV and JSON, streamed, all-or-nothing.

Every file is first written to a temporary file beside its target and renamed only after
every requested file was written (:mod:`polyjoule.reports.files`), so an error (or Ctrl-C)
never leaves a half-written or stale-but-plausible output behind. Rows are streamed in
chunks: a million design points do not need the whole text in memory.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from polyjoule.dse.sweep import SweepResult
from polyjoule.jsontext import dumps
from polyjoule.reports.files import Content, write_all_atomic

CHUNK = 50_000
#: Float columns where NaN means "no value" (a kernel without operations has no energy per
#: operation): empty in CSV, ``null`` in JSON. A non-finite value anywhere else is an error.
BLANKABLE = frozenset({"energy_per_op_pj"})


def _cell(x: Any) -> Any:
    if isinstance(x, np.bool_ | bool):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


def _rows(result: SweepResult, blank: Any) -> Iterator[list[tuple[Any, ...]]]:
    """Rows in chunks; a cell of a :data:`BLANKABLE` column without a value (NaN) is ``blank``."""
    cols = result.columns
    n = len(result)
    for lo in range(0, n, CHUNK):
        lists = [_list(cols[k][lo:lo + CHUNK], blank if k in BLANKABLE else _KEEP) for k in cols]
        yield list(zip(*lists, strict=True))


_KEEP = object()  # a column whose non-finite values stay (and are refused by the JSON writer)


def _list(x: np.ndarray, blank: Any) -> list[Any]:
    if blank is _KEEP or x.dtype.kind != "f" or np.isfinite(x).all():
        return x.tolist()  # type: ignore[no-any-return]
    return [v if math.isfinite(v) else blank for v in x.tolist()]


def write_csv(result: SweepResult, fh: IO[str]) -> None:
    """One row per design point; a cell without a value is empty."""
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(list(result.columns))
    for rows in _rows(result, blank=""):
        w.writerows(rows)


def write_json(result: SweepResult, fh: IO[str]) -> None:
    """``{...metadata, "n_points": N, "validation": ..., "points": [{column: value}, ...]}``.

    The metadata's count is written as ``n_points``: ``points`` is the list of rows (a JSON
    object with one key twice is read differently by different parsers).
    """
    meta = dict(result.meta)
    if "points" in meta:
        meta["n_points"] = meta.pop("points")
    head = {**meta, "validation": result.validation}
    text = dumps(head, indent=1, what="sweep JSON")
    fh.write(text[:-2] + ',\n "points": [')
    names = list(result.columns)
    i = 0
    for rows in _rows(result, blank=None):
        for row in rows:
            fh.write(("\n  " if i == 0 else ",\n  ") + dumps(
                dict(zip(names, (_cell(x) for x in row), strict=True)), what=f"sweep JSON point {i}"))
            i += 1
    fh.write("\n ]\n}\n")


def _text(write: Callable[[IO[str]], None]) -> Callable[[Path], None]:
    """A stream writer as a :mod:`polyjoule.reports.files` callback (text, no newline mapping)."""
    def to(path: Path) -> None:
        with path.open("w", newline="") as fh:
            write(fh)
    return to


def write_outputs(result: SweepResult, csv_path: str | Path | None = None,
                  json_path: str | Path | None = None) -> list[Path]:
    """Write the requested files atomically (all of them or none)."""
    jobs: list[tuple[str | Path, Content]] = []
    if csv_path is not None:
        jobs.append((csv_path, _text(lambda fh: write_csv(result, fh))))
    if json_path is not None:
        jobs.append((json_path, _text(lambda fh: write_json(result, fh))))
    return write_all_atomic(jobs)
