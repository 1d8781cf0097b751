"""Run one bad input through the command line and judge the outcome.

The promise (docs, issue 14): bad input gets exit 2, one line on stderr that starts with
``polyjoule: error:``, no traceback, quickly. A case is a command line plus the files it
reads; most run in-process (``CliRunner(app)``, ``catch_exceptions=False`` so that any
escaping exception fails the test), a few through a real subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from typer.testing import CliRunner

import polyjoule
from polyjoule.cli import app

TIME_LIMIT_S = 20.0  # generous on a loaded 2-core machine; a hang is minutes
FALLBACK = "input nested too deeply to read"  # the safety net: a missing limit, not a pass


@dataclass(frozen=True)
class FuzzCase:
    """A bad input: the command line and the files to write first (name -> bytes)."""

    surface: str
    label: str
    args: tuple[str, ...]
    files: dict[str, bytes] = field(default_factory=dict)
    needle: str = ""  # text the error line must contain (empty: any)

    def materialise(self, folder: Path) -> list[str]:
        for name, data in self.files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        return [a.replace("{dir}", str(folder)) for a in self.args]


def problems(code: int, stderr: str, seconds: float, needle: str) -> list[str]:
    """What is wrong with an outcome (empty: the promise held)."""
    out = []
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    if code != 2:
        out.append(f"exit {code}, not 2")
    if "Traceback" in stderr:
        out.append("traceback")
    if len(lines) != 1 or not lines[0].startswith("polyjoule: error: "):
        out.append(f"not one error line: {stderr[-400:]!r}")
    elif FALLBACK in lines[0]:
        out.append("reached the RecursionError safety net (no limit checked first)")
    if needle and needle not in stderr:
        out.append(f"message lacks {needle!r}: {stderr.strip()[:200]!r}")
    if seconds > TIME_LIMIT_S:
        out.append(f"took {seconds:.1f} s")
    return out


def run_in_process(case: FuzzCase, folder: Path) -> list[str]:
    """The case through ``CliRunner(app)``: what :func:`problems` finds."""
    args = case.materialise(folder)
    runner = CliRunner()
    t0 = time.perf_counter()
    try:
        r = runner.invoke(app, args, catch_exceptions=False)
    except Exception as e:  # noqa: BLE001 - an escaping exception is the failure reported
        return [f"traceback: {type(e).__name__}: {str(e)[:200]}"]
    return problems(r.exit_code, r.stderr, time.perf_counter() - t0, case.needle)


def run_subprocess(case: FuzzCase, folder: Path) -> list[str]:
    """The case through ``python -m polyjoule`` (the console entry point)."""
    args = case.materialise(folder)
    src = str(Path(polyjoule.__file__).resolve().parents[1])  # this checkout, not an install
    env = dict(os.environ, COLUMNS="240",
               PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-m", "polyjoule", *args], capture_output=True,
                           text=True, timeout=TIME_LIMIT_S * 3, env=env, cwd=folder)
    except subprocess.TimeoutExpired:
        return ["hang: no answer"]
    return problems(r.returncode, r.stderr, time.perf_counter() - t0 - 2.0, case.needle)
