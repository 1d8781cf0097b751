"""The per-statement table of ``analyze``: one row per case, readable at any width.

When the table fits the terminal unwrapped it is printed as a table. Otherwise (a stencil's
formulas run to a hundred characters, a statement's text to forty) it is printed stacked:
each statement on a line of its own, its cases under it in aligned columns, and a formula too
long for the rest of its case's line on lines of its own, broken before an operator
(``+``, ``-``, ``if``, ``and``, ``or``) and indented. Every digit and every formula is kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from polyjoule.reports.tables import Column, print_table, wrap

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


def print_cases(title: str, cases: Sequence[CaseRow], con: Console) -> None:
    """The table if it fits the console unwrapped, else the stacked layout."""
    multi = len({c.phase for c in cases}) > 1
    columns = [Column("phase", fold=False), Column("statement", fold=False),
               *(Column(h, fold=False) for h in HEADS[:2]), Column("formula", fold=False),
               Column("executions", number=True), Column("energy", number=True)]
    rows = [(c.phase if multi else "", c.statement, c.case, c.cls, c.formula, c.executions,
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
    out += ["statement", head + "  formula", "─" * min(line_width, len(head) + 9)]
    phase = statement = None
    for c in cases:
        if multi and c.phase != phase:
            out.append(f"phase {c.phase}")
            phase, statement = c.phase, None
        if c.statement != statement:
            out += wrap(c.statement, line_width, indent=4)
            statement = c.statement
        row = f"  {c.case:<{w[0]}}  {c.cls:<{w[1]}}  {c.executions:>{w[2]}}  {c.energy:>{w[3]}}"
        if len(row) + 2 + len(c.formula) <= line_width:
            out.append(f"{row}  {c.formula}")
        else:
            out += [row, *formula_lines(c.formula, line_width, FORMULA_INDENT)]
    return out


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
