"""The meaning of a C kernel: its scop executed as written, element by element, in C order.

This is the independent witness of the C front end. :mod:`.cnest` and :mod:`.localize`
reorder, distribute, fuse, expand and localise the loops into a PRA; this module shares no
code with them. It reads the same preprocessed text (:mod:`.cpre`'s passes: macros,
includes and the scop region only), parses it with pycparser itself and translates the
function body statement by statement into Python source run over numpy arrays, once per
kernel:

* ``for``/``while``/``do`` loops with their C condition and step, ``if``/``else``, ``break``;
* ``= += -= *= /= %=`` (and ``s = t = e``), ``++``/``--``, ternaries, ``&& || !``,
  comparisons, casts;
* integer ``/`` and ``%`` truncate toward zero as in C; ``sqrt fabs fmax fmin exp pow``
  (and ``f``/``l`` variants), ``abs max min``;
* scalars with their declared values, local arrays as temporaries (NaN until written, so a
  read of an unwritten element shows in the result).

Types follow C: a ``double`` constant or variable is a float64, a ``float`` one (``1.5f``)
a float32, integers Python ints (NumPy 2's promotion then gives C's usual conversions);
assigning converts to the target's type. ``widen=True`` runs ``float`` as ``double`` and
holds every array in float64 (``int`` arrays too): the cycle-level simulator carries every
value in float64, so the reference it is compared with must do the same arithmetic, not
float32 rounding or integer truncation (:class:`CReference`).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from pycparser import c_ast, c_generator, c_parser

from polyjoule.errors import CRunError
from polyjoule.frontends.cpre import scop_text, size_scalars, strip_directives
from polyjoule.model.affine import Affine
from polyjoule.model.pra import Kernel

_GEN = c_generator.CGenerator()
_INTS = ("int", "long", "short", "char", "unsigned", "signed", "size_t")
#: C math function -> (helper, argument type: "d" double, "f" float, "" as given).
_MATH = {"sqrt": ("np.sqrt", "d"), "exp": ("np.exp", "d"), "pow": ("np.power", "d"),
         "fabs": ("abs", "d"), "fmax": ("np.fmax", "d"), "fmin": ("np.fmin", "d")}
_MATH |= {f"{k}f": (v, "f") for k, (v, _) in _MATH.items()}
_MATH |= {f"{k}l": (v, "d") for k, (v, _) in list(_MATH.items()) if not k.endswith("f")}
_MATH |= {"abs": ("abs", ""), "max": ("_max", ""), "min": ("_min", ""),
          "relu": ("_relu", "")}  # relu: as the front end reads it, max(x, 0)
#: What PolyBench's ``init_array`` gives a scalar argument the kernel does not carry (the
#: kernel folded it into constants: ``deriche``'s ``alpha``); any other 1.0.
CALLER_SCALARS = {"alpha": 1.5, "beta": 1.2}
_BINOPS = {"+": "+", "-": "-", "*": "*", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
           "==": "==", "!=": "!="}


def _cdiv(a: Any, b: Any) -> Any:
    """C's ``/``: integers truncate toward zero."""
    if isinstance(a, int | np.integer) and isinstance(b, int | np.integer):
        q = abs(int(a)) // abs(int(b))
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def _cmod(a: Any, b: Any) -> Any:
    """C's ``%``: the sign of the dividend."""
    return int(math.fmod(int(a), int(b)))


def _max(a: Any, b: Any) -> Any:
    """PolyBench's ``max`` macro, ``a > b ? a : b`` (``fmax`` is numpy's: NaN as in C)."""
    return a if a > b else b


def _min(a: Any, b: Any) -> Any:
    return a if a < b else b


def _relu(a: Any) -> Any:
    return a if a > 0 else a * 0


def _function(text: str, filename: str) -> c_ast.FuncDef:
    """The first function of the text, or bare statements wrapped in one."""
    parser = c_parser.CParser()
    try:
        tree = parser.parse(text, filename=filename)
        fn = next((x for x in tree.ext if isinstance(x, c_ast.FuncDef)), None)
        if fn is not None:
            return fn
    except c_parser.ParseError:
        pass
    try:
        tree = parser.parse("void __kernel(void) {" + text + "\n}", filename=filename)
    except c_parser.ParseError as e:
        raise CRunError(f"{filename}: C does not parse: {e}") from None
    return tree.ext[-1]


