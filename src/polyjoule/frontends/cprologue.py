"""A scalar prologue folded into the PRA's scalars.

DERICHE computes its filter coefficients before any loop, from its scalar argument
``alpha``: ``k = (1 - exp(-alpha)) * ... ; a1 = a5 = k; b1 = pow(2, -alpha); c1 = c2 = 1;``.
Every such value is the same at every point of every nest, so it is no statement of the
array but a constant: each top-level assignment to a scalar before the first loop, whose
right-hand side uses numbers, scalars of known value (the function's scalar arguments at
their defaults, or scalars the prologue set) and ``exp``/``sqrt``/``pow``/``log``/``fabs``,
is evaluated in order, as C would, and becomes a scalar (an immediate) of the PRA; so is the
initialiser of a local floating-point scalar (``double k = exp(-alpha);``). A value
that depends on a size parameter (``sqrt(N)``) is no constant: it is refused, naming the
parameter. Values are computed in double precision (C's ``expf`` would round to float).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from pycparser import c_ast, c_generator

from polyjoule.errors import SpecError

_GEN = c_generator.CGenerator()
_FUNCS: dict[str, Callable[..., float]] = {
    "exp": math.exp, "sqrt": math.sqrt, "pow": math.pow, "log": math.log, "fabs": math.fabs}


class _NotConstant(Exception):
    """The expression is not a constant the prologue can fold."""


class _UsesSize(Exception):
    """The expression depends on a size parameter."""


def _call(node: c_ast.FuncCall, args: list[float], where: str) -> float:
    name = node.name.name if isinstance(node.name, c_ast.ID) else ""
    fn = _FUNCS.get(name) or _FUNCS.get(name[:-1] if name.endswith("f") else "")  # expf
    if fn is None:
        raise _NotConstant
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
            raise _UsesSize(node.name)
        if node.name not in known:
            raise _NotConstant
        return known[node.name]
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        v = _value(node.expr, known, sizes, where)
        return -v if node.op == "-" else v
    if isinstance(node, c_ast.Cast):
        return _value(node.expr, known, sizes, where)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/"):
        a, b = (_value(x, known, sizes, where) for x in (node.left, node.right))
        if node.op != "/":
            return {"+": a + b, "-": a - b, "*": a * b}[node.op]
        if b == 0:
            raise SpecError(f"{where}: {_GEN.visit(node)!r} divides by zero")
        return int(a / b) if isinstance(a, int) and isinstance(b, int) else a / b  # C: truncates
    if isinstance(node, c_ast.FuncCall) and node.args is not None:
        return _call(node, [float(_value(x, known, sizes, where)) for x in node.args.exprs], where)
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


def _declared(node: c_ast.Decl, values: dict[str, float | int], folded: dict[str, float],
              sizes: set[str], where: str) -> None:
    """``double k = exp(-alpha);``: the initialiser of a local scalar, folded the same way;
    one that is no constant is refused rather than read as a default."""
    try:
        v = _value(node.init, values, sizes, where)
    except _NotConstant:
        raise SpecError(f"{where}: {node.name}: initialiser {_GEN.visit(node.init)!r} is not "
                        f"a constant (numbers, scalars, exp, sqrt, pow, log, fabs)") from None
    except _UsesSize as e:
        raise SpecError(f"{where}: {node.name} = {_GEN.visit(node.init)} depends on the size "
                        f"{e}: a PRA scalar is a constant, the same for every size") from None
    values[node.name] = v
    folded[node.name] = float(v)


def fold_prologue(body: list[Any], known: Mapping[str, float], sizes: set[str],
                  where: Callable[[Any], str]) -> tuple[list[Any], dict[str, float]]:
    """The body without its scalar prologue, and the scalars the prologue sets.

    ``known``: scalars of known value; ``sizes``: the size parameters; ``where(node)``
    names a node's file, line and column."""
    values: dict[str, float | int] = dict(known)
    folded: dict[str, float] = {}
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
            raise SpecError(f"{where(node)}: {names[0]} = {_GEN.visit(expr)} depends on the size "
                            f"{e}: a PRA scalar is a constant, the same for every size") from None
        for name in names:
            values[name] = v
            folded[name] = float(v)
    return rest, folded
