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


# --- issue 14: one reading path; bytes, depth, duplicates, versions -------------------


def _one_line(r) -> str:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and "Traceback" not in r.output, r.output
    return lines[0]


@pytest.mark.parametrize("args", [
    ["analyze", "{f}"],
    ["analyze", "gemm", "--dataset", "MINI", "--array", "{f}"],
    ["analyze", "gemm", "--dataset", "MINI", "--energy-table", "{f}"],
    ["show", "{f}"],
    ["localize", "{f}"],
])
def test_undecodable_file_is_one_line_naming_file_and_byte(tmp_path, args):
    f = tmp_path / "x.yaml"
    f.write_bytes(b"\xff")
    r = CliRunner().invoke(app, [a.replace("{f}", str(f)) for a in args])
    line = _one_line(r)
    assert "x.yaml:1:1: byte 0xff is not UTF-8" in line


@pytest.mark.parametrize("text", [
    "a: " + "[" * 3000 + "]" * 3000,
    "a: " + "{x: " * 3000 + "1" + "}" * 3000,
])
def test_deep_yaml_is_refused_by_the_limit_not_the_stack(tmp_path, text):
    from polyjoule.errors import InputLimitError
    from polyjoule.frontends.specfile import read_yaml

    f = tmp_path / "deep.yaml"
    f.write_text(text)
    with pytest.raises(InputLimitError, match=r"deep\.yaml:1:\d+: nested deeper than"):
        read_yaml(f)


def test_duplicate_yaml_key_is_refused_with_line_and_column(tmp_path):
    from polyjoule.errors import DuplicateKeyError
    from polyjoule.frontends.specfile import read_yaml

    f = tmp_path / "dup.yaml"
    f.write_text("version: 1\nname: a\nparams: {N: 1, N: 2}\n")
    with pytest.raises(DuplicateKeyError, match=r"dup\.yaml:3:16: key 'N' given twice"):
        read_yaml(f)


def test_expression_limits():
    from polyjoule.errors import InputLimitError
    from polyjoule.frontends.specfile import check_expression

    assert check_expression("a * b + (c - d)", "x") == "a * b + (c - d)"
    for bad in ("(" * 100 + "a" + ")" * 100, "+".join(["a"] * 500), "a" * 10_000):
        with pytest.raises(InputLimitError, match="^x: expression"):
            check_expression(bad, "x")


def test_unknown_versions_are_refused(tmp_path):
    doc = dict(PRA, version=7)
    doc["statements"] = [s for s in PRA["statements"] if "colour" not in s] + []
    f = tmp_path / "v.yaml"
    f.write_text(yaml.safe_dump(doc))
    with pytest.raises(SpecError, match="v.yaml: version"):
        load_kernel_file(f)
    t = tmp_path / "t.yaml"
    t.write_text("version: 3\n")
    r = CliRunner().invoke(app, ["analyze", "gemm", "--dataset", "MINI", "--energy-table", str(t)])
    assert "version: 3 is not a version" in _one_line(r)


TRI_C = """void tri(int N, float A[N][N], float x[N], float y[N]) {
  for (int i = 0; i < N; i++) {
    y[i] = 0;
    for (int j = 0; j <= i; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""


@pytest.mark.parametrize("name, text", [
    ("tri.c", TRI_C),
    ("scale.yaml", yaml.safe_dump({**{k: v for k, v in PRA.items() if k != "dtyp"},
                                   "statements": [{"id": "S1", "var": "x", "input": "X[i]"},
                                                  {"id": "S2", "var": "x", "output": "Y[i]"}]})),
])
def test_a_byte_order_mark_is_no_character_of_the_file(tmp_path, name, text):
    """A C or YAML file an editor saved with a UTF-8 BOM: ``Illegal character '\\ufeff'``
    before; now the same analysis as the file without it."""
    plain, bom = tmp_path / name, tmp_path / f"bom_{name}"
    plain.write_text(text)
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    runs = [CliRunner().invoke(app, ["analyze", str(f), "--array", "1x2", "--set", "N=5",
                                     "--json"]) for f in (plain, bom)]
    assert [r.exit_code for r in runs] == [0, 0], runs[1].output
    import json

    same = ("counts", "latency_cycles", "iterations", "energy_pj", "volumes")
    a, b = (json.loads(r.stdout) for r in runs)
    assert {k: a[k] for k in same} == {k: b[k] for k in same}
