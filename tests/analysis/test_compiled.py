"""The compiled evaluator (generated numpy code) equals the interpreted formulas exactly."""

from __future__ import annotations

import numpy as np
import pytest

from polyjoule.analysis.analyze import analyze
from polyjoule.analysis.compiled import CompiledAnalysis
from polyjoule.analysis.counts import symbolic_env
from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.locations import CLASSES

_ANALYSES: dict = {}


@pytest.fixture
def cache():
    """Analyses are reused across tests (derivation is the slow part)."""

    class _Memo:
        def get(self, key):
            return _ANALYSES.get(key)

        def put(self, key, formulas):
            _ANALYSES[key] = formulas

    return _Memo()


def interpreted(a, vals):
    """Per-class counts by interpreting every formula (Formula.evaluate), phase by phase."""
    out = {c: 0 for c in CLASSES}
    for ph in a.phases:
        pv = {p: vals[p] for p in ph.pra.params}
        env = symbolic_env(ph.pra, ph.tiling, ph.groups, pv, a.tile_sizes(ph, pv))
        for v in ph.volumes:
            n = np.asarray(v.formula.evaluate(env)).astype(np.int64)
            for c, k in v.case.accesses.items():
                out[c] = out[c] + n * k
    return out

CASES = [("gemm", (8, 8), None), ("gemm", (4, 2), None), ("gesummv", (2, 3), None),
         ("atax", (1, 4), None), ("gemm", (4, 4), (16, 16, 1)), ("bicg", (2, 2), None),
         ("mvt", (2, 2), None), ("syrk", (2, 2), None), ("syr2k", (3, 3), None),
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
    ref = interpreted(a, vals)
    got = ca.evaluate_many(vals)
    for key, v in ref.items():
        assert np.array_equal(v, got[key]), key
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
    from polyjoule.analysis.compiled import compile_latency
    from polyjoule.analysis.schedule import kernel_schedules

    k = get(name)
    rng = np.random.default_rng(5)
    for s in kernel_schedules(k, array, order=order):
        cl = compile_latency(s)
        assert cl.fn is not None
        vals = {p: rng.integers(max(array), 500, 2000) for p in s.pra.params}
        assert np.array_equal(cl(vals), s.latency_many(vals))
        v0 = {p: int(v[0]) for p, v in vals.items()}
        assert int(cl(vals)[0]) == s.latency(v0)
