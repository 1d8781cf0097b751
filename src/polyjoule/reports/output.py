"""Writing sweep results: CSV and JSON, streamed, all-or-nothing.

Every file is first written to a temporary file beside its target and renamed only after
every requested file was written, so an error (or Ctrl-C) never leaves a half-written or
stale-but-plausible output behind. Rows are streamed in chunks: a million design points do
not need the whole text in memory.
"""

from __future__ import annotations

import csv
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from polyjoule.dse.sweep import SweepResult

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


def _rows(result: SweepResult) -> Iterator[list[tuple[Any, ...]]]:
    cols = result.columns
    n = len(result)
    for lo in range(0, n, CHUNK):
        lists = [cols[k][lo:lo + CHUNK].tolist() for k in cols]
        yield list(zip(*lists, strict=True))


def write_csv(result: SweepResult, fh: IO[str]) -> None:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(list(result.columns))
    for rows in _rows(result):
        w.writerows(rows)


def write_json(result: SweepResult, fh: IO[str]) -> None:
    """``{...metadata, "validation": ..., "points": [{column: value}, ...]}``."""
    head = {**result.meta, "validation": result.validation}
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


def _umask() -> int:
    um = os.umask(0)
    os.umask(um)
    return um


def atomic_write(path: Path, write: Callable[[IO[str]], None]) -> str:
    """Write into a temp file beside ``path`` (normal permissions); return its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            write(fh)
        os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_outputs(result: SweepResult, csv_path: str | Path | None = None,
                  json_path: str | Path | None = None) -> list[Path]:
    """Write the requested files atomically (all of them or none)."""
    jobs: list[tuple[Path, Callable[[IO[str]], None]]] = []
    if csv_path is not None:
        jobs.append((Path(csv_path), lambda fh: write_csv(result, fh)))
    if json_path is not None:
        jobs.append((Path(json_path), lambda fh: write_json(result, fh)))
    temps: list[tuple[str, Path]] = []
    try:
        for path, fn in jobs:
            temps.append((atomic_write(path, fn), path))
        for tmp, path in temps:
            os.replace(tmp, path)
    finally:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return [p for p, _ in jobs]
