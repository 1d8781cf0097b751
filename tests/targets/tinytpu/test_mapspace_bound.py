"""The TinyTPU-isa mapspace is counted before it is enumerated, and refused past a limit.

A GEMM with highly composite extents (host blocks over 720720 rows) or many slots used
to be enumerated whole: 3,003,992 nests were two thirds done after 48 s in 4.1 GB; bmm
720x16x16x16 at four slots (about 2.6e11 nests) never finished.
"""

import time

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.errors import ResourceLimitError
from polyjoule.library.workloads import get
from polyjoule.search import mapspace
from polyjoule.search.census import independent
from polyjoule.search.search import Problem, search
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.target import TinyTPUTarget

TGT = TinyTPUTarget(Config(MAXDIM=16))


def _space(workload, extents):
    wl = get(workload)
    ext = {r: extents[r] for r in wl.ranks}
    return ext, TGT.mapspace(wl, ext)


@pytest.mark.parametrize("workload, extents, slots", [
    ("gemm", {"M": 16, "K": 16, "N": 16}, 2),  # the published 1,226
    ("gemm", {"M": 16, "K": 16, "N": 16}, 3),
    ("gemm", {"M": 6, "K": 8, "N": 8}, 3),
    ("gemm", {"M": 48, "K": 16, "N": 64}, 2),  # host blocks: one band per block shape
    ("gemm", {"M": 12, "K": 8, "N": 24}, 4),
    ("relu", {"M": 16, "B": 2, "J": 4, "N": 8}, 2),  # four ranks
    ("bmm", {"B": 6, "M": 8, "K": 8, "N": 8}, 2),
])
def test_the_count_is_the_number_of_nests_enumerated(workload, extents, slots):
    ext, space = _space(workload, extents)
    assert mapspace.count(ext, space, slots) == mapspace.size(ext, space, slots)


def test_the_published_mapspace_counts():
    ext, space = _space("gemm", {"M": 16, "K": 16, "N": 16})
    assert mapspace.count(ext, space, 2) == 1226  # act-mapper sheet §4
    ext, space = _space("gemm", {"M": 4, "K": 4, "N": 4})
    assert mapspace.count(ext, space, 2) == 4


def test_ordered_factorings_by_inclusion_exclusion():
    def listed(n, length):
        return sum(1 for t in mapspace.factorings(n, length) if 1 not in t) if length else \
            int(n == 1)

    for n in (1, 2, 12, 16, 36, 720):
        for length in range(4):
            assert mapspace.ordered_factorings(n, length) == listed(n, length), (n, length)


def test_a_search_past_its_limit_is_refused_before_any_nest_is_lowered():
    problem = Problem(get("gemm"), {"M": 16, "K": 16, "N": 16})
    with pytest.raises(ResourceLimitError, match=r"^gemm 16x16x16: the mapspace at slots 2 "
                       r"holds 1,226 nests .* limit of 1,000: use fewer slots"):
        search(problem, TGT, 2, max_nests=1000)
    assert search(problem, TGT, 2, max_nests=1226).considered == 1226


def test_huge_composite_extents_and_many_slots_are_counted_not_enumerated():
    start = time.perf_counter()
    big = Problem(get("gemm"), {"M": 720720, "K": 16, "N": 720720})
    with pytest.raises(ResourceLimitError, match="holds 3,003,992 nests"):
        search(big, TGT, 2)
    with pytest.raises(ResourceLimitError, match="slots 4 holds 257,656,102,314 nests"):
        independent(Problem(get("bmm"), {"B": 720, "M": 16, "K": 16, "N": 16}), TGT, 4)
    assert time.perf_counter() - start < 5


def test_map_refuses_in_one_line_naming_the_workload_the_count_and_the_limit():
    r = CliRunner().invoke(app, ["map", "gemm", "720720x16x720720", "--target",
                                 "tinytpu-isa", "--no-verify"])
    errors = [ln for ln in r.output.splitlines() if ln.startswith("polyjoule:")]
    assert r.exit_code == 2 and len(errors) == 1, r.output
    assert errors[0] == ("polyjoule: error: gemm 720720x16x720720: the mapspace at slots 2 "
                         "holds 3,003,992 nests (counted before enumerating), over the "
                         "search's limit of 1,000,000: use fewer slots (map --slots) or "
                         "extents with fewer divisors")
