"""TOSA function -> mapper ``Workload``: the grammar, and a model as its list of layers.

Grammar (ACT ``workload_from_tosa``)::

    result := pointwise-epilogue* ( matmul ( + matmul )* ( + bias )? )

matmul is a unit-batch ``tosa.matmul``; operands trace to their sources through the
layout ops (``layout.trace``); reshapes on the result path are views and are peeled.
Operands are named A, A2, ... (activations) and B, B2, ... (weights); result C; ranks
(M, K, N), reduce (K,). A transposed source flips that operand's ranks.

Weights: torch-mlir freezes ``nn.Linear`` weights into ``tosa.const`` (inline ``dense``
or ``dense_resource``), already transposed to (K, N). A layer's weight operand is an
*input* of the layer whatever its values: the workload is independent of them, so a
constant source is accepted (recorded as such in ``sources``) and its values are never
read. Only quantisation operands are read, and only from splat constants.

Bias: a ``tosa.const`` of shape (N), (1, N) or (1, 1, N) added to the sum (``nn.Linear``'s
default bias) is one more contraction, ``ONES (M, K) . BIAS (K, N)``: the host places a
ones column in ONES and the bias in row 0 of BIAS, and the output's ``vadd`` sums it in
(workload ``gemm.bias``). Two biases on one sum are refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from polyjoule.errors import (
    MlirParseError,
    NoMatchError,
    QuantizationError,
    ShapeError,
    TosaFrontendError,
)
from polyjoule.frontends.tosa.bindings import ir
from polyjoule.frontends.tosa.layout import Source, shape, trace
from polyjoule.frontends.tosa.recognize import (
    Quant,
    describe,
    element_type,
    producer,
    recognize,
)
from polyjoule.model.workload import POINTWISE, Tensor, Workload

RANKS = ("M", "K", "N")
_IGNORED = frozenset({"tosa.const", "tosa.const_shape", "tosa.reshape", "func.return"})


@dataclass(frozen=True)
class Recognized:
    """A recognised workload with its extents and where each operand comes from."""

    workload: Workload
    extents: dict[str, int]
    dtypes: dict[str, str]
    sources: dict[str, str]
    quantization: tuple[Quant, ...] = ()
    #: the operations the grammar walked (only while the module is alive; () once returned)
    ops: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    @property
    def shape_text(self) -> str:
        return "x".join(str(self.extents[r]) for r in RANKS)


def function(module: Any, name: str | None = None) -> Any:
    """The function to read: ``name``, else ``main``, else the only one."""
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    names = [ir().StringAttr(f.attributes["sym_name"]).value for f in funcs]
    if not funcs:  # an empty file, or a module without functions: nothing to name
        raise MlirParseError("no func.func in the module (nothing to map)")
    if name is None and "main" in names:
        name = "main"
    if name is not None:
        if name not in names:
            raise MlirParseError(f"no function @{name}; functions: {', '.join(names) or 'none'}")
        return funcs[names.index(name)]
    if len(funcs) != 1:
        raise MlirParseError(f"{len(funcs)} functions ({', '.join(names) or 'none'}); name one")
    return funcs[0]


def _body(func: Any) -> tuple[list[Any], Any]:
    ops = [op.operation for op in func.regions[0].blocks[0].operations]
    return ops[:-1], ops[-1]


#: the sum's bias term (a broadcast constant), in the list of terms ``_terms`` returns
BIAS = "BIAS"


def _name(n_terms: int, epilogue: list[str], bias: bool = False) -> str:
    base = "gemm" if n_terms == 1 else "gemm.sum" if n_terms == 2 else f"gemm.sum{n_terms}"
    return base + (".bias" if bias else "") + "".join("." + e for e in epilogue)


def _is_bias(v: Any, out: tuple[int, ...]) -> bool:
    """A constant broadcast along every dimension but the last of the sum ``out``."""
    op = producer(v)
    if op is None or op.name != "tosa.const":
        return False
    s = shape(v)
    return bool(s) and s[-1] == out[-1] and all(d == 1 for d in s[:-1])


def _dims(value: Any, what: str) -> tuple[int, ...]:
    s = shape(value)
    if any(d < 0 for d in s):
        raise ShapeError(f"{what}: dynamic shape {describe(value)}; static shapes only")
    return s


def _epilogue(root: Any, foreign: Callable[[Any], bool],
              visited: list[Any]) -> tuple[Any, list[str]]:
    """Walk up from ``root`` through reshapes and neutral pointwise ops (the epilogue) to
    the value the sum of matmuls produces."""
    epilogue: list[str] = []
    v = root
    while (op := producer(v)) is not None and not foreign(op):
        if op.name == "tosa.reshape":
            visited.append(op)
            v = op.operands[0]
            continue
        if op.name in ("tosa.add", "tosa.matmul"):
            break
        m = recognize(op)
        if m.error is not None:
            raise m.error
        if not (m.tag in POINTWISE and m.neutral):
            break
        epilogue.insert(0, m.tag)
        visited.append(op)
        v = m.inputs[0]
    return v, epilogue


def _check_add(op: Any) -> None:
    out = shape(op.results[0])
    for x in op.operands:
        if shape(x) != out and not _is_bias(x, out):
            raise ShapeError(f"tosa.add broadcasts {list(shape(x))} to {list(out)}; "
                             "only a sum of equal-shape matmuls is mapped")


def _terms(v: Any, foreign: Callable[[Any], bool], visited: list[Any]) -> list[Any]:
    """The matmuls a tree of ``tosa.add`` sums (through reshapes), left to right."""
    op = producer(v)
    while op is not None and op.name == "tosa.reshape" and not foreign(op):
        visited.append(op)
        v = op.operands[0]
        op = producer(v)
    if op is None:
        raise NoMatchError(f"a term of the sum is {describe(v)}, not a matmul")
    if foreign(op):
        raise NoMatchError(f"a term of the sum, {describe(v)}, is another layer's output, "
                           "not a matmul of this layer")
    if op.name == "tosa.matmul":
        visited.append(op)
        return [op]
    m = recognize(op)
    if m.error is not None:
        raise m.error
    if op.name != "tosa.add":
        what = "a constant (not a bias broadcast along the rows)" if op.name == "tosa.const" else \
            f"{op.name} ({m.tag})"
        raise NoMatchError(f"a term of the sum, {v.get_name()}, is {what}, not a matmul")
    visited.append(op)
    terms: list[Any] = []
    for x in op.operands:
        if _is_bias(x, shape(op.results[0])):
            visited.append(producer(x))
            terms.append((BIAS, x))
        else:
            terms += _terms(x, foreign, visited)
    _check_add(op)
    return terms


def _matmul(mm: Any) -> tuple[Any, tuple[int, int, int]]:
    """A matmul's recognition and its (M, K, N), refusing quantisation and batches."""
    m = recognize(mm)
    if m.error is not None:
        raise m.error
    if not m.neutral:
        raise QuantizationError(
            f"tosa.matmul {mm.results[0].get_name()}: {m.quant_text()}; only symmetric, "
            "unshifted quantisation (zero-points 0) is mapped: (A-za)(B-zb) needs row and "
            "column sums the array cannot produce")
    a, b = m.inputs
    sa, sb = _dims(a, "tosa.matmul A"), _dims(b, "tosa.matmul B")
    if sa[0] != 1 or sb[0] != 1:
        raise ShapeError(f"tosa.matmul {mm.results[0].get_name()} has batch {sa[0]}; "
                         "only unit-batch matmuls are mapped")
    return m, (sa[1], sa[2], sb[2])


