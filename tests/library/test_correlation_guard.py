"""CORRELATION's guard: a column whose deviation is at most eps is divided by 1.0, not by its
deviation; the PRA's select takes that branch where numpy's reference does."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from pra_brute import env, execute, random_inputs  # noqa: E402

from polyjoule.library import kernels as registry  # noqa: E402


def test_a_constant_column_takes_the_guard() -> None:
    k = registry.get("correlation")
    values = {"M": 5, "N": 7}  # float_n is N at every size
    inputs = random_inputs(k, values, seed=3)
    inputs["data"][:, 2] = 0.75  # deviation 0 <= eps
    out = execute(k, values, inputs)
    ref = k.reference(inputs, env(k, values))
    assert out["stddev"][2] == 1.0 and ref["stddev"][2] == 1.0
    assert np.all(out["stddev"][[0, 1, 3, 4]] > 0.1)
    for t in ("stddev", "data", "corr"):
        np.testing.assert_allclose(out[t], ref[t], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.diag(out["corr"]), np.ones(5))
