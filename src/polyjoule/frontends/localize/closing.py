"""Which nests :mod:`.closed` localises, and how: the plan.

The nest is one chain of loops whose inner loop ``r`` holds accumulations, with statements
before it (initialisations) and after it (at the outer loops' depth). Each accumulation is
either an **inner chain** along ``r`` into an element that names every outer loop once
(TRISOLV's ``x[i]``, SYMM's expanded ``temp2[i][j]``) or a **carried chain**: it keeps
adding, at later outer iterations, to an element a statement after the loop finished
earlier (SYMM's ``C[k][j] += ...`` at ``i > k`` continues ``C[k][j]``, set after the
``k`` loop of iteration ``i = k``); the value travels along the one outer loop that
separates the two points. Reads of arrays the nest writes are settled by
:mod:`.dataflow`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from polyjoule.frontends.localize.dataflow import INPUT, Finished, solve, source_of
from polyjoule.frontends.localize.exprs import reads_in, split_accumulation
from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Loop, Nest, Stmt

Piece = list[Constraint]


@dataclass
class Inner:
    """An accumulation along the inner loop; ``pre`` initialises it."""

    stmt: Stmt
    op: str
    inc: Any
    pre: Stmt | None


@dataclass
class Carried:
    """An accumulation that continues, along ``axis``, the value ``src`` finished."""

    stmt: Stmt
    op: str
    inc: Any
    src: Finished
    axis: str


@dataclass
class ClosingPlan:
    """The closed nest, the body's own range in it (``guard``), its chains and statements
    after the loop, and the finished values the body reads (by statement and read)."""

    closed: Nest
    original: Nest
    guard: Piece
    top: bool  # closed at the upper end: the finished values live on the new points
    inner: list[Inner]
    carried: list[Carried]
    post: list[Stmt]
    finished: dict[tuple[int, int], Finished]


def closed_loop(nest: Nest, geo: Geometry) -> tuple[Loop, Piece, bool] | None:
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


def names_outer(nest: Nest, s: Stmt) -> bool:
    """Does ``s`` write an element that names every outer loop once, and not the inner?"""
    outer = [lp.name for lp in nest.loops[:-1]]
    q = solve(s.target, s.target, outer)
    return q is not None and sorted(q) == sorted(outer) \
        and not any(x.coeffs.get(nest.loops[-1].name) for x in s.target.index)


def finish_point(closed: Nest, src: Finished) -> dict[str, Affine]:
    """The point of the closed domain where the outer iteration ``src.at`` finishes."""
    q = {lp.name: src.at[lp.name] for lp in closed.loops[:-1]}
    inner = closed.loops[-1]
    q[inner.name] = inner.upper.substitute(q)
    return q


def axis(closed: Nest, geo: Geometry, src: Finished) -> tuple[str, Affine] | None:
    """The one loop axis ``b`` along which a finished value travels from where it is
    finished to the body points of ``geo``, and the distance ``t(p) >= 1``; None when there
    is none."""
    if any(lp.name not in src.at for lp in closed.loops[:-1]):
        return None
    q = finish_point(closed, src)
    apart = {d: Affine.of({d: 1}) - q[d] for d in q}
    moved = [d for d, t in apart.items() if t.terms or t.const]
    if len(moved) != 1 or apart[moved[0]].coeffs.get(moved[0]) != 1:
        return None
    b, t = moved[0], apart[moved[0]]
    if not geo.empty([Constraint(-t)]):  # t >= 1 everywhere
        return None
    for c in Geometry(closed).domain():  # the finishing point lies in the closed domain
        if not geo.empty([Constraint((-c.expr.substitute(q)).shift(-1))]):
            return None
    for c in geo.domain():  # the path from it stays inside the body's range
        back = c.expr.substitute({b: Affine.of({b: 1}, -1)})
        if not geo.empty([Constraint(t.shift(-2)), Constraint((-back).shift(-1))]):
            return None
    return b, t


def _around(nest: Nest, inner: list[Inner]) -> list[Stmt] | None:
    """Attach each statement before the loop to its chain; the ones after it, or None."""
    n = len(nest.loops)
    keys = {c.stmt.target.key: c for c in inner}
    post = []
    for t in (t for t in nest.stmts if t.position != "body"):
        if t.depth != n - 1 or not names_outer(nest, t):
            return None
        if t.position == "post":
            post.append(t)
        elif t.target.key not in keys or keys[t.target.key].pre is not None:
            return None
        else:
            keys[t.target.key].pre = t
    return post


def _body(nest: Nest, closed: Nest, geo: Geometry
          ) -> tuple[list[Inner], list[Carried], dict[tuple[int, int], Finished]] | None:
    """The body's chains and the finished values its increments read."""
    inner: list[Inner] = []
    carried: list[Carried] = []
    finished: dict[tuple[int, int], Finished] = {}
    for m, s in enumerate(t for t in nest.stmts if t.position == "body"):
        acc = split_accumulation(s)
        if s.depth != len(nest.loops) or acc is None:
            return None
        if names_outer(nest, s):
            inner.append(Inner(s, acc[0], acc[1], None))
        else:
            src = source_of(nest, geo, s.target, reader=s)
            way = axis(closed, geo, src) if isinstance(src, Finished) else None
            if way is None or not _along(nest, s, way[0]):
                return None
            carried.append(Carried(s, acc[0], acc[1], src, way[0]))  # type: ignore[arg-type]
        for k in reads_in(acc[1]):
            r = s.reads[k]
            src = source_of(nest, geo, r)
            if r.key == s.target.key or src is None:
                return None
            if isinstance(src, Finished):
                if axis(closed, geo, src) is None:
                    return None
                finished[(m, k)] = src
    return inner, carried, finished


def _along(nest: Nest, s: Stmt, axis_name: str) -> bool:
    """Does the element ``s`` accumulates into name every loop but ``axis_name``, once?"""
    others = [lp.name for lp in nest.loops if lp.name != axis_name]
    q = solve(s.target, s.target, others)
    return q is not None and sorted(q) == sorted(others) \
        and not any(x.coeffs.get(axis_name) for x in s.target.index)


def _around_reads_settled(nest: Nest, p: ClosingPlan) -> bool:
    """Every read before or after the loop: a chain's value (after it), its own element
    from before the nest, or an array the nest does not write."""
    chains = {c.stmt.target.key for c in p.inner}
    geo = Geometry(p.closed)
    pre = [c.pre for c in p.inner if c.pre is not None]
    for s in [*pre, *p.post]:
        for r in s.reads:
            if (r.key in chains and s.position == "post") \
                    or not any(t.target.tensor == r.tensor for t in nest.stmts):
                continue
            if r.key != s.target.key or source_of(nest, geo, r, reader=s) != INPUT:
                return False
    return True


def plan(nest: Nest) -> ClosingPlan | None:
    """How the nest closes, or None when these rules do not apply."""
    if len(nest.loops) < 2:
        return None
    geo = Geometry(nest)
    closing = closed_loop(nest, geo)
    if closing is None:
        return None
    loop, guard, top = closing
    closed = replace(nest, loops=(*nest.loops[:-1], loop))
    cgeo = Geometry(closed)
    if not cgeo.inner_never_empty(len(nest.loops) - 1) or len(cgeo.last(loop.name)) != 1:
        return None
    body = _body(nest, closed, geo)
    if body is None or not body[0]:
        return None
    inner, carried, finished = body
    post = _around(nest, inner)
    if post is None:
        return None
    p = ClosingPlan(closed, nest, guard, top, inner, carried, post, finished)
    return p if _around_reads_settled(nest, p) else None
