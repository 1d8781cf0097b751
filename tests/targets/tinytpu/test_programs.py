"""Shipped GEMM anchors: counts, header formulas, the flat twin (sheet §12, §7)."""

import pytest

from polyjoule.errors import ParameterRangeError
from polyjoule.targets.tinytpu.assembler import assemble, expand, fetches, header
from polyjoule.targets.tinytpu.isa import Op, Term
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program, gemm_program_flat

MD16 = Config(MAXDIM=16)


@pytest.mark.parametrize("shape, static, dynamic", [
    ((4, 4, 4), 10, 4), ((8, 8, 8), 13, 10), ((12, 12, 12), 13, 18),
    ((16, 16, 8), 13, 16), ((16, 16, 16), 13, 28)])
def test_static_and_dynamic_counts(shape, static, dynamic):
    p = gemm_program(*shape, cfg=MD16)
    assert (len(p), len(expand(p, MD16))) == (static, dynamic)
    assert len(assemble(p, MD16)) == 8 + 2 * static


def test_relu_counts_and_words():
    p = gemm_program(16, 16, 16, relu=True, cfg=MD16)
    assert (len(p), len(expand(p, MD16)), len(assemble(p, MD16))) == (14, 32, 36)


@pytest.mark.parametrize("shape, instrs, words", [
    ((16, 16, 16), 32, 72), ((32, 32, 32), 96, 200), ((64, 64, 64), 320, 648)])
def test_unrolled_sizes(shape, instrs, words):
    flat = gemm_program_flat(*shape, relu=True, cfg=Config())
    assert (len(flat), 8 + 2 * len(flat)) == (instrs, words)
    assert len(gemm_program(*shape, relu=True)) == 14


def test_table_word_for_word_16():
    p = gemm_program(16, 16, 16, relu=True, cfg=MD16)
    assert [i.op for i in p] == [Op.LOOP, Op.DMA_LD, Op.ENDLOOP, Op.LOOP, Op.DMA_LD, Op.ENDLOOP,
                                 Op.LOOP, Op.MM, Op.LOOP, Op.MM, Op.ENDLOOP, Op.VRELU, Op.MVOUT,
                                 Op.ENDLOOP]
    assert p[9].f == (16, 0, 1, 4) and p[9].terms == (Term(0, 1, 16), Term(3, 0, 16),
                                                      Term(3, 1, 4))
    assert p[8].nr == 3 and p[1].terms == (Term(2, 0, 1), Term(3, 0, 16))


@pytest.mark.parametrize("T, maxdim", [(4, 16), (4, 64), (8, 64)])
@pytest.mark.parametrize("relu", [False, True])
def test_header_counts_equal_the_formulas(T, maxdim, relu):
    cfg = Config(T=T, MAXDIM=maxdim)
    for M, K, N in [(T, T, T), (2 * T, maxdim, T), (maxdim, 2 * T, maxdim), (maxdim,) * 3]:
        Kt, Nt = K // T, N // T
        h = header(gemm_program(M, K, N, relu, cfg), cfg)
        assert h.dma_ld_rows == Kt * M + Nt * K
        assert h.spm_rows == Nt * K + (T + 1) * Kt * Nt
        assert h.vru_words == Kt * M + Kt * Nt * M
        assert (h.mm_count, h.mm_rows) == (Kt * Nt, Kt * Nt * M)
        assert h.accu_iterations == Kt * Nt * M + M * Nt * (2 if relu else 1)
        assert h.dma_st_rows == M * Nt
        assert (h.a_span, h.b_span) == (M, K)


@pytest.mark.parametrize("shape", [(4, 4, 4), (8, 12, 16), (16, 16, 16), (12, 4, 8)])
def test_flat_twin_expands_to_the_identical_stream(shape):
    for relu in (False, True):
        looped = [(x.op, x.nr, x.f) for x in expand(gemm_program(*shape, relu, MD16), MD16)]
        flat = [(x.op, x.nr, x.f) for x in expand(gemm_program_flat(*shape, relu, MD16), MD16)]
        assert looped == flat


def test_fetch_trace_interleaves_control_and_data():
    p = gemm_program(8, 8, 8, cfg=MD16)
    tr = fetches(p, MD16)
    control = [x for x in tr if isinstance(x, tuple)]
    assert len(tr) - len(control) == 10
    # A loop: 1 loop + 2 endloop visits; B the same; n loop 1 + 2; k loop 2 x (1 + 1)
    assert len(control) == 3 + 3 + 3 + 4
    assert tr[:4] == [("control", 0), tr[1], ("control", 2), tr[3]]
    assert tr[1].f3 == 0 and tr[3].f3 == 16 and tr[3].ivs == (1,)


@pytest.mark.parametrize("shape", [(3, 4, 4), (4, 4, 68), (0, 4, 4)])
def test_bad_shapes_are_refused(shape):
    with pytest.raises(ParameterRangeError):
        gemm_program(*shape)


def test_header_words_pack_the_shared_slices():
    p = gemm_program(16, 12, 8, cfg=MD16)
    words = assemble(p, MD16)
    h = header(p, MD16)
    assert words[:8] == h.words()
    assert words[4] == h.mm_count | h.mm_rows << 16 and words[4] >> 16 == 3 * 2 * 16
    assert words[7] & 0xFFFF == 16 and words[7] >> 16 == 12  # a_span = M, b_span = K
