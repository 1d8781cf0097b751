"""A machine as data: memory spaces, and per opcode the units it loads and the regions it touches.

A target declares its machine with these classes; the scheduler prices any program
that the target turns into :class:`Step` s. Nothing here knows a particular machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from polyjoule.errors import MachineError


class Region(NamedTuple):
    """Rows ``[start, start + length)`` of one memory space."""

    space: str
    start: int
    length: int

    def overlaps(self, other: Region) -> bool:
        return (self.space == other.space and self.start < other.start + other.length
                and other.start < self.start + self.length)


@dataclass(frozen=True)
class Space:
    """A named memory with a row count."""

    name: str
    rows: int


Fields = Mapping[str, int]  # resolved fields of one issue, named as the target names them
RegionFn = Callable[[Fields], "Region | Iterable[Region] | None"]


@dataclass(frozen=True)
class Opcode:
    """Per-unit work functions, and the regions one issue reads and writes."""

    code: int
    name: str
    loads: tuple[tuple[str, Callable[[Fields], int]], ...]
    reads: tuple[RegionFn, ...] = ()
    writes: tuple[RegionFn, ...] = ()


@dataclass(frozen=True)
class Step:
    """One fetch priced: unit loads (work > 0 only) and touched regions."""

    index: int
    name: str
    loads: tuple[tuple[str, int], ...]
    reads: tuple[Region, ...] = ()
    writes: tuple[Region, ...] = ()
    control: bool = False  # a fetch with no data effect (loop, endloop)

    @property
    def duration(self) -> int:
        return max((w for _, w in self.loads), default=0)

    @property
    def units(self) -> tuple[str, ...]:
        return tuple(u for u, _ in self.loads)


def _regions(fns: Iterable[RegionFn], fields: Fields) -> tuple[Region, ...]:
    out: list[Region] = []
    for fn in fns:
        got = fn(fields)
        if got is None:
            continue
        if isinstance(got, Region):
            out.append(got)
        else:
            out.extend(got)
    return tuple(out)


@dataclass(frozen=True)
class Machine:
    """Spaces, opcodes, and a per-issue load every issue pays (e.g. a fetch unit's
    initiation interval)."""

    name: str
    spaces: tuple[Space, ...]
    opcodes: tuple[Opcode, ...]
    issue_load: tuple[tuple[str, int], ...] = ()
    _by_code: dict[int, Opcode] = field(default_factory=dict, init=False, repr=False,
                                        compare=False)

    def __post_init__(self) -> None:
        self._by_code.update({op.code: op for op in self.opcodes})

    def opcode(self, code: int) -> Opcode:
        try:
            return self._by_code[int(code)]
        except KeyError:
            raise MachineError(f"machine {self.name}: opcode {int(code)} not declared") from None

    def step(self, index: int, code: int, fields: Fields) -> Step:
        """Price one data issue with resolved ``fields``."""
        op = self.opcode(code)
        loads: list[tuple[str, int]] = list(self.issue_load)
        for unit, fn in op.loads:
            w = int(fn(fields))
            if w > 0:
                loads.append((unit, w))
        return Step(index, op.name, tuple(loads), _regions(op.reads, fields),
                    _regions(op.writes, fields))

    def control_step(self, index: int, name: str = "control") -> Step:
        """A fetch with no data effect (loop, endloop): only the per-issue load."""
        return Step(index, name, self.issue_load, control=True)

