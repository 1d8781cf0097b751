"""The display reader: its sympy-free affine parser against sympy's, and its errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyjoule.errors import SpecError
from polyjoule.frontends.pra_outline import affine_text, kernel_outline
from polyjoule.model.affine import parse_affine, parse_condition

NAMES = ("N", "M", "i", "j")


def _text(depth: int) -> st.SearchStrategy[str]:
    """Affine text as people write it: sums, integer scalings, unary minus, parentheses."""
    leaf = st.one_of(st.sampled_from(NAMES), st.integers(0, 20).map(str))
    if depth == 0:
        return leaf
    sub = _text(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from([" + ", " - ", "+", "-"]), sub).map("".join),
        st.tuples(st.integers(0, 5), sub).map(lambda t: f"{t[0]}*({t[1]})"),
        st.tuples(sub, st.integers(-3, 5)).map(lambda t: f"({t[0]}) * {t[1]}"),
        sub.map(lambda s: f"-({s})"),
    )


@settings(max_examples=150, deadline=None)
@given(_text(3))
def test_affine_text_agrees_with_sympy(text: str) -> None:
    assert affine_text(text, NAMES, "w") == parse_affine(text, NAMES, "w")


@settings(max_examples=60, deadline=None)
@given(_text(2), st.sampled_from(["<=", ">=", "==", "<", ">"]), _text(2))
def test_conditions_agree_with_sympy(lhs: str, rel: str, rhs: str) -> None:
    text = f"{lhs} {rel} {rhs}"
    assert (parse_condition(text, NAMES, "w", affine=affine_text)
            == parse_condition(text, NAMES, "w"))


@pytest.mark.parametrize("text, why", [
    ("N*M", "not affine"), ("N/2", "'/'"), ("K + 1", "unknown name 'K'"), ("(N - 1", "')'"),
    ("N -", "ends early"), ("N N", "'N'"),
])
def test_affine_text_refuses(text: str, why: str) -> None:
    with pytest.raises(SpecError, match=re.escape(why)):
        affine_text(text, NAMES, "dims[0].upper")


def test_single_pra_file_is_one_phase() -> None:
    data = {"name": "t", "params": {"N": 2},
            "dims": [{"name": "i", "lower": 0, "upper": "N - 1"}],
            "tensors": {"X": {"shape": ["N"], "kind": "input"}},
            "statements": [{"id": "S1", "var": "x", "input": "X[i]", "when": "i >= 1"},
                           {"id": "S2", "var": "y", "from": "x", "dep": [1]}]}
    k = kernel_outline(data, "t.yaml")
    (ph,) = k.phases
    assert k.params == ("N",) and ph.n == 1 and str(ph.dims[0].extent) == "N"
    assert [s.text for s in ph.statements] == ["x[i] = X[i]", "y[i] = x[i - 1]"]
    assert str(ph.statements[0].when[0]) == "i - 1 >= 0"
