"""``polyjoule validate FILE.c``: the simulated outputs are checked against the C program
itself (``frontends/crun.py``), ``ok`` for the localised PolyBench files and ``FAILED`` with
the first differing element for a localised kernel whose compute statement was altered."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.model.expr import parse_expr

runner = CliRunner()
SUITE = Path(__file__).parents[1] / "frontends" / "polybench_c"
TRISOLV = SUITE / "linear-algebra/solvers/trisolv/trisolv.c"


@pytest.mark.parametrize("path", ["linear-algebra/solvers/trisolv/trisolv.c",
                                  "linear-algebra/blas/gesummv/gesummv.c",
                                  "stencils/jacobi-1d/jacobi-1d.c",
                                  "linear-algebra/solvers/lu/lu.c"])
def test_polybench_files_match_their_c(path: str) -> None:
    r = runner.invoke(app, ["validate", str(SUITE / path), "--array", "2x2", "--dataset",
                            "MINI", "--json", "--no-progress"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    rows = {row["what"]: row for row in out["rows"]}
    assert rows["check outputs_match_reference"] == {
        "what": "check outputs_match_reference", "symbolic": "", "simulated": "ok",
        "match": True}
    assert out["ok"] and out["first_output_difference"] is None


def test_the_table_says_ok_for_a_c_file() -> None:
    r = runner.invoke(app, ["validate", str(TRISOLV), "--array", "2x2", "--dataset", "MINI",
                            "--no-progress"])
    assert r.exit_code == 0, r.output
    line = [x for x in r.output.splitlines() if "outputs_match_reference" in x]
    assert len(line) == 1 and " ok " in line[0] + " " and "n/a" not in line[0], line


def _altered() -> object:
    """trisolv localised, then its accumulation's operands swapped (same counts)."""
    from polyjoule.frontends.resolve import kernel_from

    k = kernel_from(str(TRISOLV))
    ph = k.phases[0]
    wrong = parse_expr("x_p - x_in", ["x_in", "x_p"], [], "test")
    stmts = tuple(replace(s, expr=wrong) if s.kind == "compute" and s.expr.text == "x_in - x_p"
                  else s for s in ph.statements)
    return replace(k, phases=(replace(ph, statements=stmts),))


def test_an_altered_kernel_fails_with_its_first_differing_element(monkeypatch) -> None:
    import polyjoule.frontends.resolve as resolve

    bad = _altered()
    monkeypatch.setattr(resolve, "kernel_from", lambda *a, **kw: bad)
    r = runner.invoke(app, ["validate", str(TRISOLV), "--array", "2x2", "--set", "N=8",
                            "--no-progress"])
    assert r.exit_code == 1, r.output
    table = [x for x in r.output.splitlines() if x.startswith("check outputs_match_reference")]
    assert len(table) == 1 and "FAILED" in table[0]
    assert "outputs_match_reference FAILED: x[" in r.output
    error = [x for x in r.output.splitlines() if x.startswith("polyjoule: error")]
    assert len(error) == 1 and "x[" in error[0] and "reference" in error[0]
    r = runner.invoke(app, ["validate", str(TRISOLV), "--array", "2x2", "--set", "N=8",
                            "--no-progress", "--json"])
    out = json.loads(r.stdout)
    assert not out["ok"] and out["first_output_difference"].startswith("x[")
    rows = {row["what"]: row for row in out["rows"]}
    assert rows["check outputs_match_reference"]["match"] is False
    assert rows["latency (cycles)"]["match"]  # only the values changed
    differ = [v for v in out["violations"] if "elements differ" in v]
    assert differ and all(f"the C reference ({TRISOLV} run by the C interpreter)" in v
                          and "numpy" not in v for v in differ), out["violations"]


USER = """
void kernel_scaled(int N, int M, double alpha, double A[N][M], double x[M], double y[N]) {
  int i, j;
  double half = 0.5;
  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    for (j = 0; j < M; j++)
      y[i] += alpha * fmax(A[i][j], half) * x[j];
    y[i] *= half;
  }
}
"""


def test_a_user_written_c_file_is_checked_against_its_c(tmp_path: Path) -> None:
    f = tmp_path / "scaled.c"
    f.write_text(USER)
    r = runner.invoke(app, ["validate", str(f), "--array", "2x2", "--set", "N=5,M=6",
                            "--json", "--no-progress"])
    assert r.exit_code == 0, r.output
    rows = {row["what"]: row for row in json.loads(r.stdout)["rows"]}
    assert rows["check outputs_match_reference"]["match"] is True
