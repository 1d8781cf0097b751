"""The TinyTPU-isa mapper target: roles, placement, refusals, pricing, verification."""

import pytest

from polyjoule.errors import Kind, Refused
from polyjoule.library.workloads import get
from polyjoule.model.workload import Tensor, Workload
from polyjoule.search import target
from polyjoule.search.nest import INTRINSIC, MapLoop
from polyjoule.search.search import Problem, search
from polyjoule.targets.tinytpu.act_machine import machine, steps_of
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program
from polyjoule.targets.tinytpu.target import CAUSE_KIND, TinyTPUTarget, place, roles_of

CFG = Config(MAXDIM=16)
TGT = TinyTPUTarget(CFG)


def _band(rows):
    return (MapLoop("M", rows, INTRINSIC), MapLoop("K", 4, INTRINSIC), MapLoop("N", 4, INTRINSIC))


def test_registered_with_the_published_build():
    t = target.get("tinytpu-isa")
    assert isinstance(t, TinyTPUTarget) and t.cfg == CFG
    assert isinstance(t, target.Target) and t.objectives == ("makespan", "emits")
    assert CAUSE_KIND["ar-distance"] is Kind.REFUSE and CAUSE_KIND["machine"] is Kind.REFUSE
    assert all(k is Kind.EXPRESS for c, k in CAUSE_KIND.items()
               if c not in ("ar-distance", "machine"))


def test_roles_come_from_structure_not_names():
    wl = Workload("mm", ranks=("i", "j", "r"), reduce=("r",),
                  operands=(Tensor("X", ("i", "r")), Tensor("W", ("r", "j"))),
                  result=Tensor("Y", ("i", "j")), contractions=(("X", "W"),))
    ro = roles_of(wl)
    assert (ro.row, ro.reduce, ro.column) == ("i", "r", "j")
    res = search(Problem(wl, {"i": 16, "j": 16, "r": 16}), TGT)
    assert (res.best.label, res.best.priced.cost) == ("j4>r4", (453, 28))


def test_shape_class_refusal():
    vec = Workload("rowsum", ranks=("M", "K"), reduce=("K",),
                   operands=(Tensor("A", ("M", "K")), Tensor("B", ("K",))),
                   result=Tensor("C", ("M",)), contractions=(("A", "B"),))
    with pytest.raises(Refused) as e:
        roles_of(vec)
    assert e.value.cause == "shape-class"
    res = search(Problem(vec, {"M": 8, "K": 8}), TGT)
    assert not res.candidates and set(res.census.counts) == {"shape-class"}


@pytest.mark.parametrize("name, shape, says", [
    ("bmm", {"B": 2, "M": 4, "K": 4, "N": 4}, "bmm: a batch rank B (in both X and W)"),
    ("relu", {"M": 4, "B": 4, "J": 4, "N": 4}, "relu: X carries 2 free ranks (M, B) besides J"),
])
def test_shape_class_says_what_is_wrong(name, shape, says):
    """bmm and relu have one reduce rank each: the detail names the extra free rank, not
    the reduce ranks (it said 'needs one reduce rank ..., has reduce ('K',)')."""
    wl = get(name)
    assert len(wl.reduce) == 1 and len(wl.free) == 3  # what is actually wrong
    with pytest.raises(Refused) as e:
        roles_of(wl)
    assert e.value.cause == "shape-class" and e.value.detail.startswith(says)
    assert "reduce (" not in e.value.detail
    res = search(Problem(wl, shape), TGT)
    assert not res.candidates and set(res.census.counts) == {"shape-class"}
    assert res.census.examples["shape-class"][1] == e.value.detail


def test_shape_class_counts_reduce_and_free_ranks():
    two = Workload("two", ranks=("M", "K", "L", "N"), reduce=("K", "L"),
                   operands=(Tensor("A", ("M", "K", "L")), Tensor("B", ("K", "L", "N"))),
                   result=Tensor("C", ("M", "N")), contractions=(("A", "B"),))
    with pytest.raises(Refused, match=r"exactly one reduce rank, has 2 \(K, L\)"):
        roles_of(two)
    vec = Workload("mv", ranks=("M", "K"), reduce=("K",),
                   operands=(Tensor("A", ("M", "K")), Tensor("x", ("K",))),
                   result=Tensor("y", ("M",)), contractions=(("A", "x"),))
    with pytest.raises(Refused, match=r"two free ranks \(rows, columns\), has 1 \(M\)"):
        roles_of(vec)


def test_intrinsics_are_row_tiles():
    space = TGT.mapspace(get("gemm"), {"M": 12, "K": 8, "N": 8})
    assert space.exact  # TinyTPU-isa keeps exact tiles: trip counts divide
    assert [t["M"] for t in space.intrinsics] == [1, 2, 3, 4, 6, 12]
    assert all(t["K"] == 4 and t["N"] == 4 for t in space.intrinsics)


def test_placement_and_capacity():
    ext = {"M": 8, "K": 8, "N": 8}
    pl = place(get("gemm.sum"), ext, roles_of(get("gemm.sum")), CFG)
    assert pl.acts == {"A": (0, 0, 0)}
    assert pl.wgts == {"B": (0, 0, 0), "B2": (0, 2, 32)}
    assert pl.ar == (0, 16)
    with pytest.raises(Refused) as e:  # two weights of 4 column blocks: 32 columns > 16
        place(get("gemm.sum"), {"M": 8, "K": 8, "N": 16}, roles_of(get("gemm.sum")), CFG)
    assert e.value.cause == "capacity" and "DRAM columns" in e.value.detail


