"""The corpus mapper: each spec class's program run on the reference model against numpy."""

import json

import numpy as np
import pytest

from polyjoule.library import workloads
from polyjoule.targets.tinytpu import builds, corpus, refmodel
from polyjoule.targets.tinytpu.isa import Op
from polyjoule.targets.tinytpu.judge import judge_best
from polyjoule.targets.tinytpu.spec import parse_spec
from polyjoule.targets.tinytpu.specmap import map_spec, reduction

CFG = builds.load().cfg
MD = CFG.MAXDIM


def _run(name, A, B, cfg=CFG):
    """The mapper's program for corpus spec ``name`` over images A, B; C prefilled with 77."""
    m = map_spec(corpus.load(name), cfg)
    assert m.program is not None, m.reason
    C0 = np.full((cfg.MAXDIM, cfg.MAXDIM), 77, np.int8)
    return m, refmodel.run(list(m.program), A, B, C0, cfg)


def _sat(x):
    return np.clip(x, -128, 127)


def _images(rng, lo=-20, hi=20):
    return (rng.integers(lo, hi, (MD, MD)).astype(np.int8),
            rng.integers(lo, hi, (MD, MD)).astype(np.int8))


def test_narrow_m_pads_the_mm_to_ar_raw_dist_and_retires_the_extra_rows():
    A, B = _images(np.random.default_rng(1))
    m, C = _run("gemm_narrow_2x8x4", A, B)
    assert reduction(corpus.load("gemm_narrow_2x8x4"), CFG).shape == (4, 8, 4)
    assert [x.nr for x in m.program if x.op == Op.MM] == [4, 4]  # the mm runs 4 rows
    assert [x.nr for x in m.program if x.op == Op.MVOUT] == [2]  # and retires 2
    gold = _sat(A[:2, :8].astype(np.int64) @ B[:8, :4])
    assert np.array_equal(C[:2, :4], gold)
    assert (C[2:] == 77).all() and (C[:, 4:] == 77).all()


def test_n6_writes_its_column_block_and_k6_is_exact_with_zero_pad():
    rng = np.random.default_rng(2)
    A, B = _images(rng)
    _, C = _run("gemm_cols_8x8x6", A, B)
    assert np.array_equal(C[:8, :6], _sat(A[:8, :8].astype(np.int64) @ B[:8, :6]))
    assert (C[:, 8:] == 77).all() and (C[8:] == 77).all()  # only the block of columns 4..7
    A[:, 6:] = 0
    B[6:, :] = 0
    _, C = _run("gemm_reduce_8x6x8_zeropad", A, B)
    assert np.array_equal(C[:8, :8], _sat(A[:8, :6].astype(np.int64) @ B[:6, :8]))


def test_batch_rank_is_one_outer_loop_stepping_a_b_and_c_rows():
    rng = np.random.default_rng(3)
    X, W = rng.integers(-30, 30, (2, 4, 4)), rng.integers(-30, 30, (2, 4, 4))
    A, B = np.zeros((MD, MD), np.int8), np.zeros((MD, MD), np.int8)
    A[:8, :4], B[:8, :4] = X.reshape(8, 4), W.reshape(8, 4)
    m, C = _run("batched_matmul_2x4x4x4", A, B)
    assert m.workload == "bmm" and m.label.startswith("B2")
    gold = _sat(workloads.get("bmm").evaluate({"X": X, "W": W}))
    assert np.array_equal(C[:8, :4].reshape(2, 4, 4), gold)
    assert np.array_equal(gold, _sat(np.matmul(X, W)))  # the registry's bmm is numpy's


def test_pointwise_relu_through_the_identity_constant():
    rng = np.random.default_rng(4)
    A = rng.integers(-128, 128, (MD, MD)).astype(np.int8)
    B = rng.integers(1, 100, (MD, MD)).astype(np.int8)
    B[:4, :4] = np.eye(4)
    m, C = _run("relu_16x16", A, B)
    assert m.workload == "relu"
    assert np.array_equal(C[:16, :16], np.maximum(A[:16, :16], 0))
    # the registry's relu: X's T-column blocks against the identity, the same bytes
    X = A[:16, :16].astype(np.int64).reshape(16, 4, 4)
    y = workloads.get("relu").evaluate({"X": X, "I": np.eye(4, dtype=np.int64)})
    assert np.array_equal(C[:16, :16], _sat(y.reshape(16, 16)))


def test_row_reduce_through_the_ones_column():
    rng = np.random.default_rng(5)
    A = rng.integers(-10, 10, (MD, MD)).astype(np.int8)
    B = rng.integers(-100, 100, (MD, MD)).astype(np.int8)
    B[:16, 0] = 1
    m, C = _run("row_reduce_16x16", A, B)
    assert m.workload == "rowsum"
    y = workloads.get("rowsum").evaluate({"X": A[:16, :16], "ones": B[:16, :1]})
    assert np.array_equal(C[:16, :1], _sat(y))
    assert np.array_equal(C[:16, 0], _sat(A[:16, :16].astype(np.int64).sum(axis=1)))
    assert (C[:, 4:] == 77).all()  # written only in the output's column block


def _spec(name, **change):
    doc = json.loads((corpus._data() / f"{name}.json").read_text())
    for key, value in change.items():
        target, _, field = key.partition("__")
        (doc[target] if field else doc)[field or target] = value
    return parse_spec(doc, "test")


@pytest.mark.parametrize(("name", "change", "why"), [
    ("gemm_cols_8x8x6", {"output__write_window": "exact"}, "column_block"),
    ("relu_16x16", {"epilogue": []}, "epilogue"),
    ("gemm_8x8x8", {"accumulator": "int8"}, "int32"),
])
def test_what_does_not_reduce_says_why(name, change, why):
    m = map_spec(_spec(name, **change), CFG)
    assert m.program is None and why in m.reason


def test_steady_state_specs_fit_and_map_on_maxdim64_only():
    big = builds.load("maxdim64").cfg
    spec = corpus.load("gemm_steady_32x64x32")
    assert judge_best(spec, CFG).status == "SKIPPED"
    v = judge_best(spec, big)
    assert v.status == "CORRECT" and all(c.wrong == c.clobbered == 0 for c in v.cases)


def test_an_arbitrary_pad_k_maps_only_as_a_declared_known_gap():
    """K=4 on a T=8 build pads 4 garbage rows (no opcode zeroes a row): the mapper's
    program used to be graded WRONG; a spec that declares the gap keeps its KNOWN GAP."""
    from polyjoule.targets.tinytpu import builds, corpus
    from polyjoule.targets.tinytpu.judge import judge_best

    t8 = builds.load("t8").cfg
    v = judge_best(corpus.load("gemm_reuse_n_4x4x16"), t8)
    assert v.status == "NOT MAPPED" and "K=4 pads to 8" in v.detail, v
    assert judge_best(corpus.load("gemm_reduce_8x6x8"), t8).status == "KNOWN GAP"
    assert judge_best(corpus.load("gemm_reduce_8x6x8_zeropad"), t8).status == "CORRECT"
