"""Engineering units, uncut numbers, dropped empty columns and word wrapping of
:mod:`polyjoule.reports.tables`."""

from __future__ import annotations

import pytest
from rich.console import Console

from polyjoule.reports.tables import Column, count, energy, print_table, wrap


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
