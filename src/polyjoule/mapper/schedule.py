"""In-order list scheduler over machine steps: makespan, unit loads, bottleneck.

Steps run in program order; a step starts when every earlier step it conflicts with
(write after read/write, read after write, on overlapping regions) has finished and
every unit it loads is free. Dependences are finish-to-start per instruction: no
row-level overlap is modelled, which is why the model under-predicts RTL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from polyjoule.errors import PolyjouleError
from polyjoule.mapper.machine import Region, Step


class StepError(PolyjouleError):
    """Steps with repeated indices (not a program order)."""


@dataclass(frozen=True)
class Schedule:
    """Begin/finish per step, total work per unit, makespan."""

    steps: tuple[Step, ...]
    begin: tuple[int, ...]
    finish: tuple[int, ...]
    unit_load: dict[str, int]
    preds: tuple[tuple[int, ...], ...]

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
        """Positions of the steps on one longest chain ending at the makespan."""
        if not self.steps:
            return []
        i = max(range(len(self.steps)), key=lambda j: (self.finish[j], -j))
        path = [i]
        while True:
            ps = [p for p in self.preds[i] if self.finish[p] == self.begin[i]]
            if not ps:
                break
            i = ps[-1]
            path.append(i)
        return path[::-1]


def _hit(a: Sequence[Region], b: Sequence[Region]) -> bool:
    return any(x.overlaps(y) for x in a for y in b)


def run(steps: Sequence[Step]) -> Schedule:
    """Schedule ``steps`` in order (exactly the ACT scheduler)."""
    if len({s.index for s in steps}) != len(steps):
        raise StepError("steps: repeated index")
    busy: dict[str, int] = {}
    load: dict[str, int] = {}
    begin: list[int] = []
    finish: list[int] = []
    preds: list[tuple[int, ...]] = []
    touched: list[int] = []  # positions of earlier steps that touch any region
    for i, s in enumerate(steps):
        ps: list[int] = []
        if s.reads or s.writes:
            for j in touched:
                e = steps[j]
                if _hit(s.writes, e.reads) or _hit(s.writes, e.writes) or _hit(s.reads, e.writes):
                    ps.append(j)
            touched.append(i)
        ready = max((finish[j] for j in ps), default=0)
        b = max([ready, *(busy.get(u, 0) for u, _ in s.loads)])
        begin.append(b)
        finish.append(b + s.duration)
        for u, w in s.loads:
            busy[u] = b + w
            load[u] = load.get(u, 0) + w
        preds.append(tuple(ps))
    return Schedule(tuple(steps), tuple(begin), tuple(finish), load, tuple(preds))
