"""The published figures (act-mapper sheet): the acceptance test of the whole flow."""

import pytest

from polyjoule.library.workloads import get
from polyjoule.search import census, target
from polyjoule.search.nest import emitted_order
from polyjoule.search.search import Problem, search


@pytest.fixture(scope="module")
def tgt():
    return target.get("tinytpu-isa")


@pytest.fixture(scope="module")
def relu16():
    return Problem(get("gemm.relu"), {"M": 16, "K": 16, "N": 16})


@pytest.fixture(scope="module")
def result(tgt, relu16):
    return search(relu16, tgt)


def test_gemm_relu_16_census(result):
    assert result.considered == 1226
    assert len(result.candidates) == 5
    assert dict(result.census.counts) == {"acc-split": 897, "acc-position": 253,
                                          "ar-distance": 55, "AGU_TERMS": 13, "LOOP_DEPTH": 3}
    assert [r.cause for r in result.census.rows()] == [
        "acc-split", "acc-position", "ar-distance", "AGU_TERMS", "LOOP_DEPTH"]
    assert result.census.any_counts["ar-distance"] == 930
    assert result.considered == result.census.total + len(result.candidates)
    first, every = result.census.by_kind(), result.census.by_kind(every=True)
    assert (first["express"], first["refuse"]) == (1166, 55)
    assert (every["express"], every["refuse"]) == (1166, 930)


def test_gemm_relu_16_ranking(result, tgt, relu16):
    best, runner = result.best, result.runner_up
    assert (best.label, best.priced.cost) == ("N4>K4", (517, 32))
    assert (runner.label, runner.priced.cost) == ("M2>N4>K4", (642, 60))
    assert [c.label for c in result.candidates] == [
        "N4>K4", "M2>N4>K4", "N4>M2>K4", "M4>N4>K4", "N4>M4>K4"]
    m = result.margin()
    assert round(m.ratio, 2) == 1.24 and m.exceeds_error_bar
    assert tgt.measured(relu16.workload, relu16.extents, best.program) == 750
    assert all(tgt.verify(relu16.workload, relu16.extents, c.program)
               for c in result.candidates)


def test_without_loop_charging_the_ranking_flips(tgt, relu16):
    res = search(relu16, tgt, charge_control=False)
    by = {c.label: c.priced.cost[0] for c in res.candidates}
    assert (by["N4>K4"], by["M2>N4>K4"]) == (512, 509)
    assert res.best.label == "M2>N4>K4"


def test_independent_census(tgt, relu16):
    assert dict(census.independent(relu16, tgt)) == {
        "ar-distance": 930, "acc-split": 897, "acc-position": 253}


def test_relieve_acc_position(tgt, relu16, result):
    rel = census.relieve(relu16, tgt, "acc-position", base=result)
    after = rel.relieved.census
    assert after.counts["acc-position"] == 0 and after.any_counts["acc-position"] == 0
    assert after.counts["acc-split"] == 897  # the cross-check with the other enumerator
    alone = set(rel.alone)
    assert len(alone) == 62
    for nest, r in result.census.refused.items():
        if "acc-position" not in r.also:  # untouched nests keep their fate
            assert after.refused[nest].also == r.also
        elif nest not in alone:  # refused by more: the other causes now bind
            assert after.refused[nest].also == tuple(c for c in r.also if c != "acc-position")
        else:  # returned to lowering: encodable, or refused only by what emission finds
            new = after.refused.get(nest)
            assert new is None or new.cause in {"capacity", "AGU_TERMS", "LOOP_DEPTH"}
    assert sum(rel.rebound.values()) + len(rel.returned) == result.census.counts[
        "acc-position"]


def test_relieve_returns_verified_nests(tgt):
    # at 16x8x4, K2>M2 and K2>M4 are refused by acc-position alone; relieved, the body is
    # duplicated around the reduce loop (accumulator tiles indexed by the M loop) and
    # the programs are correct
    p = Problem(get("gemm.relu"), {"M": 16, "K": 8, "N": 4})
    rel = census.relieve(p, tgt, "acc-position")
    assert sorted(emitted_order(n) for n in rel.returned) == ["K2>M2", "K2>M4"]
    back = [c for c in rel.relieved.candidates if c.nest in set(rel.returned)]
    assert all(tgt.verify(p.workload, p.extents, c.program) for c in back)


def test_gate():
    from polyjoule.search import gate

    tgt = target.get("tinytpu-isa")
    res = gate.run_set(target.problem_set(tgt), tgt)
    assert len(res.rows) == 12 and res.ok, [f for r in res.rows for f in r.failures]
    assert res.verdict() == ("MAPPER GATE OK: 12/12 problems, every encodable mapping "
                             "verified")
    best = {r.problem.title: r.result.best.cost.makespan for r in res.rows}
    assert [best[t] for t in ("gemm 4x4x4", "gemm 8x8x8", "gemm 12x12x12", "gemm 16x16x8",
                              "gemm 16x16x16", "gemm.relu 16x16x16")] == [
        40, 115, 227, 261, 453, 517]
    # the pick at every published shape is a program whose cosim was measured
    for r in res.rows:
        p, b = r.problem, r.result.best
        if r.published is not None:
            assert tgt.measured(p.workload, p.extents, b.program), p.title


@pytest.mark.parametrize("relieve", [frozenset(), frozenset({"acc-position", "AGU_TERMS"})])
def test_every_encodable_mapping_verifies_beyond_the_gate(tgt, relieve):
    # odd row counts, two contractions, duplicated bodies: every program the flow
    # accepts must compute the workload (the reference model is the judge)
    for w, shape in (("gemm.relu", (6, 8, 12)), ("gemm.sum.relu", (10, 8, 4)),
                     ("gemm", (12, 16, 8)), ("gemm.sum", (8, 4, 4))):
        p = Problem(get(w), dict(zip("MKN", shape, strict=True)))
        res = search(p, tgt, relieve=relieve)
        assert res.candidates, p.title
        for c in res.candidates:
            assert tgt.verify(p.workload, p.extents, c.program, seed=5), (p.title, c.label)
