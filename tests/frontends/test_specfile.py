"""One pydantic error formatter for every spec file: all errors, each with its field path."""

from __future__ import annotations

import pytest
import yaml
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.errors import SpecError
from polyjoule.frontends.pra_yaml import load_kernel_file
from polyjoule.targets.tcpa.array import load_array
from polyjoule.targets.tcpa.energy import default_table

PRA = {
    "version": 1,
    "name": "scale",
    "params": {"N": 1},
    "dims": [{"name": "i", "lower": 0, "upper": "N - 1"}],
    "tensors": {"X": {"shape": ["N"], "kind": "input"}, "Y": {"shape": ["N"], "kind": "output"}},
    "statements": [
        {"id": "S1", "var": "x", "input": "X[i]", "colour": "red"},
        {"id": "S2", "var": "y", "output": "Y[i]"},
    ],
    "dtyp": "fp32",
}


def test_pra_file_with_two_errors_names_both(tmp_path):
    p = tmp_path / "k.yaml"
    p.write_text(yaml.safe_dump(PRA))
    with pytest.raises(SpecError) as e:
        load_kernel_file(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}: ") and "\n" not in msg
    assert "statements[0].colour" in msg and "dtyp" in msg and msg.count("; ") >= 1


def test_array_file_with_two_errors_names_both(tmp_path):
    p = tmp_path / "a.yaml"
    p.write_text("rows: 0\ncols: x\n")
    with pytest.raises(SpecError) as e:
        load_array(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}: rows: ") and "; cols: " in msg


def test_energy_table_with_two_errors_names_both():
    with pytest.raises(SpecError) as e:
        default_table().merged({"versio": 1, "access_pj": {"DR": {"valu": 3}}}, "t.yaml")
    msg = str(e.value)
    assert msg.startswith("t.yaml: ") and "versio" in msg and "access_pj.DR" in msg


def test_cli_prints_every_error_on_one_line(tmp_path):
    p = tmp_path / "k.yaml"
    p.write_text(yaml.safe_dump(PRA))
    r = CliRunner().invoke(app, ["analyze", str(p)])
    assert r.exit_code == 2
    line = [x for x in r.output.splitlines() if x.startswith("polyjoule: error:")]
    assert len(line) == 1 and "statements[0].colour" in line[0] and "dtyp" in line[0]
