"""Every schema-checked file, malformed as a user would, through the CLI: exit 2, one line
``polyjoule: error: FILE: field.path: what is wrong (got VALUE)``, no pydantic wording,
no traceback. One translation (``frontends/specerrors.py``) serves every file kind."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.errors import SpecError
from polyjoule.frontends.specerrors import spec_error

runner = CliRunner()
PYDANTIC = ("Input should", "Field required", "Extra inputs", "Value error", "List should",
            "String should", "valid dictionary", "instance of", "_Entry", "Spec", "[key]",
            "Traceback", "pydantic")

PRA = """version: 1
name: vs
params: {N: 1}
dims:
  - {name: i, lower: 0, upper: N - 1}
tensors:
  X: {shape: [N], kind: input}
  Y: {shape: [N], kind: output}
statements:
  - {id: S1, var: x, input: "X[i]"}
  - {id: S2, var: y, compute: "x * x"}
  - {id: S3, var: y, output: "Y[i]"}
"""
STATEMENT_KEYS = "id, var, input, output, from, dep, compute, when"


def _edit(old: str, new: str) -> str:
    assert old in PRA
    return PRA.replace(old, new, 1)


PRA_FILES = [
    (_edit("{N: 1}", "{N: one}"), "params.N: must be a whole number (got 'one')"),
    (_edit("params: {N: 1}", "params: [N]"),
     "params: must be a mapping (got ['N']; see docs/model.md)"),
    (_edit(", upper: N - 1}", "}"), "dims[0].upper: is missing (see docs/model.md)"),
    (_edit("upper: N - 1}", "upper: N - 1, step: 2}"),
     "dims[0].step: unknown field (known: name, lower, upper, extent)"),
    (_edit("upper: N - 1}", "upper: N - 1, step: 2, stride: 1}"),  # the known ones once
     "dims[0].step, dims[0].stride: unknown fields (known: name, lower, upper, extent)"),
    (_edit("lower: 0,", "lower: [0],"),
     "dims[0].lower: must be a whole number or an affine expression like N - 1 (got [0])"),
    (_edit("shape: [N], kind: input", "shape: [1.5], kind: input"),
     "tensors.X.shape[0]: must be a whole number or an affine expression like N - 1 "
     "(got 1.5)"),
    (_edit("kind: input}", "kind: in}"),
     "tensors.X.kind: must be 'input', 'output' or 'inout' (got 'in')"),
    (_edit('var: y, compute: "x * x"', "var: y, frm: x, dep: [1]"),
     f"statements[1].frm: unknown field (known: {STATEMENT_KEYS})"),
    (_edit('var: y, compute: "x * x"', "var: y, from: x, dep: [one]"),
     "statements[1].dep[0]: must be a whole number (got 'one')"),
    (_edit('- {id: S1, var: x, input: "X[i]"}', "- 5"),
     f"statements[0]: must be a mapping of {STATEMENT_KEYS} (got 5; see docs/model.md)"),
    (_edit('var: x, input: "X[i]"', "var: x"),
     "statements[0]: give exactly one of input, output, from (+dep), compute"),
    (PRA[:PRA.index("statements:")] + "statements: []\n",
     "statements: must not be empty (got [])"),
    (_edit("name: vs", "nme: vs"), "name: is missing (see docs/model.md); nme: unknown "
     "field (known: version, name, dtype, params, dims, tensors, scalars, statements)"),
    (_edit("version: 1", "version: 2"), "version: must be 1 (got 2)"),
    (_edit("{N: 1}", "{N: true}"), "params.N: must be a whole number (got True)"),
    (_edit("{N: 1}", "{N: 99999999999999999999999}"),
     "params.N: must be at most 9,223,372,036,854,775,807 (got 99999999999999999999999)"),
    (_edit("statements:", "scalars: {a: .nan}\nstatements:"),
     "scalars.a: must be a finite number (got nan)"),
    ("name: k\nphases:\n  - {params: {N: 1}}\n",
     "phases[0].name, phases[0].dims, phases[0].statements: are missing (see docs/model.md)"),
]
DECLARATIONS = [
    ("version: 2\nrows: two\ncols: 2\n", "rows: must be a whole number (got 'two')"),
    ("version: 2\nrows: 2\ncols: 2\npe: {fd_depth: -4}\n",
     "pe.fd_depth: must be at least 1 (got -4)"),
    ("version: 2\nrows: 2\ncols: 2\nword_bits: {fp32: 12}\n",
     "word_bits.fp32: must be a multiple of 8 bits (got 12)"),
    ("version: 2\nrows: 2\ncols: 2\npe: {fd_dept: 4}\n",
     "pe.fd_dept: unknown field (known: rd_registers, fd_fifos, fd_depth, id_ports, od_ports)"),
    ("version: 2\nrows: 2\ncols: 2\nenergy: {access_pj: {DR: lots}}\n",
     "energy.access_pj.DR: must be a number or a mapping of value, source (got 'lots')"),
    ("version: 2\nrows: 2\ncols: 2\nenergy: {op_pj: {fp32: {mull: 3}}}\n",
     "energy.op_pj.fp32.mull: unknown operation (known: abs, add, div,"),
]
TCPA_TABLES = [
    ("access_pj:\n  DR: lots\n",
     "access_pj.DR: must be a number or a mapping of value, source (got 'lots')"),
    ("access_pj:\n  DR: {value: 3, sorce: x}\n",
     "access_pj.DR.sorce: unknown field (known: value, source)"),
    ("access_pj:\n  DR: {source: x}\n", "access_pj.DR.value: is missing (see docs/model.md)"),
    ("acess_pj:\n  DR: 3\n",
     "acess_pj: unknown field (known: version, name, access_pj, access_pj_by_bits, op_pj)"),
    ("access_pj_by_bits:\n  DR: {eight: 3}\n",
     "access_pj_by_bits.DR.eight: the key must be a whole number"),
    ("op_pj:\n  fp32: 5\n", "op_pj.fp32: must be a mapping (got 5; see docs/model.md)"),
]
TINYTPU_TABLES = [
    ("unit_pj:\n  mac_int8: 3\n",
     "unit_pj.mac_int8: must be a mapping of pj, bits, source (got 3; see docs/mapper.md)"),
    ("unit_pj:\n  macc: {pj: 1}\n", "unit_pj.macc: unknown key (known: 'mac_int8', "),
    ("unit_pj:\n  mac_int8: {pj: one}\n", "unit_pj.mac_int8.pj: must be a number (got 'one')"),
    ("unit_pj:\n  mac_int8: {pj: 1, source: ''}\n",
     "unit_pj.mac_int8.source: must not be empty (got '')"),
]
BUILDS = [
    ("QD: sixteen\n", "QD: must be a whole number (got 'sixteen')"),
    ("T: 8.5\n", "T: must be a whole number (got 8.5)"),
    ("T: 4\nMAXDM: 16\n", "MAXDM: unknown field (known: description, T, MAXDIM, QD,"),
]
WORKLOAD_SPECS = [
    ('{"name": "x"}', "stresses, einsum, dims, inputs, output, accumulator, epilogue, "
     "operand_pad: are missing (see docs/tinytpu.md)"),
    ('{"name": "x", "stresses": "short", "einsum": 3}',
     "stresses: must have at least 16 characters (got 'short'); einsum: must be a text "
     "(got 3); dims, inputs, output, accumulator, epilogue, operand_pad: are missing"),
]


def _one_error(args: list[str], path: object, message: str) -> None:
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"polyjoule: error: {path}: {message}"), lines[0]
    assert not any(w in lines[0] for w in PYDANTIC), lines[0]


@pytest.mark.parametrize(("text", "message"), PRA_FILES)
def test_a_malformed_pra_file(tmp_path, text, message):
    p = tmp_path / "k.yaml"
    p.write_text(text)
    _one_error(["analyze", str(p)], p, message)


@pytest.mark.parametrize(("text", "message"), DECLARATIONS)
def test_a_malformed_array_declaration(tmp_path, text, message):
    p = tmp_path / "array.yaml"
    p.write_text(text)
    _one_error(["analyze", "gesummv", "--array", str(p)], p, message)


@pytest.mark.parametrize(("text", "message"), TCPA_TABLES)
def test_a_malformed_tcpa_energy_table(tmp_path, text, message):
    p = tmp_path / "energy.yaml"
    p.write_text(text)
    _one_error(["analyze", "gesummv", "--energy-table", str(p)], p, message)


@pytest.mark.parametrize(("text", "message"), TINYTPU_TABLES)
def test_a_malformed_tinytpu_energy_table(tmp_path, text, message):
    p = tmp_path / "energy.yaml"
    p.write_text(text)
    _one_error(["map", "gemm", "8x8x8", "--energy-table", str(p)], p, message)


@pytest.mark.parametrize(("text", "message"), BUILDS)
def test_a_malformed_tinytpu_build(tmp_path, text, message):
    p = tmp_path / "build.yaml"
    p.write_text(text)
    _one_error(["map", "gemm", "8x8x8", "--machine", str(p)], p, message)


@pytest.mark.parametrize(("text", "message"), WORKLOAD_SPECS)
def test_a_malformed_workload_spec(tmp_path, text, message):
    p = tmp_path / "spec.json"
    p.write_text(text)
    _one_error(["judge", str(p)], p, message)


def test_the_installed_command_prints_one_line_and_no_traceback(tmp_path):
    p = tmp_path / "k.yaml"
    p.write_text(PRA_FILES[0][0])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-m", "polyjoule", "analyze", str(p)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.splitlines() == [f"polyjoule: error: {p}: {PRA_FILES[0][1]}"]


# --- the translation itself, on a schema of its own ------------------------------------


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: float
    source: str = "user file"


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    entries: dict[str, _Entry | float] = {}
    widths: list[int] = Field(default_factory=list, max_length=2)
    from_: str | None = Field(default=None, alias="from")


def _message(data: object, **kw: object) -> str:
    with pytest.raises(ValidationError) as e:
        _File.model_validate(data)
    err = spec_error(e.value, "f.yaml", _File, **kw)  # type: ignore[arg-type]
    assert isinstance(err, SpecError)
    return str(err)


def test_a_union_is_one_problem_unless_the_value_took_a_members_shape():
    assert _message({"entries": {"a": "x"}}) == (
        "f.yaml: entries.a: must be a number or a mapping of value, source (got 'x')")
    assert _message({"entries": {"a": {"value": "x"}}}) == (
        "f.yaml: entries.a.value: must be a number (got 'x')")


def test_fields_are_named_as_the_file_spells_them():
    assert _message({"frm": "x"}) == "f.yaml: frm: unknown field (known: entries, widths, from)"
    assert _message({"from": 3}) == "f.yaml: from: must be a text (got 3)"


def test_every_problem_on_one_line_and_the_value_shortened():
    text = _message({"widths": [1, 2, 3, 4, 5, 6], "entries": {"b": "y" * 200, "c": []}})
    assert "\n" not in text
    assert "widths: must have at most 2 entries (got [1, 2, 3, 4, ...])" in text
    assert "entries.c: must be a number or a mapping of value, source (got [])" in text
    assert "entries.b: must be a number or a mapping of value, source (got 'yyy" in text
    assert len(text) < 300


def test_a_file_kind_can_say_it_in_its_own_words():
    assert _message({"widths": ["a"]}, words={"int_parsing": "must be a width in bits"}) == (
        "f.yaml: widths[0]: must be a width in bits (got 'a')")
