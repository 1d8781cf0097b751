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
    assert len(names()) == 26
    for n in names():
        assert get(n).phases


# --- issue 14: semantic checks at load time -------------------------------------------


def _gemm_doc() -> dict:
    from importlib import resources

    text = resources.files("polyjoule.library").joinpath("data", "kernels", "gemm.yaml")
    return yaml.safe_load(text.read_text())


def _mutated(tmp_path, change) -> str:
    doc = _gemm_doc()
    change(doc["phases"][0], doc)
    p = tmp_path / "k.yaml"
    p.write_text(yaml.safe_dump(doc))
    return str(p)


def _set(path: list, value):
    def change(ph, doc):
        node = ph
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return change


@pytest.mark.parametrize("change,needle", [
    (_set(["statements", 1, "dep"], [0, 2, 0]), r"statements\[1\] \(S2\)\.dep: \[0, 2, 0\] reads 'a' outside"),
    (_set(["statements", 0, "input"], "A[i]"), r"A has rank 2, the subscript 1 entries"),
    (_set(["statements", 0, "input"], "A[i, k + 1]"), r"subscript k \+ 1 leaves A's shape"),
    (_set(["tensors", "A", "shape", 0], "NI - 5"), r"tensors\.A\.shape\[0\]: NI - 5 is not positive"),
    (_set(["dims", 0], {"name": "i", "lower": 5, "upper": 2}), r"dims\[0\] \(i\): lower 5 exceeds upper 2"),
    (lambda ph, doc: doc["datasets"]["MINI"].update(NX=3), r"datasets\.MINI\.NX: not a parameter"),
    (lambda ph, doc: doc["datasets"]["MINI"].update(NI=0), r"datasets\.MINI\.NI: 0 is below"),
])
def test_meaningless_pra_is_refused_at_load(tmp_path, change, needle):
    with pytest.raises(SpecError, match=needle):
        load_kernel_file(_mutated(tmp_path, change))


def test_dependence_out_of_domain_is_refused_by_analyze_not_found_by_validate(tmp_path):
    """The issue's example: analyze used to exit 0 and validate found FD 80 vs 96."""
    path = _mutated(tmp_path, _set(["statements", 1, "dep"], [0, 2, 0]))
    r = CliRunner().invoke(app, ["analyze", path, "--dataset", "MINI", "--array", "2x2"])
    assert r.exit_code == 2 and "dep: [0, 2, 0]" in r.stderr


def test_guarded_dependence_still_loads(tmp_path):
    """dep [0, 2, 0] guarded by j >= 2 (with j == 1 written by an input) is a valid PRA."""
    def change(ph, doc):
        ph["statements"][0]["when"] = "j <= 1"
        ph["statements"][1].update(dep=[0, 2, 0], when="j >= 2")
        ph["statements"][0]["input"] = "A[i, k]"
    assert load_kernel_file(_mutated(tmp_path, change)).name == "gemm"


def test_every_builtin_kernel_passes_the_semantic_checks():
    assert len(names()) == 26
    for n in names():
        assert get(n).phases


def test_n_sets_every_parameter_not_given():
    """``--set N=..`` for a kernel without ``N``: every parameter not named takes it, as
    ``map`` and ``sweep`` read it; an unknown name is still refused by name."""
    from polyjoule.errors import UnknownNameError

    gemm = get("gemm")
    assert gemm.resolve({"N": 32, "NK": 8}) == {"NI": 32, "NJ": 32, "NK": 8}
    assert get("jacobi-1d").resolve({"N": 9}) == {"N": 9}  # N is a parameter: itself only
    with pytest.raises(UnknownNameError, match=r"--set: gemm has no parameter 'NX'.*N sets all"):
        gemm.resolve({"NX": 3})