def test_structural_causes_are_collected_together():
    wl, ext = get("gemm.relu"), {"M": 16, "K": 16, "N": 16}
    nest = (MapLoop("K", 4), MapLoop("N", 4), MapLoop("M", 8), *_band(2))
    with pytest.raises(Refused) as e:
        TGT.lower(wl, ext, nest)
    assert e.value.also == ("acc-position", "ar-distance")
    assert [c for c, _ in TGT.refusals(wl, ext, nest)] == ["acc-position", "ar-distance"]


def test_shape_over_maxdim_and_bad_band():
    wl = get("gemm")
    with pytest.raises(Refused, match="shape"):  # a two-term sum has no host blocks
        TGT.lower(get("gemm.sum"), {"M": 32, "K": 4, "N": 4}, (MapLoop("M", 2), *_band(16)))
    low = TGT.lower(wl, {"M": 32, "K": 4, "N": 4}, (MapLoop("M", 2), *_band(16)))
    assert low.count == 2 and TGT.verify(wl, {"M": 32, "K": 4, "N": 4}, low)  # host blocks
    bad = (MapLoop("M", 4, INTRINSIC), MapLoop("K", 2, INTRINSIC), MapLoop("K", 2),
           MapLoop("N", 4, INTRINSIC))
    with pytest.raises(Refused) as e:
        TGT.lower(wl, {"M": 4, "K": 4, "N": 4}, bad)
    assert e.value.cause == "intrinsic"


def test_ar_distance_relieved_is_caught_by_the_checker():
    # a 'refuse' cause: the program encodes, only the checker stops it
    wl, ext = get("gemm"), {"M": 4, "K": 8, "N": 4}
    nest = (MapLoop("M", 2), MapLoop("K", 2), *_band(2))
    with pytest.raises(Refused) as e:
        TGT.lower(wl, ext, nest, relieve=frozenset({"ar-distance"}))
    assert e.value.cause == "machine" and "raw" in e.value.detail.lower()


def test_4x4x4_has_no_trip1_output_loop():
    p = Problem(get("gemm"), {"M": 4, "K": 4, "N": 4})
    res = search(p, TGT)
    assert len(res.candidates) == 1 and res.census.counts == {"ar-distance": 3}
    best = res.best
    assert TGT.report(best.program) == {"rows": 4, "static": 8, "words": 24, "dynamic": 4,
                                        "cycles": 174}  # the event model; cosim 169
    assert best.priced.cost == (40, 4) and best.cost.names == ("makespan", "emits")
    assert best.priced.timeline.makespan == 40
    assert TGT.measured(p.workload, p.extents, best.program) == 169


def test_machine_prices_the_shipped_programs():
    from polyjoule.analysis.steps import run

    got = [run(steps_of(gemm_program(*s, cfg=CFG), CFG)).makespan
           for s in ((4, 4, 4), (8, 8, 8), (12, 12, 12), (16, 16, 8), (16, 16, 16))]
    assert got == [50, 115, 227, 261, 453]
    s = run(steps_of(gemm_program(16, 16, 16, relu=True, cfg=CFG), CFG))
    assert s.makespan == 517 and s.bottleneck == ("accu", 384)
    assert {op.name for op in machine(CFG).opcodes} == {
        "dma_ld", "vld", "mm", "vadd", "vrelu", "mvout"}


def test_verify_detects_a_wrong_program():
    p = Problem(get("gemm.relu"), {"M": 8, "K": 8, "N": 8})
    res = search(p, TGT)
    prog = res.best.program
    assert TGT.verify(p.workload, p.extents, prog)
    assert not TGT.verify(get("gemm"), p.extents, prog, seed=3)  # relu'd vs plain gemm


def test_gemm_sum_runs_two_contractions():
    p = Problem(get("gemm.sum.relu"), {"M": 16, "K": 16, "N": 4})
    res = search(p, TGT)
    assert res.best.label == "K4" and res.best.priced.cost == (357, 21)
    assert TGT.verify(p.workload, p.extents, res.best.program)


def test_verify_reuses_the_checked_stream_equivalently():
    import numpy as np

    from polyjoule.targets.tinytpu import refmodel
    from polyjoule.targets.tinytpu.target import _run_checked

    p = Problem(get("gemm.sum"), {"M": 8, "K": 8, "N": 8})
    prog = search(p, TGT).best.program
    rng = np.random.default_rng(1)
    A, B = (rng.integers(-128, 128, size=(16, 16)).astype(np.int8) for _ in range(2))
    C = rng.integers(-128, 128, size=(16, 16)).astype(np.int8)
    assert np.array_equal(_run_checked(prog, A, B, C),
                          refmodel.run(list(prog.instrs), A, B, C, CFG))


def test_other_builds_reproduce_the_mlp_picks():
    # workload suite (T=4, MAXDIM=64): the flow's published pick per layer shape
    t = TinyTPUTarget(Config(MAXDIM=64))
    for wl, shape, pick in (("gemm.relu", (4, 16, 16), "N4>K4"),
                            ("gemm.relu", (4, 16, 12), "N3>K4"),
                            ("gemm", (4, 12, 8), "N2>K3"),
                            ("gemm.relu", (8, 32, 32), "N8>K8"),
                            ("gemm", (8, 32, 16), "N4>K8")):
        res = search(Problem(get(wl), dict(zip("MKN", shape, strict=True))), t)
        assert res.best.label == pick, (wl, shape)


def test_margin_and_problem_set_come_from_the_target():
    from polyjoule.search.cost import Cost

    m = TGT.margin(Cost(("makespan", "emits"), (517, 32)), Cost(("makespan", "emits"),
                                                                 (642, 60)))
    assert round(m.ratio, 2) == 1.24 and m.exceeds_error_bar and m.unit == "cycles"
    ps = TGT.problem_set()
    assert len(ps.problems) == 12 and ps.published["gemm.relu 16x16x16"] == 517
    assert any("under-predicts" in n for n in TGT.notes())
