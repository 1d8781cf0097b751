"""The mapspace: factorings, published sizes, partial tiles, huge extents."""

import time
from math import ceil, prod

import pytest

from polyjoule.search import mapspace
from polyjoule.search.mapspace import Mapspace
from polyjoule.search.nest import INTRINSIC, check_coverage, covered


def test_factorings_are_ordered_and_complete():
    assert mapspace.divisors(12) == (1, 2, 3, 4, 6, 12)
    assert mapspace.divisors(1) == (1,) and mapspace.divisors(49) == (1, 7, 49)
    assert mapspace.factorings(4, 2) == ((1, 4), (2, 2), (4, 1))
    assert mapspace.factorings(7, 1) == ((7,),)
    assert len(mapspace.factorings(16, 3)) == 15
    assert mapspace.residual({"M": 8, "K": 6}, {"K": 4}) is None
    assert mapspace.residual({"M": 8, "K": 6}, {"K": 4}, exact=False) == {"M": 8, "K": 2}


@pytest.mark.parametrize("n", [1, 2, 36, 97, 360, 1024, 9973 * 2])
def test_divisors_agree_with_trial_division(n):
    assert mapspace.divisors(n) == tuple(d for d in range(1, n + 1) if n % d == 0)


def test_divisors_of_huge_extents_do_not_trial_divide_up_to_n():
    t = time.process_time()
    assert mapspace.divisors(2 ** 40) == tuple(2 ** k for k in range(41))
    assert mapspace.divisors(1_000_000_007 * 2) == (1, 2, 1_000_000_007, 2_000_000_014)
    assert len(mapspace.divisors(10 ** 12)) == 169
    # up to sqrt(n) at worst: well under a second even for a 10^12 extent
    assert time.process_time() - t < 5


def _gemm_tiles(m: int, t: int = 4, maxdim: int = 16):
    return Mapspace(tuple({"M": r, "K": t, "N": t} for r in mapspace.divisors(m)
                          if r <= maxdim))


@pytest.mark.parametrize("shape,count", [((16, 16, 16), 1226), ((4, 4, 4), 4)])
def test_published_mapspace_sizes(shape, count):
    ext = dict(zip("MKN", shape, strict=True))
    nests = list(mapspace.nests(ext, _gemm_tiles(shape[0])))
    assert len(nests) == count == mapspace.size(ext, _gemm_tiles(shape[0]))
    assert len(set(nests)) == count
    for n in nests:  # every nest covers the shape and ends in its band
        assert check_coverage(n, ext) == []
        assert n[-1].level == INTRINSIC


def test_mapspace_slots_grow_it():
    ext = {"M": 16, "K": 16, "N": 16}
    assert mapspace.size(ext, _gemm_tiles(16), slots=1) < 1226


def test_partial_factorings_cover_with_the_outermost_ceiled():
    got = mapspace.partial_factorings(5, 2)
    assert got == ((5, 1), (3, 2), (2, 3), (1, 5))  # 2 trips of 4 is looser than of 3
    assert set(mapspace.factorings(6, 2)) <= set(mapspace.partial_factorings(6, 2))
    for fs in mapspace.partial_factorings(10, 3):  # covers, no whole trip past it
        inner = prod(fs[1:])
        assert fs[0] == ceil(10 / inner) and prod(fs) >= 10
        assert ceil(10 / (inner - 1)) != fs[0] if inner > 1 else True  # tightest inner
    # huge extents: O(sqrt n) outer trip counts, not n
    n = 10 ** 8
    t = time.process_time()
    outer = mapspace.partial_factorings(n, 2)
    assert len(outer) <= 2 * 10 ** 4 + 1 and (n, 1) in outer and (1, n) in outer
    assert time.process_time() - t < 5


def test_partial_mapspace_tiles_what_exact_cannot():
    ext = {"M": 10, "K": 6}
    space = Mapspace(({"M": 4, "K": 4},), exact=False)
    assert mapspace.size(ext, Mapspace(space.intrinsics)) == 0  # exact: 4 divides neither
    nests = list(mapspace.nests(ext, space))
    assert nests and len(set(nests)) == len(nests)
    for n in nests:
        assert check_coverage(n, ext, exact=False) == [], n
        cov = covered(n)
        assert cov["M"] >= 10 and cov["K"] >= 6
    # M: residual ceil(10/4) = 3, as 3 or 2x2 (in both orders) or 2>... K: ceil(6/4) = 2
    labels = {">".join(f"{lp.rank}{lp.factor}" for lp in n if lp.level != INTRINSIC)
              for n in nests}
    assert {"M3>K2", "K2>M3", "M2>M2>K2"} <= labels
    # an exact space offered as partial keeps every exact nest
    exact = set(mapspace.nests({"M": 8, "K": 8}, Mapspace(({"M": 4, "K": 4},))))
    assert exact <= set(mapspace.nests({"M": 8, "K": 8},
                                       Mapspace(({"M": 4, "K": 4},), exact=False)))
