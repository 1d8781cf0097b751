"""Statement expressions (Python ``ast`` with read placeholders): split, factor, render."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from polyjoule.model.nest import Stmt, read_index


def reads_in(expr: Any) -> list[int]:
    """Indices of the reads an expression uses, in walk order."""
    return [k for n in ast.walk(expr) if (k := read_index(n)) is not None]


def render(expr: Any, names: Mapping[int, str]) -> str:
    """The expression as PRA text, each read replaced by its variable."""

    class _Sub(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> Any:
            k = read_index(node)
            return ast.Name(id=names[k], ctx=ast.Load()) if k is not None else node

    return ast.unparse(_Sub().visit(ast.parse(ast.unparse(expr), mode="eval").body))


def factors(expr: Any) -> list[Any]:
    """The factors of a product (the expression itself when it is not one)."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return factors(expr.left) + factors(expr.right)
    return [expr]


def has_op(expr: Any) -> bool:
    """Does computing ``expr`` take an operation (it is not a bare name)?"""
    return not isinstance(expr, ast.Name)


def split_accumulation(s: Stmt) -> tuple[str, Any] | None:
    """``T += E`` / ``T -= E`` / ``T = T + E`` / ``T = E + T`` / ``T = T - E`` -> (op, E)."""
    if s.op in ("+=", "-="):
        return s.op[0], s.expr
    if s.op != "=" or not isinstance(s.expr, ast.BinOp):
        return None

    def is_target(node: Any) -> bool:
        k = read_index(node)
        return k is not None and s.reads[k].key == s.target.key

    e = s.expr
    if isinstance(e.op, ast.Add) and is_target(e.left):
        return "+", e.right
    if isinstance(e.op, ast.Add) and is_target(e.right):
        return "+", e.left
    if isinstance(e.op, ast.Sub) and is_target(e.left):
        return "-", e.right
    return None


def scaled_product(expr: Any) -> tuple[Any, str]:
    """Split a product into its array factors (computed once per point) and its scalar
    factors (kept in the chain's increment): ``alpha*A*B`` -> (``A*B``, ``alpha``)."""
    facs = factors(expr)
    arr = [f for f in facs if reads_in(f)]
    sca = [f for f in facs if not reads_in(f)]
    if not (len(facs) > 1 and arr and sca):
        return expr, ""
    prod: Any = arr[0]
    for f in arr[1:]:
        prod = ast.BinOp(prod, ast.Mult(), f)
    return prod, " * ".join(ast.unparse(f) for f in sca)
