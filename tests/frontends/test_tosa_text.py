"""Hand-written TOSA: the four registered workloads round-trip; every fail-safe refusal."""

from __future__ import annotations

import pytest

pytest.importorskip("torch_mlir")

from polyjoule.frontends import tosa  # noqa: E402
from polyjoule.frontends.tosa import (  # noqa: E402
    DTypeError,
    LayoutError,
    MlirParseError,
    NoMatchError,
    QuantizationError,
    ShapeError,
)
from polyjoule.frontends.tosa.bindings import parse  # noqa: E402
from polyjoule.frontends.tosa.builder import function  # noqa: E402
from polyjoule.frontends.tosa.recognize import recognize, source_tag  # noqa: E402
from polyjoule.library import workloads as registry  # noqa: E402
from polyjoule.model.workload import Tensor  # noqa: E402

I32MAX = 2147483647
ZP = '''
    %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>'''


def _mm(res: str, a: str, b: str, za: str = "%zp", zb: str = "%zp", m=4, k=16, n=8) -> str:
    return (f"    {res} = tosa.matmul {a}, {b}, {za}, {zb} : (tensor<1x{m}x{k}xi8>, "
            f"tensor<1x{k}x{n}xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x{m}x{n}xi32>")


def _relu(res: str, x: str, hi: int = I32MAX, lo: int = 0) -> str:
    return (f"    {res} = tosa.clamp {x} {{max_val = {hi} : i32, min_val = {lo} : i32}} : "
            "(tensor<1x4x8xi32>) -> tensor<1x4x8xi32>")


def _func(args: str, body: list[str], ret: str, rtype: str = "tensor<1x4x8xi32>") -> str:
    return (f"func.func @main({args}) -> {rtype} {{{ZP}\n" + "\n".join(body)
            + f"\n    return {ret} : {rtype}\n}}\n")


A = "%a: tensor<1x4x16xi8>"
B = "%b: tensor<1x16x8xi8>"
B2 = "%b2: tensor<1x16x8xi8>"
ADD = "    %s = tosa.add %0, %1 : (tensor<1x4x8xi32>, tensor<1x4x8xi32>) -> tensor<1x4x8xi32>"

HAND = {
    "gemm": _func(f"{A}, {B}", [_mm("%0", "%a", "%b")], "%0"),
    "gemm.relu": _func(f"{A}, {B}", [_mm("%0", "%a", "%b"), _relu("%r", "%0")], "%r"),
    "gemm.sum": _func(f"{A}, {B}, {B2}", [_mm("%0", "%a", "%b"), _mm("%1", "%a", "%b2"), ADD],
                      "%s"),
    "gemm.sum.relu": _func(f"{A}, {B}, {B2}", [_mm("%0", "%a", "%b"), _mm("%1", "%a", "%b2"),
                                              ADD, _relu("%r", "%s")], "%r"),
}

EXTENTS = {"M": 4, "K": 16, "N": 8}


def _op(text: str, name: str):
    """(module, first op named ``name``); the module must outlive the op."""
    module = parse(text)
    ops = function(module).regions[0].blocks[0].operations
    return module, next(o.operation for o in ops if o.operation.name == name)


@pytest.mark.parametrize("name", list(HAND))
def test_hand_written_round_trips_to_the_registered_workload(name):
    rec = tosa.workload_from_tosa(HAND[name])
    assert rec.workload == registry.get(name)
    assert rec.extents == EXTENTS
    assert rec.dtypes["A"] == "i8" and rec.dtypes["C"] == "i32"


def test_two_d_operands_with_reshapes_and_transposed_weight():
    text = '''func.func @main(%a: tensor<4x16xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %s1 = tosa.const_shape {values = dense<[1, 4, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %s2 = tosa.const_shape {values = dense<[1, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %s3 = tosa.const_shape {values = dense<[4, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %t = tosa.transpose %w {perms = array<i32: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %a3 = tosa.reshape %a, %s1 : (tensor<4x16xf32>, !tosa.shape<3>) -> tensor<1x4x16xf32>
    %b3 = tosa.reshape %t, %s2 : (tensor<16x8xf32>, !tosa.shape<3>) -> tensor<1x16x8xf32>
    %m = tosa.matmul %a3, %b3, %z, %z : (tensor<1x4x16xf32>, tensor<1x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
    %r = tosa.reshape %m, %s3 : (tensor<1x4x8xf32>, !tosa.shape<2>) -> tensor<4x8xf32>
    return %r : tensor<4x8xf32>
}'''
    rec = tosa.workload_from_tosa(text)
    assert rec.extents == EXTENTS
    assert rec.workload.tensor("B") == Tensor("B", ("N", "K"))  # the weight is stored (N, K)
    assert rec.sources["B"].endswith("(transposed)")


# --- fail-safe cases ----------------------------------------------------------------


