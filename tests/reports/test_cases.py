"""The per-statement table of ``analyze`` (:mod:`polyjoule.reports.cases`): a table when it
fits, else stacked; never a line past the width, never a digit or a formula lost (of a
piecewise formula, the piece that holds at the point and a note saying which)."""

from __future__ import annotations

from rich.console import Console

from polyjoule.reports.cases import CaseRow, case_rows, formula_lines, print_cases

LONG = ("N**2*TSTEPS - N**2*t0 - N*TSTEPS*t1 - 3*N*TSTEPS + N*t0*t1 + 3*N*t0 + 2*TSTEPS*t1 "
        "+ 2*TSTEPS - 2*t0*t1 - 2*t0")
PIECEWISE = ("TSTEPS*(N - 2) if t1 - 3 = 0 and p1 - 3 = 0 and -N + p1*t1 - p1 + 2 >= 0 or "
             "N - p1*t1 + p1 - 3 = 0 and t1 - 2 = 0 and p1 - 3 = 0; else 0")
CASES = [
    CaseRow("p", "S1: ac[i] = A[i, j]", "input", "DR", "N**2 - 4*N + 4", "1,684,804", "1.09 mJ"),
    CaseRow("p", "S2: ac[i] = a[t - 1, i + 1, j + 1]", "intra", "FD", LONG, "833,731,360", "834 uJ"),
    CaseRow("p", "S2: ac[i] = a[t - 1, i + 1, j + 1]", "inter(t,i)", "ID", PIECEWISE, "11,682",
         "46.7 nJ"),
]


def _render(width: int, cases=CASES) -> list[str]:
    con = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    print_cases("jacobi-2d", cases, con)
    return con.export_text().splitlines()


def _words(text: str) -> str:
    return " ".join(text.split())


def test_a_table_that_fits_is_a_table() -> None:
    lines = _render(300)
    assert len(lines) == 2 + 1 + len(CASES)  # title, header, rule, one line per case
    assert any(LONG in x and "833,731,360" in x for x in lines)


def test_at_80_columns_statements_head_their_cases_and_formulas_fold_at_operators() -> None:
    lines = _render(80)
    assert max(len(x) for x in lines) <= 80
    assert sum(x.startswith("S2: ") for x in lines) == 1  # a statement is printed once
    short = next(x for x in lines if "1,684,804" in x)
    assert short.startswith("  input") and short.endswith("N**2 - 4*N + 4")
    text = "\n".join(lines)
    for cell in ("833,731,360", "834 uJ", "11,682", "46.7 nJ"):
        assert cell in text
    assert LONG in _words(text) and _words(PIECEWISE) in _words(text)
    folded = [x for x in lines if x.startswith("        ")]  # continuation lines
    assert folded and all(x.lstrip()[:2] in ("+ ", "- ", "if", "an", "or", "N ", "el")
                          for x in folded), folded


def test_a_piece_of_a_piecewise_formula_starts_a_line() -> None:
    lines = formula_lines(PIECEWISE, 60, 6)
    assert lines[-1].strip() == "else 0" and lines[0].startswith("      TSTEPS*(N - 2)")
    assert all(len(x) <= 60 for x in lines)


def test_a_term_longer_than_the_line_is_split_not_cut() -> None:
    term = "x" * 100
    lines = formula_lines(term, 40, 6)
    assert "".join(x.strip() for x in lines) == term and all(len(x) <= 40 for x in lines)


def test_every_line_of_a_piecewise_formula_fits_with_its_semicolon() -> None:
    """Each piece's last line takes a ';': a piece that filled its lines exactly ran one
    column past the terminal (jacobi-2d at 80 columns)."""
    import random

    rng = random.Random(3)
    words = ["N", "-", "p1*t1", "+", "p1", "=", "0", "and", "t0", ">=", "2", "if", "or"]
    for _ in range(300):
        width = rng.randint(30, 100)
        pieces = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 40)))
                  for _ in range(rng.randint(1, 4))]
        formula = "; ".join(pieces)
        lines = formula_lines(formula, width, 6)
        assert all(len(x) <= width for x in lines), (width, formula)
        assert "".join("".join(lines).split()) == "".join(formula.split())  # nothing lost


def _band_rows() -> list:
    from polyjoule.analysis.analyze import PieceHere, VolumeRow

    full = PIECEWISE.replace("; else 0", "; N - p1*t1 + p1 - 3 if t1 - 2 = 0; else 0")
    return [VolumeRow("p", "S1", "ac[i] = A[i, j]", "input", "DR", "N**2 - 4*N + 4", 1_684_804,
                      1.09e9),
            VolumeRow("p", "S2", "ac[i] = a[t - 1, i + 1, j + 1]", "inter(t,i)", "ID", full,
                      11_682, 46.7e3, PieceHere("TSTEPS*(N - 2)", 1, 2)),
            VolumeRow("p", "S2", "ac[i] = a[t - 1, i + 1, j + 1]", "intra", "FD", full, 0, 0.0,
                      PieceHere("0", None, 2))]


def test_a_piecewise_formula_shows_its_piece_here_and_says_which() -> None:
    rows = case_rows(_band_rows(), every_piece=False)
    assert [r.formula for r in rows] == ["N**2 - 4*N + 4", "TSTEPS*(N - 2)", "0"]
    assert rows[0].note == ""
    assert rows[1].note == "(piece 1 of 2, the one that holds here; --wide shows all)"
    assert rows[2].note == "(else 0: none of the 2 pieces holds here; --wide shows all)"
    every = case_rows(_band_rows(), every_piece=True)
    assert [r.formula for r in every] == [v.formula for v in _band_rows()]
    assert all(r.note == "" for r in every)


def test_a_note_follows_its_formula_on_its_line_or_the_next_within_the_width() -> None:
    rows = case_rows(_band_rows(), every_piece=False)
    long = CaseRow("p", "S3: x", "intra", "FD", LONG, "833,731,360", "834 uJ", rows[1].note)
    for width in (60, 80, 120, 300):
        lines = _render(width, [*rows, long])
        assert max(len(x) for x in lines) <= width
        text = _words("\n".join(lines))
        for r in [*rows, long]:
            assert _words(f"{r.formula} {r.note}".strip()) in text, (width, r)
        assert PIECEWISE not in text
    narrow = _render(60, [long])
    at = next(i for i, x in enumerate(narrow) if "(piece 1 of 2" in x)
    assert narrow[at].startswith(" " * 8 + "(piece") and narrow[at - 1].rstrip().endswith("t0")


def test_a_header_too_long_for_formula_beside_it_puts_it_on_its_own_line() -> None:
    """A count of 45 digits widens the executions column: the header still fits."""
    big = f"{2**127:,}"
    cases = [CaseRow("p", "S1: a[i] = A[i, k]", "intra", "FD", LONG, big, "2.22e23 J")]
    lines = _render(80, cases)
    assert max(len(x) for x in lines) <= 80, lines
    assert "formula" in "\n".join(lines) and big in "\n".join(lines)
