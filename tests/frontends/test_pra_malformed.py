"""Malformed text in one field of a PRA file: exit 2, one line naming file and field.

A tester's traceback list (a tuple, list or set where an affine expression belongs, a
semicolon, a nested subscript) plus seeded garbage in every field the affine and compute
parsers read: no input may reach sympy as anything but arithmetic, or pass silently.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.frontends.pra_yaml import load_kernel_file

#: a 2-D matrix-vector product (the tester's mv.yaml)
MV = {
    "version": 1, "name": "mymv", "datasets": {"MINI": {"N": 6, "M": 5}},
    "phases": [{
        "name": "mv", "dtype": "fp32", "params": {"N": 1, "M": 1},
        "dims": [{"name": "i", "lower": 0, "upper": "N - 1"},
                 {"name": "j", "lower": 0, "upper": "M - 1"}],
        "tensors": {"A": {"shape": ["N", "M"], "kind": "input"},
                    "X": {"shape": ["M"], "kind": "input"},
                    "Y": {"shape": ["N"], "kind": "output"}},
        "statements": [
            {"id": "S1", "var": "x", "input": "X[j]", "when": "i == 0"},
            {"id": "S2", "var": "x", "from": "x", "dep": [1, 0], "when": "i >= 1"},
            {"id": "S3", "var": "a", "input": "A[i, j]"},
            {"id": "S4", "var": "p", "compute": "a * x"},
            {"id": "S5", "var": "sp", "from": "s", "dep": [0, 1], "when": "j >= 1"},
            {"id": "S6", "var": "s", "compute": "p", "when": "j == 0"},
            {"id": "S7", "var": "s", "compute": "sp + p", "when": "j >= 1"},
            {"id": "S8", "var": "s", "output": "Y[i]", "when": "j == M - 1"},
        ],
    }],
}
#: field -> (where in the document, the path the error names)
FIELDS = {
    "upper": (("dims", 0, "upper"), "phases[0]: dims[0].upper"),
    "lower": (("dims", 1, "lower"), "phases[0]: dims[1].lower"),
    "shape": (("tensors", "A", "shape", 1), "phases[0]: tensors.A.shape"),
    "when": (("statements", 5, "when"), "phases[0]: statements[5] (S6).when"),
    "input": (("statements", 0, "input"), "phases[0]: statements[0] (S1).input"),
    "output": (("statements", 7, "output"), "phases[0]: statements[7] (S8).output"),
    "compute": (("statements", 3, "compute"), "phases[0]: statements[3] (S4).compute"),
}


def _with(field: str, text: str) -> dict:
    doc = copy.deepcopy(MV)
    node = doc["phases"][0]
    *path, last = FIELDS[field][0]
    for key in path:
        node = node[key]
    node[last] = text
    return doc


def _refused(tmp_path: Path, doc: dict, command: str = "analyze") -> str:
    """The one error line of ``command`` on ``doc`` (asserting exit 2, nothing else)."""
    path = tmp_path / "mv.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    args = [command, str(path), *(["--dataset", "MINI"] if command != "show" else [])]
    r = CliRunner().invoke(app, args, catch_exceptions=False)
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and len(lines) == 1, r.output
    assert lines[0].startswith(f"polyjoule: error: {path}: "), lines[0]
    return lines[0]


def test_the_base_file_loads(tmp_path: Path) -> None:
    """The mutations below break a file that is otherwise good."""
    path = tmp_path / "mv.yaml"
    path.write_text(yaml.safe_dump(MV, sort_keys=False))
    assert [s.id for s in load_kernel_file(path).phases[0].statements][-1] == "S8"


@pytest.mark.parametrize("command", ["analyze", "show", "validate"])
@pytest.mark.parametrize("field, text, says", [
    ("when", "j == 0, i == 1", "'j == 0, i == 1' is not an affine constraint: ',' joins two"),
    ("when", "j == 0 and i == 1", "'and' joins two conditions"),
    ("when", "j == {1}", "'j == {1}' is not an affine constraint: '{1}' is a set"),
    ("when", "j = 0", "a single '=' is not a comparison; write '=='"),
    ("when", "j != 0", "'!=' is not one of =="),
    ("upper", "(N, 1)", "'(N, 1)' is not an affine expression: a tuple"),
    ("upper", "[N]", "'[N]' is not an affine expression: a list"),
    ("upper", "N - 1; 2", "'N - 1; 2' is not an affine expression: invalid syntax"),
    ("upper", "N - 1 == 2", "'N - 1 == 2' is a comparison; a bound, extent, shape or "
                            "subscript is an expression"),
    ("upper", "N % 2", "'N % 2' is not an affine expression: a remainder ('%')"),
    ("shape", "M  # 2", "'M  # 2' is not an affine expression: the character '#'"),
    ("input", "X[(j,i)]", "'(j,i)' is not an affine expression: a tuple"),
    ("input", "X[j][0]", "'X[j][0]' is not an array access like 'A[i0, i1]'"),
    ("compute", "a * 0not", "cannot parse expression 'a * 0not': invalid decimal literal"),
    ("compute", "a * x  # x²", "the character '#'"),
])
def test_malformed_field_is_one_line(tmp_path: Path, command: str, field: str, text: str,
                                     says: str) -> None:
    line = _refused(tmp_path, _with(field, text), command)
    assert f"{FIELDS[field][1]}: " in line and says in line, line


def test_a_repeated_id_names_both_entries(tmp_path: Path) -> None:
    doc = copy.deepcopy(MV)
    doc["phases"][0]["statements"][5]["id"] = "S2"
    line = _refused(tmp_path, doc)
    assert line.endswith("phases[0]: statements[1] and statements[5]: repeated id 'S2'"), line


@pytest.mark.parametrize("tensor, kind, says", [
    ("Y", "input", "tensors.Y.kind: input, but statements[7] (S8) writes Y "
                   "(declare it output or inout)"),
    ("X", "output", "tensors.X.kind: output, but statements[0] (S1) reads X "
                    "(declare it input or inout)"),
])
def test_a_tensor_used_against_its_kind_is_refused(tmp_path: Path, tensor: str, kind: str,
                                                   says: str) -> None:
    """An output statement writing a ``kind: input`` tensor (or an input reading a
    ``kind: output`` one) was accepted; ``inout`` serves both."""
    doc = copy.deepcopy(MV)
    doc["phases"][0]["tensors"][tensor]["kind"] = kind
    assert _refused(tmp_path, doc).endswith(f"phases[0]: {says}")
    doc["phases"][0]["tensors"][tensor]["kind"] = "inout"
    path = tmp_path / "inout.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    assert load_kernel_file(path).phases[0].tensor(tensor).kind == "inout"


def test_a_zero_dependence_cycle_names_the_file_and_the_dep(tmp_path: Path) -> None:
    """``dep: [0, 0]`` on the running sum's transport: ``s`` reads itself within one
    iteration. The schedule refused it naming neither file nor field."""
    doc = copy.deepcopy(MV)
    doc["phases"][0]["statements"][4]["dep"] = [0, 0]
    line = _refused(tmp_path, doc)
    assert line.endswith("phases[0]: statements[4] (S5).dep: [0, 0]: a zero-dependence cycle "
                         "through S5, S7, S8 (each reads at its own iteration what another "
                         "writes there)"), line


#: inserted anywhere into a good field, each makes it wrong (unbalanced, or no arithmetic)
BREAKERS = [",", "(", ")", "[", "]", "{", "}", ";", "'", '"', ":", "$", "?", "`", "\\", "ñ",
            "=", "%"]
#: characters of random garbage; '#' is left out (a comment would hide the rest)
NOISE = "ijNMaxpXY0123456789+-*/()[]{},;:=<>!'\" \t.%&|^~@"
GOOD = {"upper": "N - 1", "lower": "0", "shape": "M", "when": "j == 0", "input": "X[j]",
        "output": "Y[i]", "compute": "a * x"}


def _garbage(rng: random.Random, field: str) -> str:
    """A breaker inserted into the good text or into random characters (never valid:
    ``$ ? ` ñ`` are in no expression, and the other breakers unbalance or join)."""
    if rng.random() < 0.5:
        base, breaker = GOOD[field], rng.choice(BREAKERS)
    else:
        base = "".join(rng.choice(NOISE) for _ in range(rng.randint(0, 12)))
        breaker = rng.choice("$?`ñ")
    k = rng.randint(0, len(base))
    return base[:k] + breaker + base[k:]


CASES = [(f, _garbage(rng, f)) for rng in [random.Random(8)] for _ in range(6)
         for f in FIELDS]


@pytest.mark.parametrize("field, text", CASES)
def test_garbage_in_a_field_is_one_line(tmp_path: Path, field: str, text: str) -> None:
    """42 seeded garbage strings, six per field: exit 2, one line, the field named."""
    line = _refused(tmp_path, _with(field, text))
    assert f"{FIELDS[field][1]}" in line, line
