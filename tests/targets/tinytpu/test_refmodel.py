"""Reference model vs independent numpy: int8 in, int32 wrap, int8 saturate out (sheet §6, §10)."""

import itertools

import numpy as np
import pytest

from polyjoule.targets.tinytpu.assembler import ProgramError
from polyjoule.targets.tinytpu.isa import Instr, Op
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program, gemm_program_flat, vadd_program
from polyjoule.targets.tinytpu.refmodel import gemm_expected, run


def images(cfg, seed, lo=-128, hi=128):
    rng = np.random.default_rng(seed)
    shape = (cfg.MAXDIM, cfg.MAXDIM)
    return (rng.integers(lo, hi, shape, dtype=np.int8), rng.integers(lo, hi, shape, dtype=np.int8),
            rng.integers(-128, 128, shape, dtype=np.int8))


def numpy_gemm(A, B, M, K, N, relu):
    """Element loop-free but independent of the model: float-free int64 matmul, then numerics."""
    acc = np.einsum("mk,kn->mn", A[:M, :K].astype(np.int64), B[:K, :N].astype(np.int64))
    acc = (acc + 2**31) % 2**32 - 2**31
    if relu:
        acc = np.where(acc > 0, acc, 0)
    return np.clip(acc, -128, 127).astype(np.int8)


@pytest.mark.parametrize("T, maxdim", [(4, 16), (8, 32)])
def test_every_gemm_shape_up_to_maxdim(T, maxdim):
    cfg = Config(T=T, MAXDIM=maxdim)
    sizes = range(T, maxdim + 1, T)
    for i, (M, K, N) in enumerate(itertools.product(sizes, sizes, sizes)):
        relu = i % 2 == 1
        A, B, C0 = images(cfg, i, *((-128, 128) if i % 3 == 0 else (-6, 7)))
        C = run(gemm_program(M, K, N, relu, cfg), A, B, C0, cfg)
        assert np.array_equal(C[:M, :N], numpy_gemm(A, B, M, K, N, relu)), (M, K, N, relu)
        # bytes no mvout names keep the host's values
        assert np.array_equal(C[M:, :], C0[M:, :]) and np.array_equal(C[:, N:], C0[:, N:])


def test_maxdim64_cubes_and_sampled_shapes():
    """All cubes and 40 seeded random shapes on the default build (4096 shapes is too slow)."""
    cfg = Config()
    rng = np.random.default_rng(2026)
    shapes = [(s, s, s) for s in range(4, 65, 4)]
    shapes += [tuple(int(v) for v in rng.integers(1, 17, 3) * 4) for _ in range(40)]
    for i, (M, K, N) in enumerate(shapes):
        A, B, C0 = images(cfg, 100 + i, *((-128, 128) if i % 4 == 0 else (-9, 10)))
        relu = i % 3 == 0
        C = run(gemm_program(M, K, N, relu, cfg), A, B, C0, cfg)
        assert np.array_equal(C[:M, :N], numpy_gemm(A, B, M, K, N, relu)), (M, K, N, relu)


@pytest.mark.parametrize("M, K, N", [(64, 64, 64), (4, 64, 8), (60, 12, 64)])
def test_maxdim64_shapes_and_flat_twin(M, K, N):
    cfg = Config()
    A, B, C0 = images(cfg, M + K + N)
    want = numpy_gemm(A, B, M, K, N, False)
    assert np.array_equal(run(gemm_program(M, K, N, cfg=cfg), A, B, C0, cfg)[:M, :N], want)
    if K * N <= 16 * 16 * 4:
        flat = gemm_program_flat(M, K, N, cfg=cfg)
        assert np.array_equal(run(flat, A, B, C0, cfg, )[:M, :N], want)


def test_gemm_expected_helper_agrees():
    cfg = Config(MAXDIM=16)
    A, B, _ = images(cfg, 7)
    assert np.array_equal(gemm_expected(A, B, 16, 16, 16, True),
                          numpy_gemm(A, B, 16, 16, 16, True))


