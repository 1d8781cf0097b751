"""Scalar expansion: a scalar that each iteration of its enclosing loops sets before use
becomes an array indexed by those loops (SYMM's ``temp2``, a running sum per ``(i, j)``).

A scalar is expanded when every access lies inside the loops around its first access,
that first access (in program order) is a plain ``=`` write, and those loops run from 0 to
a bound of parameters only: then no value crosses an iteration of them, and giving each its
own element changes nothing but storage. The array is a temporary of the nest (it never
touches DRAM). Anything else is left as written (a scalar carried from one iteration to the
next, as DERICHE's filter states, is refused later with its own reason).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pycparser import c_ast

from polyjoule.frontends.cexpand import _loop_var
from polyjoule.frontends.creverse import replace_child
from polyjoule.model.affine import Affine
from polyjoule.model.nest import Loop


@dataclass
class _Use:
    """One use of a scalar: the node, the loops around it, whether it is a plain write."""

    node: c_ast.ID
    parent: Any
    field: str
    loops: list[c_ast.For]
    plain_write: bool


def _scan(node: Any, loops: list[c_ast.For], names: set[str], out: dict[str, list[_Use]],
          parent: Any = None, field: str = "", plain: bool = False) -> None:
    if isinstance(node, c_ast.For):
        if node.stmt is not None:
            _scan(node.stmt, [*loops, node], names, out, node, "stmt")
        return
    if isinstance(node, c_ast.Assignment):  # the value first, then the target (C order)
        _scan(node.rvalue, loops, names, out, node, "rvalue")
        if node.op != "=":
            _scan(node.lvalue, loops, names, out, node, "lvalue")
        _scan(node.lvalue, loops, names, out, node, "lvalue", plain=node.op == "=")
        return
    if isinstance(node, c_ast.ID):
        if node.name in names:
            out.setdefault(node.name, []).append(_Use(node, parent, field, loops, plain))
        return
    if isinstance(node, c_ast.ArrayRef):  # subscripts are not scalar values
        _scan(node.name, loops, names, out, node, "name")
        return
    for name, child in node.children():
        _scan(child, loops, names, out, node, name)


def _around(uses: list[_Use]) -> list[c_ast.For]:
    """The loops around the first use, when every use lies inside them and it writes."""
    first = uses[0]
    if not first.plain_write or not first.loops:
        return []
    depth = len(first.loops)
    for u in uses:
        if len(u.loops) < depth or any(a is not b for a, b in zip(u.loops, first.loops,
                                                                  strict=False)):
            return []
    return first.loops


def _assigned(node: Any, out: set[str]) -> None:
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
        out.add(node.lvalue.name)
    for _name, child in node.children():
        _assigned(child, out)


def expand_scalars(top: c_ast.For, loop_of: Callable[[c_ast.For, list[str]], Loop],
                   shapes: dict[str, tuple[Affine, ...]], temporaries: set[str]) -> None:
    """Expand, in place, every scalar assigned in ``top`` that is private to the loops
    around its first use; ``shapes`` and ``temporaries`` gain the arrays."""
    scalars: set[str] = set()
    _assigned(top, scalars)
    found: dict[str, list[_Use]] = {}
    _scan(top, [], scalars, found)
    for name, uses in found.items():
        loops = _around(uses)
        names = [str(_loop_var(lp)) for lp in loops]
        bounds = [loop_of(lp, names[:k]) for k, lp in enumerate(loops)]
        if not bounds or any(b.lower != Affine.of({}) or b.upper.names() & set(names)
                             for b in bounds):
            continue
        shape = tuple(b.upper.shift(1) for b in bounds)
        array, k = name, 1  # a scalar reused by another nest with other loops: a fresh array
        while array in shapes:
            k += 1
            array = f"{name}_{k}"
        for u in {id(u.node): u for u in uses}.values():
            ref: Any = c_ast.ID(array, u.node.coord)
            for var in names:
                ref = c_ast.ArrayRef(ref, c_ast.ID(var, u.node.coord), u.node.coord)
            replace_child(u.parent, u.field, ref)
        shapes[array] = shape
        temporaries.add(array)
