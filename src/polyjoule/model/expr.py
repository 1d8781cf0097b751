"""The operation ``F_q`` of a computational statement: a small arithmetic expression.

Written as text (``alpha*tmp + beta*u``), parsed with Python's ``ast`` into a tree whose
leaves are PRA variables (read from registers) or named scalars / literals (immediates). A
size parameter is an immediate too (``mean / N``: covariance's ``float_n``): the same at every
point of a run, fixed by the run's parameter values; callers pass parameters among the
``scalars`` (names when parsing, values when evaluating).
The tree gives both the operation counts for energy and the numpy semantics for simulation.
Calls: ``abs(x)``, ``sqrt(x)``, ``relu(x)`` (one op each; relu counts as a ``max``) and
``max(a, b, ..)``, ``min(a, b, ..)`` (one op per argument after the first).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyjoule.errors import SpecError
from polyjoule.model.affine import python_expression

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}
_CALLS = {"max": "max", "min": "min", "sqrt": "sqrt", "relu": "max", "abs": "abs"}
_UNARY = frozenset({"sqrt", "relu", "abs"})  # one argument; max and min take two or more
#: a data-dependent select ``a if x <= y else b`` (correlation's guard): one compare and a mux
_COMPARE = {ast.Lt: np.less, ast.LtE: np.less_equal, ast.Gt: np.greater,
            ast.GtE: np.greater_equal, ast.Eq: np.equal, ast.NotEq: np.not_equal}
OPS = frozenset(_BINOPS.values()) | frozenset(_CALLS.values()) | {"select"}  # --op-latency names


@dataclass(frozen=True)
class Expr:
    """A parsed operation: the source text, its variable operands and its op counts."""

    text: str
    tree: Any = field(repr=False, compare=False, hash=False)  # ast.expr, derived from text
    operands: tuple[str, ...] = ()  # variable names read, with repetition, in source order
    ops: tuple[tuple[str, int], ...] = ()

    def evaluate(self, values: Mapping[str, np.ndarray], scalars: Mapping[str, float]) -> Any:
        """The expression on arrays of operand values. Its arithmetic is the kernel's: a
        NaN or an infinity it makes (``sqrt`` of a negative, ``x / 0``) is its value, as
        in C, not a warning of ours."""
        with np.errstate(all="ignore"):
            return _eval(self.tree, values, scalars)


def parse_expr(text: str, variables: Iterable[str], scalars: Iterable[str], where: str) -> Expr:
    """Parse ``text``; names must be known variables or scalars."""
    variables, scalars = set(variables), set(scalars)
    tree = python_expression(text)
    if isinstance(tree, str):
        raise SpecError(f"{where}: cannot parse expression {text!r}: {tree}")
    operands: list[str] = []
    ops: Counter[str] = Counter()

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            ops[_BINOPS[type(node.op)]] += 1
            walk(node.left)
            walk(node.right)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            ops["sub"] += 1
            walk(node.operand)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in _CALLS and not node.keywords:
            _check_arity(node.func.id, len(node.args), text, where)
            ops[_CALLS[node.func.id]] += max(1, len(node.args) - 1)
            for a in node.args:
                walk(a)
        elif _is_select(node):
            ops["select"] += 1
            for a in (node.test.left, node.test.comparators[0], node.body, node.orelse):
                walk(a)
        elif isinstance(node, ast.Name):
            if node.id in variables:
                operands.append(node.id)
            elif node.id not in scalars:
                raise SpecError(f"{where}: unknown name {node.id!r} in {text!r}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, int | float) \
                and not isinstance(node.value, bool):
            pass
        else:
            raise SpecError(f"{where}: unsupported construct {ast.unparse(node)!r} in {text!r}")

    walk(tree)
    if not operands and not isinstance(tree, ast.Constant):  # a literal alone is an immediate
        raise SpecError(f"{where}: expression {text!r} reads no variable")
    return Expr(text, tree, tuple(operands), tuple(sorted(ops.items())))


def _check_arity(name: str, n: int, text: str, where: str) -> None:
    if name in _UNARY and n != 1:
        raise SpecError(f"{where}: {name} takes one argument, not {n}, in {text!r}")
    if name not in _UNARY and n < 2:
        raise SpecError(f"{where}: {name} takes two or more arguments, not {n}, in {text!r}")


def _is_select(node: ast.AST) -> bool:
    return (isinstance(node, ast.IfExp) and isinstance(node.test, ast.Compare)
            and len(node.test.ops) == 1 and type(node.test.ops[0]) in _COMPARE)


def _eval(node: Any, values: Mapping[str, np.ndarray], scalars: Mapping[str, float]) -> Any:
    if isinstance(node, ast.IfExp):
        cmp = _COMPARE[type(node.test.ops[0])]
        test = cmp(_eval(node.test.left, values, scalars),
                   _eval(node.test.comparators[0], values, scalars))
        return np.where(test, _eval(node.body, values, scalars), _eval(node.orelse, values, scalars))
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, values, scalars), _eval(node.right, values, scalars)
        op = _BINOPS[type(node.op)]
        if op == "add":
            return a + b
        if op == "sub":
            return a - b
        if op == "mul":
            return a * b
        return a / b
    if isinstance(node, ast.UnaryOp):
        return -_eval(node.operand, values, scalars)
    if isinstance(node, ast.Call):
        args = [_eval(a, values, scalars) for a in node.args]
        name = node.func.id
        if name == "relu":
            return np.maximum(args[0], 0)
        if name == "sqrt":
            return np.sqrt(args[0])
        if name == "abs":
            return np.abs(args[0])
        fn = np.maximum if name == "max" else np.minimum
        out = args[0]
        for a in args[1:]:
            out = fn(out, a)
        return out
    if isinstance(node, ast.Name):
        return values[node.id] if node.id in values else scalars[node.id]
    return node.value
