"""Terminal output that fits the terminal's width without losing a digit.

Every command prints through here: energies in engineering units (``26.0 mJ``, three
significant digits; the exact values are in ``--json``/``--csv``), counts with thousands
separators and never cut, columns whose every cell is empty left out, long texts folded,
and lines that are not tables wrapped at word boundaries. A table whose numbers cannot
fit side by side is printed as one block per row instead. ``wide`` prints the full table
(and unwrapped lines), for a pager or a file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

WIDE = 100_000
NBSP = "\u00a0"
#: a number stays with its unit (on one line when text is wrapped)
GLUE = re.compile(r"\d (?:[pnum]?J|[umk]?W|MHz|cycles|s|(?:[kMGT] )?iterations/s)\b")
FOLDED_MIN = 8  # the narrowest a folded text column is made before rows become blocks
UNITS = (("J", 1e12), ("mJ", 1e9), ("uJ", 1e6), ("nJ", 1e3), ("pJ", 1.0))


def energy(pj: float) -> str:
    """``26003690000.0`` -> ``26.0 mJ``: three significant digits in pJ, nJ, uJ, mJ or J;
    past 9,999 J a power of ten (``1.33e24 J``): a float has no more digits to show."""
    pj = float(pj)
    if not math.isfinite(pj):
        return str(pj)
    if pj == 0:
        return "0 pJ"
    mag = abs(pj)
    i = next((i for i, (_, scale) in enumerate(UNITS) if mag >= scale), len(UNITS) - 1)
    text = _sig3(pj / UNITS[i][1])
    if abs(float(text.replace(",", ""))) >= 1000 and i > 0:  # 999.96 nJ rounds to 1.00 uJ
        i -= 1
        text = _sig3(pj / UNITS[i][1])
    return f"{text} {UNITS[i][0]}"


def _sig3(v: float) -> str:
    """Three significant digits (four from 1,000 to 9,999), a power of ten past them."""
    if abs(v) >= 1000:
        return f"{v:,.0f}" if round(abs(v)) < 10_000 else scientific(v)
    if abs(v) < 1e-3:
        return _power_of_ten(v)
    decimals = max(0, 2 - math.floor(math.log10(abs(v))))
    text = f"{v:.{decimals}f}"
    if abs(float(text)) >= 10 ** (3 - decimals) and decimals > 0:  # 9.996 -> 10.00 -> 10.0
        text = f"{v:.{decimals - 1}f}"
    return text


PREFIXES = (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0), ("m", 1e-3),
            ("u", 1e-6), ("n", 1e-9), ("p", 1e-12))


def quantity(value: float, unit: str) -> str:
    """A figure as energies are printed: three significant digits and an SI prefix
    (``1.6e9, "iterations/s"`` -> ``1.60 G iterations/s``, ``0.26, "W"`` -> ``260 mW``).
    A symbol takes its prefix (``mW``); a word is preceded by it (``G iterations/s``)."""
    value = float(value)
    if not math.isfinite(value) or value == 0:
        return f"{value:g} {unit}"
    i = next((i for i, (_, scale) in enumerate(PREFIXES) if abs(value) >= scale),
             len(PREFIXES) - 1)
    text = _sig3(value / PREFIXES[i][1])
    if abs(float(text.replace(",", ""))) >= 1000 and i > 0:  # 999.96 M rounds to 1.00 G
        i -= 1
        text = _sig3(value / PREFIXES[i][1])
    prefix = PREFIXES[i][0]
    if "e" in text:  # past 9,999 T: a power of ten of the unit itself
        text, prefix = scientific(value), ""
    return f"{text} {prefix}{unit}" if len(unit) <= 2 else f"{text} {prefix + ' ' if prefix else ''}{unit}"


def scientific(x: float) -> str:
    """Three significant digits, a power of ten past 9,999: ``4,096``, ``2.06e9``."""
    x = float(x)
    if not math.isfinite(x) or x == 0:
        return f"{x:g}"
    if round(abs(x)) < 1e4:
        return _sig3(x) if abs(x) < 1000 else f"{x:,.0f}"
    return _power_of_ten(x)


def _power_of_ten(x: float) -> str:
    """``2.06e9``, ``1.00e-20``: three significant digits and the exponent."""
    mantissa, exp = f"{x:.2e}".split("e")
    return f"{mantissa}e{int(exp)}"


#: a field's name (a ranking's objective, a sort column) in words, with its unit
FIELD_WORDS = {
    "energy_pj": "energy (pJ)", "total_pj": "total energy (pJ)",
    "dynamic_pj": "dynamic energy (pJ)", "static_pj": "static energy (pJ)",
    "latency": "latency (cycles)", "latency_cycles": "latency (cycles)",
    "makespan": "makespan (cycles)", "emits": "data instructions issued",
    "edp": "EDP (pJ x cycles)", "power_mw": "power (mW)",
    "throughput_ips": "throughput (iterations/s)", "utilisation": "PE utilisation",
    "energy_per_op_pj": "energy per operation (pJ)",
}


def in_words(name: str) -> str:
    """``energy_pj`` -> ``energy (pJ)``; a name without words of its own is kept."""
    return FIELD_WORDS.get(name, name)


def ranking(names: Sequence[str]) -> str:
    """``("energy_pj", "latency")`` -> ``energy (pJ), then latency (cycles)``."""
    return ", then ".join(in_words(n) for n in names)


def count(n: int) -> str:
    """An exact count with thousands separators: ``1,300,800,000``."""
    return f"{int(n):,}"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 mapping``, ``174 mappings``, ``1,024 design points``: the count and its noun."""
    return f"{int(n):,} {noun if n == 1 else plural or noun + 's'}"


