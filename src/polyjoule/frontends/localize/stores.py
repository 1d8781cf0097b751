"""Stores: a statement around the inner loops that no other statement of the nest meets.

CORRELATION sets its diagonal before the loop that fills the rest (``corr[i][i] = 1.0``
ahead of ``for (j = i + 1; ...)``) and its last diagonal element after every loop
(``corr[M-1][M-1] = 1.0``, a 0-dim statement the C front end appends to the nest before it,
:mod:`polyjoule.frontends.cplace`). Neither is a chain's start or end: no read of the nest
ever names the element it writes (isl), it reads no array the nest writes, and no other
statement writes its element. Its value then depends on nothing the nest computes and
nothing the nest computes depends on it, so it may live at any one point of its iteration:
a store before the inner loops lives where they start, one after them where they end (the
0-dim one at the nest's last point). There its operands are read from DRAM, it is computed
and leaves for DRAM. Its subscripts need not be distinct loop indices (``corr[i][i]``,
``corr[M - 1][M - 1]``): it is written once per iteration, the element read by nobody here.
"""

from __future__ import annotations

from dataclasses import replace

from polyjoule.frontends.localize.dataflow import meets
from polyjoule.frontends.localize.exprs import reads_in, render
from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.frontends.localize.inputs import point_input
from polyjoule.frontends.localize.phase import Phase
from polyjoule.model.affine import Constraint
from polyjoule.model.nest import Nest, Stmt


def _place(geo: Geometry, s: Stmt) -> tuple[Constraint, ...] | None:
    """Where the inner loops start (a store before them) or end (after): one face only."""
    pieces = geo.combos(geo.dims[s.depth:], "first" if s.position == "pre" else "last")
    return tuple(pieces[0]) if len(pieces) == 1 else None


def _is_store(nest: Nest, geo: Geometry, s: Stmt) -> bool:
    if s.op != "=" or s.position == "body" or not geo.inner_never_empty(s.depth) \
            or _place(geo, s) is None:
        return False
    others = [t for t in nest.stmts if t is not s]
    written = {t.target.tensor for t in others}
    if any(r.tensor in written or r.tensor == s.target.tensor for r in s.reads):
        return False
    return not any(meets(nest, a, s) for t in others for a in (t.target, *t.reads))


def split_stores(nest: Nest) -> tuple[Nest, list[Stmt]]:
    """The nest without its stores, and the stores (see the module doc)."""
    if all(s.position == "body" for s in nest.stmts):
        return nest, []
    geo = Geometry(nest)
    stores = [s for s in nest.stmts if _is_store(nest, geo, s)]
    if not stores or len(stores) == len(nest.stmts):
        return nest, []
    rest = tuple(s for s in nest.stmts if not any(s is x for x in stores))
    return replace(nest, stmts=rest), stores


def localize_stores(ph: Phase, stores: list[Stmt]) -> None:
    """Each store at one point of its iteration: operands from DRAM, the value, the write."""
    for s in stores:
        when = _place(ph.geo, s)
        assert when is not None  # split_stores checked it on the same loops
        names = {k: point_input(ph, s.reads[k], when) for k in reads_in(s.expr)}
        value = render(s.expr, names)
        var = ph.fresh(s.target.tensor + "_v")
        ph.compute(var, value, when)
        ph.tensor(s.target, "output")
        ph.output(var, s.target, when)
