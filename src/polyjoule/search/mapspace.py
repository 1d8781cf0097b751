"""The mapspace: ordered factorings of each rank's residual x permutations of the loops.

Every nest is (permutation of the outer loops) + (the target's intrinsic band). Outer
loops of factor 1 are dropped; duplicate permutations (``N2>N2``) are yielded once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from itertools import permutations, product

from polyjoule.search.nest import INTRINSIC, OUTER, Loop, Nest


@cache
def divisors(n: int) -> tuple[int, ...]:
    """Divisors of ``n``, ascending."""
    return tuple(d for d in range(1, n + 1) if n % d == 0)


@cache
def factorings(n: int, slots: int) -> tuple[tuple[int, ...], ...]:
    """All ordered ``slots``-tuples of positive integers with product ``n``."""
    if slots <= 1:
        return ((n,),)
    return tuple((d, *rest) for d in divisors(n) for rest in factorings(n // d, slots - 1))


def residual(extents: Mapping[str, int], tile: Mapping[str, int]) -> dict[str, int] | None:
    """Per rank ``extent / tile``; ``None`` when a tile does not divide its extent."""
    out = {}
    for r, e in extents.items():
        t = tile.get(r, 1)
        if t < 1 or e % t:
            return None
        out[r] = e // t
    return out


def nests(extents: Mapping[str, int], intrinsics: Iterable[Mapping[str, int]],
          slots: int = 2) -> Iterator[Nest]:
    """Every nest, intrinsic by intrinsic in the target's order, each yielded once."""
    ranks = list(extents)
    seen: set[Nest] = set()
    for tile in intrinsics:
        res = residual(extents, tile)
        if res is None:
            continue
        tail = tuple(Loop(r, tile[r], INTRINSIC) for r in ranks if tile.get(r, 1) != 1)
        for combo in product(*(factorings(res[r], slots) for r in ranks)):
            outer = [Loop(r, f, OUTER) for r, fs in zip(ranks, combo, strict=True)
                     for f in fs if f != 1]
            for perm in permutations(outer):
                nest = (*perm, *tail)
                if nest not in seen:
                    seen.add(nest)
                    yield nest


def size(extents: Mapping[str, int], intrinsics: Iterable[Mapping[str, int]],
         slots: int = 2) -> int:
    """Number of nests :func:`nests` yields."""
    return sum(1 for _ in nests(extents, intrinsics, slots))
