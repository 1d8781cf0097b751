"""The mapspace: ordered factorings of each rank's residual x permutations of the loops.

A target supplies the building blocks as a :class:`Mapspace`: its intrinsic tiles (the
band one instruction performs), in the order it wants them tried, and its tiling rule.
Every nest is (permutation of the outer loops) + (one intrinsic band). Outer loops of
factor 1 are dropped; duplicate permutations (``N2>N2``) are yielded once.

Tiling rules: ``exact`` (every tile divides its extent; a tile that does not is
skipped) or partial (``exact=False``: the last tile of a rank may be cut short, so the
residual is ``ceil(extent / tile)`` and the outermost loop of a rank runs
``ceil(residual / inner)`` trips; a nest that leaves a whole trip past the extent is
never yielded).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import permutations, product
from math import comb, prod

from polyjoule.errors import ResourceLimitError
from polyjoule.search.nest import INTRINSIC, OUTER, MapLoop, MapNest, check_coverage

MAX_SLOTS = 4  # outer loops per rank: the mapspace grows ~ (divisor tuples)^ranks x perms;
# 16x16x16 at 5 slots already takes about a minute, at 6 it does not finish
#: the most nests one search enumerates: every nest is lowered and the seen set holds them
#: all (736,236 nests of one 64x64x64 GEMM at 3 slots took 202 s and 1.9 GB; 3,003,992
#: were two thirds done after 48 s in 4.1 GB), so past it a mapspace is refused, counted
#: first
MAX_NESTS = 1_000_000


@dataclass(frozen=True)
class Mapspace:
    """What a target offers a workload at a shape: intrinsic tiles and the tiling rule."""

    intrinsics: tuple[Mapping[str, int], ...]
    exact: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "intrinsics", tuple(self.intrinsics))


@cache
def divisors(n: int) -> tuple[int, ...]:
    """Divisors of ``n``, ascending (from its factorisation: no trial up to ``n``)."""
    divs = [1]
    for p, k in _factorise(n):
        divs = [d * p ** e for d in divs for e in range(k + 1)]
    return tuple(sorted(divs))


def _factorise(n: int) -> list[tuple[int, int]]:
    """Prime powers of ``n`` by trial division up to the square root of what is left."""
    out: list[tuple[int, int]] = []
    p = 2
    while p * p <= n:
        k = 0
        while n % p == 0:
            n //= p
            k += 1
        if k:
            out.append((p, k))
        p += 1 if p == 2 else 2
    if n > 1:
        out.append((n, 1))
    return out


@cache
def factorings(n: int, slots: int) -> tuple[tuple[int, ...], ...]:
    """All ordered ``slots``-tuples of positive integers with product ``n``."""
    if slots <= 1:
        return ((n,),)
    return tuple((d, *rest) for d in divisors(n) for rest in factorings(n // d, slots - 1))


@cache
def partial_factorings(n: int, slots: int) -> tuple[tuple[int, ...], ...]:
    """Ordered ``slots``-tuples covering ``n``: an outermost factor ``f = ceil(n / P)`` over
    every exact factoring of ``P``, the smallest inner product with that ``f`` (the
    tightest tile for ``f`` trips; the exact factorings are among them)."""
    if slots <= 1:
        return ((n,),)
    return tuple((-(-n // p), *inner) for p in _tight_inner(n)
                 for inner in factorings(p, slots - 1))


def _tight_inner(n: int) -> Iterator[int]:
    """Ascending ``P``, each the smallest with its ``ceil(n / P)``: O(sqrt n) of them."""
    p = 1
    while p <= n:
        f = -(-n // p)
        yield p
        if f == 1:
            return
        p = (n - 1) // (f - 1) + 1


def residual(extents: Mapping[str, int], tile: Mapping[str, int],
             exact: bool = True) -> dict[str, int] | None:
    """Per rank ``extent / tile`` (``ceil`` when not ``exact``); ``None`` when an exact
    tile does not divide its extent, or a tile is < 1."""
    out = {}
    for r, e in extents.items():
        t = tile.get(r, 1)
        if t < 1 or (exact and e % t):
            return None
        out[r] = -(-e // t)
    return out


def nests(extents: Mapping[str, int], space: Mapspace, slots: int = 2) -> Iterator[MapNest]:
    """Every nest, intrinsic by intrinsic in the target's order, each yielded once."""
    ranks = list(extents)
    partial = not space.exact
    split = partial_factorings if partial else factorings
    seen: set[MapNest] = set()
    for tile in space.intrinsics:
        res = residual(extents, tile, space.exact)
        if res is None:
            continue
        tail = tuple(MapLoop(r, tile[r], INTRINSIC) for r in ranks if tile.get(r, 1) != 1)
        for combo in product(*(split(res[r], slots) for r in ranks)):
            outer = [MapLoop(r, f, OUTER) for r, fs in zip(ranks, combo, strict=True)
                     for f in fs if f != 1]
            for perm in permutations(outer):
                nest = (*perm, *tail)
                if nest in seen or (partial and check_coverage(nest, extents, exact=False)):
                    continue
                seen.add(nest)
                yield nest


