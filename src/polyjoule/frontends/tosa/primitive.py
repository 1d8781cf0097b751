"""The closed TOSA vocabulary, as data: categories, one row per prim, bespoke and layout ops.

Recognition (``recognize.py``) reads this table and nothing else, so adding a prim is
adding a row. The table is plain data and needs no MLIR; ``op_class`` resolves a row to
its class in ``torch_mlir.dialects.tosa`` (a test checks every row has one).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Category:
    """How a family of prims is called: data operands first, then quantisation operands."""

    name: str
    convention: str
    data: int
    quant: tuple[str, ...] = ()
    attrs: tuple[str, ...] = ()


class _Named:
    """``tosa.<tag>`` and the MLIR Python class name (CamelCase(tag) + "Op" unless overridden)."""

    tag: str
    class_name: str | None

    @property
    def op_name(self) -> str:
        return f"tosa.{self.tag}"

    @property
    def cls(self) -> str:
        return self.class_name or "".join(p.capitalize() for p in self.tag.split("_")) + "Op"


@dataclass(frozen=True)
class Prim(_Named):
    """One row: TOSA tag (op name ``tosa.<tag>``), category, commutativity, class override."""

    tag: str
    category: str
    commutative: bool = False
    class_name: str | None = None


CATEGORIES: dict[str, Category] = {c.name: c for c in (
    Category("binary", "(out, a, b)", 2),
    Category("binary_shift", "(out, a, b, shift)", 2, quant=("shift",)),
    Category("unary", "(out, x)", 1),
    Category("unary_zp", "(out, x, zp, zp)", 1, quant=("input1_zp", "output_zp")),
    Category("compare", "bool result", 2),
    Category("select", "(out, cond, a, b)", 3),
    Category("reduce", "(in, axis)", 1, attrs=("axis",)),
    Category("cast", "(out, x)", 1),
)}

#: 29 prims in 8 categories; ``*`` in the spec = ``commutative=True``.
PRIMS: tuple[Prim, ...] = (
    Prim("add", "binary", commutative=True),
    Prim("sub", "binary"),
    Prim("maximum", "binary", commutative=True),
    Prim("minimum", "binary", commutative=True),
    Prim("pow", "binary"),
    Prim("intdiv", "binary", class_name="IntDivOp"),
    Prim("mul", "binary_shift", commutative=True),
    Prim("abs", "unary"),
    Prim("exp", "unary"),
    Prim("log", "unary"),
    Prim("rsqrt", "unary"),
    Prim("reciprocal", "unary"),
    Prim("floor", "unary"),
    Prim("ceil", "unary"),
    Prim("sin", "unary"),
    Prim("cos", "unary"),
    Prim("tanh", "unary"),
    Prim("sigmoid", "unary"),
    Prim("erf", "unary"),
    Prim("negate", "unary_zp"),
    Prim("equal", "compare", commutative=True),
    Prim("greater", "compare"),
    Prim("greater_equal", "compare"),
    Prim("select", "select"),
    Prim("reduce_sum", "reduce"),
    Prim("reduce_max", "reduce"),
    Prim("reduce_min", "reduce"),
    Prim("reduce_product", "reduce"),
    Prim("cast", "cast"),
)

#: attributes a prim may carry beyond its category's (NaN propagation only changes NaNs).
EXTRA_ATTRS: dict[str, tuple[str, ...]] = {
    "maximum": ("nan_mode",), "minimum": ("nan_mode",),
    "reduce_max": ("nan_mode",), "reduce_min": ("nan_mode",),
}


@dataclass(frozen=True)
class Bespoke(_Named):
    """An op with its own recognition rule (not a table prim): data operands, quantisation."""

    tag: str
    data: int
    quant: tuple[str, ...] = ()
    attrs: tuple[str, ...] = ()
    class_name: str | None = None


BESPOKE: dict[str, Bespoke] = {b.op_name: b for b in (
    Bespoke("matmul", 2, quant=("a_zp", "b_zp"), class_name="MatMulOp"),
    Bespoke("transpose", 1, attrs=("perms",)),
    Bespoke("reverse", 1, attrs=("axis",)),
    Bespoke("conv2d", 3, quant=("input_zp", "weight_zp"),
            attrs=("pad", "stride", "dilation", "acc_type", "local_bound"), class_name="Conv2DOp"),
    Bespoke("depthwise_conv2d", 3, quant=("input_zp", "weight_zp"),
            attrs=("pad", "stride", "dilation", "acc_type", "local_bound"),
            class_name="DepthwiseConv2DOp"),
    Bespoke("max_pool2d", 1, attrs=("kernel", "stride", "pad", "nan_mode")),
    Bespoke("avg_pool2d", 1, quant=("input_zp", "output_zp"),
            attrs=("kernel", "stride", "pad", "acc_type")),
    # relu is recognised from a clamp whose bounds say so (recognize.clamp_is_relu)
    Bespoke("clamp", 1, attrs=("min_val", "max_val", "nan_mode")),
)}

#: layout and constant ops: no compute; reshape is peeled, constants are read.
TRANSPARENT: frozenset[str] = frozenset({"tosa.reshape", "tosa.const", "tosa.const_shape"})

#: ops refused by name, with the reason (never approximated).
REFUSED: dict[str, str] = {
    "tosa.rescale": "requantisation (scale, shift, zero-points) has no TinyTPU opcode; "
                    "a future mvout mode of dma_st is approved but not built",
}

PRIM_BY_OP: dict[str, Prim] = {p.op_name: p for p in PRIMS}


def op_class(op_name: str) -> type:
    """The ``torch_mlir.dialects.tosa`` class of a prim or bespoke op (needs the extra)."""
    from polyjoule.frontends.tosa.bindings import tosa_dialect

    row = PRIM_BY_OP.get(op_name) or BESPOKE.get(op_name)
    if row is None:
        raise KeyError(op_name)
    return getattr(tosa_dialect(), row.cls)
