"""Localisation of an in-place closure on rotated pivot steps (:mod:`polyjoule.frontends.crotate`).

Point ``(k, i, j)`` holds element ``((i + k) mod N, (j + k) mod N)``: the pivot column is
``j == 0``, the pivot row ``i == 0``, the pivot element ``(0, 0)``. Variables:

- ``v``: the element as it entered step ``k``; from DRAM at ``k == 0``, else from step
  ``k - 1`` one row and one column on, ``(1, -1, -1)``. What wraps around is the pivot row or
  column of step ``k - 1`` as that step left it, brought to the last row (column) by ``rn``
  (``cn``) and to the last point by ``dn`` (the pivot element along the last row).
- ``w``: the statement's result.
- ``cn``, ``rn``: the pivot column (row) as the step's write left it, along ``j`` (``i``) from
  the pivot; C reads it after the pivot (``j > k``: ``j' + k <= N - 1``).
- ``co``, ``ro``: the pivot column (row) as it entered the step; C reads it before the pivot
  (``j < k``: ``j' + k >= N``), from step 1 on.

The result leaves for DRAM at the last step, the rotation undone in four pieces.
"""

from __future__ import annotations

from polyjoule.frontends.localize.phase import Phase
from polyjoule.frontends.localize.pivots import step_text
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Access, Nest
from polyjoule.model.pra import PRA


def _c(terms: dict[str, int], const: int = 0, eq: bool = False) -> Constraint:
    return Constraint(Affine.of(terms, const), eq)


class _Rotated:
    def __init__(self, nest: Nest):
        self.ph = Phase(nest)
        self.st = nest.stmts[0]
        self.k, self.i, self.j = self.ph.dims
        self.top = nest.loops[0].upper  # N - 1
        t = self.st.target.tensor
        self.t = t
        names = {"v": t, "w": f"{t}_new", "cn": f"{t}_col", "co": f"{t}_col_in",
                 "rn": f"{t}_row", "ro": f"{t}_row_in", "dn": f"{t}_pivot"}
        self.var = {k: self.ph.fresh(v) for k, v in names.items()}
        self.kinds = [str(x).split(":", 1)[1] for x in self.st.sources]

    def at(self, d: str, value: int | str) -> Constraint:
        """``d == value`` (an int, or ``"top"`` for the last index)."""
        if value == "top":
            return Constraint(self.top - Affine.of({d: 1}), eq=True)
        return _c({d: 1}, -int(value), eq=True)

    def below_top(self, d: str) -> Constraint:
        return Constraint(self.top - Affine.of({d: 1}, 1))

    def after_pivot(self, d: str) -> Constraint:  # d + k <= N - 1
        return Constraint(self.top - Affine.of({d: 1, self.k: 1}))

    def before_pivot(self, d: str) -> Constraint:  # d + k >= N
        return Constraint(Affine.of({d: 1, self.k: 1}, -1) - self.top)

    def leg(self, var: str, first: str, d: str, when: list[Constraint]) -> None:
        """``var`` along ``d`` from ``first`` at the pivot (``d == 0``)."""
        e = self.ph.geo.unit(d)
        self.ph.transport(var, first, [*when, self.at(d, 1)], e)
        self.ph.transport(var, var, [*when, _c({d: 1}, -2)], e)

    def entering(self) -> None:
        v, k, i, j = self.var["v"], self.k, self.i, self.j
        target = Access(self.t, (Affine.of({i: 1}), Affine.of({j: 1})))
        self.ph.tensor(target, "input")
        self.ph.inout(self.t)
        self.ph.input(v, target, [self.at(k, 0)])
        later = _c({k: 1}, -1)
        for src, dep, wi, wj in (("w", (1, -1, -1), self.below_top(i), self.below_top(j)),
                                 ("rn", (1, 0, -1), self.at(i, "top"), self.below_top(j)),
                                 ("cn", (1, -1, 0), self.below_top(i), self.at(j, "top")),
                                 ("dn", (1, 0, 0), self.at(i, "top"), self.at(j, "top"))):
            self.ph.transport(v, self.var[src], [later, wi, wj], dep)

    def legs(self) -> None:
        var, later = self.var, _c({self.k: 1}, -1)
        self.leg(var["cn"], var["w"], self.j, [])
        self.leg(var["rn"], var["w"], self.i, [])
        self.leg(var["dn"], var["rn"], self.j, [self.at(self.i, "top")])
        if "col" in self.kinds:
            self.leg(var["co"], var["v"], self.j, [later])
        if "row" in self.kinds:
            self.leg(var["ro"], var["v"], self.i, [later])

    def _options(self, kind: str) -> list[tuple[str, list[Constraint]]]:
        d, new, old = {"col": (self.j, "cn", "co"), "row": (self.i, "rn", "ro")}[kind]
        return [(self.var["v"], [self.at(d, 0)]),
                (self.var[new], [_c({d: 1}, -1), self.after_pivot(d)]),
                (self.var[old], [self.before_pivot(d)])]

    def computes(self) -> None:
        combos: list[tuple[dict[int, str], list[Constraint]]] = [({}, [])]
        for r, kind in enumerate(self.kinds):
            opts = [(self.var["v"], [])] if kind == "own" else self._options(kind)
            combos = [({**names, r: name}, [*when, *more]) for names, when in combos
                      for name, more in opts]
        for names, when in combos:
            if not self.ph.geo.empty(when):
                self.ph.compute(self.var["w"], step_text(self.st, self.var["v"], names), when)

    def outputs(self) -> None:
        i, j, last = self.i, self.j, self.at(self.k, "top")
        for wi, xi in ((_c({i: 1}, -1), Affine.of({i: 1}, -1)), (self.at(i, 0), self.top)):
            for wj, xj in ((_c({j: 1}, -1), Affine.of({j: 1}, -1)), (self.at(j, 0), self.top)):
                self.ph.output(self.var["w"], Access(self.t, (xi, xj)), [last, wi, wj])


def localize_rotated(nest: Nest, name: str) -> PRA:
    """The uniform PRA of a closure on rotated pivot steps (see the module doc)."""
    em = _Rotated(nest)
    em.entering()
    em.legs()
    em.computes()
    em.outputs()
    return em.ph.pra(name)
