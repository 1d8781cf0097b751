"""Processor arrays as data: a declaration file sets the grid and overrides energies."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.errors import SpecError
from polyjoule.targets.tcpa.array import array_of, load_array

DECL = """
version: 1
name: tcpa-2x2-cheap-dram
rows: 2
cols: 2
energy:
  access_pj: {DR: 100.0}
  op_pj: {fp32: {mul: {value: 2.0, source: "vendor sheet"}}}
"""


def test_text_and_file_forms(tmp_path):
    assert array_of("8x8").shape == (8, 8) and array_of("1x4").shape == (1, 4)
    p = tmp_path / "a.yaml"
    p.write_text(DECL)
    a = load_array(p)
    assert a.shape == (2, 2) and a.energy.access_pj["DR"] == 100.0
    assert a.energy.op("fp32", "mul") == 2.0 and a.energy.access_pj["RD"] == 1.0
    assert "vendor sheet" in a.energy.sources["op.fp32.mul"]


def test_analyze_with_a_declared_array_equals_shape_plus_table(tmp_path):
    p = tmp_path / "a.yaml"
    p.write_text(DECL)
    t = tmp_path / "t.yaml"
    t.write_text("access_pj: {DR: 100.0}\nop_pj: {fp32: {mul: 2.0}}\n")
    args = ["--set", "N0=6,N1=7", "--json"]
    r1 = CliRunner().invoke(app, ["analyze", "gesummv", "--array", str(p), *args])
    r2 = CliRunner().invoke(app, ["analyze", "gesummv", "--array", "2x2", "--energy-table", str(t), *args])
    assert r1.exit_code == 0 and r2.exit_code == 0, r1.output + r2.output
    d1, d2 = json.loads(r1.output), json.loads(r2.output)
    assert d1["array"] == [2, 2] and d1["counts"] == d2["counts"]
    assert d1["energy_pj"]["total"] == pytest.approx(d2["energy_pj"]["total"])
    # --energy-table overrides the declaration's own values
    t.write_text("access_pj: {DR: 1.0}\n")
    r3 = CliRunner().invoke(app, ["analyze", "gesummv", "--array", str(p), "--energy-table", str(t), *args])
    d3 = json.loads(r3.output)
    assert d3["energy_pj"]["by_class"]["DR"] == pytest.approx(d3["counts"]["DR"] * 1.0)


@pytest.mark.parametrize("text,field", [("rows: 0\ncols: 2\n", "rows"), ("rows: 2\n", "cols"),
                                        ("rows: 2\ncols: 2\nenergy: {access_pj: {XX: 1}}\n", "access_pj.XX"),
                                        ("rows: 2\ncols: 2\nbogus: 1\n", "bogus")])
def test_bad_declaration_names_the_field(tmp_path, text, field):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(SpecError, match=field):
        load_array(p)
    res = CliRunner().invoke(app, ["analyze", "gemm", "--array", str(p), "--dataset", "MINI"])
    assert res.exit_code == 2 and "bad.yaml" in res.output and "Traceback" not in res.output


def test_python_api_takes_an_array(tmp_path):
    from polyjoule.analysis import analyze

    p = tmp_path / "a.yaml"
    p.write_text(DECL)
    a = load_array(p)
    r = analyze("gemm", array=a).evaluate({"NI": 4, "NJ": 4, "NK": 4})
    assert r.energy_pj["by_class"]["DR"] == pytest.approx(r.counts["DR"] * 100.0)


@pytest.mark.parametrize("text, says", [
    ('version: 2\nrows: "2"\ncols: 3\n', "rows: must be a whole number (got '2')"),
    ("version: 2\nrows: 2.0\ncols: 3\n", "rows: must be a whole number (got 2.0)"),
    ('version: 2\nrows: 2\ncols: 3\npe: {fd_depth: "8"}\n', "pe.fd_depth: must be a whole number"),
    ("rows: 2\ncols: 3\n", "version: is missing (1 or 2; see docs/arch.md)"),
])
def test_a_number_as_text_and_a_missing_version_are_refused(tmp_path, text, says):
    """``rows: "2"`` was read as 2, a file without ``version`` as version 1 (the docs say
    a declaration gives 1 or 2); each is one line naming the file and the field."""
    p = tmp_path / "a.yaml"
    p.write_text(text)
    with pytest.raises(SpecError) as e:
        load_array(p)
    assert str(e.value).startswith(f"{p}: {says}"), str(e.value)
    r = CliRunner().invoke(app, ["analyze", "gemm", "--dataset", "MINI", "--machine", str(p)])
    assert r.exit_code == 2 and f"{p}: {says}" in r.output and "Traceback" not in r.output
