"""The CLI: ``polyjoule import`` (mapper or TCPA) and the ``map --tosa`` hook; bad input is
one line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()

MLP = '''import torch.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(16, 16, bias=False), nn.ReLU(),
                               nn.Linear(16, 8, bias=False))

    def forward(self, x):
        return self.f(x)
'''


GEMM_SUM_RELU = """func.func @main(%a: tensor<1x4x16xi8>, %b: tensor<1x16x8xi8>, %b2: tensor<1x16x8xi8>) -> tensor<1x4x8xi32> {
    %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.matmul %a, %b, %z, %z : (tensor<1x4x16xi8>, tensor<1x16x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x8xi32>
    %1 = tosa.matmul %a, %b2, %z, %z : (tensor<1x4x16xi8>, tensor<1x16x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x8xi32>
    %s = tosa.add %0, %1 : (tensor<1x4x8xi32>, tensor<1x4x8xi32>) -> tensor<1x4x8xi32>
    %r = tosa.clamp %s {max_val = 2147483647 : i32, min_val = 0 : i32} : (tensor<1x4x8xi32>) -> tensor<1x4x8xi32>
    return %r : tensor<1x4x8xi32>
}"""
RELU6 = GEMM_SUM_RELU.replace("max_val = 2147483647", "max_val = 6")


@pytest.fixture(scope="module")
def mlp_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("model") / "mlp.py"
    p.write_text(MLP)
    return p


def test_import_maps_an_mlp_and_emits_its_tosa(mlp_file, tmp_path):
    pytest.importorskip("torch_mlir")
    out = tmp_path / "mlp.mlir"
    r = runner.invoke(app, ["import", f"{mlp_file}:MLP", "--input-shape", "4x16",
                            "--emit-mlir", str(out)])
    assert r.exit_code == 0, r.output
    assert "layer 1" in r.output and "gemm.relu 4x16x16" in r.output
    assert "gemm 4x16x8" in r.output and "best N2>K4" in r.output
    assert "tosa.matmul" in out.read_text()

    from polyjoule.cli.tosa import map_tosa_file

    assert map_tosa_file(str(out), top=2, json=False) == 0
    r = runner.invoke(app, ["map", "--tosa", str(out), "--top", "1"])
    assert r.exit_code == 0, r.output
    assert "gemm.relu 4x16x16" in r.output and "N4>K4" in r.output


def test_map_tosa_hook_json(capsys, tmp_path):
    pytest.importorskip("torch_mlir")
    from polyjoule.cli.tosa import map_tosa_file

    f = tmp_path / "g.mlir"
    f.write_text(GEMM_SUM_RELU)
    # recognised, but at 4x16x8 every nest of gemm.sum.relu is refused by tinytpu-isa: exit 1
    assert map_tosa_file(str(f), top=1, json=True) == 1
    doc = json.loads(capsys.readouterr().out)
    (layer,) = doc["layers"]
    assert layer["workload"] == "gemm.sum.relu" and layer["registered"] == "gemm.sum.relu"
    assert layer["extents"] == {"M": 4, "K": 16, "N": 8}
    assert layer["status"] == "unmapped" and layer["census"] and layer["candidates"] == []


def test_refused_layers_are_printed_with_their_cause(capsys, tmp_path):
    pytest.importorskip("torch_mlir")
    from polyjoule.cli.tosa import map_tosa_file

    f = tmp_path / "r6.mlir"
    f.write_text(RELU6)
    assert map_tosa_file(str(f)) == 1
    out = capsys.readouterr().out
    assert "gemm.sum 4x16x8" in out  # the sum still maps; the clamp is refused, never relu
    assert "refused, NoMatchError: tosa.clamp [0, 6] on i32 is not relu" in out


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polyjoule", *args], capture_output=True,
                          text=True, timeout=120)


def test_bad_mlir_file_is_a_one_line_error(tmp_path):
    pytest.importorskip("torch_mlir")
    from polyjoule.cli.tosa import map_tosa_file
    from polyjoule.frontends.tosa import MlirParseError

    f = tmp_path / "bad.mlir"
    f.write_text("func.func @main( this is not mlir")
    with pytest.raises(MlirParseError, match="not valid MLIR") as e:
        map_tosa_file(str(f))
    assert "\n" not in str(e.value) and e.value.exit_code == 2
    with pytest.raises(MlirParseError, match="cannot read"):
        map_tosa_file(str(tmp_path / "missing.mlir"))


def test_missing_module_file_is_one_line_exit_2(tmp_path):
    pytest.importorskip("torch_mlir")
    r = _cli("import", str(tmp_path / "nope.py") + ":MLP", "--input-shape", "4x16")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "no such file" in r.stderr
    assert "Traceback" not in r.stderr


def test_model_file_that_does_not_import_is_one_line_exit_2(tmp_path):
    pytest.importorskip("torch_mlir")
    bad = tmp_path / "broken.py"
    bad.write_text("this is not python\n")
    r = _cli("import", f"{bad}:MLP", "--input-shape", "4x16")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot import" in r.stderr


def test_without_the_extra_import_says_how_to_install(monkeypatch, mlp_file):
    for name in ("torch_mlir", "torch_mlir.ir", "torch_mlir.fx"):
        monkeypatch.setitem(sys.modules, name, None)
    r = runner.invoke(app, ["import", f"{mlp_file}:MLP", "--input-shape", "4x16"])
    assert r.exit_code == 2
    assert "pip install 'polyjoule[tosa]'" in r.output


def test_map_tosa_without_the_extra(monkeypatch, tmp_path):
    from polyjoule.cli.tosa import map_tosa_file
    from polyjoule.errors import MissingExtraError

    monkeypatch.setitem(sys.modules, "torch_mlir", None)
    f = tmp_path / "x.mlir"
    f.write_text("module {}")
    with pytest.raises(MissingExtraError, match=r"pip install 'polyjoule\[tosa\]'"):
        map_tosa_file(str(f))


def test_polyjoule_import_does_not_import_torch():
    code = ("import sys, polyjoule, polyjoule.cli, polyjoule.frontends.tosa; "
            "import polyjoule.cli.tosa, polyjoule.frontends.tosa.layers; "
            "print(any(m.split('.')[0] in ('torch', 'torch_mlir') for m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == "False", r.stderr


# the layers of MLP as einsums given as text: the independent path to the same PRA
MLP_EINSUMS = {1: ("C[m,n] = relu(A[m,k]*B[k,n])", {"m": 4, "k": 16, "n": 16}),
               2: ("C[m,n] += A[m,k]*B[k,n]", {"m": 4, "k": 16, "n": 8})}


def test_import_on_a_tcpa_equals_the_einsum_kernels(mlp_file):
    """Per layer, the printed energy and latency are ``polyjoule.analyze`` of the einsum
    written as text, and the simulator agrees with both at the layer's size."""
    pytest.importorskip("torch_mlir")
    import polyjoule
    from polyjoule.analysis.schedule import kernel_latency, kernel_schedules
    from polyjoule.analysis.simulator import simulate
    from polyjoule.frontends.einsum import einsum_kernel
    from polyjoule.reports.tables import energy
    from polyjoule.targets.tcpa.energy import default_table
    from polyjoule.targets.tcpa.locations import CLASSES

    args = ["import", f"{mlp_file}:MLP", "-i", "4x16", "--target", "tcpa", "--array", "4x4"]
    r = runner.invoke(app, [*args, "--json"])
    assert r.exit_code == 0, r.output
    layers = json.loads(r.output)["layers"]
    assert [x["layer"] for x in layers] == sorted(MLP_EINSUMS)
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    for layer in layers:
        einsum, extents = MLP_EINSUMS[layer["layer"]]
        k = einsum_kernel(einsum, extents)
        values = dict(k.datasets["default"])
        assert layer["values"] == values
        want = polyjoule.analyze(k, array=(4, 4)).evaluate(values)
        latency = kernel_latency(kernel_schedules(k, (4, 4), None), values)
        assert layer["dynamic_pj"] == pytest.approx(want.energy_pj["dynamic"], rel=1e-12)
        assert layer["energy_pj"] == pytest.approx(want.power.total_pj, rel=1e-12)
        assert layer["energy_pj"] > layer["dynamic_pj"]  # analyze's total: static too
        assert layer["counts"] == {c: want.counts[c] for c in CLASSES}
        assert layer["latency_cycles"] == latency
        assert (f"energy {energy(want.power.total_pj)} (dynamic "
                f"{energy(want.energy_pj['dynamic'])}), latency {latency:,} cycles") in text.output
        sim = simulate(k, (4, 4), None, values)
        assert k.reference is not None and all(sim.checks.values()), sim.violations
        assert {c: sim.counts[c] for c in CLASSES} == layer["counts"]
        assert sim.energy_pj(default_table())["total"] == pytest.approx(layer["dynamic_pj"],
                                                                       rel=1e-9)
        assert sim.makespan == layer["latency_cycles"]


def test_import_on_a_tcpa_refuses_a_bad_array(mlp_file):
    r = runner.invoke(app, ["import", f"{mlp_file}:MLP", "-i", "4x16", "--target", "tcpa",
                            "--array", "4xq"])
    assert r.exit_code == 2 and "4xq" in r.output, r.output
    r = runner.invoke(app, ["import", f"{mlp_file}:MLP", "-i", "4x16", "--target", "gpu"])
    assert r.exit_code == 2 and "--target" in r.output