def _type_words(t: Any) -> tuple[str, list[Any]]:
    """(element type, dimensions) of a declaration's type."""
    dims: list[Any] = []
    while isinstance(t, c_ast.ArrayDecl | c_ast.PtrDecl):
        dims.append(getattr(t, "dim", None))
        t = t.type
    names = getattr(getattr(t, "type", None), "names", [])
    return " ".join(names), dims


@dataclass(frozen=True)
class CArray:
    """An array of the C function: a parameter (``local=False``) or a local temporary."""

    name: str
    ctype: str
    dims: tuple[str | None, ...]  # Python expressions of the sizes (None: as given)
    local: bool


def _where(node: Any, filename: str) -> str:
    c = getattr(node, "coord", None)
    return f"{filename}:{c.line}" if c is not None and getattr(c, "line", None) else filename


def _number(node: c_ast.Constant, widen: bool) -> tuple[str, Any]:
    """A C constant: ('int', value) or (numpy type name, value)."""
    v = node.value
    if node.type == "int":
        digits = v.rstrip("uUlL")
        base = 16 if digits.lower().startswith("0x") else 8 if len(digits) > 1 and \
            digits.startswith("0") else 10
        return "int", int(digits, base)
    if node.type in ("float", "double"):
        single = v[-1] in "fF" and not widen
        return ("float32" if single else "float64"), float(v.rstrip("fFlL"))
    raise CRunError(f"constant {v!r} is not a number")


