"""In-order list scheduler over machine steps: makespan, unit loads, bottleneck.

Steps run in program order; a step starts when every earlier step it conflicts with
(write after read/write, read after write, on overlapping regions) has finished and
every unit it loads is free. Dependences are finish-to-start per instruction: no
row-level overlap is modelled, which is why the model under-predicts RTL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat

from polyjoule.analysis.machine import Step
from polyjoule.errors import StepError


@dataclass(frozen=True)
class Timeline:
    """Begin/finish per step, total work per unit, makespan (of one in-order run)."""

    steps: tuple[Step, ...]
    begin: tuple[int, ...]
    finish: tuple[int, ...]
    unit_load: dict[str, int]
    blame: tuple[int | None, ...]  # the step whose finish (or unit release) set each begin

    @property
    def makespan(self) -> int:
        return max(self.finish, default=0)

    @property
    def bottleneck(self) -> tuple[str, int]:
        """Unit with the largest total load (ties by name)."""
        if not self.unit_load:
            return ("-", 0)
        unit = min(self.unit_load, key=lambda u: (-self.unit_load[u], u))
        return unit, self.unit_load[unit]

    def critical_path(self) -> list[int]:
        """Positions of the steps on one chain (dependences and unit occupancy) ending at
        the makespan."""
        if not self.steps:
            return []
        i: int | None = max(range(len(self.steps)), key=lambda j: (self.finish[j], -j))
        path = []
        while i is not None:
            path.append(i)
            i = self.blame[i]
        return path[::-1]


def run(steps: Sequence[Step]) -> Timeline:
    """Schedule ``steps`` in order (exactly the ACT scheduler).

    A step is ready when every earlier conflicting step has finished. Instead of
    comparing regions pairwise, each row keeps the latest finish (and its step) of the
    writes and of the reads that touched it: the maximum over rows equals the maximum
    over conflicting steps, so the result is identical and linear in rows touched.
    """
    if len({s.index for s in steps}) != len(steps):
        raise StepError("steps: repeated index")
    busy: dict[str, int] = {}
    load: dict[str, int] = {}
    begin: list[int] = []
    finish: list[int] = []
    blame: list[int | None] = []
    last: dict[str, int] = {}  # unit -> position of the step that last loaded it
    # per space and row: (finish, position) of the latest-finishing write / read
    wrote: dict[str, dict[int, tuple[int, int]]] = {}
    read: dict[str, dict[int, tuple[int, int]]] = {}
    none = (0, -1)
    for i, s in enumerate(steps):
        dep = none
        for regions, tables in ((s.reads, (wrote,)), (s.writes, (wrote, read))):
            for r in regions:
                for table in tables:
                    w = table.get(r.space)
                    if w and r.length > 0:
                        dep = max(dep, max(map(w.get, range(r.start, r.start + r.length),
                                               repeat(none, r.length))))
        ready = dep[0]
        b = max([ready, *(busy.get(u, 0) for u, _ in s.loads)])
        why: int | None = dep[1] if dep[1] >= 0 and ready == b else None
        if why is None and b > 0:
            why = next((last[u] for u, _ in s.loads if u in last and busy[u] == b), None)
        blame.append(why)
        begin.append(b)
        end = b + s.duration
        finish.append(end)
        for u, w in s.loads:
            busy[u] = b + w
            load[u] = load.get(u, 0) + w
            last[u] = i
        for regions, table in ((s.reads, read), (s.writes, wrote)):
            for r in regions:
                rows = table.setdefault(r.space, {})
                mark = (end, i)
                for row in range(r.start, r.start + r.length):
                    if rows.get(row, none) < mark:
                        rows[row] = mark
    return Timeline(tuple(steps), tuple(begin), tuple(finish), load, tuple(blame))
