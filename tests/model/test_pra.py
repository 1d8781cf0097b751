"""One writer per variable and point: refused when the file is loaded, not at validate time."""

from __future__ import annotations

import copy

import pytest
import yaml
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.errors import SpecError
from polyjoule.frontends.pra_yaml import load_kernel_file
from polyjoule.library.kernels import get, names

BASE = {
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


def _file(tmp_path, extra: dict, when_s2: str | None = None):
    d = copy.deepcopy(BASE)
    if when_s2 is not None:
        d["statements"][1]["when"] = when_s2
    d["statements"].insert(2, extra)
    p = tmp_path / "k.yaml"
    p.write_text(yaml.safe_dump(d))
    return p


def test_two_writers_at_one_point_refused_naming_both(tmp_path):
    p = _file(tmp_path, {"id": "S9", "var": "y", "compute": "x", "when": "i >= N - 1"})
    with pytest.raises(SpecError) as e:
        load_kernel_file(p)
    msg = str(e.value)
    assert "k.yaml" in msg and "(S2)" in msg and "(S9)" in msg and "'y'" in msg


def test_overlap_only_at_the_bounds_is_found(tmp_path):
    """``i >= N`` alone is disjoint from S2's space only because of the dimension bound."""
    ok = _file(tmp_path, {"id": "S9", "var": "y", "compute": "x", "when": "i >= N"})
    assert len(load_kernel_file(ok).phases[0].statements) == 4
    bad = _file(tmp_path, {"id": "S9", "var": "y", "compute": "x", "when": "i >= 3"})
    with pytest.raises(SpecError, match=r"statements\[1\] \(S2\) and statements\[2\] \(S9\)"):
        load_kernel_file(bad)


def test_disjoint_writers_accepted(tmp_path):
    p = _file(tmp_path, {"id": "S9", "var": "y", "compute": "x", "when": "i == 0"}, "i >= 1")
    assert [s.id for s in load_kernel_file(p).phases[0].statements] == ["S1", "S2", "S9", "S3"]


def test_analyze_refuses_double_writer_exit_2(tmp_path):
    p = _file(tmp_path, {"id": "S9", "var": "y", "compute": "x"})
    r = CliRunner().invoke(app, ["analyze", str(p), "--array", "1x4"])
    assert r.exit_code == 2 and "both write 'y'" in r.output, r.output


def test_every_builtin_has_one_writer_per_point():
    assert len(names()) == 21
    for n in names():
        assert get(n).phases
