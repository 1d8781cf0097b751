"""``analyze`` of a stencil at 80 columns: the per-statement table stacked, every formula of
``--json`` whole in the text (folded at operators only), each statement printed once."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()
ARGS = ["analyze", "jacobi-2d", "--array", "4x4", "--dataset", "MINI", "--no-cache"]


def test_a_stencil_at_80_columns_keeps_every_formula_and_fits() -> None:
    text = runner.invoke(app, ARGS, env={"COLUMNS": "80"})
    data = runner.invoke(app, [*ARGS, "--json"], env={"COLUMNS": "80"})
    assert text.exit_code == 0 and data.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert max(len(x) for x in lines) <= 80
    flat = " ".join(text.stdout.split())
    volumes = json.loads(data.stdout)["volumes"]
    for v in volumes:
        assert " ".join(v["formula"].split()) in flat, v["formula"]
        assert f"{v['value']:,}" in flat
    statements = {f"{v['statement']}: {v['text']}" for v in volumes}
    assert all(sum(x == s for x in lines) == 1 for s in statements)
    # a formula too long for its case's line is on lines of its own, never mid-term
    continued = [x for x in lines if x.startswith("        ") and x.strip()]
    assert continued and not [x for x in continued if x.strip()[0] in "*/)=<>,"]
    assert len(lines) < 300  # the table, its formulas folded in a 30-character column: 617
