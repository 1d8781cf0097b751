"""Closing a triangular inner loop onto its diagonal, and reads of values the nest writes.

TRISOLV (``x[i] = b[i]; for j < i: x[i] -= L[i][j] * x[j]; x[i] /= L[i][i]``) and TRMM
(``for k in i+1..M-1: B[i][j] += A[k][i] * B[k][j]; B[i][j] *= alpha``) are refused as the
plain passes see them: the inner loop is empty at one end of the outer one, so a statement
around it has no iteration to live in, and each reads the array it writes at a distance that
depends on the loop indices. The rules (the plan is :mod:`.closing`'s):

1. **Close the triangle.** The inner loop's bound that depends on an outer index moves by one
   onto the diagonal (``j <= i - 1`` -> ``j <= i``; ``k >= i + 1`` -> ``k >= i``); the body
   keeps its own range (a guard on its statements). The new points hold what had no home:
   the statements after the loop (upper end: the value is finished on the diagonal) or the
   chain's start (lower end: ``s = B[i][j]`` at ``k == i``). A read after the loop of an
   element the body reads at the diagonal (``L[i][i]`` and ``L[i][j]``) is one input, which
   then covers the diagonal too.
2. **Dataflow** (:mod:`.dataflow`): a read that sees the array from before the nest is an
   input like any other (TRMM's ``B[k][j]``, broadcast along ``i``); a read of the value an
   earlier outer iteration finished (TRISOLV's ``x[j]``) is taken where that iteration
   finishes it, the last point of its inner loop, and travels from there along the one loop
   axis that separates the two points (``x[j]`` down column ``j`` along ``i``); an
   accumulation into such a value (SYMM's ``C[k][j]`` at ``i > k``) continues it along that
   axis and leaves for DRAM at the axis's last point.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from polyjoule.frontends.localize.body import Chain
from polyjoule.frontends.localize.chains import _initial
from polyjoule.frontends.localize.closing import Carried, ClosingPlan, Inner, axis, plan
from polyjoule.frontends.localize.copies import fold_copies
from polyjoule.frontends.localize.dataflow import Finished
from polyjoule.frontends.localize.exprs import has_op, reads_in, render, scaled_product
from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.frontends.localize.inputs import body_input, point_input
from polyjoule.frontends.localize.phase import Phase
from polyjoule.model.affine import Constraint
from polyjoule.model.nest import Access, Nest, Stmt, read_index
from polyjoule.model.pra import PRA

Piece = list[Constraint]
Value = list[tuple[Piece, str]]  # a value defined piecewise: (where, its text)


class _ClosedPhase(Phase):
    """A phase over the closed domain whose body statements keep the original range."""

    def __init__(self, p: ClosingPlan):
        super().__init__(p.closed)
        self.closed_geo, self.body_geo = self.geo, Geometry(p.original)
        self.guard: Piece = []
        self.plan = p
        self.finish = list(self.closed_geo.last(self.dims[-1])[0])
        self.producer: dict[str, str] = {}  # tensor -> variable of its finished value

    def _when(self, when: Sequence[Constraint]) -> tuple[Constraint, ...]:
        geo, self.geo = self.geo, self.closed_geo
        try:
            return super()._when([*when, *self.guard])
        finally:
            self.geo = geo

    @contextmanager
    def body(self) -> Iterator[None]:
        """Emit body statements: first points of the original range, guarded by it."""
        self.geo, self.guard = self.body_geo, self.plan.guard
        try:
            yield
        finally:
            self.geo, self.guard = self.closed_geo, []


def _diagonal(p: ClosingPlan) -> dict[Any, Any]:
    """Reads after the loop of an element a body read names at the closing point (post
    read -> body read): one input over the closed domain serves both."""
    inner = p.closed.loops[-1]
    at = {inner.name: inner.upper}
    post = {r.key for s in p.post for r in s.reads}
    written = {s.target.tensor for s in p.original.stmts}
    body = [r for s in p.original.stmts if s.position == "body" for r in s.reads
            if r.tensor not in written]
    found = {(r.tensor, tuple(x.substitute(at) for x in r.index)): r.key for r in body}
    found |= {r.key: r.key for r in body}  # the same element read alike first
    return {k: found[k] for k in post if k in found}


def _finished_input(ph: _ClosedPhase, a: Access, src: Finished) -> str:
    """``x = producer[p - e_b]`` one step from the finishing point, ``x = x[p - e_b]`` on."""
    found = axis(ph.plan.closed, ph.body_geo, src)
    assert found is not None  # checked by the plan
    b, t = found
    var = ph.fresh(a.tensor)
    ph.vars[a.key] = var
    ph.transport(var, ph.producer[src.tensor], [Constraint(t.shift(-1), eq=True)],
                 ph.geo.unit(b))
    far = [Constraint(t.shift(-2))]
    if not ph.geo.empty(far):
        ph.transport(var, var, far, ph.geo.unit(b))
    return var


def _increment(ph: _ClosedPhase, m: int, s: Stmt, inc: Any, wide: set[Any]) -> str:
    """A body statement's operands and its product, once per point of the original range
    (``wide`` reads over the closed domain)."""
    names: dict[int, str] = {}
    for k in reads_in(inc):
        r = s.reads[k]
        if r.key in wide:
            names[k] = body_input(ph, r)
            continue
        with ph.body():
            src = ph.plan.finished.get((m, k))
            names[k] = _finished_input(ph, r, src) if src else body_input(ph, r)
    prod, scale = scaled_product(inc)
    text = render(prod, names)
    if has_op(prod):
        with ph.body():
            var = ph.fresh(s.target.tensor + "_p")
            ph.compute(var, text)
        text = var
    return f"{scale} * {text}" if scale else text


def _chain(ph: _ClosedPhase, c: Inner, inc: str, acc: str) -> Value:
    """Start, transport and update of an inner chain; where its value is finished."""
    p, geo = ph.plan, ph.closed_geo
    r = ph.dims[-1]
    ch = Chain(c.stmt, [r], c.op, inc)
    outside = [Constraint((-g.expr).shift(-1)) for g in p.guard]
    empty: Value = []
    for piece in geo.first(r):
        first = _initial(ph, ch, c.pre, tuple(piece))
        start = [*piece, *p.guard]
        if not geo.empty(start):
            neg = inc if c.op == "+" else (f"-{inc}" if " " not in inc else f"-({inc})")
            ph.compute(acc, f"{first} {c.op} {inc}" if first else neg, start)
        if p.guard and not geo.empty([*piece, *outside]):
            if p.top:  # no body point: the value is finished as it starts
                empty.append(([*piece, *outside], first or "0.0"))
            else:
                ph.compute(acc, first or "0.0", [*piece, *outside])
    prev = ph.fresh(c.stmt.target.tensor + "_in")
    ph.transport(prev, acc, geo.after_first(r), geo.unit(r))
    ph.compute(acc, f"{prev} {c.op} {inc}", [*geo.after_first(r), *p.guard])
    if p.top:
        return [*empty, ([*geo.after_first(r), *ph.finish], prev)]
    return [(ph.finish, acc)]


def _without_zero(expr: Any, zero: set[int]) -> Any:
    """The expression with the reads ``zero`` (values that are 0.0) and the terms they
    cancel dropped: ``a + alpha * t`` with ``t == 0`` is ``a``."""
    if read_index(expr) in zero:
        return None
    if isinstance(expr, ast.BinOp):
        left, right = _without_zero(expr.left, zero), _without_zero(expr.right, zero)
        if isinstance(expr.op, ast.Mult | ast.Div):
            return None if left is None or right is None else ast.BinOp(left, expr.op, right)
        if isinstance(expr.op, ast.Add | ast.Sub):
            if right is None:
                return left
            if left is None:
                return right if isinstance(expr.op, ast.Add) else ast.UnaryOp(ast.USub(), right)
            return ast.BinOp(left, expr.op, right)
    return expr


def _value_at(ph: _ClosedPhase, value: Value, piece: Piece) -> str:
    return next(t for w, t in value if not ph.closed_geo.empty([*w, *piece]))


def _operand(ph: _ClosedPhase, r: Access, values: dict[Any, Value], diag: dict[Any, Any],
             piece: Piece) -> str:
    """A read after the loop: a chain's finished value, the body's input, or from DRAM."""
    if r.key in values:
        return _value_at(ph, values[r.key], piece)
    if r.key in diag:
        return ph.vars[diag[r.key]]
    var = point_input(ph, r, tuple(ph.finish))
    if any(s.target.tensor == r.tensor for s in ph.nest.stmts):
        ph.inout(r.tensor)
    return var


def _post(ph: _ClosedPhase, s: Stmt, values: dict[Any, Value], diag: dict[Any, Any],
          var: str) -> None:
    """A statement after the loop, at the finishing points, piece by piece (where a chain
    it reads is still 0.0, the terms it cancels are dropped)."""
    read = [s.reads[k].key for k in reads_in(s.expr) if s.reads[k].key in values]
    key = s.target.key if s.target.key in values else (read[0] if read else None)
    for piece, _text in values[key] if key is not None else [(ph.finish, "")]:
        names = {k: _operand(ph, s.reads[k], values, diag, piece) for k in reads_in(s.expr)}
        zero = {k for k, text in names.items() if text == "0.0"}
        expr = _without_zero(s.expr, zero) if zero else s.expr
        expr = ast.Constant(0.0) if expr is None else expr
        rhs = render(expr, names)
        if s.op != "=":
            own = _operand(ph, s.target, values, diag, piece)
            rhs = f"{own} {s.op[0]} ({rhs})" if has_op(expr) else f"{own} {s.op[0]} {rhs}"
        ph.compute(var, rhs, piece)


def _carry(ph: _ClosedPhase, c: Carried, inc: str) -> None:
    """The carried chain: the finished value passed along its axis, each step adding."""
    var = ph.producer[c.src.tensor]
    prev = ph.fresh(c.stmt.target.tensor + "_in")
    with ph.body():
        ph.transport(prev, var, [], ph.geo.unit(c.axis))
        ph.compute(var, f"{prev} {c.op} {inc}")


def _emit_outputs(ph: _ClosedPhase, finals: dict[Any, tuple[Access, str]]) -> None:
    carried = {c.src.tensor: c for c in ph.plan.carried}
    for target, var in finals.values():
        if target.tensor in ph.nest.temporaries:
            continue
        ph.tensor(target, "output")
        c = carried.get(target.tensor)
        if c is None:
            ph.output(var, target, ph.finish)
            continue
        ph.tensor(c.stmt.target, "output")
        for piece in ph.closed_geo.last(c.axis):
            ph.output(var, c.stmt.target, piece)


def localize_closed(nest: Nest, name: str) -> PRA | None:
    """The uniform PRA of a nest these rules close, or None when they do not apply."""
    p = plan(nest)
    if p is None:
        return None
    ph = _ClosedPhase(p)
    diag = _diagonal(p)
    wide = set(diag.values())
    chains = {c.stmt.target.key: ph.fresh(c.stmt.target.tensor + "_acc") for c in p.inner}
    finals: dict[Any, tuple[Access, str]] = {}
    for c in p.inner:
        has_post = any(s.target.key == c.stmt.target.key for s in p.post)
        var = ph.fresh(c.stmt.target.tensor + "_fin") if has_post or p.top else \
            chains[c.stmt.target.key]
        finals[c.stmt.target.key] = (c.stmt.target, var)
    for s in p.post:
        if s.target.key not in finals:
            finals[s.target.key] = (s.target, ph.fresh(s.target.tensor + "_fin"))
    ph.producer = {t.tensor: v for t, v in finals.values()}
    body = [s for s in nest.stmts if s.position == "body"]
    incs = {id(x.stmt): _increment(ph, body.index(x.stmt), x.stmt, x.inc, wide)
            for x in [*p.inner, *p.carried]}
    values: dict[Any, Value] = {c.stmt.target.key: _chain(ph, c, incs[id(c.stmt)],
                                                          chains[c.stmt.target.key])
                                for c in p.inner}
    posts: set[str] = set()
    for k, s in enumerate(p.post):
        last = all(t.target.key != s.target.key for t in p.post[k + 1:])
        var = finals[s.target.key][1] if last else ph.fresh(s.target.tensor + "_out")
        posts.add(var)
        _post(ph, s, values, diag, var)
        values[s.target.key] = [(ph.finish, var)]
    needed = {f.tensor for f in p.finished.values()} | {c.src.tensor for c in p.carried}
    for key, (t, var) in finals.items():
        if t.tensor in nest.temporaries and t.tensor not in needed:
            continue  # used after the loop only, where its pieces are read directly
        if values[key] != [(ph.finish, var)]:  # a chain without a statement after it
            for piece, text in values[key]:
                if text != var:
                    ph.compute(var, text, piece)
    for c in p.carried:
        _carry(ph, c, incs[id(c.stmt)])
    _emit_outputs(ph, finals)
    fold_copies(ph, posts)
    return ph.pra(name)
