"""Downward loops: run upward, or on a mirrored index (``i = U - i'``), as the built-in
ludcmp and deriche run their backward sweeps.

A downward loop whose iterations are independent (every array it writes is touched at one
subscript only: pointwise updates, or a reduction into one element) just runs upward. Any
other ``for (i = U; i >= L; i--) S(i)`` becomes ``for (i = 0; i <= U - L; i++) S(U - i)``: the
same iterations in the same order, so nothing changes but the name of each iteration.
A back substitution then reads ``x[j]``, ``j > i``, against a mirrored write ``x[U - i]``;
the loops inside it whose index subscripts the same array dimension as the mirrored index
(``j`` in ``x[j]``, ``U[i][j]``) are mirrored by the same ``U`` too, so that both sides
name the element alike (``x[U - j]``) and the triangle runs from 0, as forward substitution
does. Mirroring an upward loop reverses its order, so it is done only to a loop that holds
nothing but accumulations into elements it does not index, or into a scalar its terms do not
read (LUDCMP's ``w -= A[i][j] * x[j]``): a reduction, the sum reassociated (exact for
integers, a rounding difference for floats). A downward loop that
holds loops but no such reduction is left as written (and refused with its own reason); an
innermost one is mirrored alone (DERICHE's anti-causal filters, as its built-in does).
"""

from __future__ import annotations

import copy
from typing import Any

from pycparser import c_ast, c_generator

from polyjoule.frontends.cexpand import id_names

_DOWN = ("p--", "--")
_GEN = c_generator.CGenerator()


def _var(node: c_ast.For) -> str | None:
    init = node.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        return str(init.decls[0].name)
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        return str(init.lvalue.name)
    return None


def _start(node: c_ast.For) -> Any:
    init = node.init
    return init.decls[0].init if isinstance(init, c_ast.DeclList) else init.rvalue


def _set_start(node: c_ast.For, value: Any) -> None:
    if isinstance(node.init, c_ast.DeclList):
        node.init.decls[0].init = value
    else:
        node.init.rvalue = value


def _downward(node: c_ast.For, var: str) -> tuple[Any, Any] | None:
    """``(U, L)`` of ``for (i = U; i >= L; i--)`` (``i > L`` gives ``L + 1``), else None."""
    nxt, cond = node.next, node.cond
    step = (isinstance(nxt, c_ast.UnaryOp) and nxt.op in _DOWN and isinstance(nxt.expr, c_ast.ID)
            and nxt.expr.name == var) or (
        isinstance(nxt, c_ast.Assignment) and nxt.op == "-=" and isinstance(nxt.lvalue, c_ast.ID)
        and nxt.lvalue.name == var and isinstance(nxt.rvalue, c_ast.Constant)
        and nxt.rvalue.value == "1")
    if not step or not (isinstance(cond, c_ast.BinaryOp) and cond.op in (">=", ">")
                        and isinstance(cond.left, c_ast.ID) and cond.left.name == var):
        return None
    low = cond.right if cond.op == ">=" else c_ast.BinaryOp("+", cond.right,
                                                           c_ast.Constant("int", "1"))
    return _start(node), low


def _substitute(node: Any, var: str, value: Any) -> Any:
    """``node`` with every use of ``var`` replaced by ``(value - var)``."""
    if isinstance(node, c_ast.ID) and node.name == var:
        return c_ast.BinaryOp("-", copy.deepcopy(value), c_ast.ID(var, node.coord), node.coord)
    for name, child in node.children():
        new = _substitute(child, var, value)
        if new is not child:
            replace_child(node, name, new)
    return node


def replace_child(node: Any, name: str, new: Any) -> None:
    """Set the child ``name`` (as ``children()`` names it: ``stmt``, ``exprs[0]``)."""
    if "[" in name:  # a list member: block_items[3], exprs[0]
        attr, idx = name[:-1].split("[")
        getattr(node, attr)[int(idx)] = new
    else:
        setattr(node, name, new)


def _mirror(node: c_ast.For, var: str, top: Any, low: Any) -> None:
    """Run ``var`` over ``0..top - low`` upward with ``top - var`` in the body."""
    span = c_ast.BinaryOp("-", copy.deepcopy(top), copy.deepcopy(low))
    _substitute(node.stmt, var, top)
    _set_start(node, c_ast.Constant("int", "0"))
    node.cond = c_ast.BinaryOp("<=", c_ast.ID(var), span)
    node.next = c_ast.UnaryOp("p++", c_ast.ID(var))


def _subscript_dims(node: Any, var: str, out: set[tuple[str, int]]) -> None:
    """The (array, dimension) pairs whose subscript uses ``var``."""
    if isinstance(node, c_ast.ArrayRef):
        subs, base = [], node
        while isinstance(base, c_ast.ArrayRef):
            subs.insert(0, base.subscript)
            base = base.name
        if isinstance(base, c_ast.ID):
            for d, s in enumerate(subs):
                if var in id_names(s):
                    out.add((base.name, d))
    for _name, child in node.children():
        _subscript_dims(child, var, out)


