"""Pass 4b: propagation of accumulations. A chain along its reduction loop ``r`` starts at
the first point along ``r`` (from an initialisation, zero or the tensor's own value), is
passed along ``r`` by a transport and is finished at the last point. Over several loops,
partial sums run along the inner ones and finished ones are chained outwards."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from polyjoule.errors import NotUniformError
from polyjoule.frontends.localize.body import Chain, Key
from polyjoule.frontends.localize.exprs import has_op, reads_in, render
from polyjoule.frontends.localize.inputs import point_input
from polyjoule.frontends.localize.phase import Phase
from polyjoule.model.affine import Constraint
from polyjoule.model.nest import Stmt


def _inits(ph: Phase, chains: dict[Key, Chain]) -> dict[Key, Stmt]:
    """The statements before the inner loop, each initialising one chain."""
    inits: dict[Key, Stmt] = {}
    for s in (t for t in ph.nest.stmts if t.position == "pre"):
        if s.target.key not in chains:
            raise NotUniformError(
                f"{s.where}: {s.target} is set before the inner loop but not accumulated in it"
            )
        if s.target.key in inits:
            raise NotUniformError(f"{s.where}: {s.target} is initialised twice")
        inits[s.target.key] = s
    return inits


def _partial_sums(ph: Phase, ch: Chain) -> str:
    """Sum the increment over the inner reduction loops (innermost first); the increment
    of the outermost chain is then the finished partial sum."""
    inc, red = ch.inc, ch.dims
    for level in range(len(red) - 1, 0, -1):
        rl = red[level]
        region = ph.geo.combos(red[level + 1:], "last")[0]
        part = ph.fresh(ch.stmt.target.tensor + "_part")
        for piece in ph.geo.first(rl):
            ph.compute(part, inc, piece + region)
        prev = ph.fresh(ch.stmt.target.tensor + "_pin")
        ph.transport(prev, part, ph.geo.after_first(rl) + region, ph.geo.unit(rl))
        ph.compute(part, f"{prev} + {inc}", ph.geo.after_first(rl) + region)
        inc = part
    return inc


def _initial(ph: Phase, ch: Chain, init: Stmt | None, start: tuple[Constraint, ...]) -> str | None:
    """The chain's value before its first increment (``None``: zero)."""
    s = ch.stmt
    if init is not None and init.op == "=" and isinstance(init.expr, ast.Constant) \
            and init.expr.value == 0:
        return None
    if init is not None:
        names = {k: point_input(ph, init.reads[k], start) for k in reads_in(init.expr)}
        if init.op not in ("*=", "/=", "+=", "-="):
            return render(init.expr, names)
        c = point_input(ph, init.target, start)
        ph.inout(init.target.tensor)
        rhs = render(init.expr, names)
        return f"{c} {init.op[0]} ({rhs})" if has_op(init.expr) else f"{c} {init.op[0]} {rhs}"
    if s.target.tensor in ph.nest.zero_init:
        return None
    first = point_input(ph, s.target, start)
    ph.inout(s.target.tensor)
    return first


def _start(ph: Phase, ch: Chain, init: Stmt | None, inc: str,
           region: Sequence[Constraint]) -> None:
    for piece in ph.geo.first(ch.dims[0]):
        start = tuple(piece + list(region))
        first = _initial(ph, ch, init, start)
        if first is None:
            text = inc if ch.op == "+" else (f"-{inc}" if " " not in inc else f"-({inc})")
        else:
            text = f"{first} {ch.op} {inc}"
        ph.compute(ch.var, text, start)


def localize_chains(ph: Phase, chains: dict[Key, Chain]) -> None:
    """Emit every chain: its start, its transport along ``r`` and its update."""
    inits = _inits(ph, chains)
    for key, ch in chains.items():
        r = ch.dims[0]
        init = inits.get(key)
        if init is not None and r not in ph.dims[init.depth:]:
            raise NotUniformError(
                f"{init.where}: {init.target} is reset inside the loop {r} that accumulates it"
            )
        inc = _partial_sums(ph, ch)
        region = ph.geo.combos(ch.dims[1:], "last")[0]
        ch.var = ph.fresh(ch.stmt.target.tensor + "_acc")
        _start(ph, ch, init, inc, region)
        prev = ph.fresh(ch.stmt.target.tensor + "_in")
        ph.transport(prev, ch.var, ph.geo.after_first(r) + region, ph.geo.unit(r))
        ph.compute(ch.var, f"{prev} {ch.op} {inc}", ph.geo.after_first(r) + region)