def width(wide: bool = False) -> int:
    """The console's width: the terminal's, or ``COLUMNS`` when output is not a terminal."""
    return WIDE if wide else Console().width


class _Console(Console):
    """rich's console, but a closed pipe ends the run as the CLI says (not rich's exit 1)."""

    def on_broken_pipe(self) -> None:
        import os
        import sys

        from polyjoule.errors import ReaderGone

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush
        raise ReaderGone


def console(wide: bool = False, stderr: bool = False) -> Console:
    """A console of the terminal's width (``wide``: unlimited), no syntax highlighting."""
    return _Console(width=WIDE if wide else None, stderr=stderr, highlight=False)


@dataclass(frozen=True)
class Column:
    """A column: ``number`` cells are never wrapped or cut, ``text`` cells fold."""

    name: str
    number: bool = False
    fold: bool = True


def _cell(value: Any) -> Text:
    return value if isinstance(value, Text) else Text("" if value is None else str(value))


def _kept(columns: Sequence[Column], rows: Sequence[Sequence[Any]]
          ) -> tuple[list[Column], list[list[Text]]]:
    """Drop the columns whose every cell is empty."""
    cells = [[_cell(v) for v in row] for row in rows]
    keep = [j for j in range(len(columns)) if any(r[j].plain.strip() for r in cells)]
    if not cells:
        keep = list(range(len(columns)))
    return [columns[j] for j in keep], [[r[j] for j in keep] for r in cells]


def _needed(columns: Sequence[Column], cells: Sequence[Sequence[Text]]) -> int:
    """The narrowest the table can be without cutting a number or a short label."""
    total = 2 * (len(columns) - 1)
    for j, col in enumerate(columns):
        longest = max([len(col.name), *(c.cell_len for r in cells for c in r[j].split())],
                      default=0)
        total += longest if (col.number or not col.fold) else min(longest, max(FOLDED_MIN,
                                                                               len(col.name)))
    return total


def print_table(title: str | None, columns: Sequence[Column], rows: Iterable[Sequence[Any]],
                wide: bool = False, con: Console | None = None) -> None:
    """Print a table that fits the width, or one block per row when its numbers cannot."""
    con = con or console(wide)
    cols, cells = _kept(columns, list(rows))
    if _needed(cols, cells) > con.width:
        _print_blocks(con, title, cols, cells)
        return
    if title:  # a line of its own, wrapped to the terminal, not squeezed into the table
        echo(title, con=con)
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    for j, col in enumerate(cols):
        longest = max([len(col.name), *(r[j].cell_len for r in cells)], default=0)
        if col.number or not col.fold:
            t.add_column(col.name, justify="right" if col.number else "left", no_wrap=True,
                         overflow="fold", min_width=longest)
        else:
            t.add_column(col.name, overflow="fold")
    for r in cells:
        t.add_row(*r)
    con.print(t)


def _print_blocks(con: Console, title: str | None, cols: Sequence[Column],
                  cells: Sequence[Sequence[Text]]) -> None:
    """Rows as blocks of ``name: value`` lines (a table too wide for the terminal)."""
    if title:
        echo(title, con=con)
    pad = max((len(c.name) for c in cols), default=0)
    for i, r in enumerate(cells):
        if i:
            con.print()
        for col, cell in zip(cols, r, strict=True):
            line = f"  {col.name:<{pad}}  {cell.plain}"
            if not cell.plain.strip():
                continue
            if not col.number or len(line) <= con.width:
                echo(line, con=con, indent=pad + 6)
                continue
            con.print(Text(f"  {col.name}"), soft_wrap=True)  # the number under its name
            for part in whole_groups(cell.plain, con.width - 4):
                con.print(Text(f"    {part}"), soft_wrap=True)


