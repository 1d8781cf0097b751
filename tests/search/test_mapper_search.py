"""Search, census and relieve against a toy target: the core needs no real machine."""

import pytest

from polyjoule.analysis.machine import Machine, Opcode, Space
from polyjoule.errors import InfeasibleMapping, SpecError, UnknownNameError
from polyjoule.library.workloads import get
from polyjoule.search import census, mapspace, target
from polyjoule.search.nest import Kind, refuse
from polyjoule.search.search import Problem, search
from polyjoule.targets.tinytpu import fit


class Toy(target.Target):
    """Refuses a nest whose first loop is K ('k-first') and, independently, any nest
    with more than three emitted loops ('deep'); cost = one step per emitted loop."""

    name = "toy"
    cause_kinds = {"k-first": Kind.EXPRESS, "deep": Kind.REFUSE}
    machine = Machine("toy", (Space("r", 1),), (Opcode(1, "op", (("u", lambda f: f["nr"]),)),))

    def intrinsics(self, workload, extents):
        return [{"M": 2, "K": 2, "N": 2}, {"M": 3, "K": 2, "N": 2}, {"M": 4, "K": 2, "N": 2}]

    def refusals(self, workload, extents, nest):
        emitted = [lp for lp in nest if lp.level == "outer"]
        found = []
        if emitted and emitted[0].rank == "K":
            found.append(("k-first", "K outermost"))
        if len(emitted) > 3:
            found.append(("deep", f"{len(emitted)} loops"))
        return found

    def lower(self, workload, extents, nest, relieve=frozenset()):
        refuse([f for f in self.refusals(workload, extents, nest) if f[0] not in relieve],
               self.cause_kinds)
        return nest

    def steps(self, program):
        return [self.machine.step(i, 1, {"nr": lp.factor}) for i, lp in enumerate(program)]

    def emits(self, program):
        return len(program)

    def verify(self, workload, extents, program, seed=0):
        return True


@pytest.fixture
def problem():
    return Problem(get("gemm"), {"M": 8, "K": 4, "N": 4})


def test_census_invariant_and_ranking(problem):
    tgt = Toy()
    res = search(problem, tgt)
    assert res.considered == mapspace.size(problem.extents, tgt.intrinsics(None, None))
    assert res.considered == res.census.total + len(res.candidates)
    costs = [(c.priced.cost, c.label) for c in res.candidates]
    assert costs == sorted(costs)
    assert res.best is res.candidates[0] and res.runner_up is res.candidates[1]
    rows = res.census.rows()
    assert [r.first for r in rows] == sorted((r.first for r in rows), reverse=True)
    assert res.census.kinds == {"k-first": Kind.EXPRESS, "deep": Kind.REFUSE}
    # every-cause counts equal the independent census: no cause hides behind another
    assert dict(res.census.any_counts) == dict(census.independent(problem, tgt))
    assert res.census.by_kind(every=True)[Kind.REFUSE] == res.census.any_counts["deep"]


def test_relieve_returns_exactly_the_nests_it_alone_refused(problem):
    tgt = Toy()
    rel = census.relieve(problem, tgt, "k-first")
    assert sorted(rel.returned) == sorted(rel.alone) and rel.alone
    assert rel.relieved.census.counts["k-first"] == 0
    # nests refused by k-first and deep are now refused by deep
    both = rel.base.census.any_counts["k-first"] - len(rel.alone)
    assert rel.rebound == {"deep": both}
    assert len(rel.relieved.candidates) == len(rel.base.candidates) + len(rel.alone)


def test_problem_validation_and_untileable_shape():
    with pytest.raises(SpecError):
        Problem(get("gemm"), {"M": 4, "K": 4})
    with pytest.raises(InfeasibleMapping, match="K=3 is not a multiple of 2"):
        search(Problem(get("gemm"), {"M": 6, "K": 3, "N": 4}), Toy())
    assert Problem(get("gemm.relu"), {"N": 8, "M": 4, "K": 2}).title == "gemm.relu 4x2x8"


def test_margin_against_the_fit():
    m = fit.margin(517, 642)
    assert round(m.ratio, 2) == 1.24 and m.exceeds_error_bar
    assert not fit.margin(512, 509 + 20).exceeds_error_bar
    assert fit.cosim(517) == pytest.approx(769.08)


def test_target_registry():
    tgt = target.register(Toy())
    assert target.get("toy") is tgt and "toy" in target.names()
    with pytest.raises(UnknownNameError, match="registered: .*tinytpu-isa"):
        target.get("nope")


def test_workload_registry():
    from polyjoule.library import workloads as registry

    assert registry.names() == ["gemm", "gemm.relu", "gemm.sum", "gemm.sum.relu"]
    s = registry.get("gemm.sum.relu")
    assert s.contractions == (("A", "B"), ("A", "B2")) and s.epilogue == ("relu",)
    with pytest.raises(UnknownNameError, match="gemm, gemm.relu, gemm.sum, gemm.sum.relu"):
        registry.get("conv")


def test_core_knows_no_target():
    import pathlib
    import re

    import polyjoule.search as pkg

    for py in pathlib.Path(pkg.__file__).parent.glob("*.py"):
        text = py.read_text()
        assert not re.search(r"^\s*(from|import)\s+polyjoule\.tinytpu", text, re.M), py
