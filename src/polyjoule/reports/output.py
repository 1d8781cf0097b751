"""Writing sweep results: CSV and JSON, streamed, all-or-nothing.

Every file is first written to a temporary file beside its target and renamed only after
every requested file was written (:mod:`polyjoule.reports.files`), so an error (or Ctrl-C)
never leaves a half-written or stale-but-plausible output behind. Rows are streamed in
chunks: a million design points do not need the whole text in memory.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from polyjoule.dse.sweep import SweepResult
from polyjoule.reports.files import Content, write_all_atomic

CHUNK = 50_000


def _cell(x: Any) -> Any:
    if isinstance(x, np.bool_ | bool):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating | float):
        v = float(x)
        return v if math.isfinite(v) else None
    return x


def _rows(result: SweepResult, blank: Any = None) -> Iterator[list[tuple[Any, ...]]]:
    """Rows in chunks; with ``blank``, a float cell without a value (NaN: ``energy_per_op_pj``
    of a kernel without operations) is ``blank``."""
    cols = result.columns
    n = len(result)
    for lo in range(0, n, CHUNK):
        lists = [_list(cols[k][lo:lo + CHUNK], blank) for k in cols]
        yield list(zip(*lists, strict=True))


def _list(x: np.ndarray, blank: Any) -> list[Any]:
    if blank is None or x.dtype.kind != "f" or np.isfinite(x).all():
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
    text = json.dumps(head, indent=1, default=_cell)
    fh.write(text[:-2] + ',\n "points": [')
    names = list(result.columns)
    first = True
    for rows in _rows(result):
        for row in rows:
            fh.write(("\n  " if first else ",\n  ")
                     + json.dumps(dict(zip(names, (_cell(x) for x in row), strict=True))))
            first = False
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
