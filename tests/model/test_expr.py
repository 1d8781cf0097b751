"""``abs``, ``min``, ``max`` in computations: op counts, numpy semantics, arity errors, and a
max-pool of magnitudes validated against numpy and the simulator."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from polyjoule.analysis import analyze
from polyjoule.analysis import simulator as sim
from polyjoule.errors import SpecError
from polyjoule.frontends.pra_yaml import load_kernel_file
from polyjoule.model.expr import OPS, parse_expr
from polyjoule.targets.tcpa.energy import default_table

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("text, ops", [
    ("abs(x - c)", {"abs": 1, "sub": 1}),
    ("max(a, abs(x), b)", {"max": 2, "abs": 1}),
    ("min(max(x, a), c)", {"max": 1, "min": 1}),
    ("abs(a) * abs(b) + relu(x)", {"abs": 2, "mul": 1, "add": 1, "max": 1}),
])
def test_op_counts(text: str, ops: dict[str, int]) -> None:
    e = parse_expr(text, {"x", "a", "b"}, {"c"}, "t")
    assert dict(e.ops) == ops


def test_evaluation_is_numpy_elementwise() -> None:
    rng = np.random.default_rng(3)
    x, a = rng.normal(size=50), rng.normal(size=50)
    e = parse_expr("min(max(abs(x - c), a), 0.5)", {"x", "a"}, {"c"}, "t")
    got = e.evaluate({"x": x, "a": a}, {"c": 0.25})
    np.testing.assert_array_equal(got, np.minimum(np.maximum(np.abs(x - 0.25), a), 0.5))


@pytest.mark.parametrize("text, why", [
    ("abs(x, a)", "abs takes one argument, not 2"),
    ("abs()", "abs takes one argument, not 0"),
    ("max(x)", "max takes two or more arguments, not 1"),
    ("min(x)", "min takes two or more arguments, not 1"),
    ("relu(x, a)", "relu takes one argument, not 2"),
])
def test_wrong_arity_is_refused_naming_the_field(text: str, why: str) -> None:
    with pytest.raises(SpecError, match=re.escape(f"statements[3] (S4).compute: {why}")):
        parse_expr(text, {"x", "a"}, {}, "statements[3] (S4).compute")


def test_every_op_has_an_energy_for_every_dtype() -> None:
    """The default table prices abs, min, max (and every other op) for each data type."""
    table = default_table()
    for dtype in ("fp64", "fp32", "fp16", "int32", "int16", "int8"):
        for op in OPS:
            assert table.op(dtype, op) > 0, (dtype, op)
    assert table.op("fp32", "abs") == table.op("fp32", "add")


def maxpool_reference(t: dict[str, np.ndarray], env: dict) -> dict[str, np.ndarray]:
    """min(max over the K x K window of |X - c|, cap), with numpy's sliding windows."""
    k = env["K"]
    win = np.lib.stride_tricks.sliding_window_view(np.abs(t["X"] - env["c"]), (k, k))
    return {"Y": np.minimum(win.max(axis=(2, 3)), env["cap"])}


MAXPOOL = replace(load_kernel_file(DATA / "maxpool_abs.yaml"), reference=maxpool_reference)


@pytest.mark.parametrize("array", [(1, 4), (2, 2), (3, 2)])
def test_maxpool_of_magnitudes_matches_numpy_and_the_symbolic_counts(array) -> None:
    a = analyze(MAXPOOL, array=array)
    for values in ({"N": 5, "M": 4, "K": 3}, {"N": 6, "M": 3, "K": 2}):
        s = sim.simulate(MAXPOOL, array, values=values, seed=7)
        assert s.ok and s.checks["outputs_match_reference"], (s.checks, s.violations)
        y = s.outputs["Y"]
        assert 0 < np.sum(y == 0.4) < y.size  # the clip both bites and lets values through
        r = a.evaluate(values)
        assert r.counts == s.counts
        n, m, k = values["N"], values["M"], values["K"]
        assert r.counts["ops"] == {"abs": n * m * k * k, "sub": n * m * k * k,
                                   "max": n * m * k * (k - 1) + n * m * (k - 1), "min": n * m}
        assert r.energy_pj["by_op"]["abs"] == pytest.approx(0.9 * n * m * k * k)