class _Translator:
    """C statements -> Python source lines over numpy arrays (``v_`` + the C name)."""

    def __init__(self, filename: str, widen: bool):
        self.filename, self.widen = filename, widen
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self.scalar_types: dict[str, str] = {}
        self.arrays: dict[str, CArray] = {}
        self.used: set[str] = set()
        self.subscripted: dict[str, int] = {}  # array name -> subscripts

    def fail(self, node: Any, what: str) -> CRunError:
        return CRunError(f"{_where(node, self.filename)}: the C reference does not run {what}"
                         f" ({_GEN.visit(node)!r})")

    def numpy_type(self, ctype: str) -> str:
        words = ctype.split()
        if "float" in words and not self.widen:
            return "float32"
        if "double" in words or "float" in words:
            return "float64"
        if any(w in _INTS for w in words):
            return "int"
        return ""

    def convert(self, text: str, ctype: str) -> str:
        t = self.numpy_type(ctype)
        return f"np.{t}({text})" if t.startswith("float") else f"int({text})" if t else text

    def const(self, kind: str, value: Any) -> str:
        if kind == "int":
            return repr(value)
        name = f"_k{len(self.consts)}"
        self.consts[name] = getattr(np, kind)(value)
        return name

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    # ----------------------------------------------------------------- expressions

    def expr(self, node: Any) -> str:
        if isinstance(node, c_ast.ArrayRef):
            return self.element(node)
        if isinstance(node, c_ast.ID):
            self.used.add(node.name)
            return f"v_{node.name}"
        if isinstance(node, c_ast.Constant):
            try:
                return self.const(*_number(node, self.widen))
            except CRunError:
                raise self.fail(node, "a constant that is not a number") from None
        if isinstance(node, c_ast.BinaryOp):
            return self.binary(node)
        if isinstance(node, c_ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, c_ast.TernaryOp):
            return (f"({self.expr(node.iftrue)} if {self.expr(node.cond)} "
                    f"else {self.expr(node.iffalse)})")
        if isinstance(node, c_ast.Cast):
            ctype, dims = _type_words(node.to_type.type)
            if dims or not self.numpy_type(ctype):
                raise self.fail(node, "a cast to that type")
            return self.convert(self.expr(node.expr), ctype)
        if isinstance(node, c_ast.FuncCall):
            return self.call(node)
        raise self.fail(node, "this expression")

    def element(self, node: c_ast.ArrayRef) -> str:
        subs: list[str] = []
        while isinstance(node, c_ast.ArrayRef):
            subs.insert(0, self.expr(node.subscript))
            node = node.name
        if not isinstance(node, c_ast.ID):
            raise self.fail(node, "an array expression that is not a name")
        self.used.add(node.name)
        self.subscripted.setdefault(node.name, len(subs))
        return f"v_{node.name}[{', '.join(subs)}]"

    def binary(self, node: c_ast.BinaryOp) -> str:
        a, b = self.expr(node.left), self.expr(node.right)
        if node.op in _BINOPS:
            return f"({a} {_BINOPS[node.op]} {b})"
        if node.op in ("/", "%"):
            return f"{'_cdiv' if node.op == '/' else '_cmod'}({a}, {b})"
        if node.op in ("&&", "||"):
            return f"({a} {'and' if node.op == '&&' else 'or'} {b})"
        raise self.fail(node, f"the operator {node.op!r}")

    def unary(self, node: c_ast.UnaryOp) -> str:
        if node.op in ("-", "+"):
            return f"({node.op}{self.expr(node.expr)})"
        if node.op == "!":
            return f"(not {self.expr(node.expr)})"
        raise self.fail(node, f"the operator {node.op!r} inside an expression")

    def call(self, node: c_ast.FuncCall) -> str:
        name = node.name.name if isinstance(node.name, c_ast.ID) else ""
        if name not in _MATH or node.args is None:
            raise self.fail(node, f"the function {name or '?'!r} (it runs sqrt, fabs, fmax, "
                                  f"fmin, exp, pow and their f/l variants, abs, max, min)")
        fn, arg = _MATH[name]
        args = [self.expr(a) for a in node.args.exprs]
        if arg:
            args = [self.convert(a, "float" if arg == "f" else "double") for a in args]
        return f"{fn}({', '.join(args)})"

    # ----------------------------------------------------------------- statements

    def block(self, node: Any, depth: int) -> None:
        """Emit ``node`` (a statement or compound) at ``depth``; ``pass`` if it emits none."""
        start = len(self.lines)
        items = (node.block_items or []) if isinstance(node, c_ast.Compound) else [node]
        for item in items:
            self.statement(item, depth)
        if len(self.lines) == start:
            self.emit(depth, "pass")

    def statement(self, node: Any, depth: int) -> None:
        if isinstance(node, c_ast.Compound):
            self.block(node, depth)
        elif isinstance(node, c_ast.Assignment | c_ast.UnaryOp):
            self.emit(depth, self.assignment(node))
        elif isinstance(node, c_ast.For):
            self.loop(node, depth)
        elif isinstance(node, c_ast.While | c_ast.DoWhile):
            self.while_loop(node, depth)
        elif isinstance(node, c_ast.If):
            self.emit(depth, f"if {self.expr(node.cond)}:")
            self.block(node.iftrue, depth + 1)
            if node.iffalse is not None:
                self.emit(depth, "else:")
                self.block(node.iffalse, depth + 1)
        elif isinstance(node, c_ast.Decl):
            self.declaration(node, depth)
        elif isinstance(node, c_ast.DeclList | c_ast.ExprList):
            for x in node.decls if isinstance(node, c_ast.DeclList) else node.exprs:
                self.statement(x, depth)
        elif isinstance(node, c_ast.Break):
            self.emit(depth, "break")
        elif isinstance(node, c_ast.Return):
            self.emit(depth, "return")
        elif not isinstance(node, c_ast.Pragma | c_ast.EmptyStatement):
            raise self.fail(node, "this statement")

    def assignment(self, node: c_ast.Assignment | c_ast.UnaryOp) -> str:
        if isinstance(node, c_ast.UnaryOp):
            if node.op not in ("p++", "++", "p--", "--"):
                raise self.fail(node, "an expression as a statement")
            target, op, value = node.expr, node.op[-2] + "=", "1"
        elif isinstance(node.rvalue, c_ast.Assignment):  # s = t = e: t = e; s = t
            inner = self.assignment(node.rvalue)
            outer = c_ast.Assignment(node.op, node.lvalue, node.rvalue.lvalue, node.coord)
            return f"{inner}; {self.assignment(outer)}"
        else:
            target, op, value = node.lvalue, node.op, self.expr(node.rvalue)
        lhs = self.expr(target)
        if op != "=":
            base = op[:-1]
            if base not in ("+", "-", "*", "/", "%"):
                raise self.fail(node, f"the assignment {op!r}")
            value = (f"({lhs} {base} {value})" if base in "+-*"
                     else f"{'_cdiv' if base == '/' else '_cmod'}({lhs}, {value})")
        if isinstance(target, c_ast.ID):  # a scalar keeps its declared type
            value = self.convert(value, self.scalar_types.get(target.name, ""))
        elif not isinstance(target, c_ast.ArrayRef):
            raise self.fail(node, "an assignment to that")
        return f"{lhs} = {value}"

    def loop(self, node: c_ast.For, depth: int) -> None:
        """``for (init; cond; next) body`` as ``init; while cond: body; next``."""
        if any(isinstance(x, c_ast.Continue) for x in _statements(node.stmt)):
            raise self.fail(node, "'continue'")
        if node.init is not None:
            self.statement(node.init, depth)
        self.emit(depth, f"while {self.expr(node.cond) if node.cond is not None else 'True'}:")
        self.block(node.stmt, depth + 1)
        if node.next is not None:
            self.statement(node.next, depth + 1)

    def while_loop(self, node: c_ast.While | c_ast.DoWhile, depth: int) -> None:
        if any(isinstance(x, c_ast.Continue) for x in _statements(node.stmt)):
            raise self.fail(node, "'continue'")
        if isinstance(node, c_ast.While):
            self.emit(depth, f"while {self.expr(node.cond)}:")
            self.block(node.stmt, depth + 1)
            return
        self.emit(depth, "while True:")
        self.block(node.stmt, depth + 1)
        self.emit(depth + 1, f"if not {self.expr(node.cond)}:")
        self.emit(depth + 2, "break")

    def declaration(self, node: c_ast.Decl, depth: int) -> None:
        """A local array is a temporary (allocated before the run); a scalar is set."""
        if isinstance(node.type, c_ast.FuncDecl) or node.name is None:
            return
        ctype, dims = _type_words(node.type)
        if dims:
            if any(d is None for d in dims):
                raise self.fail(node, "a local array without sizes")
            self.arrays[node.name] = CArray(node.name, ctype, tuple(self.expr(d) for d in dims),
                                            True)
            return
        self.scalar_types[node.name] = ctype
        if node.init is not None:
            self.emit(depth, f"v_{node.name} = {self.convert(self.expr(node.init), ctype)}")