def _relu6_f32() -> str:
    return '''func.func @main(%a: tensor<1x4x16xf32>, %b: tensor<1x16x8xf32>) -> tensor<1x4x8xf32> {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %a, %b, %z, %z : (tensor<1x4x16xf32>, tensor<1x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
    %r = tosa.clamp %m {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    return %r : tensor<1x4x8xf32>
}'''


def test_relu6_clamp_is_not_relu():
    with pytest.raises(NoMatchError, match="not relu"):
        tosa.workload_from_tosa(_relu6_f32())
    layers = tosa.from_module(_relu6_f32()).layers
    assert [layer.mapped for layer in layers] == [True, False]
    assert layers[0].recognized.workload == registry.get("gemm")  # never gemm.relu
    assert isinstance(layers[1].error, NoMatchError) and "[0, 6]" in str(layers[1].error)


def test_float_relu_needs_the_largest_finite_bound_and_propagated_nans():
    ok = _relu6_f32().replace("6.0 : f32", "3.40282347E+38 : f32")
    assert tosa.workload_from_tosa(ok).workload == registry.get("gemm.relu")
    ignore = ok.replace("min_val = 0.0 : f32}", "min_val = 0.0 : f32, nan_mode = #tosa.nan_mode<IGNORE>}")
    with pytest.raises(NoMatchError, match="nan_mode"):
        tosa.workload_from_tosa(ignore)


def test_integer_clamp_0_127_on_i32_is_not_relu():
    text = HAND["gemm.relu"].replace(f"max_val = {I32MAX}", "max_val = 127")
    with pytest.raises(NoMatchError, match=r"\[0, 127\] on i32 is not relu"):
        tosa.workload_from_tosa(text)
    _keep_op, op = _op(text, "tosa.clamp")
    assert recognize(op).tag is None


def test_integer_relu_on_i8_needs_max_127():
    text = _func("%x: tensor<4xi8>", [
        "    %r = tosa.clamp %x {max_val = 127 : i8, min_val = 0 : i8} : (tensor<4xi8>) -> tensor<4xi8>"],
        "%r", "tensor<4xi8>")
    _keep_op, op = _op(text, "tosa.clamp")
    assert recognize(op).tag == "relu"


@pytest.mark.parametrize("za, zb, what", [("%three", "%zp", "a_zp = 3"),
                                          ("%zp", "%arg_zp", "b_zp = unknown")])
def test_non_zero_or_unknown_zero_point_is_refused(za, zb, what):
    body = ['    %three = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>',
            _mm("%0", "%a", "%b", za, zb)]
    text = _func(f"{A}, {B}, %arg_zp: tensor<1xi8>", body, "%0")
    with pytest.raises(QuantizationError, match=what):
        tosa.workload_from_tosa(text)
    (layer,) = tosa.from_module(text).layers
    assert isinstance(layer.error, QuantizationError)


def test_dense_resource_zero_point_is_unknown_not_zero():
    text = _func(f"{A}, {B}", [
        '    %r = "tosa.const"() <{values = dense_resource<zp0> : tensor<1xi8>}> : () -> tensor<1xi8>',
        _mm("%0", "%a", "%b", "%zp", "%r")], "%0") + '''{-#
  dialect_resources: { builtin: { zp0: "0x0400000000" } }
#-}'''
    with pytest.raises(QuantizationError, match="dense_resource"):
        tosa.workload_from_tosa(text)


def test_non_zero_shift_is_refused():
    text = '''func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
    %sh = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
    %r = tosa.mul %x, %y, %sh : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
    return %r : tensor<4xi32>
}'''
    _keep_op, op = _op(text, "tosa.mul")
    m = recognize(op)
    assert m.tag == "mul" and not m.neutral and source_tag(op) is None  # tag kept, not sourced
    (layer,) = tosa.from_module(text).layers
    assert isinstance(layer.error, QuantizationError) and "shift = 1" in str(layer.error)
    zero = text.replace("dense<1> : tensor<1xi8>", "dense<0> : tensor<1xi8>")
    _keep_op0, op0 = _op(zero, "tosa.mul")
    assert source_tag(op0) == "mul"


def test_rescale_is_refused_by_name():
    body = [_mm("%0", "%a", "%b"),
            '    %mul = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>',
            '    %sh = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>',
            '    %iz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>',
            "    %q = tosa.rescale %0, %mul, %sh, %iz, %zp {scale32 = true, rounding_mode = "
            "#tosa.rounding_mode<SINGLE_ROUND>, per_channel = false, input_unsigned = false, "
            "output_unsigned = false} : (tensor<1x4x8xi32>, tensor<1xi32>, tensor<1xi8>, "
            "tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x8xi8>"]
    text = _func(f"{A}, {B}", body, "%q", "tensor<1x4x8xi8>")
    with pytest.raises(NoMatchError, match=r"tosa\.rescale is refused by name: requantisation"):
        tosa.workload_from_tosa(text)
    layers = tosa.from_module(text).layers
    assert [layer.mapped for layer in layers] == [True, False]
    assert "tosa.rescale is refused by name" in str(layers[1].error)


