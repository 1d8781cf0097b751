"""``when:`` as a tree of conditions -> alternatives (a union of conjunctions), and its errors."""

from __future__ import annotations

import re

import pytest

from polyjoule.errors import ConditionError, NotAffineError, SpecError
from polyjoule.model.affine import MAX_ALTERNATIVES, parse_condition, parse_when

KNOWN = {"i", "j", "N"}


def _c(text: str) -> tuple:
    return tuple(parse_condition(text, KNOWN, "t"))


def test_a_string_and_a_list_are_one_conjunction() -> None:
    assert parse_when("i >= 1", KNOWN, "w") == (_c("i >= 1"),)
    assert parse_when(["i >= 1", "j == 0"], KNOWN, "w") == (_c("i >= 1") + _c("j == 0"),)
    assert parse_when([], KNOWN, "w") == ((),)


def test_any_is_a_union_and_a_list_of_anys_expands() -> None:
    """(i == 0 or i == N - 1) and (j == 0 or j >= 2): four alternatives, in order."""
    got = parse_when([{"any": ["i == 0", "i == N - 1"]}, {"any": ["j == 0", "j >= 2"]}],
                     KNOWN, "w")
    want = tuple(_c(a) + _c(b) for a in ("i == 0", "i == N - 1") for b in ("j == 0", "j >= 2"))
    assert got == want


def test_nested_alternatives_flatten() -> None:
    got = parse_when({"any": ["i == 0", {"any": ["j == 0", ["i >= 1", "j >= 1"]]}]}, KNOWN, "w")
    assert got == (_c("i == 0"), _c("j == 0"), _c("i >= 1") + _c("j >= 1"))


@pytest.mark.parametrize("data, field, why", [
    ({"any": []}, "w.any", "non-empty list"),
    ({"any": "i == 0"}, "w.any", "non-empty list"),
    ({"all": ["i == 0"]}, "w", "{any: [...]}"),
    ({"any": ["i == 0"], "or": ["j == 0"]}, "w", "{any: [...]}"),
    ({"any": ["i == 0", 3]}, "w.any[1]", "expected a condition"),
    (["i >= 0", {"any": ["j == 0", None]}], "w[1].any[1]", "expected a condition"),
    (7, "w", "expected a condition"),
    ({"any": ["i == 0", "i >"]}, "w.any[1]", "'i >' is not an affine constraint"),
    ({"any": ["i == 0", "i"]}, "w.any[1]", "not a comparison"),
])
def test_malformed_alternatives_name_the_entry(data, field: str, why: str) -> None:
    with pytest.raises(SpecError, match=re.escape(f"{field}: ") + ".*" + re.escape(why)):
        parse_when(data, KNOWN, "w")


def test_a_non_affine_alternative_is_not_affine() -> None:
    with pytest.raises(NotAffineError, match=re.escape("w.any[1]: 'i*j' is not affine")):
        parse_when({"any": ["i == 0", "i*j == 0"]}, KNOWN, "w")


def test_too_many_alternatives_are_refused() -> None:
    """Seven binary choices expand into 128 conjunctions: over the limit, named."""
    many = [{"any": ["i == 0", "j == 0"]}] * 7
    assert 2 ** 7 > MAX_ALTERNATIVES
    with pytest.raises(ConditionError, match=r"w: expands into \d+ alternatives"):
        parse_when(many, KNOWN, "w")