def _statements(node: Any) -> list[Any]:
    """Every node under ``node`` that is not inside a nested loop (where ``continue`` is
    that loop's own)."""
    out = [node]
    for _n, child in (node.children() if node is not None else []):
        if not isinstance(child, c_ast.For | c_ast.While | c_ast.DoWhile):
            out.extend(_statements(child))
    return out


@dataclass(frozen=True)
class CProgram:
    """A C kernel ready to run: its arrays, its scalar arguments and the compiled body."""

    name: str
    filename: str
    arrays: dict[str, CArray]
    arguments: dict[str, str]  # scalar parameters (sizes, alpha, ...) -> C type
    source: str  # the Python the body became (for reading, and in errors)
    widen: bool
    code: Any  # the compiled body: keyword arguments v_NAME
    size_scalars: dict[str, str] = field(default_factory=dict)  # float_n -> N (the harness)

    def run(self, arrays: Mapping[str, np.ndarray], env: Mapping[str, float],
            shapes: Mapping[str, tuple[int, ...]] | None = None) -> dict[str, np.ndarray]:
        """Execute on copies of ``arrays`` (missing ones start NaN: C leaves them unset);
        ``env`` gives the sizes and scalar arguments, ``shapes`` those of arrays neither
        given nor declared (bare statements). Returns every array after the run."""
        scope: dict[str, Any] = {}
        for name, ctype in self.arguments.items():
            scope[f"v_{name}"] = self._value(env, name, ctype)
        mem = {a.name: self._array(a, arrays, scope, shapes or {})
               for a in self.arrays.values()}
        scope |= {f"v_{k}": v for k, v in mem.items()}
        try:
            with np.errstate(all="ignore"):  # NaN and inf are the C program's values
                self.code(**scope)
        except (IndexError, TypeError, ZeroDivisionError, ValueError) as e:
            raise CRunError(f"{self.filename}: the C reference failed: {e}") from None
        return mem

    def _array(self, a: CArray, given: Mapping[str, np.ndarray], scope: dict[str, Any],
               shapes: Mapping[str, tuple[int, ...]]) -> np.ndarray:
        """A parameter array from ``given`` (in the C element type), else NaN of its size.
        Widened, every array holds float64 (int ones too): the simulator's values."""
        dt = np.float64 if self.widen else self._dtype(a.ctype)
        if not a.local and a.name in given and np.ndim(given[a.name]) == len(a.dims):
            return np.array(given[a.name], dtype=dt)
        # not given, or given at another rank: the localisation's own array of that name
        # (a scratch array expanded by the loops around it), not the C's
        if any(d is None for d in a.dims):
            if a.name not in shapes:
                raise CRunError(f"{self.filename}: array {a.name} is not given and its size "
                                f"is not declared")
            shape = tuple(shapes[a.name])
        else:
            names = {"_cdiv": _cdiv, "_cmod": _cmod, "np": np}
            shape = tuple(int(eval(d, names, scope)) for d in a.dims)  # noqa: S307 - ours
        return np.full(shape, np.nan if dt != np.int64 else 0, dtype=dt)

    def numeric(self, ctype: str) -> bool:
        """Whether a scalar of this C type is a floating-point value (not a size)."""
        return "double" in ctype.split() or "float" in ctype.split()

    def _dtype(self, ctype: str) -> Any:
        words = ctype.split()
        if "float" in words and not self.widen:
            return np.float32
        return np.float64 if "double" in words or "float" in words or not words else np.int64

    def _value(self, env: Mapping[str, float], name: str, ctype: str) -> Any:
        """A scalar argument from ``env`` in its C type (an undeclared name: as given)."""
        if not ctype:
            return env.get(name)
        if name not in env:
            raise CRunError(f"{self.filename}: the C reference needs a value for {name!r}")
        dt = self._dtype(ctype)
        return int(env[name]) if dt is np.int64 else dt(env[name])


