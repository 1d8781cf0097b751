"""The loop-nest program generator: budgets with codes, mixed-radix terms, the anchor."""

import pytest

from polyjoule.search.nest import INTRINSIC, MapLoop
from polyjoule.targets.tinytpu.isa import Op, Term
from polyjoule.targets.tinytpu.nestgen import NestError, NestGen
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program

CFG = Config(MAXDIM=16)
SHAPES = [(4, 4, 4), (8, 8, 8), (12, 12, 12), (16, 16, 8), (16, 16, 16)]


def test_loop_depth_and_trip_count_codes():
    g = NestGen(CFG)
    for lvl in range(4):
        assert g.open(2) == lvl
    with pytest.raises(NestError) as e:
        g.open(2)
    assert e.value.code == "LOOP_DEPTH"
    with pytest.raises(NestError) as e:
        NestGen(CFG).open(0)
    assert e.value.code == "trip-count"


def test_agu_terms_code_and_stale_level():
    g = NestGen(CFG)
    lv = g.open(4)
    with pytest.raises(NestError) as e:
        g.emit(Op.MM, (0, 0, 0, 0), 4, [Term(0, lv, 1)] * 4)
    assert e.value.code == "AGU_TERMS"
    with pytest.raises(NestError) as e:
        g.emit(Op.MM, (0, 0, 0, 0), 4, [Term(0, 1, 1)])
    assert e.value.code is None  # a foreign level is a generator bug, not a budget
    with pytest.raises(NestError, match="never closed"):
        g.done()


def test_mixed_radix_terms_innermost_first():
    g = NestGen(CFG)
    g.open(2, "N")
    g.open(3, "M")
    g.open(5, "N")
    assert g.terms(2, "N", 1) == [Term(2, 2, 1), Term(2, 0, 5)]
    assert g.terms(1, "M", 8) == [Term(1, 1, 8)]
    assert g.tile_terms(0, ("M", "N"), 4, below=1) == [Term(0, 2, 4), Term(0, 1, 20)]
    assert g.span(("M", "N"), below=1) == 15


def test_terms_sorted_by_field_stably():
    g = NestGen(CFG)
    g.open(2)
    g.emit(Op.MM, (0, 0, 0, 0), 4, [Term(3, 0, 16), Term(0, 0, 16), Term(3, 0, 4)])
    assert g.program[-1].terms == (Term(0, 0, 16), Term(3, 0, 16), Term(3, 0, 4))


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_shipped_nest_reemits_gemm_program_word_for_word(shape, relu):
    from polyjoule.library.workloads import get
    from polyjoule.search import target
    from polyjoule.targets.tinytpu.assembler import assemble

    m, k, n = shape
    # the shipped nest, literally: (N N/T, K K/T, M M | K T, N T), trip-1 loops included
    nest = (MapLoop("N", n // 4), MapLoop("K", k // 4),
            MapLoop("M", m, INTRINSIC), MapLoop("K", 4, INTRINSIC), MapLoop("N", 4, INTRINSIC))
    ours = target.get("tinytpu-isa").lower(get("gemm.relu" if relu else "gemm"),
                                           {"M": m, "K": k, "N": n}, nest)
    ref = gemm_program(m, k, n, relu=relu, cfg=CFG)
    assert list(ours.instrs) == ref
    assert list(ours.words) == assemble(ref, CFG)


def test_mapspace_4x4x4_nest_drops_the_trip1_loop():
    from polyjoule.library.workloads import get
    from polyjoule.search import target

    nest = (MapLoop("M", 4, INTRINSIC), MapLoop("K", 4, INTRINSIC), MapLoop("N", 4, INTRINSIC))
    ours = target.get("tinytpu-isa").lower(get("gemm"), {"M": 4, "K": 4, "N": 4}, nest)
    ref = gemm_program(4, 4, 4, cfg=CFG)
    assert (len(ours.instrs), len(ours.words)) == (8, 24) and len(ref) == 10
    assert ref[6].op == Op.LOOP and ref[6].nr == 1  # the hand-written trip-1 output loop
    assert list(ours.instrs[:6]) == ref[:6]
    assert [i.op for i in ours.instrs[6:]] == [Op.MM, Op.MVOUT]  # no terms: no loop
    from polyjoule.targets.tinytpu.target import _stream

    assert _stream(ours.instrs, CFG) == _stream(ref, CFG)  # same 4 dynamic issues
