"""PRA objects -> YAML data -> the loader: the same objects again."""

from __future__ import annotations

from dataclasses import replace

import pytest

from polyjoule.frontends.pra_dump import condition_text, kernel_data, oriented
from polyjoule.frontends.pra_yaml import load_kernel_data
from polyjoule.library import kernels as registry
from polyjoule.model.affine import Constraint, parse_affine, parse_condition
from polyjoule.model.pra import Kernel


def _untexted(k: Kernel) -> list:
    """The phases without the statements' display text (spacing of hand-written files)."""
    return [replace(p, statements=tuple(replace(s, text="") for s in p.statements))
            for p in k.phases]


@pytest.mark.parametrize("name", registry.names())
def test_every_builtin_round_trips(name: str) -> None:
    k = registry.get(name)
    again = load_kernel_data(kernel_data(k), name)
    assert _untexted(again) == _untexted(k)
    assert (again.name, again.description, again.datasets) == (k.name, k.description,
                                                               k.datasets)


@pytest.mark.parametrize("text, want", [
    ("i - j - 1 >= 0", "i >= j + 1"),
    ("j - i >= 0", "j >= i"),
    ("-k + N - 1 >= 0", "k <= N - 1"),
])
def test_condition_text_puts_the_inner_index_left(text: str, want: str) -> None:
    lhs = text.split(" >= ")[0]
    c = Constraint(parse_affine(lhs, {"i", "j", "k", "N"}, "t"))
    assert condition_text(c, ["i", "j", "k"]) == want


def test_an_equality_reads_back_as_oriented() -> None:
    """``N - 1 - k == 0`` is written ``k == N - 1``, which reads back as ``k - N + 1 == 0``."""
    c = Constraint(parse_affine("N - 1 - k", {"k", "N"}, "t"), eq=True)
    text = condition_text(c, ["k"])
    assert text == "k == N - 1"
    assert parse_condition(text, {"k", "N"}, "t") == [oriented(c, ["k"])]
    assert oriented(c, ["k"]) != c