def size(extents: Mapping[str, int], space: Mapspace, slots: int = 2) -> int:
    """Number of nests :func:`nests` yields."""
    return sum(1 for _ in nests(extents, space, slots))


@cache
def ordered_factorings(n: int, length: int) -> int:
    """How many ordered ``length``-tuples of integers > 1 multiply to ``n``: inclusion-
    exclusion over the tuples of integers >= 1 (``prod C(e + k - 1, k - 1)`` over the
    prime powers ``p**e`` of ``n``), so no tuple is listed."""
    exps = [e for _, e in _factorise(n)]

    def at_least_one(k: int) -> int:
        return int(n == 1) if k == 0 else prod(comb(e + k - 1, k - 1) for e in exps)

    return sum((-1) ** j * comb(length, j) * at_least_one(length - j)
               for j in range(length + 1))


def count(extents: Mapping[str, int], space: Mapspace, slots: int = 2) -> int | None:
    """How many nests :func:`nests` yields, without enumerating them; ``None`` for a
    partial tiling (its coverage filter is not counted).

    A nest is one interleaving of per-rank sequences of outer factors > 1, each an
    ordered factoring of the rank's residual into at most ``slots`` factors, then its
    intrinsic band; so per band it is the sum over per-rank lengths of the multinomial
    of the lengths times each rank's ordered factorings of that length.
    """
    if not space.exact:
        return None
    ranks = list(extents)
    total = 0
    bands: set[tuple[tuple[str, int], ...]] = set()
    for tile in space.intrinsics:
        res = residual(extents, tile, exact=True)
        band = tuple((r, tile[r]) for r in ranks if tile.get(r, 1) != 1)
        if res is None or band in bands:
            continue
        bands.add(band)
        ways = {0: 1}  # loops so far -> nests of the ranks so far with that many loops
        for r in ranks:
            step: dict[int, int] = {}
            for length in range(slots + 1):
                seqs = ordered_factorings(res[r], length)
                if not seqs:
                    continue
                for loops, w in ways.items():  # this rank's loops interleave anywhere
                    both = loops + length
                    step[both] = step.get(both, 0) + w * seqs * comb(both, length)
            ways = step
        total += sum(ways.values())
    return total


def check_count(title: str, extents: Mapping[str, int], space: Mapspace, slots: int = 2,
                limit: int = MAX_NESTS) -> None:
    """Refuse, before enumerating, a mapspace of more than ``limit`` nests
    (:class:`ResourceLimitError`, one line naming the problem, the count and the limit)."""
    n = count(extents, space, slots)
    if n is not None and n > limit:
        raise ResourceLimitError(f"{title}: the mapspace at slots {slots} holds {n:,} nests "
                                 f"(counted before enumerating), over the search's limit of "
                                 f"{limit:,}: use fewer slots (map --slots) or extents with "
                                 "fewer divisors")


def untileable(extents: Mapping[str, int], tiles: Sequence[Mapping[str, int]]) -> list[str]:
    """Why the last tile does not divide the shape, one phrase per rank."""
    last = tiles[-1] if tiles else {}
    return [f"{r}={e} is not a multiple of {last.get(r, 1)}"
            for r, e in extents.items() if e % last.get(r, 1)]
