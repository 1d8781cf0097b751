"""C front end, time-iterated stencils: a kernel whose scop is one time loop around sweeps.

PolyBench's stencils (jacobi-1d/2d, heat-3d, seidel-2d, fdtd-2d) repeat, ``TSTEPS`` times,
loop nests that update arrays in place or ping-pong between them. The nest-per-phase path
of :mod:`.cnest` refuses them (a read sees an old or a new value depending on the
iteration order); this module recognises the shape and hands it to
:func:`~polyjoule.frontends.localize.timesteps.stencil_pra`, which renames the arrays
into single assignment with the time index and fuses the sweeps of a step.

The shape: one top-level ``for`` (the time loop, step +1) whose body is loops in sequence
(sweeps); each sweep a chain of loops, each holding the next, the innermost holding only
assignments; the time index in no written subscript. Anything else (ADI's statements
between its loops, its backward loops) is not this shape, and the caller keeps its own
reason for refusing it.
"""

from __future__ import annotations

import ast
from typing import Any

from pycparser import c_ast

from polyjoule.errors import NotUniformError, SpecError
from polyjoule.frontends.cbounds import check_in_bounds, check_pointers
from polyjoule.frontends.cnest import (
    DEFAULT_SCALARS,
    _Ctx,
    _declarations,
    _dtype,
    _function,
    _loop,
    _parse,
    _statement,
)
from polyjoule.frontends.cpre import CSource, strip_directives
from polyjoule.frontends.localize.stencil import stencil_pra
from polyjoule.frontends.localize.timesteps import TimeLoop, Update
from polyjoule.model.nest import Loop, Stmt, read_name
from polyjoule.model.pra import Kernel

_OPS = {"+=": ast.Add(), "-=": ast.Sub(), "*=": ast.Mult(), "/=": ast.Div()}


def _items(node: Any) -> list[Any]:
    items = node.block_items or [] if isinstance(node, c_ast.Compound) else [node]
    return [x for x in items if not isinstance(x, c_ast.Pragma | c_ast.EmptyStatement)]


def _sweep(node: c_ast.For, ctx: _Ctx, outer: list[str]) -> tuple[list[Loop], list[Any]] | None:
    """A chain of loops, each holding only the next, the innermost only assignments."""
    loops: list[Loop] = []
    while True:
        try:
            loops.append(_loop(node, ctx, [*outer, *(lp.name for lp in loops)]))
        except SpecError:
            return None
        items = _items(node.stmt)
        if len(items) == 1 and isinstance(items[0], c_ast.For):
            node = items[0]
            continue
        if items and all(isinstance(x, c_ast.Assignment) for x in items):
            return loops, items
        return None


def _plain(s: Stmt) -> Stmt:
    """``T op= E`` as ``T = T op (E)``: the update reads its own old value."""
    if s.op == "=":
        return s
    old = ast.Name(id=read_name(len(s.reads)), ctx=ast.Load())
    return Stmt(s.target, "=", ast.BinOp(old, _OPS[s.op], s.expr), (*s.reads, s.target),
                s.depth, s.position, s.where)


def _updates(top: c_ast.For, time: Loop, ctx: _Ctx) -> list[Update] | None:
    """The statements of the sweeps in the time loop, in program order (None: not sweeps)."""
    items = _items(top.stmt)
    if not items or not all(isinstance(x, c_ast.For) for x in items):
        return None
    out: list[Update] = []
    for n, x in enumerate(items):
        found = _sweep(x, ctx, [time.name])
        if found is None:
            return None
        loops, stmts = found
        names = [time.name, *(lp.name for lp in loops)]
        for st in stmts:
            try:
                s = _plain(_statement(st, ctx, names, len(names), "body"))
            except SpecError:
                return None  # a scalar write, a call...: the nest path's reason stands
            if any(time.name in ix.names() for ix in s.target.index):
                return None  # the outer loop indexes what it writes: not a time loop
            out.append(Update(s, n, tuple(loops)))
    return out


def _uniform(updates: list[Update]) -> bool:
    """Does every read of an array the time loop writes stay a constant offset away from
    what its statement writes? (Floyd-Warshall's ``path[i][k]`` does not: not a stencil.)"""
    written = {u.stmt.target.tensor for u in updates}
    for u in updates:
        for r in u.stmt.reads:
            if r.tensor not in written:
                continue
            t = u.stmt.target.index
            if len(r.index) != len(t) or any((a - b).terms for a, b in zip(r.index, t, strict=True)):
                return False
    return True


