"""Loop nests and refusals: the vocabulary shared by the mapspace, targets and census.

A nest is a tuple of :class:`MapLoop`, outermost first, ending in the intrinsic band
(the tile one instruction performs). A target that cannot lower a nest raises
:class:`~polyjoule.errors.Refused` carrying every cause the nest violates, so no census
depends on the order in which a target happens to check. ``Refused`` and its
:class:`~polyjoule.errors.Kind` are defined in :mod:`polyjoule.errors` and re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from math import prod
from typing import NamedTuple

from polyjoule.errors import Kind, Refused

__all__ = ["INTRINSIC", "OUTER", "Kind", "MapLoop", "MapNest", "Refused", "check_coverage",
           "check_sequential", "covered", "emitted_order", "order", "peel_intrinsic",
           "refuse", "tile_rows"]

OUTER = "outer"
INTRINSIC = "intrinsic"


class MapLoop(NamedTuple):
    """One loop of a mapping nest, outermost first (the loop-nest model has its own
    ``Loop``)."""

    rank: str
    factor: int
    level: str = OUTER
    spatial: bool = False


MapNest = tuple[MapLoop, ...]


def refuse(found: Sequence[tuple[str, str]], kinds: Mapping[str, Kind] | None = None) -> None:
    """Raise one :class:`Refused` for every (cause, detail) found; no-op when none."""
    if found:
        raise Refused(found[0][0], found[0][1], [c for c, _ in found], kinds)


def covered(nest: Iterable[MapLoop]) -> dict[str, int]:
    """Product of the factors per rank."""
    out: dict[str, int] = {}
    for lp in nest:
        out[lp.rank] = out.get(lp.rank, 1) * lp.factor
    return out


def check_coverage(nest: MapNest, extents: Mapping[str, int],
                   exact: bool = True) -> list[tuple[str, str]]:
    """Cause ``coverage`` when the factors do not multiply to the extents (``exact``), or
    (partial tiles) fall short of them or leave a whole outer trip past them."""
    cov = covered(nest)
    unknown = [r for r in cov if r not in extents]
    if unknown:
        return [("coverage", f"nest names unknown rank {unknown[0]}")]
    for r, e in extents.items():
        c = cov.get(r, 1)
        if c != e and (exact or c < e or _overshoots(nest, r, e)):
            return [("coverage", f"rank {r} covered {c} of {e}")]
    return []


def _overshoots(nest: MapNest, rank: str, extent: int) -> bool:
    """A whole trip of ``rank``'s outermost (outer) loop lies past ``extent``."""
    loops = [lp for lp in nest if lp.rank == rank]
    if not loops or loops[0].level == INTRINSIC:
        return False
    return (loops[0].factor - 1) * prod(lp.factor for lp in loops[1:]) >= extent


def check_sequential(nest: MapNest) -> list[tuple[str, str]]:
    """Cause ``spatial``: one array, no instance index to map a spatial loop onto."""
    for lp in nest:
        if lp.spatial:
            return [("spatial", f"loop {lp.rank}{lp.factor} is spatial")]
    return []


def peel_intrinsic(nest: MapNest) -> tuple[MapNest, dict[str, int]]:
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


def order(nest: Iterable[MapLoop]) -> str:
    """Label like ``N4>K4>M16>K4>N4``; ``-`` for an empty nest."""
    return ">".join(f"{lp.rank}{lp.factor}" for lp in nest) or "-"


def emitted_order(nest: Iterable[MapLoop]) -> str:
    """Label over the non-intrinsic loops only: the candidate label (``N4>K4``)."""
    return order(lp for lp in nest if lp.level != INTRINSIC)


def tile_rows(nest: Iterable[MapLoop], rank: str) -> int:
    """Factor of ``rank`` covered by the intrinsic band (1 when absent)."""
    return prod(lp.factor for lp in nest if lp.level == INTRINSIC and lp.rank == rank)
