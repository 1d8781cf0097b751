"""Successive pointwise updates of one element compose into one statement.

CORRELATION centres and scales each element in two statements, ``data[i][j] -= mean[j];
data[i][j] /= sqrt(float_n) * stddev[j];``: the second reads what the first wrote, at the
same point. Substituting the first's value into the second gives one statement,
``data[i][j] = (data[i][j] - mean[j]) / (sqrt(float_n) * stddev[j])``, with the same
operations. Only statements in the innermost loop whose element names every loop (no
reduction, so nothing else happens to it between them) and that follow each other are
composed.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import replace
from typing import Any

from polyjoule.model.nest import Access, Nest, Stmt, read_index, read_name

_OPS = {"+=": ast.Add(), "-=": ast.Sub(), "*=": ast.Mult(), "/=": ast.Div()}


def _value(s: Stmt) -> tuple[Any, list[Access]]:
    """The value a statement stores, as an expression over its reads (``x op= E`` is
    ``x op (E)``)."""
    if s.op == "=":
        return s.expr, list(s.reads)
    own = ast.Name(id=read_name(len(s.reads)), ctx=ast.Load())
    return ast.BinOp(own, _OPS[s.op], s.expr), [*s.reads, s.target]


def _shifted(expr: Any, by: int, reads: list[Access], target: Access, first: Any) -> Any:
    """``expr`` with its reads renumbered by ``by`` and each read of ``target`` replaced by
    the first statement's value."""

    class _Sub(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> Any:
            k = read_index(node)
            if k is None:
                return node
            if reads[k].key == target.key:
                return copy.deepcopy(first)
            return ast.Name(id=read_name(k + by), ctx=ast.Load())

    return _Sub().visit(copy.deepcopy(expr))


def _pointwise(nest: Nest, s: Stmt) -> bool:
    names = {n for x in s.target.index for n in x.names()}
    return s.position == "body" and all(lp.name in names for lp in nest.loops)


def compose_updates(nest: Nest) -> Nest:
    """The nest with runs of pointwise updates of one element composed."""
    out: list[Stmt] = []
    for s in nest.stmts:
        prev = out[-1] if out else None
        if prev is None or prev.target.key != s.target.key or not _pointwise(nest, prev) \
                or not _pointwise(nest, s):
            out.append(s)
            continue
        first, reads = _value(prev)
        second, more = _value(s)
        expr = _shifted(second, len(reads), more, s.target, first)
        out[-1] = replace(prev, op="=", expr=expr, reads=(*reads, *more))
    if len(out) == len(nest.stmts):
        return nest
    return replace(nest, stmts=tuple(out))
