"""``analyze`` of a banded nest: of a piecewise formula the table shows the piece that holds
at the evaluated point. Checked against sympy: the shown piece, evaluated at the point's
``N``, tile sizes ``p`` and tile counts ``t`` (from ``--json``), is the executions column;
``--wide`` shows every piece of every formula as ``--json`` has it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sympy
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()
BAND = """\
void band01(int N, double A[N][N + 8], double x[N + 8], double y[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    for (j = i + 2; j < i + 7; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""
#: a case's line of the stacked table: case, class, executions, energy[, formula]
ROW = re.compile(r"^  (\S+)\s+(RD|FD|ID|OD|IOb|DR)\s+([\d,]+)\s+\S+ [pnumk]?J(?:  (.*))?$")
#: a formula and its note (on the formula's last line or the next)
NOTE = re.compile(r"^(.*?)\s+\((?:piece (\d+)|else 0: none) of (?:the )?(\d+)[^)]*"
                  r"; --wide shows all\)$")


@pytest.fixture(scope="module")
def band(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("band") / "band01.c"
    path.write_text(BAND)
    return path


def _run(*args: str) -> str:
    r = runner.invoke(app, ["analyze", *args, "--no-cache"], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    return r.stdout


def _noted(text: str) -> list[tuple[int, str, int | None, int]]:
    """(executions, formula, piece number or None for else, pieces) of each noted case."""
    out, row = [], None
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            row = [int(m[3].replace(",", "")), m[4] or ""]
        elif row is not None and line.startswith("      "):
            row[1] = f"{row[1]} {line.strip()}".strip()
        else:
            row = None
        n = NOTE.match(row[1]) if row else None
        if n:
            out.append((row[0], n[1], int(n[2]) if n[2] else None, int(n[3])))
            row = None
    return out


def _point(data: dict, values: dict[str, int]) -> dict[sympy.Symbol, int]:
    (ph,) = data["schedule"]
    env = dict(values)
    for level, (p, t) in enumerate(zip(ph["p"], ph["t"], strict=True)):
        env[f"p{level}"], env[f"t{level}"] = p, t
    return {sympy.Symbol(k): v for k, v in env.items()}


@pytest.mark.parametrize(("array", "n"), [("4x4", 32), ("2x8", 33), ("8x8", 40)])
def test_the_piece_shown_evaluates_to_the_executions(band: Path, array: str, n: int) -> None:
    args = [str(band), "--array", array, "--set", f"N={n}"]
    text, data = _run(*args), json.loads(_run(*args, "--json"))
    assert max(len(x) for x in text.splitlines()) <= 80
    piecewise = [v for v in data["volumes"] if v["formula"].endswith("; else 0")]
    noted = _noted(text)
    assert len(noted) == len(piecewise) >= 2  # S7 intra FD and inter(j) ID at least
    point = _point(data, {"N": n})
    for (executions, shown, number, pieces), v in zip(noted, piecewise, strict=True):
        assert executions == v["value"]
        assert pieces == v["formula"].count("; ")
        assert number is not None and 1 <= number <= pieces
        assert shown == v["formula"].split("; ")[number - 1].split(" if ")[0]
        assert sympy.sympify(shown, locals={str(s): s for s in point}).subs(point) == executions
        assert " if " not in shown and shown not in ("", "0")


def test_where_no_piece_holds_the_table_shows_0() -> None:
    args = ["heat-3d", "--array", "2x8", "--dataset", "MINI"]
    text, data = _run(*args), json.loads(_run(*args, "--json"))
    volumes = {v["formula"] for v in data["volumes"] if v["formula"].endswith("; else 0")}
    noted = _noted(text)
    assert len(noted) == len(volumes) > 0
    zeros = [x for x in noted if x[2] is None]
    assert zeros and all(e == 0 and shown == "0" for e, shown, _, _ in zeros)
    assert max(len(x) for x in text.splitlines()) <= 80


def test_wide_shows_every_piece(band: Path) -> None:
    args = [str(band), "--array", "4x4", "--set", "N=32"]
    text, data = _run(*args, "--wide"), json.loads(_run(*args, "--json"))
    lines = text.splitlines()
    for v in data["volumes"]:
        assert any(x.rstrip().endswith(v["formula"]) or f" {v['formula']} " in x
                   for x in lines), v["formula"]
    assert "--wide shows all" not in text
    assert {k for v in data["volumes"] for k in v} == {
        "phase", "statement", "text", "case", "class", "formula", "value", "energy_pj"}


def test_a_single_piece_that_does_not_hold_is_shown_with_its_condition() -> None:
    """floyd-warshall's ``N**2`` case has points only where ``p1 = 1``: on 4x4 its row is 0,
    the table says why, and ``--json`` writes the condition (evaluated here by sympy: 0)."""
    args = ["floyd-warshall", "--array", "4x4"]
    text, data = _run(*args), json.loads(_run(*args, "--json"))
    notes = [x for x in text.splitlines() if "its one piece does not hold here" in x]
    assert notes and all(x.strip().startswith("0  (else 0:") for x in notes)
    point = _point(data, data["values"])
    single = [v for v in data["volumes"] if v["formula"].count("; ") == 1]
    assert len(single) == len(notes)
    for v in single:
        expr, cond = v["formula"].removesuffix("; else 0").split(" if ")
        names = {str(s): s for s in point}
        holds = all(sympy.sympify(c.replace(" = 0", ""), locals=names).subs(point) == 0
                    if " = 0" in c else sympy.sympify(c, locals=names).subs(point)
                    for c in cond.split(" and "))
        assert v["value"] == 0 and not holds and " or " not in cond
        assert sympy.sympify(expr, locals=names).subs(point) != 0  # bare, it would not be 0