@dataclass
class _Terms:
    """The contractions of a sum of matmuls: operand names by source, their extents."""

    extents: tuple[int, int, int] | None = None
    tables: dict[str, dict[tuple[Any, bool], str]] = field(
        default_factory=lambda: {"A": {}, "B": {}})
    sources: dict[str, Source] = field(default_factory=dict)
    contractions: list[tuple[str, str]] = field(default_factory=list)
    quant: list[Quant] = field(default_factory=list)

    def name(self, operand: Any, prefix: str, visited: list[Any]) -> str:
        """The operand's name: one per distinct source (``A``, ``A2``, ...)."""
        src = trace(operand)
        visited.extend(src.path)
        table, key = self.tables[prefix], (src.value, src.flipped)
        if key not in table:
            n = len(table) + 1
            table[key] = prefix if n == 1 else f"{prefix}{n}"
            self.sources[table[key]] = src
        return table[key]

    def add(self, mm: Any, visited: list[Any]) -> None:
        """One more matmul of the sum: the same (M, K, N) as the others."""
        m, ext = _matmul(mm)
        if self.extents is not None and ext != self.extents:
            raise ShapeError(f"terms of the sum disagree on (M, K, N): {self.extents} vs {ext}")
        self.extents = ext
        self.quant.extend(m.quantization)
        a, b = m.inputs
        self.contractions.append((self.name(a, "A", visited), self.name(b, "B", visited)))