def _parameters(fn: c_ast.FuncDef, tr: _Translator) -> dict[str, str]:
    """The function's array parameters (into ``tr.arrays``) and its scalar ones (returned)."""
    out: dict[str, str] = {}
    args = fn.decl.type.args.params if fn.decl.type.args is not None else []
    for d in args:
        if not isinstance(d, c_ast.Decl) or d.name is None:
            continue
        ctype, dims = _type_words(d.type)
        if dims:
            tr.arrays[d.name] = CArray(d.name, ctype, tuple(
                tr.expr(x) if x is not None else None for x in dims), False)
        else:
            out[d.name] = ctype
            tr.scalar_types[d.name] = ctype
    return out


def c_program(text: str, filename: str = "<c>", include_dirs: Sequence[str | Path] = (),
              defines: Sequence[str] = (), widen: bool = False) -> CProgram:
    """The C kernel of ``text`` (its ``#pragma scop`` region, as the front end reads it) as
    a program to run; see the module docstring. ``widen`` runs ``float`` as ``double``."""
    fn = _function(strip_directives(scop_text(text, filename, include_dirs, defines)), filename)
    tr = _Translator(filename, widen)
    arguments = _parameters(fn, tr)
    tr.block(fn.body, 1)
    arguments = {n: t for n, t in arguments.items() if n in tr.used}  # (int n: unused)
    for name, rank in tr.subscripted.items():  # bare statements: arrays nobody declared
        if name not in tr.arrays:
            tr.arrays[name] = CArray(name, "", (None,) * rank, False)
    assigned = {m for ln in tr.lines for m in re.findall(r"(?:^\s*|; )v_(\w+) = ", ln)}
    for name in sorted(tr.used - set(tr.arrays) - set(arguments) - set(tr.scalar_types)):
        if name not in assigned:  # bare statements: a size or scalar nobody declared
            arguments[name] = ""
    params = [*(f"v_{n}" for n in arguments), *(f"v_{n}" for n in tr.arrays)]
    source = "\n".join([f"def _kernel({', '.join(params)}):", *tr.lines])
    scope: dict[str, Any] = {"np": np, "_cdiv": _cdiv, "_cmod": _cmod, "_max": _max,
                             "_min": _min, "_relu": _relu, **tr.consts}
    exec(compile(source, f"<C reference of {filename}>", "exec"), scope)  # noqa: S102
    name = re.sub(r"^kernel_", "", fn.decl.name)
    return CProgram(name, filename, dict(tr.arrays), arguments, source, widen, scope["_kernel"],
                    size_scalars(text, filename, include_dirs, defines))


