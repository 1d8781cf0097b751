"""Copies folded into the definition they copy.

A statement after a loop that only stores one value into another (LUDCMP's forward
substitution ``y[i] = w``: unit diagonal, no division) localises as a compute ``y_fin = w_in``
with no operation. Where the copied value is an input or a transport there, the copy *is*
that input or transport under the new name: ``y_fin`` takes it directly (``y_fin[i] =
w_acc[i, j - 1]`` on the diagonal, ``y_fin[i] = b[i]`` at ``i == 0``), and the copied
variable's own definition is kept only where something still reads it (``b`` at ``i == 0``
had no other reader). The values are the same at every point, with one register move fewer.
A copy of a computed value stays a copy (folding it would compute twice). Only the copies
the C program writes are folded: the start of a chain (TRMM's ``s = B[i][j]`` at
``k == i``) stays the register move the built-ins count.
"""

from __future__ import annotations

import re
from dataclasses import replace

from polyjoule.frontends.cflow import FlowSpace, ISet
from polyjoule.frontends.localize.phase import Phase
from polyjoule.frontends.pra_dump import transport_text
from polyjoule.model.affine import Constraint
from polyjoule.model.pra import Statement

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _rhs(s: Statement) -> str:
    return s.text.split(" = ", 1)[1]


def _copied(s: Statement, written: set[str]) -> str | None:
    """The variable a compute only copies, else None."""
    rhs = _rhs(s).strip()
    if s.kind != "compute" or not _NAME.fullmatch(rhs) or rhs not in written or rhs == s.var:
        return None
    return rhs


def _renamed(d: Statement, var: str, when: tuple[Constraint, ...], dims: tuple[str, ...]
             ) -> Statement:
    """Definition ``d`` writing ``var`` instead, on ``when``."""
    if d.kind == "transport":
        assert d.source is not None and d.dep is not None
        return replace(d, var=var, when=when, text=transport_text(var, d.source, dims, d.dep))
    return replace(d, var=var, when=when, text=f"{var}[i] = {_rhs(d)}")


def _fold_one(ph: Phase, into: set[str]) -> str | None:
    """Fold the first foldable copy into a variable of ``into``; the copied variable, or
    None when none is left."""
    written = {s.var for s in ph.out if s.kind != "output"}
    for n, c in enumerate(ph.out):
        u = _copied(c, written)
        if u is None or c.var not in into:
            continue
        defs = [d for d in ph.out if d.var == u and d.kind != "output"
                and not ph.geo.empty([*c.when, *d.when])]
        if not defs or any(d.kind not in ("input", "transport") for d in defs):
            continue
        new = [_renamed(d, c.var, ph._when([*c.when, *d.when]), tuple(ph.dims)) for d in defs]
        ph.out[n:n + 1] = new
        return u
    return None


class _Regions:
    """Statement regions as integer sets over the phase's domain."""

    def __init__(self, ph: Phase):
        self.ph = ph
        self.sp = FlowSpace(tuple(ph.nest.params), tuple(ph.dims))

    def of(self, when: tuple[Constraint, ...]) -> ISet:
        return self.sp.set([*self.ph.geo.domain(), *when])

    def read(self, s: Statement, u: str) -> ISet:
        """Where statement ``s`` reads ``u`` (a transport at its source point)."""
        if s.kind == "transport" and s.source == u:
            out = self.of(s.when)
            for d, by in zip(self.ph.dims, s.dep or (), strict=False):
                out = self.sp.shift(out, d, -by) if by else out
            return out
        if s.kind == "output" and s.var == u:
            return self.of(s.when)
        if s.kind == "compute" and u in _NAME.findall(_rhs(s)):
            return self.of(s.when)
        return self.sp.nothing()


def _keep_live(ph: Phase, u: str) -> None:
    """Restrict the definitions of ``u`` to where something reads it."""
    reg = _Regions(ph)
    live = reg.sp.nothing()
    for s in ph.out:
        live = live.union(reg.read(s, u))
    out: list[Statement] = []
    for s in ph.out:
        if s.var != u or s.kind == "output":
            out.append(s)
            continue
        mine = reg.of(s.when)
        if mine.is_subset(live):
            out.append(s)
            continue
        out += [replace(s, when=ph._when(piece)) for piece in reg.sp.pieces(mine.intersect(live))]
    ph.out[:] = out


def fold_copies(ph: Phase, into: set[str]) -> None:
    """Fold, in place, every copy of an input or a transport into a variable of ``into``
    (the statements of the C program) into its definition (see the module doc); statement
    ids are renumbered."""
    touched: list[str] = []
    while (u := _fold_one(ph, into)) is not None:
        touched.append(u)
    for u in dict.fromkeys(touched):
        _keep_live(ph, u)
    ph.out[:] = [replace(s, id=f"S{k + 1}") for k, s in enumerate(ph.out)]
