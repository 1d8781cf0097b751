"""``polyjoule analyze --latex``: the formulas as LaTeX, with and without ``--json``."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()
GESUMMV = ["analyze", "gesummv", "--array", "2x2", "--set", "N0=4,N1=6"]


def _json(args: list[str]) -> dict:
    r = runner.invoke(app, args + ["--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_latex_without_json_prints_every_formula():
    plain = runner.invoke(app, GESUMMV)
    assert plain.exit_code == 0 and "LaTeX" not in plain.output and "$" not in plain.output
    r = runner.invoke(app, GESUMMV + ["--latex"])
    assert r.exit_code == 0, r.output
    lines = r.output.split("LaTeX of the formulas:\n", 1)[1].splitlines()
    rows = _json(GESUMMV + ["--latex"])
    assert len(lines) == len(rows["volumes"]) == len(rows["latex"])
    for line, v, tex in zip(lines, rows["volumes"], rows["latex"], strict=True):
        assert line.strip() == f"{v['statement']} {v['case']}: ${tex}$"
    assert any(r"\left(" in tex for tex in rows["latex"])  # real LaTeX, not the plain text


def test_latex_of_fixed_tiles_is_not_empty():
    """Fixed tile sizes derive formulas per tile choice: the chosen ones are shown."""
    args = ["analyze", "gemm", "--array", "2x2", "--tile", "3,3,3", "--set", "NI=6,NJ=6,NK=6"]
    rows = _json(args + ["--latex"])
    assert rows["latex"] and len(rows["latex"]) == len(rows["volumes"])
    r = runner.invoke(app, args + ["--latex"])
    assert r.output.count(": $") == len(rows["volumes"])
