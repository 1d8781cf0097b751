"""The PRA file format: precise one-line errors naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from polyjoule.analysis import analyze
from polyjoule.cli import app
from polyjoule.errors import NotAffineError, SpecError
from polyjoule.frontends.pra_yaml import load_kernel_file
from polyjoule.library.kernels import get

GOOD = {
    "version": 1,
    "name": "scale",
    "params": {"N": 1},
    "dims": [{"name": "i", "lower": 0, "upper": "N - 1"}],
    "tensors": {"X": {"shape": ["N"], "kind": "input"}, "Y": {"shape": ["N"], "kind": "output"}},
    "scalars": {"alpha": 2.0},
    "statements": [
        {"id": "S1", "var": "x", "input": "X[i]"},
        {"id": "S2", "var": "y", "compute": "alpha * x"},
        {"id": "S3", "var": "y", "output": "Y[i]"},
    ],
}


def write(tmp_path: Path, data: object) -> Path:
    p = tmp_path / "k.yaml"
    p.write_text(yaml.safe_dump(data) if not isinstance(data, str) else data)
    return p


def mutate(path: list, value: object) -> dict:
    import copy

    d = copy.deepcopy(GOOD)
    node = d
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return d


def test_good_file_loads_and_analyses(tmp_path):
    k = load_kernel_file(write(tmp_path, GOOD))
    r = analyze(k, array=(1, 4)).evaluate({"N": 10})
    assert r.counts["DR"] == 20 and r.counts["ops"] == {"mul": 10}


@pytest.mark.parametrize("path,value,needle,err", [
    (["dims", 0, "upper"], "N*N", "dims[0].upper", NotAffineError),
    (["dims", 0, "upper"], "M - 1", "unknown name 'M'", SpecError),
    (["statements", 1, "compute"], "alpha * zz", "statements[1] (S2).compute", SpecError),
    (["statements", 0, "input"], "X[i*i]", "statements[0] (S1).input", NotAffineError),
    (["statements", 0, "input"], "Q[i]", "unknown tensor 'Q'", SpecError),
    (["version"], 7, "version", SpecError),
    (["statements", 1, "bogus"], 1, "bogus", SpecError),
])
def test_bad_field_is_named(tmp_path, path, value, needle, err):
    with pytest.raises(err) as e:
        load_kernel_file(write(tmp_path, mutate(path, value)))
    assert needle in str(e.value) and "k.yaml" in str(e.value)


def test_transport_dep_length_checked(tmp_path):
    d = mutate(["statements", 1], {"id": "S2", "var": "y", "from": "x", "dep": [1, 0]})
    with pytest.raises(SpecError, match=r"statements\[1\] \(S2\)\.dep"):
        load_kernel_file(write(tmp_path, d))


def test_malformed_yaml_cli_one_line_exit_2(tmp_path):
    p = write(tmp_path, "name: [unclosed\n")
    res = CliRunner().invoke(app, ["analyze", str(p), "--set", "N=4"])
    assert res.exit_code == 2
    assert "not valid YAML" in res.output and "Traceback" not in res.output


def test_zero_size_cli_exit_2():
    res = CliRunner().invoke(app, ["analyze", "gesummv", "--set", "N0=0,N1=4", "--array", "2x2"])
    assert res.exit_code == 2 and "N0" in res.output and "Traceback" not in res.output


def test_unknown_kernel_and_bad_array_exit_2():
    runner = CliRunner()
    for args in (["analyze", "nosuch"], ["analyze", "gemm", "--array", "0x4"],
                 ["analyze", "gemm", "--set", "NI=a"], ["analyze", "gemm", "--dataset", "HUGE"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, args
        assert "Traceback" not in res.output


def test_energy_table_override(tmp_path):
    t = tmp_path / "e.yaml"
    t.write_text("access_pj: {DR: 100.0}\n")
    base = analyze("gemm", array=(2, 2)).evaluate({"NI": 4, "NJ": 4, "NK": 4})
    from polyjoule.targets.tcpa.energy import load_table

    over = analyze("gemm", array=(2, 2), energy_table=load_table(t)).evaluate({"NI": 4, "NJ": 4, "NK": 4})
    assert over.energy_pj["by_class"]["DR"] == pytest.approx(base.counts["DR"] * 100.0)
    assert over.energy_pj["by_class"]["RD"] == base.energy_pj["by_class"]["RD"]
    t.write_text("access_pj: {XX: 1.0}\n")
    res = CliRunner().invoke(app, ["analyze", "gemm", "--array", "2x2", "--set", "NI=4,NJ=4,NK=4",
                                   "--energy-table", str(t)])
    assert res.exit_code == 2 and "access_pj.XX" in res.output


def test_builtin_kernels_load():
    assert get("gesummv").phases[0].n == 2


# --- when: with alternatives -------------------------------------------------------------


@pytest.mark.parametrize("when, needle", [
    ({"any": []}, "statements[1] (S2).when.any: expected a non-empty list of alternatives"),
    ({"any": "i == 0"}, "statements[1] (S2).when.any: expected a non-empty list"),
    ({"one_of": ["i == 0"]}, "statements[1] (S2).when: a mapping in 'when' is {any: [...]}"),
    ({"any": ["i == 0", ["i >= 1", 4]]}, "statements[1] (S2).when.any[1][1]: expected a "
                                          "condition"),
    ({"any": ["i == 0", "i*i >= 1"]}, "statements[1] (S2).when.any[1]: 'i*i' is not affine"),
    ({"any": ["i == 0", "i >= M"]}, "statements[1] (S2).when.any[1]: unknown name 'M'"),
    (None, "statements[1] (S2).when: expected a condition"),
])
def test_bad_alternatives_cli_one_line_exit_2(tmp_path, when, needle):
    """Through the command line: exit 2, one line naming the file and the field."""
    p = write(tmp_path, mutate(["statements", 1, "when"], when))
    res = CliRunner().invoke(app, ["analyze", str(p), "--set", "N=4", "--array", "1x4"])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "k.yaml" in lines[0] and needle in lines[0], res.output


def test_alternatives_load_as_disjoint_pieces(tmp_path):
    """``i == 0 or i >= 2`` (S2) beside ``i == 1`` (S9): no overlap, both analysed."""
    d = mutate(["statements", 1, "when"], {"any": ["i == 0", "i >= 2"]})
    d["statements"].insert(2, {"id": "S9", "var": "y", "compute": "x", "when": "i == 1"})
    k = load_kernel_file(write(tmp_path, d))
    assert [s.id for s in k.phases[0].statements] == ["S1", "S2.1", "S2.2", "S9", "S3"]
    r = analyze(k, array=(1, 4)).evaluate({"N": 10})
    assert r.counts["ops"] == {"mul": 9}
