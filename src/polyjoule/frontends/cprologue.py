"""A scalar prologue folded into the PRA's scalars.

DERICHE computes its filter coefficients before any loop, from its scalar argument
``alpha``: ``k = (1 - exp(-alpha)) * ... ; a1 = a5 = k; b1 = pow(2, -alpha); c1 = c2 = 1;``.
Every such value is the same at every point of every nest, so it is no statement of the
array but a constant: each top-level assignment to a scalar before the first loop, whose
right-hand side uses numbers, scalars of known value (the function's scalar arguments at
their defaults, or scalars the prologue set) and ``exp``/``sqrt``/``pow``/``log``/``fabs``,
is evaluated in order, as C would, and becomes a scalar (an immediate) of the PRA; so is the
initialiser of a local floating-point scalar (``double k = exp(-alpha);``). Values are
computed in double precision (C's ``expf`` would round to float).

A value that depends on a size parameter (ADI's ``DX = 1.0 / (DATA_TYPE) N``) is the same at
every point of a run but not of every run: it becomes an expression of the parameters
(:class:`Sized`), which the C front end writes into the computations that read it, so the
PRA computes it exactly at every size (its operations are counted where it is used, as
PolyBench's ``sqrt(float_n)`` in correlation). Only ``+ - * /``, ``sqrt`` and ``fabs`` reach
a size (the operations a PRA computation has); a size divided as an integer (C truncates) or
passed to ``exp``/``pow``/``log`` is refused, naming the parameter.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pycparser import c_ast, c_generator

from polyjoule.errors import SpecError

_GEN = c_generator.CGenerator()
_FUNCS: dict[str, Callable[..., float]] = {
    "exp": math.exp, "sqrt": math.sqrt, "pow": math.pow, "log": math.log, "fabs": math.fabs}


class _NotConstant(Exception):
    """The expression is not a constant the prologue can fold."""


class _UsesSize(Exception):
    """The expression uses a size parameter in a way a PRA computation cannot."""


@dataclass(frozen=True)
class Sized:
    """A value of the size parameters: a Python ``ast`` expression over their names and
    numbers; ``integer`` while it is C ``int`` (a size not cast to a floating type)."""

    tree: Any
    integer: bool = False


def _tree(v: Any) -> Any:
    return v.tree if isinstance(v, Sized) else ast.Constant(v)


_OPS = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div}


def _sized_binop(op: str, a: Any, b: Any, node: Any) -> Sized:
    ints = [x.integer if isinstance(x, Sized) else isinstance(x, int) for x in (a, b)]
    if op == "/" and all(ints):
        raise _UsesSize(f"{_GEN.visit(node)} (an integer division, C truncates)")
    return Sized(ast.BinOp(_tree(a), _OPS[op](), _tree(b)), all(ints))


def _call(node: c_ast.FuncCall, args: list[Any], where: str) -> Any:
    name = node.name.name if isinstance(node.name, c_ast.ID) else ""
    fn = _FUNCS.get(name) or _FUNCS.get(name[:-1] if name.endswith("f") else "")  # expf
    if fn is None:
        raise _NotConstant
    if any(isinstance(a, Sized) for a in args):
        if fn not in (math.sqrt, math.fabs) or len(args) != 1:
            raise _UsesSize(f"{_GEN.visit(node)} (only sqrt and fabs of a size)")
        call = "sqrt" if fn is math.sqrt else "abs"
        return Sized(ast.Call(ast.Name(call, ast.Load()), [_tree(args[0])], []))
    try:
        return float(fn(*args))
    except (ValueError, TypeError, OverflowError) as e:
        raise SpecError(f"{where}: {_GEN.visit(node)!r} cannot be evaluated: {e}") from None


def _value(node: Any, known: Mapping[str, float | int], sizes: set[str], where: str) -> Any:
    """The value of a C expression of constants (an int stays an int, as in C)."""
    if isinstance(node, c_ast.Constant) and node.type in ("int", "double", "float"):
        text = node.value.rstrip("fFlLuU")
        return int(text, 0) if node.type == "int" else float(text)
    if isinstance(node, c_ast.ID):
        if node.name in sizes:
            return Sized(ast.Name(node.name, ast.Load()), integer=True)
        if node.name not in known:
            raise _NotConstant
        return known[node.name]
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        v = _value(node.expr, known, sizes, where)
        if isinstance(v, Sized):
            return Sized(ast.UnaryOp(ast.USub(), v.tree), v.integer) if node.op == "-" else v
        return -v if node.op == "-" else v
    if isinstance(node, c_ast.Cast):
        v = _value(node.expr, known, sizes, where)
        words = set(getattr(getattr(node.to_type.type, "type", None), "names", []) or [])
        return Sized(v.tree, integer=not words & {"double", "float"}) \
            if isinstance(v, Sized) else v
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/"):
        a, b = (_value(x, known, sizes, where) for x in (node.left, node.right))
        if isinstance(a, Sized) or isinstance(b, Sized):
            return _sized_binop(node.op, a, b, node)
        if node.op != "/":
            return {"+": a + b, "-": a - b, "*": a * b}[node.op]
        if b == 0:
            raise SpecError(f"{where}: {_GEN.visit(node)!r} divides by zero")
        return int(a / b) if isinstance(a, int) and isinstance(b, int) else a / b  # C: truncates
    if isinstance(node, c_ast.FuncCall) and node.args is not None:
        args = [_value(x, known, sizes, where) for x in node.args.exprs]
        return _call(node, [a if isinstance(a, Sized) else float(a) for a in args], where)
    raise _NotConstant


def _targets(node: c_ast.Assignment) -> tuple[list[str], Any] | None:
    """``a = b = E`` -> (["a", "b"], E); None unless every target is a plain scalar."""
    names: list[str] = []
    while isinstance(node, c_ast.Assignment):
        if node.op != "=" or not isinstance(node.lvalue, c_ast.ID):
            return None
        names.append(node.lvalue.name)
        node = node.rvalue
    return names, node


def _declared(node: c_ast.Decl, values: dict[str, Any], folded: dict[str, Any],
              sizes: set[str], where: str) -> None:
    """``double k = exp(-alpha);``: the initialiser of a local scalar, folded the same way;
    one that is no constant is refused rather than read as a default."""
    try:
        v = _value(node.init, values, sizes, where)
    except _NotConstant:
        raise SpecError(f"{where}: {node.name}: initialiser {_GEN.visit(node.init)!r} is not "
                        f"a constant (numbers, scalars, exp, sqrt, pow, log, fabs)") from None
    except _UsesSize as e:
        raise SpecError(f"{where}: {node.name} = {_GEN.visit(node.init)}: {e}: {_REACH}") from None
    values[node.name] = v
    folded[node.name] = v if isinstance(v, Sized) else float(v)


_REACH = "a size reaches a PRA computation only through + - * /, sqrt and fabs"


def fold_prologue(body: list[Any], known: Mapping[str, float], sizes: set[str],
                  where: Callable[[Any], str]) -> tuple[list[Any], dict[str, float | Sized]]:
    """The body without its scalar prologue, and the scalars the prologue sets (numbers,
    or :class:`Sized` expressions of the sizes).

    ``known``: scalars of known value; ``sizes``: the size parameters; ``where(node)``
    names a node's file, line and column."""
    values: dict[str, Any] = dict(known)
    folded: dict[str, float | Sized] = {}
    rest: list[Any] = []
    for k, node in enumerate(body):
        if isinstance(node, c_ast.For):
            rest.extend(body[k:])
            break
        if isinstance(node, c_ast.Decl) and node.init is not None \
                and isinstance(node.type, c_ast.TypeDecl) and node.name not in values \
                and {"double", "float"} & set(getattr(node.type.type, "names", [])):
            _declared(node, values, folded, sizes, where(node))
        found = _targets(node) if isinstance(node, c_ast.Assignment) else None
        if found is None:
            rest.append(node)
            continue
        names, expr = found
        try:
            v = _value(expr, values, sizes, where(node))
        except _NotConstant:
            rest.append(node)
            continue
        except _UsesSize as e:
            raise SpecError(f"{where(node)}: {names[0]} = {_GEN.visit(expr)}: {e}: "
                            f"{_REACH}") from None
        for name in names:
            values[name] = v
            folded[name] = v if isinstance(v, Sized) else float(v)
    return rest, folded
