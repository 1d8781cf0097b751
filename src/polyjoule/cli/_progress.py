"""The one progress bar of the command line: rich, on stderr, for any search or sweep that
runs over a second.

It shows only when stderr is a terminal, or when ``--progress`` asks for it (then even into
a pipe or a file); it never writes to stdout, so ``--json`` output stays clean. A command
wraps its search in :func:`progress_bar`; the search core reports through
:func:`polyjoule.search.search.reporting` (the mapper, the census, a target's own search),
a sweep through its ``progress`` callback, and both feed the same bar.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from polyjoule.model.pra import Kernel

#: Set by ``--progress`` (an option callback): show the bar even when stderr is no terminal.
_FORCED = {"on": False}


def progress_option(value: bool) -> bool:
    """Option callback of ``--progress``."""
    _FORCED["on"] = bool(value)
    return value


class LazyProgress:
    """A rich progress bar on stderr that appears only once a run has taken ``delay`` s."""

    def __init__(self, delay: float = 1.0, force: bool | None = None, console: Any = None):
        from rich.console import Console

        force = _FORCED["on"] if force is None else force
        console = console or Console(stderr=True, force_terminal=True if force else None)
        self.enabled = force or console.is_terminal
        self.progress: Any = None  # rich's bar, imported only when it can show
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                     MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                                     transient=True)
        self.tasks: dict[str, Any] = {}
        self.started = False
        self.lock = threading.Lock()
        self.timer = threading.Timer(delay, self._start)
        self.timer.daemon = True
        if self.enabled and delay <= 0:
            self._start()
        elif self.enabled:
            self.timer.start()

    def _start(self) -> None:
        with self.lock:
            if not self.started:
                self.started = True
                self.progress.start()

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        if self.progress is None:
            return
        with self.lock:
            if stage not in self.tasks:
                self.tasks[stage] = self.progress.add_task(stage, total=total)
            self.progress.update(self.tasks[stage], completed=done, total=total)

    def close(self) -> None:
        self.timer.cancel()
        with self.lock:
            if self.started:
                self.progress.stop()
                self.started = False


@contextmanager
def progress_bar(label: str | None = None, delay: float = 1.0) -> Iterator[LazyProgress]:
    """A bar for the block: every search inside reports to it; gone when the block ends
    (before the command prints its results). ``label``: a running line (elapsed time) for
    a search that does not report its advance."""
    from polyjoule.search.search import reporting

    bar = LazyProgress(delay)
    if label is not None:
        bar(label, 0, None)
    try:
        with reporting(bar):
            yield bar
    finally:
        bar.close()


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
                        delay: float = 1.0,
                        console: Any = None) -> Iterator[Callable[[int, int], None] | None]:
    """The simulator's time estimate (printed before the run) and a ``report(done, total)``
    callback feeding the one bar; None when not ``enabled``."""
    if not enabled:
        yield None
        return
    from rich.console import Console

    from polyjoule.analysis.simulator import estimate_seconds, iterations

    con = console or Console(stderr=True, highlight=False)
    est = estimate_seconds(kernel, values)
    if est >= delay:
        con.print(f"simulating {kernel.name}: {iterations(kernel, values):,} points, "
                  f"about {duration(est)} (estimate)", highlight=False)
    bar = LazyProgress(delay, force=True, console=con)
    try:
        yield lambda done, total: bar("simulating", done, total)
    finally:
        bar.close()
