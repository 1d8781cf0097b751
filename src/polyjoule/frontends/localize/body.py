"""Pass 4a: the innermost statements. Pointwise ones become computes; an accumulation
``T[f] += E`` over the loops missing from ``f`` becomes a chain (see :mod:`.chains`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from polyjoule.errors import NotUniformError, SpecError
from polyjoule.frontends.localize.carried import carried_var, localize_carried
from polyjoule.frontends.localize.exprs import (
    has_op,
    reads_in,
    render,
    scaled_product,
    split_accumulation,
)
from polyjoule.frontends.localize.inputs import body_input
from polyjoule.frontends.localize.phase import Phase
from polyjoule.frontends.localize.uniform import written_dim
from polyjoule.model.affine import Affine
from polyjoule.model.nest import Stmt

Key = tuple[str, tuple[Affine, ...]]


@dataclass
class Chain:
    """An accumulation along ``dims`` (innermost last): ``op`` adds ``inc`` at each point;
    ``var`` names the running value once :func:`.chains.localize_chains` has emitted it."""

    stmt: Stmt
    dims: list[str]
    op: str
    inc: str
    var: str = ""


@dataclass
class Body:
    """What the body statements produced: chains and pointwise values, by target."""

    chains: dict[Key, Chain]
    pointwise: dict[Key, str]
    carried: dict[Key, str] = field(default_factory=dict)  # reads of carried values


def _reduced(ph: Phase, s: Stmt) -> list[str]:
    """The loops a body statement's target does not depend on (its reduction loops)."""
    tdims = [written_dim(x, ph.dims) for x in s.target.index]
    return [d for d in ph.dims if d not in tdims]


def _check_reduction(ph: Phase, s: Stmt, red: list[str], acc: Any) -> None:
    if len(red) > 1:
        params = set(ph.nest.params)
        coupled = [lp.name for lp in ph.nest.loops
                   if (lp.name in red and not (lp.lower.names() | lp.upper.names()) <= params)
                   or ((lp.lower.names() | lp.upper.names()) & set(red))]
        if coupled:
            raise NotUniformError(
                f"{s.where}: {s.target} is reduced over {len(red)} loops ({', '.join(red)}) "
                f"whose bounds are coupled (loop {coupled[0]}); the front end nests partial "
                f"sums over rectangular reduction loops only"
            )
    if red and acc is None:
        raise NotUniformError(
            f"{s.where}: {s.target} does not depend on loop {red[0]} and is overwritten, not "
            f"accumulated, along it"
        )


def _operands(ph: Phase, s: Stmt, expr: Any, red: list[str], body: Body) -> dict[int, str]:
    """The variable of every read on a body statement's right-hand side."""
    names: dict[int, str] = {}
    for k in reads_in(expr):
        r = s.reads[k]
        if r.key == s.target.key:
            if red:
                raise NotUniformError(f"{r.where}: {r} is read again inside its own update")
            names[k] = body_input(ph, r)  # a pointwise update reads the old value
            ph.inout(r.tensor)
        elif r.key in body.pointwise:
            names[k] = body.pointwise[r.key]
        elif r.tensor in ph.nest.carried:
            names[k] = carried_var(ph, body, r)
        elif r.key in body.chains:
            raise NotUniformError(
                f"{r.where}: {r} reads a partial sum of a reduction in the same loop body"
            )
        elif any(t.target.tensor == r.tensor for t in ph.nest.stmts):
            raise NotUniformError(f"{r.where}: {r} is read before it is written in the body")
        else:
            names[k] = body_input(ph, r)
    return names


def _pointwise(ph: Phase, s: Stmt, op: str, expr: Any, names: dict[int, str]) -> str:
    """A statement without reduction: its value at each point (a compute when needed)."""
    if op != "=" or s.op in ("*=", "/="):
        c = body_input(ph, s.target)
        ph.inout(s.target.tensor)
        sym = {"+=": "+", "-=": "-", "*=": "*", "/=": "/"}.get(s.op, op)
        rhs = render(expr, names)
        var = ph.fresh(s.target.tensor + "_v")
        ph.compute(var, f"{c} {sym} ({rhs})" if has_op(expr) else f"{c} {sym} {rhs}")
        return var
    if has_op(expr):
        var = ph.fresh(s.target.tensor + "_v")
        ph.compute(var, render(expr, names))
        return var
    return render(expr, names)


def _chain(ph: Phase, s: Stmt, red: list[str], op: str, expr: Any,
           names: dict[int, str]) -> Chain:
    """The product of the array operands once per point; scalar factors stay in the chain."""
    prod, scale = scaled_product(expr)
    if has_op(prod):
        p = ph.fresh(s.target.tensor + "_p")
        ph.compute(p, render(prod, names))
    else:
        p = render(prod, names)
    return Chain(s, red, op, f"{scale} * {p}" if scale else p)


def localize_body(ph: Phase) -> Body:
    """Emit the innermost statements' computes; return their chains and pointwise values."""
    body = Body({}, {})
    for s in (t for t in ph.nest.stmts if t.position == "body"):
        if s.depth != len(ph.dims):
            raise SpecError(f"{s.where}: statement is not in the innermost loop")
        red = _reduced(ph, s)
        if s.target.key in body.chains or s.target.key in body.pointwise:
            raise NotUniformError(f"{s.where}: {s.target} is written by two statements")
        acc = split_accumulation(s)
        _check_reduction(ph, s, red, acc)
        op, expr = acc if acc is not None else ("=", s.expr)
        names = _operands(ph, s, expr, red, body)
        if red:
            body.chains[s.target.key] = _chain(ph, s, red, op, expr, names)
        else:
            body.pointwise[s.target.key] = _pointwise(ph, s, op, expr, names)
    localize_carried(ph, body)
    return body