def build(root: Any, foreign: Callable[[Any], bool] = lambda op: False,
          boundary: Callable[[Any], str | None] = lambda v: None) -> Recognized:
    """Apply the grammar from the value ``root``; raise a CompileError naming the cause.

    ``foreign(op)`` marks ops owned by another layer (not walked into); ``boundary(v)``
    names a non-argument, non-constant source that is nevertheless a legal input
    (another layer's output), or returns None to refuse it.
    """
    visited: list[Any] = []
    v, epilogue = _epilogue(root, foreign, visited)
    terms = _terms(v, foreign, visited)
    biases = [t[1] for t in terms if isinstance(t, tuple)]
    if len(biases) > 1:
        raise NoMatchError(f"{len(biases)} bias constants on one sum; one bias is mapped")
    acc = _Terms()
    for mm in terms:
        if not isinstance(mm, tuple):
            acc.add(mm, visited)
    if acc.extents is None:
        raise NoMatchError("a sum of constants, no matmul")
    operands: list[Tensor] = []
    sources: dict[str, str] = {}
    dtypes: dict[str, str] = {}
    for name, src in acc.sources.items():
        plain = ("M", "K") if name.startswith("A") else ("K", "N")
        operands.append(Tensor(name, plain[::-1] if src.flipped else plain))
        sources[name] = _provenance(src, boundary) + (" (transposed)" if src.flipped else "")
        dtypes[name] = str(element_type(src.value))
    if biases:
        operands += [Tensor("ONES", ("M", "K")), Tensor(BIAS, ("K", "N"))]
        acc.contractions.append(("ONES", BIAS))
        sources["ONES"] = "host constant: a ones column (column 0), zeros elsewhere"
        sources[BIAS] = (f"{describe(biases[0])} in row 0, zeros elsewhere (a bias, "
                         "summed by vadd)")
        dtypes["ONES"] = dtypes[BIAS] = str(element_type(biases[0]))
    dtypes["C"] = str(element_type(root))
    wl = Workload(_name(len(acc.contractions) - len(biases), epilogue, bool(biases)), RANKS,
                  ("K",), tuple(operands), Tensor("C", ("M", "N")), tuple(acc.contractions),
                  tuple(epilogue))
    return Recognized(wl, dict(zip(RANKS, acc.extents, strict=True)), dtypes, sources,
                      tuple(acc.quant), tuple(visited))


def _provenance(src: Source, boundary: Callable[[Any], str | None]) -> str:
    op = producer(src.value)
    if op is None:
        return describe(src.value)
    if op.name == "tosa.const":
        dense = isinstance(op.attributes["values"], ir().DenseElementsAttr)
        return f"constant {src.value.get_name()} ({'dense' if dense else 'dense_resource'}; " \
            "values not read)"
    named = boundary(src.value)
    if named is None:
        raise NoMatchError(f"an operand comes from {describe(src.value)}, "
                           "not a function argument or constant")
    return named


def workload_from_function(func: Any) -> Recognized:
    """The whole function as exactly one workload (strict: every op accounted for)."""
    ops, ret = _body(func)
    if len(ret.operands) != 1:
        raise NoMatchError(f"the function returns {len(ret.operands)} values; a workload has one")
    rec = build(ret.operands[0])
    seen = set(rec.ops)
    for op in ops:
        if op in seen or op.name in _IGNORED:
            continue
        m = recognize(op)
        raise m.error or NoMatchError(f"{op.name} ({m.tag}) is outside the workload grammar")
    return rec


@dataclass(frozen=True)
class Layer:
    """One unit of a model: a recognised workload, or a refusal with its cause."""

    index: int
    anchor: str
    ops: tuple[str, ...]
    recognized: Recognized | None = None
    error: TosaFrontendError | None = field(default=None, compare=False)

    @property
    def mapped(self) -> bool:
        return self.recognized is not None

    @property
    def cause(self) -> str:
        return "" if self.error is None else f"{type(self.error).__name__}: {self.error}"


