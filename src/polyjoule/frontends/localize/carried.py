"""Values carried along a loop (DERICHE's filter states, :class:`~polyjoule.model.nest.Carry`,
made by :mod:`polyjoule.frontends.ccarry`): a read of ``ym1__prev[i][j]`` is the value the
body gave ``ym1[i][j]`` one step before along ``j``, a transport of distance 1 from that
statement's variable, and at the first point along ``j`` the value set before the loop (a
compute of numbers). A state set from another state's earlier value (``ym2 = ym1``) chains
two transports: ``y1[i][j - 2]`` reaches ``(i, j)`` through ``(i, j - 1)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from polyjoule.errors import NotUniformError
from polyjoule.frontends.localize.exprs import render
from polyjoule.frontends.localize.phase import Phase
from polyjoule.model.nest import Access

if TYPE_CHECKING:
    from polyjoule.frontends.localize.body import Body


def carried_var(ph: Phase, body: Body, r: Access) -> str:
    """The variable of a read of a carried value (emitted by :func:`localize_carried`)."""
    if r.key not in body.carried:
        body.carried[r.key] = ph.fresh(ph.nest.carried[r.tensor].state)
    return body.carried[r.key]


def localize_carried(ph: Phase, body: Body) -> None:
    """Each carried value: a transport from its state's variable one step before, and the
    value set before the loop where that step leaves the domain."""
    for (tensor, index), var in body.carried.items():
        c = ph.nest.carried[tensor]
        src = body.pointwise.get((c.state, index))
        if src is None or not src.isidentifier():
            raise NotUniformError(f"{ph.nest.name}: the state {c.state} carried along {c.dim} "
                                  f"is not set by a statement of the loop body at the "
                                  f"subscripts it is read at")
        ph.transport(var, src, ph.geo.after_first(c.dim), ph.geo.unit(c.dim))
        for piece in ph.geo.first(c.dim):
            ph.compute(var, render(c.init, {}), piece)
