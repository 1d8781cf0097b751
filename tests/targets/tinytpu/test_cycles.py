"""Cycle model against the published cosim counts, and its mechanisms one by one."""

import pytest

from polyjoule.targets.tinytpu.cycles import CALIBRATED, CycleTiming, compare, estimate, simulate
from polyjoule.targets.tinytpu.isa import Instr, Op
from polyjoule.targets.tinytpu.measured import (
    ALL,
    LATENCY_MD16,
    LATENCY_MD64,
    STEADY_T4,
    STEADY_T8,
    WIDENED,
)
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program


def test_latency_shapes_within_ten_percent():
    rows = compare(LATENCY_MD16 + LATENCY_MD64)
    assert [r.measured for r in rows] == [175, 265, 421, 482, 674, 222, 361, 567, 676, 868]
    for r in rows:
        assert abs(r.error) < 0.10, r


def test_every_published_gemm_within_ten_percent():
    rows = compare(ALL)
    assert len(rows) == len(ALL) == 47
    for r in rows:
        assert abs(r.error) < 0.10, r


def test_out_of_sample_builds_keep_their_order():
    """T=8 and the widened burst were not used to calibrate; the model must rank them right."""
    for series in (STEADY_T8, WIDENED):
        rows = compare(series)
        by_model = [r.shape for r in sorted(rows, key=lambda r: r.model)]
        by_measured = [r.shape for r in sorted(rows, key=lambda r: r.measured)]
        assert by_model == by_measured


def test_operand_burst_is_charged_once_and_shrinks_with_dma_words():
    prog = gemm_program(16, 16, 16)
    narrow = simulate(prog, Config())
    wide = simulate(prog, Config(DMA_WORDS=16))
    assert (narrow.burst, wide.burst) == (16 * 16, 16)
    assert narrow.cycles - wide.cycles == pytest.approx(240, abs=5)
    both = simulate(prog, Config(), CycleTiming(longer_burst_only=False))
    assert both.burst == 2 * narrow.burst


def test_maxdim_adds_one_burst_of_words():
    """Sheet §13: MAXDIM 16 -> 64 adds span x 12 cycles, one burst's worth."""
    for (M, K, N) in [(4, 4, 4), (8, 8, 8), (16, 16, 16)]:
        d = (estimate(gemm_program(M, K, N, cfg=Config()), Config())
             - estimate(gemm_program(M, K, N, cfg=Config(MAXDIM=16)), Config(MAXDIM=16)))
        assert d == pytest.approx(max(M, K) * 12, abs=4)


def test_sequencer_pays_ii_per_fetch_including_control():
    cfg = Config(MAXDIM=16)
    nops = simulate([Instr(Op.NOP)] * 40, cfg)
    looped = simulate([Instr(Op.LOOP, nr=20), Instr(Op.NOP), Instr(Op.ENDLOOP)], cfg)
    assert nops.sequencer_fetches == 40 and looped.sequencer_fetches == 41
    assert looped.cycles - nops.cycles == 5
    assert nops.cycles >= 40 * CALIBRATED.seq_ii


def test_relu_adds_its_accu_rows():
    """Sheet §14: gemm.relu 16x16x16 = gemm + 64 vrelu rows (750 vs 686 measured)."""
    cfg = Config(MAXDIM=16, QD=8)
    plain = estimate(gemm_program(16, 16, 16, cfg=cfg), cfg)
    relu = estimate(gemm_program(16, 16, 16, True, cfg), cfg)
    assert 48 <= relu - plain <= 80


def test_steady_state_tracks_accu_work():
    rows = compare(STEADY_T4)
    big = [r for r in rows if r.shape == "64x64x64"][0]
    assert big.model > 17408  # at least the accu's iterations