@functools.lru_cache(maxsize=16)
def _compiled(text: str, filename: str, include_dirs: tuple[str, ...],
              defines: tuple[str, ...]) -> CProgram:
    return c_program(text, filename, include_dirs, defines, widen=True)


@dataclass(frozen=True)
class CReference:
    """A C kernel's :data:`~polyjoule.model.pra.Reference`: the simulator calls it with its
    random inputs and the kernel's scalars and sizes, and compares the outputs it returns.

    Run in float64 (``widen``): the simulator carries every value in float64 whatever the
    dtype, so the two compute the same arithmetic and compare to 1e-9. Compiled once per
    process (cached by text); plain fields, so it pickles to workers.
    """

    text: str
    filename: str
    outputs: tuple[tuple[str, tuple[Affine, ...]], ...]  # the kernel's written tensors
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """This reference in a failure's words (the simulator's ``reference_label``)."""
        return f"the C reference ({self.filename} run by the C interpreter)"

    def program(self) -> CProgram:
        return _compiled(self.text, self.filename, self.include_dirs, self.defines)

    def compared(self) -> list[str]:
        """The kernel's outputs that are arrays of the C function at the same rank (an
        expanded scratch array of the same name is the localisation's own, not the C's)."""
        arrays = self.program().arrays
        return [n for n, shape in self.outputs if n in arrays and not arrays[n].local
                and len(arrays[n].dims) == len(shape)]

    def __call__(self, tensors: Mapping[str, np.ndarray], env: Mapping[str, float]
                 ) -> dict[str, np.ndarray]:
        same = self.compared()
        if not same:  # an empty comparison would pass: refuse it (with_c_reference does)
            raise CRunError(f"{self.filename}: no output of the kernel is an array of the C "
                            f"function: nothing to compare with the C reference")
        prog = self.program()
        sizes = {k: int(v) for k, v in env.items() if float(v).is_integer()}
        shapes = {n: tuple(int(x.evaluate(sizes)) for x in shape) for n, shape in self.outputs}
        caller = {n: CALLER_SCALARS.get(n, 1.0) for n, t in prog.arguments.items()
                  if n not in env and prog.numeric(t)}  # folded into constants by the kernel
        caller |= {n: float(env[size]) for n, size in prog.size_scalars.items()
                   if n in prog.arguments and size in env}  # float_n: the size N, as C sets it
        got = prog.run(tensors, {**caller, **env}, shapes)
        return {n: got[n] for n in same}


def with_c_reference(kernel: Kernel, text: str, filename: str,
                     include_dirs: Sequence[str | Path] = (), defines: Sequence[str] = ()
                     ) -> Kernel:
    """``kernel`` (localised from the C ``text``) checked against the C program itself;
    unchanged (check ``n/a``) when the C uses a construct the interpreter does not run or
    no output of the kernel is an array of the C."""
    outputs = tuple((n, t.shape) for n, t in kernel.tensors().items()
                    if t.kind in ("output", "inout"))
    ref = CReference(text, filename, outputs, tuple(str(d) for d in include_dirs),
                     tuple(defines))
    try:  # compiled now (cached)
        if not ref.compared():
            return kernel
    except (CRunError, RecursionError):  # (the front end bounds expressions: defensive)
        return kernel
    return replace(kernel, reference=ref)
