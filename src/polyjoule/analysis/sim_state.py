"""The simulator's machine state: registers held for a window of bands, and the counters.

Each band of wavefronts (:mod:`~polyjoule.analysis.sim_order`) holds, per variable and per
point of the band, the value, the cycle it is ready (-1: never written) and its register
class. A band is dropped once no later wavefront can read from it (``reach`` wavefronts),
so a run holds a window of bands, never the iteration space.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyjoule.analysis.schedule import ConcreteSchedule
from polyjoule.model.pra import PRA

#: Register class codes of a held value (0: not in a PE register).
CODE = {"RD": 1, "FD": 2, "ID": 3}

Index = slice | np.ndarray  # positions in a band: a wavefront's slice, or some of them


@dataclass
class Band:
    """Registers of consecutive wavefronts: points in processing order, with their flat
    index (ascending within a wavefront) and where each wavefront sits."""

    coords: np.ndarray                 # int32, one column per point
    flat: np.ndarray                   # int64 flat index in the box
    waves: dict[int, tuple[int, int]]  # key -> [start, end) in the band
    first: int                         # first and last key of the band
    last: int
    val: dict[str, np.ndarray] = field(default_factory=dict)
    ready: dict[str, np.ndarray] = field(default_factory=dict)
    cls: dict[str, np.ndarray] = field(default_factory=dict)

    def allocate(self, variables: list[str], tdt: Any) -> None:
        m = self.flat.size
        for v in variables:
            self.val[v] = np.zeros(m)
            self.ready[v] = np.full(m, -1, dtype=tdt)
            self.cls[v] = np.zeros(m, dtype=np.int8)

    @property
    def nbytes(self) -> int:
        return (self.coords.nbytes + self.flat.nbytes
                + sum(a.nbytes for d in (self.val, self.ready, self.cls) for a in d.values()))


@dataclass
class PhaseState:
    """One phase's run: the schedule's vectors, the window of bands, the counters."""

    pra: PRA
    cs: ConcreteSchedule
    ext: np.ndarray
    strides: np.ndarray
    p: np.ndarray
    lj: np.ndarray
    lk: np.ndarray
    tiled: np.ndarray
    dram: dict[str, np.ndarray]
    written: dict[str, np.ndarray]
    violate: Any
    measure: bool
    variables: list[str]
    tdt: Any
    reach: int
    counts: dict[str, int]
    by_statement: dict[str, dict[str, int]]
    ops: dict[str, int]
    scalars: dict[str, float]
    subs: dict[str, list[tuple[np.ndarray, int]]]
    fifo_id: dict[str, int]
    window: deque[Band] = field(default_factory=deque)
    fifo: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    rd_vars: set[str] = field(default_factory=set)
    makespan: int = 0
    instances: int = 0
    peak_band_bytes: int = 0

    @property
    def band(self) -> Band:
        """The band being processed."""
        return self.window[-1]

    def enter(self, band: Band) -> None:
        """Make ``band`` current; drop the bands no wavefront of it can read from."""
        band.allocate(self.variables, self.tdt)
        while self.window and self.window[0].last < band.first - self.reach:
            self.window.popleft()
        self.window.append(band)
        self.peak_band_bytes = max(self.peak_band_bytes, sum(b.nbytes for b in self.window))

    def wave(self, key: int) -> tuple[Band, int, int] | None:
        """The band holding wavefront ``key`` and its [start, end), None if it has no point."""
        for b in reversed(self.window):
            if key in b.waves:
                return b, *b.waves[key]
        return None

    def add(self, sid: str, c: str, n: int) -> None:
        self.counts[c] += n
        self.by_statement[sid][c] = self.by_statement[sid].get(c, 0) + n

    def read(self, v: str, band: Band, at: np.ndarray, sid: str, pos: Index,
             found: np.ndarray | None = None) -> np.ndarray:
        """The values of ``v`` at positions ``pos`` of ``band``, checking each is written,
        ready by ``at`` and held in a PE register (``found``: which positions exist)."""
        r = band.ready[v][pos]
        bad = r < 0 if found is None else (r < 0) | ~found
        nbad = int(np.count_nonzero(bad))
        if nbad:
            self.violate(f"{self.pra.name}: {sid} reads {v} before it is written "
                         f"({nbad} reads)", nbad)
        late = r > at
        if nbad:
            late &= ~bad
        nlate = int(np.count_nonzero(late))
        if nlate:
            self.violate(f"{self.pra.name}: {sid} reads {v} before it is ready "
                         f"({nlate} reads)", nlate)
        wrong = band.cls[v][pos] == 0
        if nbad:
            wrong &= ~bad
        nwrong = int(np.count_nonzero(wrong))
        if nwrong:
            self.violate(f"{self.pra.name}: {sid} reads {v} from outside the PE's registers",
                         nwrong)
        return band.val[v][pos]

    def write(self, v: str, pos: Index, x: Any, at: np.ndarray, code: Any, sid: str,
              what: str | None = None) -> None:
        """Single assignment of ``v`` at positions ``pos`` of the current band: value,
        ready cycle, register class."""
        b = self.band
        again = int(np.count_nonzero(b.ready[v][pos] >= 0))
        if again:
            self.violate(what or f"{self.pra.name}: {sid} writes {v} twice at "
                         f"{again} points", again)
        b.val[v][pos] = x
        b.ready[v][pos] = at
        b.cls[v][pos] = code
