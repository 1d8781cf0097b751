"""Closing a triangular inner loop onto its diagonal, and reads of values the nest writes.

TRISOLV (``x[i] = b[i]; for j < i: x[i] -= L[i][j] * x[j]; x[i] /= L[i][i]``) and TRMM
(``for k in i+1..M-1: B[i][j] += A[k][i] * B[k][j]; B[i][j] *= alpha``) are refused as the
plain passes see them: the inner loop is empty at one end of the outer one, so a statement
around it has no iteration to live in, and each reads the array it writes at a distance that
depends on the loop indices. Two rules make such a nest (one accumulation along the inner
loop, with statements before and after it) uniform:

1. **Close the triangle.** The inner loop's bound that depends on an outer index moves by one
   onto the diagonal (``j <= i - 1`` -> ``j <= i``; ``k >= i + 1`` -> ``k >= i``); the body
   keeps its own range (a guard on its statements). The new points hold what had no home:
   the statements after the loop (upper end: the value is finished on the diagonal) or the
   chain's start (lower end: ``s = B[i][j]`` at ``k == i``).
2. **Dataflow** (:mod:`.dataflow`): a read that sees the array from before the nest is an
   input like any other (TRMM's ``B[k][j]``, broadcast along ``i``); a read of the value an
   earlier outer iteration finished (TRISOLV's ``x[j]``) is taken where that iteration
   finishes it, the last point of its inner loop, and travels from there along the one loop
   axis that separates the two points (``x[j]`` down column ``j`` along ``i``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from polyjoule.frontends.localize.body import Chain
from polyjoule.frontends.localize.chains import _initial
from polyjoule.frontends.localize.dataflow import Finished, solve, source_of
from polyjoule.frontends.localize.exprs import (
    has_op,
    reads_in,
    render,
    scaled_product,
    split_accumulation,
)
from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.frontends.localize.inputs import body_input, point_input
from polyjoule.frontends.localize.phase import Phase
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Access, Loop, Nest, Stmt
from polyjoule.model.pra import PRA

Piece = list[Constraint]


@dataclass
class _Plan:
    """The closed nest, the body's own range in it, the accumulation and its statements."""

    closed: Nest
    original: Nest
    guard: Piece
    top: bool  # closed at the upper end: the finished value lives on the new points
    body: Stmt
    op: str
    inc: Any
    pre: Stmt | None
    post: list[Stmt]
    finished: dict[int, Finished]  # body read index -> the value it reads


def _closed_loop(nest: Nest, geo: Geometry) -> tuple[Loop, Piece, bool] | None:
    """The inner loop moved onto the diagonal at its coupled end (unchanged when it is
    never empty), the guard that keeps the original range, and whether the upper end moved."""
    lp = nest.loops[-1]
    outer = {x.name for x in nest.loops[:-1]}
    x = Affine.of({lp.name: 1})
    if geo.inner_never_empty(len(nest.loops) - 1):
        return lp, [], False
    low, up = bool(lp.lower.names() & outer), bool(lp.upper.names() & outer)
    if low == up:
        return None
    if up:
        return replace(lp, upper=lp.upper.shift(1)), [Constraint(lp.upper - x)], True
    return replace(lp, lower=lp.lower.shift(-1)), [Constraint(x - lp.lower)], False


def _shape(nest: Nest) -> tuple[Stmt, str, Any, Stmt | None, list[Stmt]] | None:
    """One accumulation along the inner loop into an element that names every outer loop once
    (``x[i]``, ``x[N - 1 - i]``), with statements on it before (at most one) and after it."""
    n = len(nest.loops)
    body = [s for s in nest.stmts if s.position == "body"]
    if n < 2 or len(body) != 1 or body[0].depth != n:
        return None
    s = body[0]
    acc = split_accumulation(s)
    outer = [lp.name for lp in nest.loops[:-1]]
    q = solve(s.target, s.target, outer)  # one outer index per subscript, each once
    if acc is None or q is None or sorted(q) != sorted(outer) \
            or any(x.coeffs.get(nest.loops[-1].name) for x in s.target.index):
        return None
    around = [t for t in nest.stmts if t.position != "body"]
    if any(t.depth != n - 1 or t.target.key != s.target.key for t in around):
        return None
    pre = [t for t in around if t.position == "pre"]
    if len(pre) > 1 or any(reads_in(t.expr) and _writes_other(nest, t) for t in around):
        return None
    return s, acc[0], acc[1], (pre[0] if pre else None), [t for t in around if t not in pre]