def test_unknown_op_is_refused():
    text = _func("%x: tensor<4xi32>", [
        "    %r = tosa.clz %x : (tensor<4xi32>) -> tensor<4xi32>"], "%r", "tensor<4xi32>")
    with pytest.raises(NoMatchError, match="tosa.clz is not in the compute vocabulary"):
        tosa.workload_from_tosa(text)


def test_unsigned_clamp_is_a_dtype_refusal():
    text = _func("%x: tensor<4xui8>", [
        "    %r = tosa.clamp %x {max_val = 255 : ui8, min_val = 0 : ui8} : (tensor<4xui8>) -> tensor<4xui8>"],
        "%r", "tensor<4xui8>")
    try:
        module = parse(text)
    except MlirParseError:
        pytest.skip("this TOSA build rejects unsigned clamps itself")
    op = next(o.operation for o in function(module).regions[0].blocks[0].operations
              if o.operation.name == "tosa.clamp")
    assert isinstance(recognize(op).error, DTypeError)


def test_batched_matmul_and_disagreeing_terms_are_shape_errors():
    batched = '''func.func @main(%a: tensor<2x4x16xi8>, %b: tensor<2x16x8xi8>) -> tensor<2x4x8xi32> {
    %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.matmul %a, %b, %zp, %zp : (tensor<2x4x16xi8>, tensor<2x16x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x4x8xi32>
    return %m : tensor<2x4x8xi32>
}'''
    with pytest.raises(ShapeError, match="batch 2"):
        tosa.workload_from_tosa(batched)
    body = [_mm("%0", "%a", "%b"), _mm("%1", "%a2", "%b2", k=32), ADD]
    text = _func(f"{A}, {B}, %a2: tensor<1x4x32xi8>, %b2: tensor<1x32x8xi8>", body, "%s")
    with pytest.raises(ShapeError, match="disagree"):
        tosa.workload_from_tosa(text)


def test_bias_add_is_not_a_matmul_term():
    body = ['    %bias = "tosa.const"() <{values = dense<1> : tensor<1x4x8xi32>}> : () -> tensor<1x4x8xi32>',
            _mm("%0", "%a", "%b"),
            "    %s = tosa.add %0, %bias : (tensor<1x4x8xi32>, tensor<1x4x8xi32>) -> tensor<1x4x8xi32>"]
    with pytest.raises(NoMatchError, match="bias"):
        tosa.workload_from_tosa(_func(f"{A}, {B}", body, "%s"))


def test_reshape_mixing_rows_and_columns_around_a_transpose_is_a_layout_error():
    text = '''func.func @main(%a: tensor<1x4x8xf32>, %w: tensor<128xf32>) -> tensor<1x4x16xf32> {
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %s1 = tosa.const_shape {values = dense<[16, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %s2 = tosa.const_shape {values = dense<[1, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %r = tosa.reshape %w, %s1 : (tensor<128xf32>, !tosa.shape<2>) -> tensor<16x8xf32>
    %t = tosa.transpose %r {perms = array<i32: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %b = tosa.reshape %t, %s2 : (tensor<8x16xf32>, !tosa.shape<3>) -> tensor<1x8x16xf32>
    %m = tosa.matmul %a, %b, %z, %z : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
    return %m : tensor<1x4x16xf32>
}'''
    with pytest.raises(LayoutError, match="mixes matrix rows and columns"):
        tosa.workload_from_tosa(text)


def test_garbage_is_a_parse_error():
    with pytest.raises(MlirParseError, match="not valid MLIR"):
        tosa.workload_from_tosa("this is not mlir {")


def test_relu_fuses_only_into_its_sole_consumer():
    text = f'''func.func @main({A}, {B}) -> (tensor<1x4x8xi32>, tensor<1x4x8xi32>) {{{ZP}
{_mm("%0", "%a", "%b")}
{_relu("%r", "%0")}
    return %r, %0 : tensor<1x4x8xi32>, tensor<1x4x8xi32>
}}'''
    gemm, relu = tosa.from_module(text).layers
    assert gemm.recognized.workload == registry.get("gemm")  # %0 has two consumers
    assert relu.ops == ("tosa.clamp",) and not relu.mapped
    with pytest.raises(NoMatchError, match="returns 2 values"):
        tosa.workload_from_tosa(text)


# --- issue 14: a file without functions is one line naming it ------------------------------


@pytest.mark.parametrize("text", ["", "// only a comment\n", "module {\n}\n"])
def test_no_function_names_the_file(tmp_path, text):
    import subprocess
    import sys

    with pytest.raises(MlirParseError, match=r"^no func\.func in the module"):
        function(parse(text))
    f = tmp_path / "empty.mlir"
    f.write_text(text)
    out = subprocess.run([sys.executable, "-m", "polyjoule", "map", "--tosa", str(f)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert lines == [f"polyjoule: error: {f}: no func.func in the module (nothing to map)"]
