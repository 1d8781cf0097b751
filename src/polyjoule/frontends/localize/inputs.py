"""Pass 3: input statements. A value is read from DRAM once per phase and propagated.

An operand ``X[g]`` that does not depend on some loop indices (a broadcast) enters at the
first point along those indices and travels along them by transports ``x[i] = x[i - e_b]``.
An operand reused along one direction that is not a loop axis (``x[i + k]`` of a 1-D
convolution: the same element at ``(i, k)`` and ``(i + 1, k - 1)``) travels along that
direction ``d`` (made lexicographically positive): it enters where ``p - d`` leaves the
domain and is passed by ``x[i] = x[i - d]`` elsewhere.
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
    bcast = [d for d in ph.dims if d not in used]
    if not reuse_is_axial(rows, used):
        direction = _reuse_direction(rows, used, ph.dims)
        if direction is None or bcast:
            how = "and along loop axes" if direction else "in several such directions"
            raise NotUniformError(
                f"{a.where}: {a}: the same element is reused along a direction that is not a "
                f"loop axis {how}, so it cannot be propagated by one constant dependence"
            )
        return _diagonal_input(ph, a, direction)
    var = ph.fresh(a.tensor)
    ph.vars[a.key] = var
    ph.tensor(a, "input")
    for piece in ph.geo.combos(bcast, "first"):
        ph.input(var, a, piece)
    for r, b in enumerate(bcast):
        for piece in ph.geo.combos(bcast[r + 1:], "first"):
            when = ph.geo.after_first(b) + piece
            if not ph.geo.empty(when):
                ph.transport(var, var, when, ph.geo.unit(b))
    return var


def _reuse_direction(rows: list[list[int]], used: list[str],
                     dims: list[str]) -> tuple[int, ...] | None:
    """The one direction (over all dims, lexicographically positive, primitive) along which
    the subscripts stay constant, or None when there are several."""
    import sympy

    null = sympy.Matrix(rows).nullspace()
    if len(null) != 1:
        return None
    v = null[0]
    scale = sympy.ilcm(*[sympy.fraction(x)[1] for x in v])
    ints = [int(x * scale) for x in v]
    g = sympy.igcd(*ints)
    ints = [x // g for x in ints]
    if next(x for x in ints if x) < 0:
        ints = [-x for x in ints]
    by = dict(zip(used, ints, strict=True))
    return tuple(by.get(d, 0) for d in dims)


def _diagonal_input(ph: Phase, a: Access, d: tuple[int, ...]) -> str:
    """Enter where ``p - d`` leaves the domain (disjoint pieces), travel along ``d``."""
    var = ph.fresh(a.tensor)
    ph.vars[a.key] = var
    ph.tensor(a, "input")
    faces = []
    for c in ph.geo.domain():  # p - d violates c (expr >= 0) iff expr <= step - 1
        step = sum(c.expr.coeffs.get(n, 0) * x for n, x in zip(ph.dims, d, strict=True))
        if step > 0:
            faces.append((c, step))
    for k, (c, step) in enumerate(faces):
        piece = [Constraint(c.expr, eq=True) if step == 1 else Constraint((-c.expr).shift(step - 1))]
        piece += [Constraint(e.expr.shift(-s)) for e, s in faces[:k]]
        if not ph.geo.empty(piece):
            ph.input(var, a, piece)
    inside = [Constraint(c.expr.shift(-step)) for c, step in faces]
    if not ph.geo.empty(inside):
        ph.transport(var, var, inside, d)
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
