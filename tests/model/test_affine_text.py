"""Affine text is arithmetic: what is not is a NotAffineError saying what it is, and
equivalent spellings of one bound or condition read the same."""

from __future__ import annotations

import re
import warnings

import pytest

from polyjoule.errors import NotAffineError
from polyjoule.model.affine import parse_affine, parse_condition, python_expression

KNOWN = {"i", "j", "N"}


@pytest.mark.parametrize("text, what", [
    ("(N, 1)", "a tuple (',')"),
    ("[N]", "a list ('[...]')"),
    ("{N}", "a set ('{...}')"),
    ("(N, 1) + 1", "'(N, 1)' is a tuple (',')"),
    ("N % 2", "a remainder ('%')"),
    ("N**2", "a power ('**')"),
    ("N // 2", "a floor division ('//')"),
    ("~N", "a bitwise not ('~')"),
    ("1j*N", "'1j' is a complex constant"),
    ("N - 1/0", "'1/0' is a division by zero"),
    ("N - 1; 2", "invalid syntax"),
    ("(N - 1", "'(' was never closed"),
    ("N - 1  # 2", "the character '#'"),
    ("\uff2e - 1", "the character '\uff2e'"),  # full-width N: Python would read it as N
    ("N - 0i", "invalid decimal literal"),
])
def test_what_is_not_arithmetic_is_named(text: str, what: str) -> None:
    msg = f"w: {text!r} is not an affine expression: {what}"
    with warnings.catch_warnings(record=True) as printed:
        warnings.simplefilter("always")
        with pytest.raises(NotAffineError, match="^" + re.escape(msg) + "$"):
            parse_affine(text, KNOWN, "w")
    assert not printed  # nothing on stderr besides the error line


def test_a_comparison_is_not_a_bound() -> None:
    with pytest.raises(NotAffineError, match=r"'N - 1 == 2' is a comparison; a bound"):
        parse_affine("N - 1 == 2", KNOWN, "w")


@pytest.mark.parametrize("text, what", [
    ("j == 0, i == 1", "',' joins two conditions; write a list"),
    ("j == 0 and i == 1", "'and' joins two conditions; write a list"),
    ("j == 0 or i == 1", "'or' joins two conditions; write {any: "),
    ("j == {1}", "'{1}' is a set ('{...}')"),
    ("j = 0", "a single '=' is not a comparison; write '=='"),
    ("j => 0", "a single '=' is not a comparison"),
    ("j != 0", "'!=' is not one of ==, <, <=, >, >= ('j != 0' is {any: "),
    ("j in N", "'in' is not one of"),
    ("i >", "invalid syntax"),
    ("j == N % 2", "'N % 2' is a remainder"),
    ("j == 0not", "invalid decimal literal"),  # Python would warn on stderr, then fail
])
def test_what_is_not_a_constraint_is_named(text: str, what: str) -> None:
    msg = f"w: {text!r} is not an affine constraint: {what}"
    with warnings.catch_warnings(record=True) as printed:
        warnings.simplefilter("always")
        with pytest.raises(NotAffineError, match="^" + re.escape(msg)):
            parse_condition(text, KNOWN, "w")
    assert not printed  # nothing on stderr besides the error line


@pytest.mark.parametrize("text, same", [
    ("2*(N - 1)/2", "N - 1"),  # through sympy
    ("-(N - i)*3", "3*i - 3*N"),  # read directly
    ("N -\n  1", "N - 1"),  # a YAML block scalar's newline
    ("N - 1.0", "N - 1"),
])
def test_spellings_of_one_bound_agree(text: str, same: str) -> None:
    assert parse_affine(text, KNOWN, "w") == parse_affine(same, KNOWN, "w")


@pytest.mark.parametrize("text, same", [
    ("1 <= i < N", ["i >= 1", "N - 1 >= i"]),
    ("(j + 1) * 2 == 0", ["2*j == -2"]),
    ("j ==\n 0", ["j == 0"]),
])
def test_spellings_of_one_condition_agree(text: str, same: list[str]) -> None:
    want = [c for t in same for c in parse_condition(t, KNOWN, "w")]
    assert parse_condition(text, KNOWN, "w") == want


def test_python_expression_gives_a_tree_or_a_reason() -> None:
    assert python_expression("N - 1") is not None and not isinstance(
        python_expression("N - 1"), str)
    assert python_expression("N -") == "invalid syntax"
