"""A simulation's time estimate and progress bar, on stderr: stdout stays the result.

Shown on a terminal (or with ``--progress``); the bar appears only once a run has taken a
second, so short runs print nothing but their result.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from polyjoule.model.pra import Kernel

Report = Callable[[int, int], None]


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``2.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def wanted(flag: bool | None, as_json: bool) -> bool:
    """``--progress``/``--no-progress`` as given; else on a terminal, and not with --json."""
    if flag is not None:
        return flag
    return not as_json and sys.stderr.isatty()


@contextmanager
def simulation_progress(kernel: Kernel, values: Mapping[str, int], enabled: bool,
                        delay: float = 1.0, console: Any = None) -> Iterator[Report | None]:
    """The estimate (before the run) and a ``progress(done, total)`` callback drawing a
    bar after ``delay`` seconds; None when not ``enabled``."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from polyjoule.analysis.simulator import estimate_seconds, iterations

    con = console or Console(stderr=True, highlight=False)
    est = estimate_seconds(kernel, values)
    if est >= delay:
        con.print(f"simulating {kernel.name}: {iterations(kernel, values):,} points, "
                  f"about {duration(est)} (estimate)", highlight=False)
    bar = Progress(TextColumn("simulating"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                   TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                   console=con, transient=True)
    t0 = time.monotonic()
    task: list[Any] = []

    def report(done: int, total: int) -> None:
        if not task:
            if time.monotonic() - t0 < delay:
                return
            bar.start()
            task.append(bar.add_task("simulating", total=total))
        bar.update(task[0], completed=done)

    try:
        yield report
    finally:
        if task:
            bar.stop()
