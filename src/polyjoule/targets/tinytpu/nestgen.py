"""Loop-nest program generator: hardware loops, mixed-radix address terms, budget checks.

The TinyTPU target lowers a nest by driving a :class:`NestGen`: open a hardware loop
per nest loop, emit instructions whose address fields walk the open loops, close. The
generator refuses what the instruction words cannot say, with a code the census uses:
``trip-count`` (a loop of < 1 trips runs once anyway), ``LOOP_DEPTH`` (a level past the
loop stack), ``AGU_TERMS`` (more address terms than word 1 holds). A foreign or stale
induction variable, or an unclosed loop, is a generator bug: no code.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from polyjoule.errors import NestError
from polyjoule.targets.tinytpu.isa import Instr, Op, Term
from polyjoule.targets.tinytpu.params import Config


@dataclass(frozen=True)
class Frame:
    """One open hardware loop: its level, trip count and the nest rank it walks (if any)."""

    level: int
    trip: int
    rank: str | None


class NestGen:
    """Builds one program; levels are opened in nesting order (outermost = level 0)."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.program: list[Instr] = []
        self.frames: list[Frame] = []

    @property
    def depth(self) -> int:
        return len(self.frames)

    def open(self, trip: int, rank: str | None = None) -> int:
        """Open a hardware loop of ``trip`` trips; returns its level."""
        if trip < 1:
            raise NestError(f"loop of {trip} trips (a do-while loop runs its body once)",
                            "trip-count")
        if self.depth >= self.cfg.LOOP_DEPTH:
            raise NestError(f"opening level {self.depth} needs more than "
                            f"LOOP_DEPTH={self.cfg.LOOP_DEPTH} levels", "LOOP_DEPTH")
        self.program.append(Instr(Op.LOOP, nr=trip))
        self.frames.append(Frame(self.depth, trip, rank))
        return self.depth - 1

    def close(self) -> None:
        if not self.frames:
            raise NestError("endloop with no open loop")
        self.frames.pop()
        self.program.append(Instr(Op.ENDLOOP))

    def terms(self, field: int, rank: str, unit: int) -> list[Term]:
        """Mixed-radix address terms of ``rank`` over the open loops, innermost first.

        Each open loop of ``rank`` contributes (its level, current step); then the step
        grows by that loop's trip count.
        """
        out: list[Term] = []
        step = unit
        for fr in reversed(self.frames):
            if fr.rank == rank:
                out.append(Term(field, fr.level, step))
                step *= fr.trip
        return out

    def tile_terms(self, field: int, ranks: Iterable[str], unit: int,
                   below: int = 0) -> list[Term]:
        """Terms indexing a tile by every open loop of ``ranks`` at level >= ``below``."""
        rs = set(ranks)
        out: list[Term] = []
        step = unit
        for fr in reversed(self.frames):
            if fr.level < below:
                break
            if fr.rank in rs:
                out.append(Term(field, fr.level, step))
                step *= fr.trip
        return out

    def span(self, ranks: Iterable[str], below: int = 0) -> int:
        """Number of tiles the open loops of ``ranks`` at level >= ``below`` walk."""
        rs = set(ranks)
        n = 1
        for fr in self.frames:
            if fr.level >= below and fr.rank in rs:
                n *= fr.trip
        return n

    def emit(self, op: Op, f: tuple[int, int, int, int], nr: int,
             terms: Iterable[Term] = ()) -> None:
        """Append one data instruction; terms are ordered by field, stably."""
        ts = sorted(terms, key=lambda t: t.field)
        if len(ts) > self.cfg.AGU_TERMS:
            raise NestError(f"{op.name.lower()} needs {len(ts)} address terms > "
                            f"AGU_TERMS={self.cfg.AGU_TERMS}", "AGU_TERMS")
        for t in ts:
            if t.level >= self.depth:
                raise NestError(f"{op.name.lower()}: term names level {t.level}, not open")
        self.program.append(Instr(op, f, nr, tuple(ts)))

    def done(self) -> list[Instr]:
        """The finished program; every loop must be closed."""
        if self.frames:
            raise NestError(f"{self.depth} loop(s) never closed")
        return list(self.program)
