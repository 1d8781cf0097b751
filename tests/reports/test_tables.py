"""Engineering units, uncut numbers, dropped empty columns and word wrapping of
:mod:`polyjoule.reports.tables`."""

from __future__ import annotations

import pytest
from rich.console import Console

from polyjoule.reports.tables import (
    Column,
    count,
    energy,
    print_table,
    quantity,
    ranking,
    scientific,
    wrap,
)


@pytest.mark.parametrize(("pj", "text"), [
    (26003690000.0, "26.0 mJ"), (1_380_000_000.0, "1.38 mJ"), (776_400_000.0, "776 uJ"),
    (999_960.0, "1.00 uJ"), (9.996, "10.0 pJ"), (0.05, "0.0500 pJ"), (0.0, "0 pJ"),
    (12.43, "12.4 pJ"), (2.5e15, "2,500 J"), (-3140.0, "-3.14 nJ"),
])
def test_energy_has_three_significant_digits(pj: float, text: str) -> None:
    assert energy(pj) == text


def test_count_keeps_every_digit() -> None:
    assert count(1_300_800_000) == "1,300,800,000"


def _render(width: int, columns, rows) -> str:
    con = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    print_table("t", columns, rows, con=con)
    return con.export_text()


def test_a_table_drops_empty_columns_and_never_cuts_a_number() -> None:
    cols = [Column("phase"), Column("text"), Column("n", number=True)]
    rows = [("", "a long statement text that has to fold", "1,300,800,000")] * 3
    out = _render(40, cols, rows)
    assert "phase" not in out and out.count("1,300,800,000") == 3
    assert max(len(line) for line in out.splitlines()) <= 40 and "…" not in out


def test_a_table_too_wide_for_its_numbers_becomes_blocks() -> None:
    cols = [Column(f"c{i}", number=True) for i in range(6)]
    out = _render(30, cols, [[count(10**9 + i) for i in range(6)]])
    assert all(f"c{i}  1,000,000,00{i}" in out for i in range(6))
    assert max(len(line) for line in out.splitlines()) <= 30


def test_wrap_splits_at_spaces_and_keeps_a_number_with_its_unit() -> None:
    lines = wrap("static 5.21 mJ (pe 730 uJ, register_file 384 uJ, fifo 4.09 mJ)", 24)
    assert all(len(x) <= 24 for x in lines)
    assert "4.09 mJ)" in " ".join(lines).replace("  ", " ")
    assert any(x.endswith("4.09 mJ)") for x in lines)


@pytest.mark.parametrize(("value", "unit", "text"), [
    (1.6e9, "iterations/s", "1.60 G iterations/s"), (2.115117, "W", "2.12 W"),
    (0.260067, "W", "260 mW"), (0.0384714, "W", "38.5 mW"),
    (999.96e6, "iterations/s", "1.00 G iterations/s"), (5.0, "iterations/s", "5.00 iterations/s"),
])
def test_a_quantity_has_three_significant_digits_and_an_si_prefix(value, unit, text) -> None:
    assert quantity(value, unit) == text


@pytest.mark.parametrize(("x", "text"), [
    (4096.0, "4,096"), (2.064e9, "2.06e9"), (12.345, "12.3"), (4.253e6, "4.25e6"),
    (-3.6e17, "-3.60e17"),
])
def test_scientific_has_no_plus_sign_or_leading_zero_in_the_exponent(x, text) -> None:
    assert scientific(x) == text


def test_a_ranking_names_its_objectives_in_words_with_units() -> None:
    assert ranking(("energy_pj", "latency")) == "energy (pJ), then latency (cycles)"
    assert ranking(("edp", "makespan")) == "EDP (pJ x cycles), then makespan (cycles)"
    assert ranking(("unnamed",)) == "unnamed"


def test_wrap_keeps_a_prefixed_rate_with_its_number() -> None:
    text = "static 11.5 uJ, total 2.24 mJ; 2.12 W at 200 MHz, 1.60 G iterations/s, 331 pJ/op"
    lines = wrap(text, 60)
    assert any("1.60 G iterations/s" in x for x in lines), lines


@pytest.mark.parametrize(("pj", "text"), [
    (1.329227995788542677614592e39, "1.33e27 J"),  # not 1,329,227,995,788,542,677,614,592 J
    (9_999.4e12, "9,999 J"), (2.5e16, "2.50e4 J"), (4.2e-4, "4.20e-4 pJ")])
def test_a_float_energy_shows_only_its_real_digits(pj: float, text: str) -> None:
    assert energy(pj) == text


def test_a_huge_quantity_is_a_power_of_ten_of_its_unit() -> None:
    assert quantity(1.33e39, "W") == "1.33e39 W"
    assert quantity(2.5e-20, "W") == "2.50e-20 W"


def test_wrap_never_splits_a_number() -> None:
    big = f"{2**200:,}"
    text = f"dynamic {big} words, the declaration has 4,096 words of 2,291,423,958"
    lines = wrap(text, 80)
    assert all(len(line) <= 80 for line in lines)
    assert "".join(line.strip() for line in lines).replace(",", "").count(str(2**200)) == 1
    for line in lines:  # a line breaks after a separator: no digit group is cut
        for group in line.strip().split(" "):
            if group[:1].isdigit():
                assert all(len(g) == 3 for g in group.rstrip(",").split(",")[1:]), line
    assert "2,291,423,958" in "\n".join(lines)
