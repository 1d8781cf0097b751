"""Loop nests and refusals: the vocabulary shared by the mapspace, targets and census.

A nest is a tuple of :class:`Loop`, outermost first, ending in the intrinsic band (the
tile one instruction performs). A target that cannot lower a nest raises
:class:`Refused` carrying every cause the nest violates, so no census depends on the
order in which a target happens to check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from math import prod
from typing import NamedTuple

OUTER = "outer"
INTRINSIC = "intrinsic"


class Kind(StrEnum):
    """Why a cause refuses: the encoding cannot say it, or only a checker stops it."""

    EXPRESS = "express"  # the instruction word has no field/room for what the nest asks
    REFUSE = "refuse"  # the machine would accept it and compute wrongly or hang


class Loop(NamedTuple):
    """One loop of a nest, in ACT's field order."""

    rank: str
    factor: int
    level: str = OUTER
    spatial: bool = False


Nest = tuple[Loop, ...]


class Refused(Exception):  # noqa: N818 - the domain's word
    """A nest the target cannot lower; ``also`` lists every cause, ``cause`` first."""

    def __init__(self, cause: str, detail: str, also: Iterable[str] = (),
                 kinds: Mapping[str, Kind] | None = None) -> None:
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail
        self.also: tuple[str, ...] = tuple(dict.fromkeys((cause, *also)))
        self._kinds = kinds or {}

    @property
    def kinds(self) -> dict[str, Kind]:
        """Kind of every cause in ``also`` (express unless the target says otherwise)."""
        return {c: self.kind(c) for c in self.also}

    def kind(self, cause: str | None = None) -> Kind:
        return self._kinds.get(cause or self.cause, Kind.EXPRESS)


def refuse(found: Sequence[tuple[str, str]], kinds: Mapping[str, Kind] | None = None) -> None:
    """Raise one :class:`Refused` for every (cause, detail) found; no-op when none."""
    if found:
        raise Refused(found[0][0], found[0][1], [c for c, _ in found], kinds)


def covered(nest: Iterable[Loop]) -> dict[str, int]:
    """Product of the factors per rank."""
    out: dict[str, int] = {}
    for lp in nest:
        out[lp.rank] = out.get(lp.rank, 1) * lp.factor
    return out


def check_coverage(nest: Nest, extents: Mapping[str, int]) -> list[tuple[str, str]]:
    """Cause ``coverage`` when the factors do not multiply to the extents."""
    cov = covered(nest)
    unknown = [r for r in cov if r not in extents]
    if unknown:
        return [("coverage", f"nest names unknown rank {unknown[0]}")]
    for r, e in extents.items():
        if cov.get(r, 1) != e:
            return [("coverage", f"rank {r} covered {cov.get(r, 1)} of {e}")]
    return []


def check_sequential(nest: Nest) -> list[tuple[str, str]]:
    """Cause ``spatial``: one array, no instance index to map a spatial loop onto."""
    for lp in nest:
        if lp.spatial:
            return [("spatial", f"loop {lp.rank}{lp.factor} is spatial")]
    return []


def peel_intrinsic(nest: Nest) -> tuple[Nest, dict[str, int]]:
    """Split a nest into its emitted loops and the tile of its trailing intrinsic band."""
    if not nest or nest[-1].level != INTRINSIC:
        raise Refused("intrinsic", "nest does not end in an intrinsic band")
    i = len(nest)
    tile: dict[str, int] = {}
    while i > 0 and nest[i - 1].level == INTRINSIC:
        i -= 1
        lp = nest[i]
        tile[lp.rank] = tile.get(lp.rank, 1) * lp.factor
    emitted = nest[:i]
    for lp in emitted:
        if lp.level == INTRINSIC:
            raise Refused("intrinsic", "intrinsic loop outside the trailing band")
    return emitted, tile


def order(nest: Iterable[Loop]) -> str:
    """Label like ``N4>K4>M16>K4>N4``; ``-`` for an empty nest."""
    return ">".join(f"{lp.rank}{lp.factor}" for lp in nest) or "-"


def emitted_order(nest: Iterable[Loop]) -> str:
    """Label over the non-intrinsic loops only: the candidate label (``N4>K4``)."""
    return order(lp for lp in nest if lp.level != INTRINSIC)


def tile_rows(nest: Iterable[Loop], rank: str) -> int:
    """Factor of ``rank`` covered by the intrinsic band (1 when absent)."""
    return prod(lp.factor for lp in nest if lp.level == INTRINSIC and lp.rank == rank)
