"""Scalar forwarding: a C scalar that stands for one array element over a span of code.

LUDCMP keeps the running value of ``A[i][j]`` in a scalar: ``w = A[i][j]; for (k ...)
w -= A[i][k] * A[k][j]; A[i][j] = w / A[j][j];``. Between its load and its store, ``w`` *is*
``A[i][j]`` provided nothing else in the span touches that element; :func:`forward_scalars`
rewrites such spans into updates of the element itself (``A[i][j] -= ...;
A[i][j] = A[i][j] / A[j][j]``) on a copy of the syntax tree and numbers the spans of the
assignments in them, so that the caller checks (exactly, with the loops' bounds) that no
other access in a span reaches its element. A store of the unchanged value (``w = A[i][j];
... A[i][j] = w``, LUDCMP's upper part, the loop before it holding the updates) becomes
``A[i][j] = A[i][j]``, a no-op, and is dropped.
"""

from __future__ import annotations

import copy
from typing import Any

from pycparser import c_ast, c_generator

_GEN = c_generator.CGenerator()


def _ids(node: Any, name: str) -> int:
    """How often the identifier ``name`` occurs in ``node``."""
    if isinstance(node, c_ast.ID):
        return int(node.name == name)
    return sum(_ids(c, name) for _n, c in node.children())


def _substitute(node: Any, name: str, ref: c_ast.ArrayRef, marks: dict[int, int],
                span: int) -> Any:
    """``node`` with every ``name`` replaced by a copy of ``ref``; its assignments are
    recorded in ``marks`` (by id) as belonging to ``span``."""
    if isinstance(node, c_ast.ID) and node.name == name:
        return copy.deepcopy(ref)
    if isinstance(node, c_ast.Assignment):
        marks[id(node)] = span
    for attr in getattr(node, "__slots__", ()):
        child = getattr(node, attr, None)
        if isinstance(child, c_ast.Node):
            setattr(node, attr, _substitute(child, name, ref, marks, span))
        elif isinstance(child, list):
            setattr(node, attr, [_substitute(c, name, ref, marks, span)
                                 if isinstance(c, c_ast.Node) else c for c in child])
    return node


def _span(items: list[Any], p: int) -> int | None:
    """The index of the store that ends the span loaded at ``items[p]``, or None."""
    load = items[p]
    name, text = load.lvalue.name, _GEN.visit(load.rvalue)
    for q in range(p + 1, len(items)):
        x = items[q]
        if isinstance(x, c_ast.Assignment) and x.op == "=" \
                and isinstance(x.lvalue, c_ast.ArrayRef) and _GEN.visit(x.lvalue) == text:
            after = sum(_ids(y, name) for y in items[q + 1:])
            return q if not after and _ids(x.lvalue, name) == 0 else None
        if isinstance(x, c_ast.Assignment) and isinstance(x.lvalue, c_ast.ID) \
                and x.lvalue.name == name and x.op == "=":
            return None
    return None


def _identity(node: Any) -> bool:
    """Is ``node`` a store of an element into itself (``A[i][j] = A[i][j]``, the store of a
    span whose value the scalar only carried): a no-op, dropped."""
    return (isinstance(node, c_ast.Assignment) and node.op == "="
            and _GEN.visit(node.lvalue) == _GEN.visit(node.rvalue))


def _block(items: list[Any], marks: dict[int, int]) -> list[Any]:
    out: list[Any] = []
    p = 0
    while p < len(items):
        x = items[p]
        if isinstance(x, c_ast.Assignment) and x.op == "=" and isinstance(x.lvalue, c_ast.ID) \
                and isinstance(x.rvalue, c_ast.ArrayRef):
            q = _span(items, p)
            if q is not None:
                span = len(set(marks.values()))
                out += [y for y in (_substitute(y, x.lvalue.name, x.rvalue, marks, span)
                                    for y in items[p + 1:q + 1]) if not _identity(y)]
                p = q + 1
                continue
        if isinstance(x, c_ast.For):
            _loop(x, marks)
        out.append(x)
        p += 1
    return out


def _loop(node: c_ast.For, marks: dict[int, int]) -> None:
    body = node.stmt
    if isinstance(body, c_ast.Compound):
        body.block_items = _block(list(body.block_items or []), marks)
    elif isinstance(body, c_ast.For):
        _loop(body, marks)


def forward_scalars(top: c_ast.For) -> tuple[c_ast.For, dict[int, int]]:
    """A copy of the nest with every load-update-store span of a scalar rewritten into
    updates of the element, and the span of every assignment in one (by id); the last
    assignment of a span is its store."""
    out = copy.deepcopy(top)
    marks: dict[int, int] = {}
    _loop(out, marks)
    return out, marks
