"""The per-statement table of ``analyze``: one row per case, readable at any width.

When the table fits the terminal unwrapped it is printed as a table. Otherwise (a stencil's
formulas run to a hundred characters, a statement's text to forty) it is printed stacked:
each statement on a line of its own, its cases under it in aligned columns, and a formula too
long for the rest of its case's line on lines of its own, broken before an operator
(``+``, ``-``, ``if``, ``and``, ``or``) and indented. Every digit is kept.

A piecewise formula (a band's formulas run to a dozen pieces of long conditions) shows the
piece that holds at the evaluated point, whose value is the executions column, and a note
saying which of how many; ``every_piece`` (``--wide``, ``--latex``) shows them all, as
``--json`` and ``--csv`` always do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from polyjoule.reports.tables import Column, count, energy, print_table, wrap

if TYPE_CHECKING:
    from polyjoule.analysis.analyze import PieceHere, VolumeRow

#: where a formula is broken first: before a condition's keyword (``if``, ``and``, ``or``);
#: a piece of a piecewise formula (after ``;``) starts a line; a clause still too long for a
#: line is broken before a binary ``+``/``-``
CLAUSE = re.compile(r" (?=(?:if|and|or) )")
TERM = re.compile(r" (?=[+-] )")
FORMULA_INDENT = 6  # a formula on lines of its own: under its case, past its columns' start
HEADS = ("case", "class", "executions", "energy", "formula")


@dataclass(frozen=True)
class CaseRow:
    """One row: a case of a statement, with its formula, executions and energy as printed."""

    phase: str
    statement: str
    case: str
    cls: str
    formula: str
    executions: str
    energy: str
    note: str = ""  # after the formula: which piece of a piecewise formula it is


def case_rows(volumes: Sequence[VolumeRow], every_piece: bool) -> list[CaseRow]:
    """The rows of a result's cases: of a piecewise formula the piece that holds at the
    point and a note, or (``every_piece``) the whole formula."""
    return [CaseRow(v.phase, f"{v.statement}: {v.text}", v.case, v.cls,
                    v.formula if every_piece or v.here is None else v.here.text,
                    count(v.value), energy(v.energy_pj),
                    "" if every_piece or v.here is None else piece_note(v.here))
            for v in volumes]


def piece_note(here: PieceHere) -> str:
    """``(piece 2 of 7, the one that holds here; --wide shows all)``."""
    if here.pieces == 1:
        return "(else 0: its one piece does not hold here; --wide shows it)"
    if here.number is None:
        return f"(else 0: none of the {here.pieces} pieces holds here; --wide shows all)"
    return f"(piece {here.number} of {here.pieces}, the one that holds here; --wide shows all)"


def print_cases(title: str, cases: Sequence[CaseRow], con: Console) -> None:
    """The table if it fits the console unwrapped, else the stacked layout."""
    multi = len({c.phase for c in cases}) > 1
    columns = [Column("phase", fold=False), Column("statement", fold=False),
               *(Column(h, fold=False) for h in HEADS[:2]), Column("formula", fold=False),
               Column("executions", number=True), Column("energy", number=True)]
    rows = [(c.phase if multi else "", c.statement, c.case, c.cls, _noted(c), c.executions,
             c.energy) for c in cases]
    if _table_width(columns, rows) <= con.width:
        print_table(title, columns, rows, con=con)
        return
    for line in stacked(title, cases, con.width, multi):
        con.print(Text(line), soft_wrap=True)


def _table_width(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> int:
    """The width of the table with no cell folded (empty columns left out)."""
    widths = [max([len(col.name), *(len(r[j]) for r in rows)])
              for j, col in enumerate(columns) if any(r[j] for r in rows)]
    return sum(widths) + 2 * (len(widths) - 1)


def stacked(title: str, cases: Sequence[CaseRow], line_width: int, multi: bool) -> list[str]:
    """The lines of the stacked layout (see the module's docstring)."""
    w = [max([len(h), *(len(getattr(c, a)) for c in cases)])
         for h, a in zip(HEADS[:4], ("case", "cls", "executions", "energy"), strict=True)]
    head = f"  {HEADS[0]:<{w[0]}}  {HEADS[1]:<{w[1]}}  {HEADS[2]:>{w[2]}}  {HEADS[3]:>{w[3]}}"
    out = wrap(title, line_width)
    heads = [head + "  formula"] if len(head) + 9 <= line_width else [
        head, " " * FORMULA_INDENT + "formula"]  # formulas are under their rows then too
    out += ["statement", *heads, "─" * min(line_width, len(head) + 9)]
    phase = statement = None
    for c in cases:
        if multi and c.phase != phase:
            out.append(f"phase {c.phase}")
            phase, statement = c.phase, None
        if c.statement != statement:
            out += wrap(c.statement, line_width, indent=4)
            statement = c.statement
        row = f"  {c.case:<{w[0]}}  {c.cls:<{w[1]}}  {c.executions:>{w[2]}}  {c.energy:>{w[3]}}"
        if len(row) + 2 + len(_noted(c)) <= line_width:
            out.append(f"{row}  {_noted(c)}")
        else:
            out += [row, *_noted_lines(c, line_width)]
    return out


def _noted(c: CaseRow) -> str:
    return f"{c.formula}  {c.note}" if c.note else c.formula


def _noted_lines(c: CaseRow, line_width: int) -> list[str]:
    """The formula on lines of its own, its note after it (on a line of its own if need be)."""
    lines = formula_lines(c.formula, line_width, FORMULA_INDENT)
    if not c.note:
        return lines
    if len(lines[-1]) + 2 + len(c.note) <= line_width:
        return [*lines[:-1], f"{lines[-1]}  {c.note}"]
    return lines + wrap(" " * (FORMULA_INDENT + 2) + c.note, line_width)


def formula_lines(formula: str, line_width: int, indent: int) -> list[str]:
    """``formula`` on lines of at most ``line_width``: each piece of a piecewise formula on
    lines of its own, broken before a condition's keyword, then before an operator;
    continuation lines indented two more. A term longer than a line is split where it must."""
    room = max(20, line_width - indent - 2)
    if "; " in formula:  # each piece's last line takes a ';' more
        room -= 1
    lines: list[str] = []
    for piece in formula.split("; "):
        pieces = [p for clause in CLAUSE.split(piece)
                  for term in (TERM.split(clause) if len(clause) > room else [clause])
                  for p in _chunks(term, room)]
        start = len(lines)
        for p in pieces:
            if len(lines) > start and len(lines[-1]) + 1 + len(p) <= room:
                lines[-1] += " " + p
            else:
                lines.append(p)
        lines[-1] += ";"
    lines[-1] = lines[-1][:-1]
    return [" " * (indent + (2 if i else 0)) + s for i, s in enumerate(lines)]


def _chunks(term: str, room: int) -> list[str]:
    return [term[i:i + room] for i in range(0, len(term), room)] or [""]