def _reduction(loop: c_ast.For, var: str) -> bool:
    """Does the loop hold only accumulations into elements it does not index (or into a
    scalar its terms do not read: LUDCMP's ``w -= A[i][j] * x[j]``)?"""
    items = loop.stmt.block_items or [] if isinstance(loop.stmt, c_ast.Compound) else [loop.stmt]
    return bool(items) and all(
        isinstance(x, c_ast.Assignment) and x.op in ("+=", "-=")
        and (isinstance(x.lvalue, c_ast.ArrayRef) and var not in id_names(x.lvalue)
             or isinstance(x.lvalue, c_ast.ID) and x.lvalue.name not in id_names(x.rvalue))
        for x in items)


def _upward_bounds(loop: c_ast.For, var: str) -> tuple[Any, Any] | None:
    cond = loop.cond
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=")
            and isinstance(cond.left, c_ast.ID) and cond.left.name == var):
        return None
    high = cond.right if cond.op == "<=" else c_ast.BinaryOp("-", cond.right,
                                                            c_ast.Constant("int", "1"))
    return _start(loop), high


def _reductions(node: Any, dims: set[tuple[str, int]], out: list[c_ast.For]) -> None:
    """The upward reduction loops inside whose index shares an array dimension with the
    mirrored index."""
    for _name, child in node.children():
        _reductions(child, dims, out)
    if not isinstance(node, c_ast.For):
        return
    var = _var(node)
    shared: set[tuple[str, int]] = set()
    if var:
        _subscript_dims(node.stmt, var, shared)
    if var and _upward_bounds(node, var) and shared & dims and _reduction(node, var):
        out.append(node)


def _mirror_inner(loop: c_ast.For, top: Any) -> None:
    """``for (j = lo; j <= hi; j++)`` -> ``j`` over ``top - hi .. top - lo`` with
    ``top - j`` in its body."""
    var = str(_var(loop))
    bounds = _upward_bounds(loop, var)
    assert bounds is not None  # chosen by _reductions
    low, high = bounds
    _substitute(loop.stmt, var, top)
    _set_start(loop, c_ast.BinaryOp("-", copy.deepcopy(top), high))
    loop.cond = c_ast.BinaryOp("<=", c_ast.ID(var), c_ast.BinaryOp("-", copy.deepcopy(top), low))


def _accesses(node: Any, out: dict[str, set[str]], written: set[str]) -> None:
    """Every array's subscripts (as text) and the names assigned, in a statement (an inner
    loop's own counter is not data: its body is what it touches)."""
    if isinstance(node, c_ast.For):
        _accesses(node.stmt, out, written)
        return
    if isinstance(node, c_ast.Assignment):
        target = node.lvalue
        while isinstance(target, c_ast.ArrayRef):
            target = target.name
        if isinstance(target, c_ast.ID):
            written.add(target.name)
    if isinstance(node, c_ast.ArrayRef):
        base, subs = node, []
        while isinstance(base, c_ast.ArrayRef):
            subs.insert(0, _GEN.visit(base.subscript))
            base = base.name
        if isinstance(base, c_ast.ID):
            out.setdefault(base.name, set()).add("][".join(subs))
        return
    for _name, child in node.children():
        _accesses(child, out, written)


def _reorderable(body: Any) -> bool:
    """Does every written name have one element per access pattern (pointwise updates or
    a reduction into one element), so that the loop's iterations may run in any order?"""
    subs: dict[str, set[str]] = {}
    written: set[str] = set()
    _accesses(body, subs, written)
    return all(name in subs and len(subs[name]) == 1 for name in written)


def _has_loop(node: Any) -> bool:
    return isinstance(node, c_ast.For) or any(_has_loop(c) for _n, c in node.children())


def reverse_downward(node: Any) -> None:
    """Rewrite, in place, every downward loop in ``node`` (see the module docstring)."""
    for _name, child in node.children():
        reverse_downward(child)
    if not isinstance(node, c_ast.For):
        return
    var = _var(node)
    found = _downward(node, var) if var else None
    if var is None or found is None:
        return
    top, low = found
    if _reorderable(node.stmt):  # independent iterations (or a reduction): just run upward
        _set_start(node, low)
        node.cond = c_ast.BinaryOp("<=", c_ast.ID(var), top)
        node.next = c_ast.UnaryOp("p++", c_ast.ID(var))
        return
    dims: set[tuple[str, int]] = set()
    _subscript_dims(node.stmt, var, dims)
    inner: list[c_ast.For] = []
    _reductions(node.stmt, dims, inner)
    if not inner and _has_loop(node.stmt):  # nothing inside would read alike: left as is
        return
    _mirror(node, var, top, low)
    for loop in inner:
        _mirror_inner(loop, top)
