"""Pass 3: input statements. A value is read from DRAM once per phase and propagated.

An operand ``X[g]`` that does not depend on some loop indices (a broadcast) enters at the
first point along those indices and travels along them by transports ``x[i] = x[i - e_b]``.
"""

from __future__ import annotations

from polyjoule.errors import NotUniformError
from polyjoule.frontends.localize.phase import Phase
from polyjoule.frontends.localize.uniform import reuse_is_axial
from polyjoule.model.affine import Constraint
from polyjoule.model.nest import Access


def body_input(ph: Phase, a: Access) -> str:
    """A body read of an input tensor: localised once, propagated along its broadcasts."""
    if a.key in ph.vars:
        return ph.vars[a.key]
    used = [d for d in ph.dims if any(d in x.names() for x in a.index)]
    rows = [[x.coeffs.get(d, 0) for d in used] for x in a.index]
    if not reuse_is_axial(rows, used):
        raise NotUniformError(
            f"{a.where}: {a}: the same element is reused along a direction that is not a "
            f"loop axis, so it cannot be propagated by a constant dependence"
        )
    var = ph.fresh(a.tensor)
    ph.vars[a.key] = var
    ph.tensor(a, "input")
    bcast = [d for d in ph.dims if d not in used]
    for piece in ph.geo.combos(bcast, "first"):
        ph.input(var, a, piece)
    for r, b in enumerate(bcast):
        for piece in ph.geo.combos(bcast[r + 1:], "first"):
            when = ph.geo.after_first(b) + piece
            if not ph.geo.empty(when):
                ph.transport(var, var, when, ph.geo.unit(b))
    return var


def point_input(ph: Phase, a: Access, when: tuple[Constraint, ...]) -> str:
    """A read at one boundary point set (pre/post statements): straight from DRAM."""
    if a.key in ph.vars:
        return ph.vars[a.key]
    key = (a.key, when)
    if key not in ph.point_vars:
        var = ph.fresh(a.tensor)
        ph.point_vars[key] = var
        ph.tensor(a, "input")
        ph.input(var, a, list(when))
    return ph.point_vars[key]