def _check(updates: list[Update], ctx: _Ctx) -> None:
    """Sweep bounds constant in a step; every written array of one rank."""
    for u in updates:
        for lp in u.loops:
            if not (lp.lower.names() | lp.upper.names()) <= set(ctx.params):
                raise NotUniformError(
                    f"{lp.where}: loop {lp.name} of a time-iterated sweep has bounds that depend "
                    f"on other loops ({lp.lower} .. {lp.upper}); only bounds in the parameters")
    ranks = {len(u.stmt.target.index) for u in updates}
    if len(ranks) > 1:
        u = updates[-1]
        raise NotUniformError(f"{u.stmt.where}: the time loop writes arrays of {len(ranks)} "
                              f"different ranks; one space for all of them is needed")


def _dims(updates: list[Update], time: str) -> tuple[str, ...]:
    """The space dims, named after the loops that index each dimension of the targets."""
    rank = len(updates[0].stmt.target.index)
    names: list[str] = []
    for d in range(rank):
        seen = [x.terms[0][0] for u in updates for x in u.stmt.target.index[d:d + 1]
                if len(x.terms) == 1 and x.terms[0][0] in {lp.name for lp in u.loops}]
        free = [n for n in seen if n not in names and n != time]
        names.append(free[0] if free else f"x{d + 1}")
    return tuple(names)


def time_loop(body: list[Any], ctx: _Ctx, name: str, dtype: str,
              live_out: frozenset[str] | None) -> TimeLoop | None:
    """The scop as a time loop around sweeps, or None when it is not one."""
    skip = c_ast.Decl | c_ast.Pragma | c_ast.Return | c_ast.EmptyStatement
    rest = [x for x in body if not isinstance(x, skip)]
    if len(rest) != 1 or not isinstance(rest[0], c_ast.For):
        return None
    try:
        time = _loop(rest[0], ctx, [])
    except SpecError:
        return None
    updates = _updates(rest[0], time, ctx)
    if not updates or not _uniform(updates):
        return None
    _check(updates, ctx)
    used = {n for b in (time.lower, time.upper) for n in b.names()}
    used |= {n for u in updates for lp in u.loops for b in (lp.lower, lp.upper) for n in b.names()}
    used |= {n for u in updates for a in (u.stmt.target, *u.stmt.reads) for x in a.index
             for n in x.names()}
    touched = {a.tensor for u in updates for a in (u.stmt.target, *u.stmt.reads)}
    used |= {n for t in touched for x in ctx.shapes.get(t, ()) for n in x.names()}
    scalars = {k: ctx.scalars.get(k, DEFAULT_SCALARS.get(k, 1.0))
               for k in sorted(ctx.declared_scalars)}
    return TimeLoop(name, time, tuple(updates), tuple(p for p in ctx.params if p in used),
                    {t: ctx.shapes[t] for t in touched if t in ctx.shapes}, scalars, dtype,
                    live_out)


def stencil_kernel(src: CSource, filename: str, dtype: str | None = None,
                   datasets: dict[str, dict[str, int]] | None = None) -> Kernel | None:
    """The kernel of a time-iterated stencil, or None when the scop is not one."""
    tree = _parse(strip_directives(src.text), filename)
    fn, name = _function(tree, filename)
    body = list(fn.body.block_items or [])
    ctx = _Ctx(filename)
    _declarations(fn if fn.decl.name != "__kernel" else None, body, ctx, tree.ext)
    tl = time_loop(body, ctx, name, dtype or "fp32", src.live_out)
    if tl is None:
        return None
    stmts = [(u.stmt, (tl.time, *u.loops)) for u in tl.updates]
    check_pointers(ctx.pointers, {a.tensor for s, _l in stmts for a in (s.target, *s.reads)})
    check_in_bounds(stmts, ctx.shapes)
    if dtype is None:
        stmts = [u.stmt for u in tl.updates]
        tl = TimeLoop(tl.name, tl.time, tl.updates, tl.params, tl.shapes, tl.scalars,
                      _dtype(ctx, [([], stmts, set())], src.data_type), tl.live_out)
    pra = stencil_pra(tl, _dims(list(tl.updates), tl.time.name))
    found = {ds: {p: v for p, v in vals.items() if p in pra.params}
             for ds, vals in src.datasets.items()}
    return Kernel(name, (pra,), f"localised from {filename}",
                  datasets if datasets is not None else found)
