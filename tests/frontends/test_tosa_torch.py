"""What torch-mlir actually emits, recognised back: registered workloads and an MLP."""

from __future__ import annotations

import pytest

pytest.importorskip("torch_mlir")

from polyjoule.frontends import tosa  # noqa: E402
from polyjoule.frontends.tosa import NoMatchError  # noqa: E402
from polyjoule.frontends.tosa.layers import map_model  # noqa: E402
from polyjoule.library import workloads as registry  # noqa: E402
from polyjoule.model.workload import Tensor  # noqa: E402


@pytest.fixture(scope="module")
def torch_tosa():
    """name -> TOSA ir.Module from torch-mlir; each module is exported once (export is slow)."""
    pytest.importorskip("torch_mlir")
    import torch
    import torch.nn as nn

    from polyjoule.frontends.tosa.producer import export

    class Gemm(nn.Module):
        def forward(self, a, b):
            return a @ b

    class GemmRelu(nn.Module):
        def forward(self, a, b):
            return torch.relu(a @ b)

    class GemmSum(nn.Module):
        def forward(self, a, b, b2):
            return a @ b + a @ b2

    class GemmSumRelu(nn.Module):
        def forward(self, a, b, b2):
            return torch.relu(a @ b + a @ b2)

    class GemmT(nn.Module):
        def forward(self, a, b):
            return a @ b.T

    class Relu6(nn.Module):
        def forward(self, a, b):
            return nn.functional.relu6(a @ b)

    def mlp():
        return nn.Sequential(nn.Linear(16, 16, bias=False), nn.ReLU(),
                             nn.Linear(16, 8, bias=False))

    class BiasSigmoid(nn.Module):
        """mlp_bias-like: Linear(bias) -> sigmoid -> Linear: the published mapper refuses
        two layers; here the bias maps (gemm.bias, summed by vadd), the sigmoid is refused."""

        def __init__(self):
            super().__init__()
            self.a = nn.Linear(16, 16, bias=True)
            self.b = nn.Linear(16, 16, bias=False)

        def forward(self, x):
            return self.b(torch.sigmoid(self.a(x)))

    z = torch.zeros
    torch.manual_seed(0)
    cases = {
        "gemm": (Gemm(), (z(4, 16), z(16, 8))),
        "gemm.relu": (GemmRelu(), (z(4, 16), z(16, 8))),
        "gemm.sum": (GemmSum(), (z(4, 16), z(16, 8), z(16, 8))),
        "gemm.sum.relu": (GemmSumRelu(), (z(4, 16), z(16, 8), z(16, 8))),
        "gemm.T": (GemmT(), (z(4, 16), z(8, 16))),
        "relu6": (Relu6(), (z(4, 16), z(16, 8))),
        "mlp": (mlp(), (z(4, 16),)),
        "mlp3d": (mlp(), (z(2, 4, 16),)),
        "bias": (BiasSigmoid(), (z(4, 16),)),
        "gemm.i8": (Gemm(), (z(4, 16, dtype=torch.int8), z(16, 8, dtype=torch.int8))),
    }
    return {name: export(mod, *args) for name, (mod, args) in cases.items()}


@pytest.mark.parametrize("name", ["gemm", "gemm.relu", "gemm.sum", "gemm.sum.relu"])
def test_torch_module_round_trips_to_the_registered_workload(torch_tosa, name):
    rec = tosa.workload_from_tosa(torch_tosa[name])
    assert rec.workload == registry.get(name)
    assert rec.extents == {"M": 4, "K": 16, "N": 8}
    (layer,) = tosa.from_module(torch_tosa[name]).layers
    assert layer.recognized.workload == registry.get(name)


def test_b_transposed_by_torch_is_a_flipped_weight(torch_tosa):
    rec = tosa.workload_from_tosa(torch_tosa["gemm.T"])
    assert rec.workload.tensor("B") == Tensor("B", ("N", "K"))
    assert rec.extents == {"M": 4, "K": 16, "N": 8}


def test_two_layer_mlp_maps_layer_by_layer(torch_tosa):
    model = tosa.from_module(torch_tosa["mlp"])
    first, second = model.layers
    assert first.recognized.workload == registry.get("gemm.relu")
    assert first.recognized.extents == {"M": 4, "K": 16, "N": 16}
    assert second.recognized.workload == registry.get("gemm")
    assert second.recognized.extents == {"M": 4, "K": 16, "N": 8}
    # weights are frozen constants in torch-mlir output: inputs of the layer, values unread
    assert first.recognized.sources["B"].startswith("constant")
    assert second.recognized.sources["A"] == "output of layer 1"
    maps = map_model(model)
    assert all(m.ok for m in maps)
    assert [m.result.best.label for m in maps] == ["N4>K4", "N2>K4"]


def test_leading_dims_merge_into_m(torch_tosa):
    first, second = tosa.from_module(torch_tosa["mlp3d"]).layers
    assert first.recognized.extents == {"M": 8, "K": 16, "N": 16}
    assert second.recognized.workload == registry.get("gemm")


def test_torch_relu6_is_refused_not_relu(torch_tosa):
    with pytest.raises(NoMatchError):
        tosa.workload_from_tosa(torch_tosa["relu6"])
    layers = tosa.from_module(torch_tosa["relu6"]).layers
    assert layers[0].recognized.workload == registry.get("gemm")
    assert [layer.ops for layer in layers[1:]] == [("tosa.maximum",), ("tosa.minimum",)]
    assert not any(layer.mapped for layer in layers[1:])


def test_bias_maps_as_gemm_bias_the_sigmoid_is_refused(torch_tosa):
    layers = tosa.from_module(torch_tosa["bias"]).layers
    assert [layer.mapped for layer in layers] == [True, False, True]
    assert layers[0].recognized.workload == registry.get("gemm.bias")
    assert "tosa.sigmoid" in str(layers[1].error)
    assert layers[2].recognized.sources["A"] == "output of layer 2"


def test_int8_matmul_maps_and_the_narrowing_cast_is_refused(torch_tosa):
    # torch's i8 @ i8 -> i8 becomes an i32-accumulating tosa.matmul plus a tosa.cast to i8
    gemm, cast = tosa.from_module(torch_tosa["gemm.i8"]).layers
    assert gemm.recognized.workload == registry.get("gemm")
    assert gemm.recognized.dtypes == {"A": "i8", "B": "i8", "C": "i32"}
    assert cast.ops == ("tosa.cast",) and not cast.mapped