def test_int32_wraps_in_vadd_chain():
    """127*127*4 doubled 16 times passes 2**31: the model must wrap, not saturate or widen."""
    cfg = Config(MAXDIM=16)
    A = np.full((16, 16), 127, np.int8)
    B = np.full((16, 16), 127, np.int8)
    B[:, 1] = -128
    prog = [Instr(Op.DMA_LD, (2, 0, 0, 0), 4), Instr(Op.DMA_LD, (1, 0, 0, 0), 4),
            Instr(Op.MM, (0, 0, 0, 0), 4),
            Instr(Op.LOOP, nr=16), Instr(Op.VADD, (0, 0, 0, 0), 4), Instr(Op.ENDLOOP),
            Instr(Op.MVOUT, (0, 0, 0, 0), 4)]
    m = _machine_after(prog, A, B, cfg)
    x = np.array([127 * 127 * 4, -128 * 127 * 4], dtype=np.int64) * 2**16
    wrapped = (x + 2**31) % 2**32 - 2**31
    assert wrapped[0] < 0 < wrapped[1]  # the wrap flips both signs
    assert list(m[0, :2]) == [max(min(int(w), 127), -128) for w in wrapped]


def _machine_after(prog, A, B, cfg):
    return run(prog, A, B, np.zeros((cfg.MAXDIM, cfg.MAXDIM), np.int8), cfg)


def test_vadd_program_is_relu_of_twice_the_product():
    cfg = Config(MAXDIM=16)
    A, B, C0 = images(cfg, 3, -20, 20)
    C = run(vadd_program(cfg), A, B, C0, cfg)
    want = np.clip(np.maximum(2 * (A[:4, :4].astype(np.int64) @ B[:4, :4]), 0), -128, 127)
    assert np.array_equal(C[:4, :4], want)


def test_vaddrelu_equals_vadd_then_vrelu():
    cfg = Config(MAXDIM=16)
    A, B, C0 = images(cfg, 4, -20, 20)
    base = vadd_program(cfg)
    fused = base[:4] + [Instr(Op.VADDRELU, base[4].f, 4), base[6]]
    assert np.array_equal(run(fused, A, B, C0, cfg), run(base, A, B, C0, cfg))


def test_vld_moves_spad_rows_into_vr():
    cfg = Config(MAXDIM=16)
    A, B, C0 = images(cfg, 5, -10, 10)
    # activations come from B's rows via the scratchpad, weights from B as usual
    prog = [Instr(Op.DMA_LD, (1, 4, 0, 20), 4), Instr(Op.VLD, (0, 20, 0, 0), 4),
            Instr(Op.DMA_LD, (1, 0, 0, 0), 4), Instr(Op.MM, (0, 0, 0, 0), 4),
            Instr(Op.MVOUT, (0, 0, 0, 0), 4)]
    C = run(prog, A, B, C0, cfg)
    want = np.clip(B[4:8, :4].astype(np.int64) @ B[:4, :4], -128, 127)
    assert np.array_equal(C[:4, :4], want)


def test_shifted_overlap_runs_row_by_row():
    """vrelu ar[4+r] = relu(ar[r]) over 8 rows: rows 4..7 read what rows 0..3 just wrote.

    Legal (each re-read is exactly AR_RAW_DIST steps after its write); a whole-slice
    update would wrongly give relu(P[4:8]) in ar 8..11.
    """
    cfg = Config(MAXDIM=16)
    A, B, C0 = images(cfg, 6, -10, 10)
    prog = [Instr(Op.DMA_LD, (2, 0, 0, 0), 16), Instr(Op.DMA_LD, (1, 0, 0, 0), 4),
            Instr(Op.MM, (0, 0, 0, 0), 16),
            Instr(Op.VRELU, (4, 0, 0, 0), 8),
            Instr(Op.MVOUT, (8, 0, 0, 0), 4)]
    C = run(prog, A, B, C0, cfg)
    P = A[:16, :4].astype(np.int64) @ B[:4, :4]
    assert np.array_equal(C[:4, :4], np.clip(np.maximum(P[0:4], 0), -128, 127))
    assert not np.array_equal(P[0:4].clip(0), P[4:8].clip(0))


def test_runs_the_checker_first():
    cfg = Config(MAXDIM=16)
    A, B, C0 = images(cfg, 0)
    with pytest.raises(ProgramError) as e:
        run([Instr(Op.MM, (0, 0, 0, 0), 4)], A, B, C0, cfg)
    assert e.value.rule == "mem.write_before_read"


def test_64_cubed_equals_numpy():
    """(Its speed is measured in benchmarks/bench_tinytpu.py, not asserted here.)"""
    cfg = Config()
    A, B, C0 = images(cfg, 1)
    prog = gemm_program(64, 64, 64, cfg=cfg)
    C = run(prog, A, B, C0, cfg)
    assert np.array_equal(C, numpy_gemm(A, B, 64, 64, 64, False))