def whole_groups(number: str, room: int, first: int | None = None) -> list[str]:
    """``number`` in lines of at most ``room`` characters, broken only after a thousands
    separator (``24,519,``), so that no digit group is split; one line when it fits.
    ``first``: the room left on the first line (which then may stay empty)."""
    out = [""]
    for group in re.findall(r"[^,]*,|[^,]+$", number):
        limit = room if first is None or len(out) > 1 else first
        if len(out[-1]) + len(group) > limit and (out[-1] or (first is not None and len(out) == 1)):
            out.append("")
        out[-1] += group
    return out


def wrap(text: str, line_width: int, indent: int | None = None) -> list[str]:
    """Lines of ``text`` wrapped at spaces to ``line_width``; continuation lines indented past
    the first line's indent. A word is never split unless it is longer than a line: then a
    number breaks only after a thousands separator (:func:`whole_groups`), a digit group
    never split, and any other word where the line ends."""
    out: list[str] = []
    for line in text.split("\n"):
        lead = len(line) - len(line.lstrip(" "))
        more = " " * (lead + 2 if indent is None else indent)
        if len(line) <= line_width:
            out.append(line)
            continue
        more = more if len(more) < line_width // 2 else " " * (lead + 2)
        glued = GLUE.sub(lambda m: m.group(0).replace(" ", NBSP), line.lstrip(" "))
        out += [w.replace(NBSP, " ") for w in _fill([w for w in glued.split(" ") if w], line_width, " " * lead,
                                                    more)] or [""]
    return out


_NUMBER = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?\W*")


def _fill(words: list[str], line_width: int, first: str, more: str) -> list[str]:
    """``words`` greedily into lines of ``line_width`` (the first indented ``first``, the
    others ``more``); a word longer than a line goes on in pieces (:func:`_pieces`)."""
    lines, cur = [], first
    for word in words:
        gap = " " if cur.strip() else ""
        if len(cur) + len(gap) + len(word) <= line_width:
            cur += gap + word
            continue
        if cur.strip() and len(more) + len(word) <= line_width:
            lines.append(cur)
            cur = more + word
            continue
        pieces = _pieces(word, line_width - len(cur) - len(gap), line_width - len(more))
        if pieces[0]:
            cur += gap + pieces[0]
        for piece in pieces[1:]:
            if cur.strip():
                lines.append(cur)
            cur = more + piece
    if cur.strip():
        lines.append(cur)
    return lines


def _pieces(word: str, room: int, line_room: int) -> list[str]:
    """``word`` cut to fill ``room`` then lines of ``line_room``: a number with thousands
    separators after a separator only (the first piece may be empty), any other word
    anywhere."""
    room, line_room = max(room, 0), max(line_room, 1)
    if not _NUMBER.fullmatch(word):
        head = word[:room]
        rest = word[len(head):]
        return [head, *(rest[i:i + line_room] for i in range(0, len(rest), line_room))]
    return whole_groups(word, line_room, room)


def echo(text: str, wide: bool = False, con: Console | None = None,
         indent: int | None = None) -> None:
    """Print a line (or lines) that is not a table, wrapped at word boundaries to the width."""
    if con is None:
        import typer

        for line in (text.split("\n") if wide else wrap(text, width(), indent)):
            typer.echo(line)
        return
    for line in (text.split("\n") if con.width >= WIDE else wrap(text, con.width, indent)):
        con.print(Text(line), soft_wrap=True)


def comment(text: str, wide: bool = False) -> None:
    """Print ``# text`` wrapped so that every line is a comment (program files stay valid)."""
    import typer

    lines = [text] if wide else wrap(text, max(20, width() - 2), indent=0)
    for line in lines:
        typer.echo(f"# {line}")


def article(n: int) -> str:
    """``a`` or ``an`` before a number read aloud (``an 8x8``, ``an 11x2``, ``a 16x16``)."""
    digits = str(n)
    return "an" if digits[0] == "8" or (len(digits) % 3 == 2 and digits[:2] in ("11", "18")) \
        else "a"


def command_lines(cmd: str, line_width: int, lead: str = "  ") -> list[str]:
    """A shell command folded at argument boundaries with `` \\`` continuations, so that a
    folded command still pastes and runs (an option stays with its value)."""
    words = cmd.split(" ")
    args: list[str] = []
    for w in words:
        if args and args[-1].startswith("-") and not w.startswith("-") and " " not in args[-1]:
            args[-1] += " " + w
        else:
            args.append(w)
    lines, cur = [], lead
    for a in args:
        if cur.strip() and len(cur) + 1 + len(a) + 2 > line_width:
            lines.append(cur + " \\")
            cur = lead + "    " + a
        else:
            cur = cur + (" " if cur.strip() else "") + a
    return lines + [cur]
