"""The display reader: its sympy-free affine parser against sympy's, and its errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyjoule.errors import SpecError
from polyjoule.frontends.pra_outline import affine_text, kernel_outline
from polyjoule.model.affine import parse_affine, parse_condition, parse_when

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


def _condition() -> st.SearchStrategy[str]:
    return st.tuples(_text(1), st.sampled_from(["<=", ">=", "==", "<", ">"]), _text(1)).map(
        " ".join)


#: ``when:`` trees: a condition, a list (all hold) or ``{any: [...]}`` (one holds), nested
WHEN = st.recursive(
    _condition(),
    lambda sub: st.one_of(st.lists(sub, max_size=3),
                          st.lists(sub, min_size=1, max_size=3).map(lambda a: {"any": a})),
    max_leaves=6)


@settings(max_examples=80, deadline=None)
@given(WHEN)
def test_when_trees_agree_with_the_full_reader(tree) -> None:
    """The outline's alternatives equal the full reader's (sympy) for random trees."""
    assert (parse_when(tree, NAMES, "w", affine=affine_text)
            == parse_when(tree, NAMES, "w"))


def test_statement_with_alternatives_keeps_them() -> None:
    data = {"name": "t", "params": {"N": 2},
            "dims": [{"name": "i", "lower": 0, "upper": "N - 1"}],
            "statements": [{"id": "S1", "var": "x", "compute": "1 + x",
                            "when": {"any": ["i == 0", ["i >= 2", "i <= N - 2"]]}},
                           {"id": "S2", "var": "y", "compute": "x", "when": {"any": ["i >= 1"]}}]}
    s1, s2 = kernel_outline(data, "t.yaml").phases[0].statements
    assert s1.when == () and [[str(c) for c in a] for a in s1.alternatives] == [
        ["i == 0"], ["i - 2 >= 0", "N - i - 2 >= 0"]]
    assert s2.alternatives == () and [str(c) for c in s2.when] == ["i - 1 >= 0"]


@pytest.mark.parametrize("when, why", [
    ({"any": []}, "when.any: expected a non-empty list"),
    ({"any": ["i == 0", "N*i == 1"]}, "when.any[1]: 'N*i' is not affine"),
    ({"or": ["i == 0"]}, "when: a mapping in 'when' is {any: [...]}"),
])
def test_outline_refuses_bad_alternatives_like_the_full_reader(when, why: str) -> None:
    data = {"name": "t", "params": {"N": 2},
            "dims": [{"name": "i", "lower": 0, "upper": "N - 1"}],
            "statements": [{"id": "S1", "var": "x", "compute": "x", "when": when}]}
    with pytest.raises(SpecError, match=re.escape(f"t.yaml: statements[0] (S1).{why}")):
        kernel_outline(data, "t.yaml")


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