def _writes_other(nest: Nest, t: Stmt) -> bool:
    """Does a statement around the loop read an element of a written array other than its
    own target?"""
    written = {x.target.tensor for x in nest.stmts}
    return any(r.tensor in written and r.key != t.target.key for r in t.reads)


def plan(nest: Nest) -> _Plan | None:
    """How the nest closes, or None when these rules do not apply."""
    shape = _shape(nest)
    if shape is None:
        return None
    body, op, inc, pre, post = shape
    geo = Geometry(nest)
    closing = _closed_loop(nest, geo)
    if closing is None:
        return None
    loop, guard, top = closing
    closed = replace(nest, loops=(*nest.loops[:-1], loop))
    cgeo = Geometry(closed)
    if not cgeo.inner_never_empty(len(nest.loops) - 1) or len(cgeo.last(loop.name)) != 1:
        return None
    finished: dict[int, Finished] = {}
    for k in reads_in(inc):
        r = body.reads[k]
        if r.key == body.target.key:
            return None
        src = source_of(nest, geo, r)
        if src is None:
            return None
        if isinstance(src, Finished):
            if _axis(closed, geo, src) is None:
                return None
            finished[k] = src
    return _Plan(closed, nest, guard, top, body, op, inc, pre, post, finished)


def _finish_point(closed: Nest, src: Finished) -> dict[str, Affine]:
    """The point of the closed domain where the outer iteration ``src.at`` finishes."""
    q = {lp.name: src.at[lp.name] for lp in closed.loops[:-1]}
    inner = closed.loops[-1]
    q[inner.name] = inner.upper.substitute(q)
    return q


def _axis(closed: Nest, geo: Geometry, src: Finished) -> tuple[str, Affine] | None:
    """The one loop axis ``b`` along which a finished value travels from where it is
    finished to the reads, and the distance ``t(p) >= 1``; None when there is none."""
    if any(lp.name not in src.at for lp in closed.loops[:-1]):
        return None
    q = _finish_point(closed, src)
    apart = {d: Affine.of({d: 1}) - q[d] for d in q}
    moved = [d for d, t in apart.items() if t.terms or t.const]
    if len(moved) != 1 or apart[moved[0]].coeffs.get(moved[0]) != 1:
        return None
    b, t = moved[0], apart[moved[0]]
    if not geo.empty([Constraint((-t).shift(0))]):  # t >= 1 everywhere
        return None
    for c in Geometry(closed).domain():  # the finishing point lies in the closed domain
        if not geo.empty([Constraint((-c.expr.substitute(q)).shift(-1))]):
            return None
    for c in geo.domain():  # the path from it stays inside the body's range
        back = c.expr.substitute({b: Affine.of({b: 1}, -1)})
        if not geo.empty([Constraint(t.shift(-2)), Constraint((-back).shift(-1))]):
            return None
    return b, t


class _ClosedPhase(Phase):
    """A phase over the closed domain whose body statements keep the original range."""

    def __init__(self, p: _Plan):
        super().__init__(p.closed)
        self.closed_geo, self.body_geo = self.geo, Geometry(p.original)
        self.guard: Piece = []
        self.plan = p

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


def _finished_input(ph: _ClosedPhase, a: Access, src: Finished, producer: str) -> str:
    """``x = producer[p - e_b]`` one step from the finishing point, ``x = x[p - e_b]`` on."""
    found = _axis(ph.plan.closed, ph.body_geo, src)
    assert found is not None  # checked by plan()
    b, t = found
    var = ph.fresh(a.tensor)
    ph.vars[a.key] = var
    ph.transport(var, producer, [Constraint(t.shift(-1), eq=True)], ph.geo.unit(b))
    far = [Constraint(t.shift(-2))]
    if not ph.geo.empty(far):
        ph.transport(var, var, far, ph.geo.unit(b))
    return var


