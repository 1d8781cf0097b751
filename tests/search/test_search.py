"""Search against a toy target: the core needs no real machine."""

import pytest

from polyjoule.errors import InfeasibleMapping, Kind, SpecError
from polyjoule.library.workloads import get
from polyjoule.search import census, mapspace
from polyjoule.search.nest import covered
from polyjoule.search.search import Problem, search


@pytest.fixture
def problem():
    return Problem(get("gemm"), {"M": 8, "K": 4, "N": 4})


def test_ranking_by_the_targets_cost(problem, toy):
    res = search(problem, toy)
    assert res.considered == mapspace.size(problem.extents, toy.mapspace(None, None))
    assert res.considered == res.census.total + len(res.candidates)
    costs = [(c.cost, c.label) for c in res.candidates]
    assert costs == sorted(costs)
    assert res.best is res.candidates[0] and res.runner_up is res.candidates[1]
    assert res.best.cost.names == ("work", "loops")
    assert res.best.tile("M") in (2, 4)
    assert res.margin() is None  # the toy has no error bar
    rows = res.census.rows()
    assert [r.first for r in rows] == sorted((r.first for r in rows), reverse=True)
    assert res.census.kinds == {"k-first": Kind.EXPRESS, "deep": Kind.REFUSE}


def test_problem_validation_and_untileable_shape(toy):
    with pytest.raises(SpecError):
        Problem(get("gemm"), {"M": 4, "K": 4})
    with pytest.raises(InfeasibleMapping, match="K=3 is not a multiple of 2"):
        search(Problem(get("gemm"), {"M": 6, "K": 3, "N": 4}), toy)
    assert Problem(get("gemm.relu"), {"N": 8, "M": 4, "K": 2}).title == "gemm.relu 4x2x8"


def test_a_partial_tiling_target_maps_what_an_exact_one_cannot(toy_cls):
    p = Problem(get("gemm"), {"M": 7, "K": 3, "N": 5})
    with pytest.raises(InfeasibleMapping):
        search(p, toy_cls())
    res = search(p, toy_cls(exact=False))
    assert res.candidates and res.considered == res.census.total + len(res.candidates)
    for c in res.candidates:
        cov = covered(c.nest)
        assert all(cov[r] >= e for r, e in p.extents.items()), c.label


def test_every_cause_equals_the_independent_census(problem, toy):
    res = search(problem, toy)
    # every-cause counts equal the independent census: no cause hides behind another
    assert dict(res.census.any_counts) == dict(census.independent(problem, toy))
    assert res.census.by_kind(every=True)[Kind.REFUSE] == res.census.any_counts["deep"]


def test_relieve_returns_exactly_the_nests_it_alone_refused(problem, toy):
    rel = census.relieve(problem, toy, "k-first")
    assert sorted(rel.returned) == sorted(rel.alone) and rel.alone
    assert rel.relieved.census.counts["k-first"] == 0
    # nests refused by k-first and deep are now refused by deep
    both = rel.base.census.any_counts["k-first"] - len(rel.alone)
    assert rel.rebound == {"deep": both}
    assert len(rel.relieved.candidates) == len(rel.base.candidates) + len(rel.alone)


def test_workload_registry():
    from polyjoule.errors import UnknownNameError
    from polyjoule.library import workloads as registry

    assert registry.names()[:4] == ["gemm", "gemm.relu", "gemm.sum", "gemm.sum.relu"]
    s = registry.get("gemm.sum.relu")
    assert s.contractions == (("A", "B"), ("A", "B2")) and s.epilogue == ("relu",)
    with pytest.raises(UnknownNameError, match="gemm, gemm.relu, gemm.sum, gemm.sum.relu, "):
        registry.get("conv")


# --- issue 14: the progress protocol of the search core -----------------------------------


def test_search_reports_progress_only_when_asked(problem, toy):
    from polyjoule.search.search import reporting

    calls = []
    search(problem, toy)  # nobody listening: nothing to report to, nothing counted
    with reporting(lambda stage, done, total: calls.append((stage, done, total))):
        res = search(problem, toy)
        census.independent(problem, toy)
    stages = list(dict.fromkeys(s for s, _, _ in calls))
    assert stages == ["gemm 8x4x4 (slots 2)", "census"]
    mine = [(d, t) for s, d, t in calls if s == stages[0]]
    assert mine[0] == (0, res.considered) and mine[-1] == (res.considered, res.considered)
    assert [d for d, _ in mine] == sorted(d for d, _ in mine)
    calls.clear()
    search(problem, toy)  # the block ended: its callback is gone
    assert calls == []
