"""Workload specs: the §14 schema and rules, layout in MAXDIM images, and the gold."""

import itertools
import json

import numpy as np
import pytest

from polyjoule.errors import UnknownNameError, WorkloadSpecError
from polyjoule.targets.tinytpu import builds, corpus
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.spec import load_spec, parse_spec


def base():
    return json.loads(json.dumps(corpus.load("gemm_4x4x4").model_dump(exclude_none=True)))


def test_the_corpus_has_22_valid_specs_17_of_which_fit_maxdim16():
    names = corpus.names()
    assert len(names) == 22
    cfg16 = builds.load("maxdim16").cfg
    fit = [n for n in names if corpus.load(n).fits(cfg16) is None]
    assert len(fit) == 17 and not any(n.startswith("gemm_steady") for n in fit)
    assert all(corpus.load(n).fits(builds.load("maxdim64").cfg) is None for n in names)
    assert [n for n in names if corpus.load(n).known_gap] == ["gemm_reduce_8x6x8"]


@pytest.mark.parametrize("edit, fragment", [
    (lambda d: d.pop("stresses"), "stresses: is missing (see docs/tinytpu.md)"),
    (lambda d: d.update(stresses="short"), "stresses: must have at least 16 characters (got 'short')"),
    (lambda d: d.update(einsum="km,kn->mn"), "einsum: 'km,kn->mn' is not the subscripts"),
    (lambda d: d["dims"].pop("k"), "dims: subscript letter 'k' has no extent"),
    (lambda d: d["dims"].update(k=0), "dims.k: must be"),
    (lambda d: d["inputs"][0].update(dtype="int16"), "inputs[0].dtype: must be 'int8' or 'int32' (got 'int16')"),
    (lambda d: d["inputs"][0].update(buffer="D"), "inputs[0].buffer: must be 'A', 'B' or 'C' (got 'D')"),
    (lambda d: d["inputs"][1].update(origin=[0, -4]), "inputs[1].origin: [0, -4] has a negative coordinate"),
    (lambda d: d["output"].update(write_window="rows"), "output.write_window"),
    (lambda d: d.update(epilogue=["saturate", "relu"]), "epilogue: a non-empty epilogue must"),
    (lambda d: d.update(epilogue=["tanh"]), "epilogue[0]: must be 'relu' or 'saturate' (got 'tanh')"),
    (lambda d: d.update(operand_pad="ones"), "operand_pad"),
    (lambda d: d.update(accumulator="int16"), "accumulator"),
    (lambda d: d.update(extra=1), "extra: unknown field (known: name, stresses, einsum,"),
    (lambda d: d.update(constants=[{"name": "I", "kind": "identity", "rows": 4, "cols": 4,
                                     "buffer": "C", "origin": [0, 0]}]),
     "constants.I.buffer: a constant may not live in the output buffer"),
])
def test_a_broken_spec_names_its_key(edit, fragment):
    doc = base()
    edit(doc)
    with pytest.raises(WorkloadSpecError, match="^where.json: ") as e:
        parse_spec(doc, "where.json")
    assert fragment in str(e.value)


def test_load_spec_file_errors(tmp_path):
    p = tmp_path / "s.json"
    p.write_text("{not json")
    with pytest.raises(WorkloadSpecError, match=f"^{p}: not JSON"):
        load_spec(p)
    with pytest.raises(UnknownNameError, match="neither a corpus spec"):
        corpus.load("gemm_5x5x5")


def test_layout_leading_subscripts_are_rows_a_vector_is_a_column():
    s = corpus.load("batched_matmul_2x4x4x4")
    assert [s.extent(t) for t in s.inputs] == [(8, 4), (8, 4)]
    r = corpus.load("row_reduce_16x16")
    assert r.extent(r.output) == (16, 1)
    assert r.window(4) == (slice(0, 16), slice(0, 4))  # column_block: to the block's end
    assert corpus.load("gemm_cols_8x8x6").window(4)[1] == slice(0, 8)
    assert corpus.load("gemm_8x8x8").window(4)[1] == slice(0, 8)
    assert "origin column" in parse_spec({**base(), "inputs": [
        {**base()["inputs"][0], "origin": [0, 2]}, base()["inputs"][1]]}, "x").fits(Config())


def test_gold_against_explicit_loops_in_python_integers():
    """einsum in int64, int32 accumulator wrap, relu, saturate: vs a loop over Python ints."""
    s = corpus.load("batched_matmul_2x4x4x4")
    rng = np.random.default_rng(1)
    A, B = rng.integers(-128, 128, (8, 4)), rng.integers(-128, 128, (8, 4))
    got = s.gold({"A": A, "B": B})
    for b, m, n in itertools.product(range(2), range(4), range(4)):
        acc = sum(int(A[b * 4 + m, k]) * int(B[b * 4 + k, n]) for k in range(4))
        assert got[b * 4 + m, n] == max(-128, min(127, acc))
    relu = corpus.load("gemm_relu_16x16x16")
    X, W = rng.integers(-128, 128, (16, 16)), rng.integers(-128, 128, (16, 16))
    want = [[max(-128, min(127, max(0, sum(int(X[i, k]) * int(W[k, j]) for k in range(16)))))
             for j in range(16)] for i in range(16)]
    assert (relu.gold({"A": X, "B": W}) == np.array(want)).all()
    row = corpus.load("row_reduce_16x16")
    Y = rng.integers(-128, 128, (16, 16))
    assert (row.gold({"X": Y})[:, 0] == np.clip(Y.sum(axis=1), -128, 127)).all()


def test_int32_accumulator_wraps_before_the_epilogue():
    doc = base()
    doc["dims"] = {"m": 1, "k": 16, "n": 1}
    s = parse_spec(doc, "x")
    doc8 = {**doc, "accumulator": "int8", "epilogue": []}
    s8 = parse_spec(doc8, "x")
    A, B = np.full((1, 16), 16), np.full((16, 1), 1)
    assert s.gold({"A": A, "B": B})[0, 0] == 127  # 256 saturates
    assert s8.gold({"A": A, "B": B})[0, 0] == 0  # 256 wraps to 0 in an int8 accumulator
