"""The workload suite (act-mapper sheet §15) imported from PyTorch and mapped layer by layer
on the MAXDIM=64 build: the published picks, the sigmoid refused, the bias through vadd."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

MODELS = Path(__file__).parent / "models" / "mlp_suite.py"
runner = CliRunner()

#: model, input shape, per layer (workload, extents M x K x N, published pick)
SUITE = [
    ("MlpTiny", "4x16", [("gemm.relu", "4x16x16", "N4>K4"), ("gemm", "4x16x16", "N4>K4")]),
    ("MlpDeep", "4x16", [("gemm.relu", "4x16x16", "N4>K4"), ("gemm.relu", "4x16x16", "N4>K4"),
                         ("gemm.relu", "4x16x12", "N3>K4"), ("gemm", "4x12x8", "N2>K3")]),
    ("MlpSmall", "8x32", [("gemm.relu", "8x32x32", "N8>K8"), ("gemm", "8x32x16", "N4>K8")]),
    ("MlpWide", "64x64", [("gemm.relu", "64x64x64", "M2>N16>K16"),
                          ("gemm", "64x64x64", "M2>N16>K16")]),
]


def _import(model, shape, *extra, code=0):
    pytest.importorskip("torch_mlir")
    r = runner.invoke(app, ["import", f"{MODELS}:{model}", "-i", shape, "--json", *extra])
    assert r.exit_code == code, r.output  # 1: a layer was refused
    return json.loads(r.output[r.output.index("{"):])["layers"]


def _extents(layer):
    e = layer["extents"]
    return f"{e['M']}x{e['K']}x{e['N']}"


@pytest.mark.parametrize(("model", "shape", "want"), SUITE)
def test_suite_picks_what_the_workload_suite_publishes(model, shape, want):
    layers = _import(model, shape, "--machine", "maxdim64")
    got = [(lay["workload"], _extents(lay), lay["candidates"][0]["mapping"]) for lay in layers]
    assert got == want


def test_mlp_bias_refuses_the_sigmoid_by_name_and_maps_the_biased_layer_through_vadd():
    layers = _import("MlpBias", "4x16", "--machine", "maxdim64", code=1)
    assert [lay["status"] for lay in layers] == ["mapped", "refused", "mapped"]
    biased, sigmoid, plain = layers
    assert biased["workload"] == "gemm.bias" and biased["registered"] == "gemm.bias"
    assert biased["operands"]["BIAS"] == ["K", "N"] and "vadd" in biased["sources"]["BIAS"]
    assert biased["candidates"][0]["mapping"] == "N4>K4"
    assert "sigmoid" in sigmoid["reason"]
    assert (plain["workload"], _extents(plain)) == ("gemm", "4x16x16")
