"""The compiled evaluator equals Analysis.evaluate_many exactly (counts) on random points."""

from __future__ import annotations

import numpy as np
import pytest

from polyjoule.analysis.analyze import analyze
from polyjoule.dse.compiled import CompiledAnalysis
from polyjoule.kernels.registry import get

CASES = [("gemm", (8, 8), None), ("gemm", (4, 2), None), ("gesummv", (2, 3), None),
         ("atax", (1, 4), None), ("gemm", (4, 4), (16, 16, 1)), ("bicg", (2, 2), None),
         ("mvt", (2, 2), None), ("syrk", (2, 2), None), ("syr2k", (2, 3), None),
         ("trisolv", (2, 2), None), ("2mm", (2, 2), None)]


@pytest.mark.parametrize(("name", "array", "tile"), CASES)
def test_compiled_equals_evaluate_many(name, array, tile, cache):
    a = analyze(name, array, tile, store=cache)
    ca = CompiledAnalysis(a)
    rng = np.random.default_rng(1)
    k = get(name)
    hi = 64 if tile is not None else 300
    lo = max(array) if tile is None else 8
    vals = {p: rng.integers(lo, hi, 3000) for p in k.params}
    ref = a.evaluate_many(vals)
    got = ca.evaluate_many(vals)
    for key, v in ref.items():
        if v.dtype.kind == "i":
            assert np.array_equal(v, got[key]), key
        else:
            np.testing.assert_allclose(got[key], v, rtol=1e-12, err_msg=key)
    # and scalar evaluation at a few points
    for i in range(5):
        r = a.evaluate({p: int(v[i]) for p, v in vals.items()})
        for c in ("RD", "FD", "ID", "OD", "IOb", "DR"):
            assert r.counts[c] == got[c][i]


def test_overflow_falls_back_to_exact_integers(cache):
    a = analyze("gemm", (8, 8), store=cache)
    ca = CompiledAnalysis(a)
    big = np.asarray([2**20, 3 * 2**19 + 5], dtype=np.int64)
    c = ca.counts({"NI": big, "NJ": big, "NK": big})
    r = a.evaluate({"NI": int(big[1]), "NJ": int(big[1]), "NK": int(big[1])})
    assert int(c["RD"][1]) == r.counts["RD"]
    assert int(c["work"][1]) == int(big[1]) ** 3


def test_work_is_loop_body_iterations(cache):
    a = analyze("gemm", (8, 8), store=cache)
    c = CompiledAnalysis(a).counts({"NI": np.asarray([20]), "NJ": np.asarray([25]), "NK": np.asarray([30])})
    assert int(c["work"][0]) == 20 * 25 * 30


@pytest.mark.parametrize(("name", "array", "order"), [
    ("gemm", (8, 8), None), ("gemm", (4, 2), "kji"), ("gesummv", (2, 3), None), ("atax", (1, 4), None),
])
def test_compiled_latency_equals_schedule(name, array, order):
    from polyjoule.dse.compiled import CompiledLatency
    from polyjoule.mapping.schedule import kernel_schedules

    k = get(name)
    rng = np.random.default_rng(5)
    for s in kernel_schedules(k, array, order=order):
        cl = CompiledLatency(s)
        assert cl.fn is not None
        vals = {p: rng.integers(max(array), 500, 2000) for p in s.pra.params}
        assert np.array_equal(cl(vals), s.latency_many(vals))
        v0 = {p: int(v[0]) for p, v in vals.items()}
        assert int(cl(vals)[0]) == s.latency(v0)
