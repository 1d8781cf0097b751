"""The einsum Workload: validated at construction, its own numpy gold."""

from __future__ import annotations

import numpy as np
import pytest

from polyjoule.errors import SpecError
from polyjoule.library import workloads
from polyjoule.model.workload import Tensor, Workload


def test_gemm_sum_relu_evaluates_as_written_by_hand() -> None:
    rng = np.random.default_rng(0)
    a, b, b2 = (rng.integers(-5, 6, size=s) for s in ((3, 4), (4, 2), (4, 2)))
    got = workloads.get("gemm.sum.relu").evaluate({"A": a, "B": b, "B2": b2})
    np.testing.assert_array_equal(got, np.maximum(a @ b + a @ b2, 0))


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(ranks=("M", "M")), "repeated rank"),
    (dict(reduce=("Q",)), "reduce: unknown rank 'Q'"),
    (dict(result=Tensor("C", ("M",))), "must be the free ranks"),
    (dict(contractions=(("A", "Z"),)), "unknown operand 'Z'"),
    (dict(epilogue=("gelu",)), "unknown pointwise op 'gelu'"),
])
def test_a_malformed_workload_is_refused(kwargs: dict, pattern: str) -> None:
    base = dict(name="w", ranks=("M", "K", "N"), reduce=("K",),
                operands=(Tensor("A", ("M", "K")), Tensor("B", ("K", "N"))),
                result=Tensor("C", ("M", "N")), contractions=(("A", "B"),))
    with pytest.raises(SpecError, match=pattern):
        Workload(**{**base, **kwargs})


def test_extents_are_checked_by_rank() -> None:
    w = workloads.get("gemm")
    with pytest.raises(SpecError, match="rank 'N' missing"):
        w.check_extents({"M": 2, "K": 2})
    with pytest.raises(SpecError, match="N = 0 < 1"):
        w.check_extents({"M": 2, "K": 2, "N": 0})
