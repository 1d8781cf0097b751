"""The data-dependent select ``a if x <= y else b`` (correlation's guard) and the immediate."""

from __future__ import annotations

import numpy as np
import pytest

from polyjoule.errors import SpecError
from polyjoule.model.expr import OPS, parse_expr


def test_select_counts_one_op_and_picks_per_element() -> None:
    e = parse_expr("1.0 if sd <= eps else sd", ["sd"], ["eps"], "t")
    assert dict(e.ops) == {"select": 1} and e.operands == ("sd", "sd") and "select" in OPS
    got = e.evaluate({"sd": np.array([0.05, 0.1, 0.3])}, {"eps": 0.1})
    np.testing.assert_array_equal(got, [1.0, 1.0, 0.3])


def test_select_operands_count_their_ops() -> None:
    e = parse_expr("a - b if a + b > 0 else b * 2.0", ["a", "b"], [], "t")
    assert dict(e.ops) == {"select": 1, "sub": 1, "add": 1, "mul": 1}
    assert float(e.evaluate({"a": 1.0, "b": -3.0}, {})) == -6.0


def test_chained_comparison_and_bare_literal_rules() -> None:
    with pytest.raises(SpecError, match="unsupported construct"):
        parse_expr("a if 0 < a < 1 else 1.0", ["a"], [], "t")
    with pytest.raises(SpecError, match="reads no variable"):
        parse_expr("eps * 2.0", [], ["eps"], "t")
    assert parse_expr("1.0", [], [], "t").ops == ()  # an immediate store