def _increment(ph: _ClosedPhase, producer: str) -> str:
    """The body's operands and its product, once per point of the original range."""
    p = ph.plan
    names: dict[int, str] = {}
    with ph.body():
        for k in reads_in(p.inc):
            r = p.body.reads[k]
            src = p.finished.get(k)
            names[k] = _finished_input(ph, r, src, producer) if src else body_input(ph, r)
        prod, scale = scaled_product(p.inc)
        text = render(prod, names)
        if has_op(prod):
            var = ph.fresh(p.body.target.tensor + "_p")
            ph.compute(var, text)
            text = var
    return f"{scale} * {text}" if scale else text


def _chain(ph: _ClosedPhase, inc: str, acc: str) -> list[tuple[Piece, str]]:
    """Start, transport and update of the accumulation ``acc``; returns where the finished
    value is and its text (piecewise)."""
    p, geo = ph.plan, ph.closed_geo
    r = ph.dims[-1]
    ch = Chain(p.body, [r], p.op, inc)
    outside = [Constraint((-c.expr).shift(-1)) for c in p.guard]
    empty_finish: list[tuple[Piece, str]] = []
    for piece in geo.first(r):
        first = _initial(ph, ch, p.pre, tuple(piece))
        start = [*piece, *p.guard]
        if not geo.empty(start):
            neg = inc if p.op == "+" else (f"-{inc}" if " " not in inc else f"-({inc})")
            ph.compute(acc, f"{first} {p.op} {inc}" if first else neg, start)
        if p.guard and not geo.empty([*piece, *outside]):
            if p.top:  # no body point: the value is finished as it starts
                empty_finish.append(([*piece, *outside], first or "0.0"))
            else:
                ph.compute(acc, first or "0.0", [*piece, *outside])
    prev = ph.fresh(p.body.target.tensor + "_in")
    ph.transport(prev, acc, geo.after_first(r), geo.unit(r))
    ph.compute(acc, f"{prev} {p.op} {inc}", [*geo.after_first(r), *p.guard])
    last = geo.last(r)[0]
    if p.top:
        return [*empty_finish, ([*geo.after_first(r), *last], prev)]
    return [(last, acc)]


def _post(ph: _ClosedPhase, s: Stmt, value: list[tuple[Piece, str]], var: str) -> None:
    """A statement after the loop, at the finishing points, from the finished value."""
    last = tuple(ph.closed_geo.last(ph.dims[-1])[0])
    for piece, text in value:
        names = {k: text if s.reads[k].key == s.target.key else point_input(ph, s.reads[k], last)
                 for k in reads_in(s.expr)}
        rhs = render(s.expr, names)
        if s.op != "=":
            rhs = f"{text} {s.op[0]} ({rhs})" if has_op(s.expr) else f"{text} {s.op[0]} {rhs}"
        ph.compute(var, rhs, piece)


def localize_closed(nest: Nest, name: str) -> PRA | None:
    """The uniform PRA of a nest these rules close, or None when they do not apply."""
    p = plan(nest)
    if p is None:
        return None
    ph = _ClosedPhase(p)
    tensor = p.body.target.tensor
    acc = ph.fresh(tensor + "_acc")
    producer = ph.fresh(tensor + "_fin") if p.post or p.top else acc
    value = _chain(ph, _increment(ph, producer), acc)
    for k, s in enumerate(p.post):
        var = producer if k == len(p.post) - 1 else ph.fresh(tensor + "_out")
        _post(ph, s, value, var)
        value = [(list(ph.closed_geo.last(ph.dims[-1])[0]), var)]
    if not p.post and p.top:
        for piece, text in value:
            ph.compute(producer, text, piece)
    if tensor not in nest.temporaries:
        ph.tensor(p.body.target, "output")
        ph.output(producer, p.body.target, ph.closed_geo.last(ph.dims[-1])[0])
    return ph.pra(name)
