"""Target-independent core: nests, refusals, mapspace, machine-as-data, scheduler."""

import pytest

from polyjoule.analysis.machine import Machine, MachineError, Opcode, Region, Space
from polyjoule.analysis.steps import StepError, run
from polyjoule.search import mapspace
from polyjoule.search.nest import (
    INTRINSIC,
    Kind,
    Loop,
    Refused,
    check_coverage,
    check_sequential,
    emitted_order,
    order,
    peel_intrinsic,
    refuse,
)


def test_refused_carries_every_cause_with_its_kind():
    with pytest.raises(Refused) as e:
        refuse([("acc-position", "k not innermost"), ("ar-distance", "rows 2"),
                ("acc-position", "dup")], {"ar-distance": Kind.REFUSE})
    r = e.value
    assert r.cause == "acc-position" and r.also == ("acc-position", "ar-distance")
    assert str(r) == "acc-position: k not innermost"
    assert r.kind("ar-distance") is Kind.REFUSE and r.kind() is Kind.EXPRESS
    refuse([])  # nothing found: no raise


def test_loop_defaults_and_labels():
    lp = Loop("N", 4)
    assert (lp.level, lp.spatial) == ("outer", False)
    nest = (Loop("N", 4), Loop("K", 4), Loop("M", 16, INTRINSIC), Loop("K", 4, INTRINSIC))
    assert order(nest) == "N4>K4>M16>K4"
    assert emitted_order(nest) == "N4>K4"
    assert emitted_order(nest[2:]) == "-" and order(()) == "-"


def test_peel_intrinsic_and_checks():
    nest = (Loop("N", 4), Loop("M", 16, INTRINSIC), Loop("K", 4, INTRINSIC))
    emitted, tile = peel_intrinsic(nest)
    assert emitted == (Loop("N", 4),) and tile == {"M": 16, "K": 4}
    for bad in ((), (Loop("N", 4),), (Loop("M", 2, INTRINSIC), Loop("N", 4),
                                      Loop("K", 4, INTRINSIC))):
        with pytest.raises(Refused, match="intrinsic"):
            peel_intrinsic(bad)
    assert check_coverage(nest, {"M": 16, "K": 4, "N": 4}) == []
    assert check_coverage(nest, {"M": 16, "K": 8, "N": 4})[0][0] == "coverage"
    assert check_coverage(nest, {"M": 16, "K": 4})[0][0] == "coverage"  # unknown rank N
    assert check_sequential((Loop("N", 4, spatial=True),))[0][0] == "spatial"


def test_factorings_are_ordered_and_complete():
    assert mapspace.divisors(12) == (1, 2, 3, 4, 6, 12)
    assert mapspace.factorings(4, 2) == ((1, 4), (2, 2), (4, 1))
    assert mapspace.factorings(7, 1) == ((7,),)
    assert len(mapspace.factorings(16, 3)) == 15
    assert mapspace.residual({"M": 8, "K": 6}, {"K": 4}) is None


def _gemm_tiles(m: int, t: int = 4, maxdim: int = 16):
    return [{"M": r, "K": t, "N": t} for r in mapspace.divisors(m) if r <= maxdim]


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


def _toy_machine() -> Machine:
    return Machine(
        "toy", (Space("r", 8),),
        opcodes=(Opcode(1, "w", loads=(("alu", lambda f: f["nr"]),),
                        writes=(lambda f: Region("r", f["f0"], f["nr"]),)),
                 Opcode(2, "rd", loads=(("out", lambda f: f["nr"]), ("alu", lambda f: 0)),
                        reads=(lambda f: Region("r", f["f0"], f["nr"]),))),
        issue_load=(("seq", 1),))


def test_scheduler_respects_dependences_and_units():
    m = _toy_machine()
    f = {"nr": 4, "f0": 0, "f1": 0, "f2": 0, "f3": 0}
    steps = [m.step(0, 1, f), m.control_step(1, "loop"), m.step(2, 2, f),
             m.step(3, 2, {**f, "f0": 4})]
    assert steps[2].units == ("seq", "out")  # zero work is dropped
    assert steps[1].control and not steps[0].control
    s = run(steps)
    # step 3 has no dependence but waits for the in-order "out" unit
    assert s.begin == (0, 1, 4, 8) and s.finish == (4, 2, 8, 12)
    assert s.blame == (None, 0, 0, 2)  # 1: sequencer, 2: data, 3: the "out" unit
    assert s.makespan == 12
    assert s.bottleneck == ("out", 8)
    assert s.critical_path() == [0, 2, 3]
    with pytest.raises(MachineError):
        m.step(4, 9, f)
    with pytest.raises(StepError):
        run([steps[0], steps[0]])


def test_region_overlap():
    assert Region("a", 0, 4).overlaps(Region("a", 3, 1))
    assert not Region("a", 0, 4).overlaps(Region("a", 4, 1))
    assert not Region("a", 0, 4).overlaps(Region("b", 0, 4))