@dataclass(frozen=True)
class Model:
    """A function read as its layers, in program order."""

    function: str
    layers: tuple[Layer, ...]


def _users(ops: list[Any], ret: Any) -> dict[Any, list[Any]]:
    users: dict[Any, list[Any]] = {}
    for op in [*ops, ret]:
        for v in op.operands:
            users.setdefault(v, []).append(op)
    return users


def _chains(ops: list[Any], users: dict[Any, list[Any]]) -> dict[Any, list[Any]]:
    """Per layer root value, the ops its matmuls claim down their sole-consumer chains."""
    chains: dict[Any, list[Any]] = {}
    for mm in ops:
        if mm.name != "tosa.matmul":
            continue
        claim, v, summing = [mm], mm.results[0], True
        while len(us := users.get(v, [])) == 1:
            u = us[0]
            if u.name == "tosa.reshape" or (summing and u.name == "tosa.add"):
                pass
            elif u.name == "tosa.clamp" and recognize(u).tag == "relu":
                summing = False
            else:
                break
            claim.append(u)
            v = u.results[0]
        chains.setdefault(v, []).extend(claim)
    return chains


def _refusal(op: Any) -> TosaFrontendError:
    """Why an op outside every matmul layer is its own refused unit."""
    m = recognize(op)
    if m.error is not None:
        return m.error
    if not m.neutral:
        return QuantizationError(f"{op.name}: {m.quant_text()}; only neutral quantisation")
    return NoMatchError(f"{op.name} (recognised as {m.tag}) is not part of a matmul "
                        "layer and has no mapping on its own")


def _layer_units(ops: list[Any], chains: dict[Any, list[Any]],
                 covered: set[Any]) -> list[tuple[int, Layer]]:
    """(position, layer) of every matmul layer, recognised or refused."""
    pos = {op: i for i, op in enumerate(ops)}

    def root_pos(v: Any) -> int:
        return pos[producer(v)]

    roots = sorted(chains, key=root_pos)
    owner = {op: k for k, r in enumerate(roots) for op in chains[r]}
    covered.update(owner)
    units: list[tuple[int, Layer]] = []
    for k, root in enumerate(roots):
        def foreign(op: Any, k: int = k) -> bool:
            return owner.get(op, k) != k

        def boundary(v: Any) -> str:
            op = producer(v)
            return f"output of unit@{root_pos(roots[owner[op]]) if op in owner else pos[op]}"

        names = tuple(op.name for op in sorted(set(chains[root]), key=pos.__getitem__))
        try:
            rec = build(root, foreign, boundary)
            covered.update(rec.ops)
            layer = Layer(0, root.get_name(), names, recognized=rec)
        except TosaFrontendError as e:
            layer = Layer(0, root.get_name(), names, error=e)
        units.append((root_pos(root), layer))
    return units


def _numbered(units: list[tuple[int, Layer]]) -> tuple[Layer, ...]:
    """Layers numbered in program order; ``unit@POS`` sources become ``layer N``."""
    units = sorted(units, key=lambda u: u[0])
    number = {p: i + 1 for i, (p, _) in enumerate(units)}

    def renumber(text: str) -> str:
        return re.sub(r"unit@(\d+)", lambda m: f"layer {number.get(int(m.group(1)), '?')}", text)

    layers = []
    for i, (_, layer) in enumerate(units):
        rec = layer.recognized
        if rec is not None:
            rec = replace(rec, sources={k: renumber(t) for k, t in rec.sources.items()}, ops=())
        layers.append(replace(layer, index=i + 1, recognized=rec))
    return tuple(layers)


def model_from_function(func: Any) -> Model:
    """Partition a function into layers (matmul sums with a fused relu) and refused ops.

    A layer grows from each matmul down its sole-consumer chain: reshapes, adds (the
    sum), then relu clamps (only if each is its input's sole consumer). Every other
    compute op is its own refused unit; reshapes and constants are no units.
    """
    ops, ret = _body(func)
    covered: set[Any] = set()
    units = _layer_units(ops, _chains(ops, _users(ops, ret)), covered)
    for i, op in enumerate(ops):
        if op in covered or op.name in _IGNORED:
            continue
        anchor = op.results[0].get_name() if op.results else op.name
        units.append((i, Layer(0, anchor, (op.name,), error=_refusal(op))))
    name = ir().StringAttr(func.attributes["sym_name"]).value
    return Model(name, _numbered(units))
