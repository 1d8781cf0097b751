"""``analyze`` of a stencil at 80 columns: the per-statement table stacked, each statement
printed once, every formula of ``--json`` in the text (folded at operators only) but for a
piecewise formula's other pieces, which ``--latex`` keeps too."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()
ARGS = ["analyze", "jacobi-2d", "--array", "4x4", "--dataset", "MINI", "--no-cache"]


def _volumes() -> list[dict]:
    data = runner.invoke(app, [*ARGS, "--json"], env={"COLUMNS": "80"})
    assert data.exit_code == 0, data.output
    return json.loads(data.stdout)["volumes"]


def test_a_stencil_at_80_columns_keeps_every_formula_but_other_pieces_and_fits() -> None:
    text = runner.invoke(app, ARGS, env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert max(len(x) for x in lines) <= 80
    flat = " ".join(text.stdout.split())
    volumes = _volumes()
    piecewise = [v for v in volumes if v["formula"].endswith("; else 0")]
    assert piecewise and len(piecewise) < len(volumes)
    for v in volumes:
        whole = " ".join(v["formula"].split()) in flat
        assert whole != (v in piecewise), v["formula"]
        assert f"{v['value']:,}" in flat
    pieces = [v["formula"].count("; ") for v in piecewise]  # "; else 0" is not a piece
    notes = [re.search(r" of (?:the )?(\d+)", x) for x in lines if "--wide shows all)" in x]
    assert sorted(int(m[1]) for m in notes if m) == sorted(pieces)
    statements = {f"{v['statement']}: {v['text']}" for v in volumes}
    assert all(sum(x == s for x in lines) == 1 for s in statements)
    # a formula too long for its case's line is on lines of its own, never mid-term
    continued = [x for x in lines if x.startswith("        ") and x.strip()]
    assert continued and not [x for x in continued if x.strip()[0] in "*/)=<>,"]
    assert len(lines) < 160  # every piece: 200; in a 30-character column: 617


def test_with_latex_the_table_keeps_every_piece_folded_to_80_columns() -> None:
    text = runner.invoke(app, [*ARGS, "--latex"], env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    table = text.stdout.split("\ntotals (")[0]
    assert max(len(x) for x in table.splitlines()) <= 80
    flat = " ".join(table.split())
    for v in _volumes():
        assert " ".join(v["formula"].split()) in flat, v["formula"]
    assert "--wide shows all" not in text.stdout
