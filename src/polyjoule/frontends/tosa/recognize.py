"""Give one TOSA operation a meaning, or say exactly why not (fail-safe recognition).

An operation earns a tag only when every part of it is accounted for: its name is in
the closed table (``primitive.py``), its operand count matches data + quantisation
operands, it carries no attribute the table does not name, and, for ``tosa.clamp``,
its bounds say relu. Quantisation operands are read only from splat ``tosa.const``;
anything else (block argument, non-splat, ``dense_resource``) is *unknown*, and
unknown is never taken for zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from polyjoule.errors import DTypeError, NoMatchError, TosaFrontendError
from polyjoule.frontends.tosa import primitive as P
from polyjoule.frontends.tosa.bindings import ir

#: largest finite value per float element type (relu needs max >= it)
FLOAT_MAX: dict[str, float] = {
    "f16": 65504.0,
    "bf16": 3.3895313892515355e38,
    "f32": 3.4028234663852886e38,
    "f64": 1.7976931348623157e308,
}
_PROPAGATE = ("#tosa.nan_mode<PROPAGATE>", '"PROPAGATE"')


@dataclass(frozen=True)
class Quant:
    """One quantisation operand: its value if read from a splat constant, else None."""

    name: str
    value: int | float | None
    origin: str

    @property
    def neutral(self) -> bool:
        return self.value is not None and self.value == 0

    def __str__(self) -> str:
        shown = "unknown" if self.value is None else repr(self.value)
        return f"{self.name} = {shown} ({self.origin})"


@dataclass(frozen=True)
class Match:
    """What one op means: tag, data inputs, quantisation; ``error`` when it has no meaning.

    The tag is kept even when quantisation is non-neutral (``source_tag`` drops it then).
    """

    op_name: str
    tag: str | None
    inputs: tuple[Any, ...] = ()
    quantization: tuple[Quant, ...] = ()
    error: TosaFrontendError | None = field(default=None, compare=False)

    @property
    def neutral(self) -> bool:
        return all(q.neutral for q in self.quantization)

    def quant_text(self) -> str:
        return ", ".join(str(q) for q in self.quantization)


def producer(value: Any) -> Any | None:
    """The operation defining ``value``, or None for a block (function) argument."""
    _ir = ir()
    if isinstance(value, _ir.OpResult):
        return value.owner.operation
    return None


def describe(value: Any) -> str:
    """``argument %arg0``, ``tosa.const %3`` ...: how a refusal names a value."""
    op = producer(value)
    if op is None:
        return f"argument {value.get_name()}"
    return f"{op.name} {value.get_name()}"


def read_scalar(value: Any, name: str) -> Quant:
    """Read a quantisation operand; only a splat ``tosa.const`` has a known value."""
    _ir = ir()
    op = producer(value)
    if op is None:
        return Quant(name, None, f"supplied by {describe(value)}")
    if op.name != "tosa.const":
        return Quant(name, None, f"computed by {op.name}")
    attr = op.attributes["values"]
    # dense_resource (and any other non-dense form) is opaque: never iterate it
    if not isinstance(attr, _ir.DenseElementsAttr):
        return Quant(name, None, "dense_resource or opaque constant")
    if not attr.is_splat:
        return Quant(name, None, "non-splat constant")
    v = attr.get_splat_value()
    if isinstance(v, _ir.IntegerAttr):
        return Quant(name, int(v.value), "splat constant")
    if isinstance(v, _ir.FloatAttr):
        return Quant(name, float(v.value), "splat constant")
    return Quant(name, None, "constant of unreadable element type")


def element_type(value: Any) -> Any:
    return ir().ShapedType(value.type).element_type


def clamp_is_relu(op: Any) -> tuple[bool, TosaFrontendError | None]:
    """Is this ``tosa.clamp`` exactly relu? (False, why) otherwise; never approximated.

    Float: min = 0 and max >= the type's largest finite value. Integer (signless, read as
    signed, width >= 2): min = 0 and max >= 2^(w-1)-1. NaN mode must be PROPAGATE.
    """
    _ir = ir()
    attrs = op.attributes
    if "nan_mode" in attrs and str(attrs["nan_mode"]) not in _PROPAGATE:
        return False, NoMatchError(
            f"tosa.clamp: nan_mode {attrs['nan_mode']} is not PROPAGATE, so it is not relu")
    et = element_type(op.results[0])
    ts = str(et)
    if isinstance(et, _ir.IntegerType):
        it = _ir.IntegerType(et)
        if not it.is_signless:
            return False, DTypeError(f"tosa.clamp on {ts}: only signless integers are read")
        if it.width < 2:
            return False, DTypeError(f"tosa.clamp on {ts}: width < 2 has no relu")
        lo = _ir.IntegerAttr(attrs["min_val"]).value
        hi = _ir.IntegerAttr(attrs["max_val"]).value
        top = 2 ** (it.width - 1) - 1
        if lo == 0 and hi >= top:
            return True, None
        why = f"max {hi} < {top}, a saturating narrow" if lo == 0 else f"min {lo} != 0"
        return False, NoMatchError(f"tosa.clamp [{lo}, {hi}] on {ts} is not relu: {why}")
    if ts in FLOAT_MAX:
        lo = _ir.FloatAttr(attrs["min_val"]).value
        hi = _ir.FloatAttr(attrs["max_val"]).value
        if lo == 0.0 and hi >= FLOAT_MAX[ts]:
            return True, None
        why = (f"max {hi:g} < {FLOAT_MAX[ts]:g} ({ts} largest finite)" if lo == 0.0
               else f"min {lo:g} != 0")
        return False, NoMatchError(f"tosa.clamp [{lo:g}, {hi:g}] on {ts} is not relu: {why}")
    return False, DTypeError(f"tosa.clamp on element type {ts}: bounds not readable")


def _account(op: Any, data: int, quant: tuple[str, ...], attrs: tuple[str, ...]
             ) -> tuple[tuple[Any, ...], tuple[Quant, ...], TosaFrontendError | None]:
    """Split operands into data and quantisation; refuse anything unaccounted for."""
    ops = list(op.operands)
    if len(ops) != data + len(quant):
        return (), (), NoMatchError(
            f"{op.name}: {len(ops)} operands, expected {data} data + {len(quant)} "
            "quantisation; not accounted for")
    extra = sorted(str(a) for a in op.attributes if str(a) not in attrs)
    if extra:
        return (), (), NoMatchError(f"{op.name}: unaccounted attribute {extra[0]!r}")
    qs = tuple(read_scalar(v, n) for v, n in zip(ops[data:], quant, strict=True))
    return tuple(ops[:data]), qs, None


def recognize(op: Any) -> Match:
    """The meaning of one op (prim, bespoke, relu, transparent), or a Match with ``error``."""
    name = op.name
    if name in P.REFUSED:
        return Match(name, None, error=NoMatchError(f"{name} is refused by name: {P.REFUSED[name]}"))
    if name in P.TRANSPARENT:
        return Match(name, name.removeprefix("tosa."))
    if name in P.PRIM_BY_OP:
        prim = P.PRIM_BY_OP[name]
        cat = P.CATEGORIES[prim.category]
        attrs = cat.attrs + P.EXTRA_ATTRS.get(prim.tag, ())
        data, qs, err = _account(op, cat.data, cat.quant, attrs)
        return Match(name, prim.tag if err is None else None, data, qs, err)
    if name in P.BESPOKE:
        b = P.BESPOKE[name]
        data, qs, err = _account(op, b.data, b.quant, b.attrs)
        if err is not None:
            return Match(name, None, error=err)
        if name == "tosa.clamp":
            ok, why = clamp_is_relu(op)
            return Match(name, "relu" if ok else None, data, qs, why)
        return Match(name, b.tag, data, qs)
    return Match(name, None, error=NoMatchError(f"{name} is not in the compute vocabulary"))


def source_tag(op: Any) -> str | None:
    """The tag only when quantisation is neutral (all zero, none unknown)."""
    m = recognize(op)
    return m.tag if m.error is None and m.neutral else None

