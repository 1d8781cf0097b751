"""The iteration domain of one nest and its boundaries: where a value enters or leaves.

"The first point along ``d``" is where ``p - e_d`` leaves the domain, split into disjoint
conjunctions for triangular nests; isl answers the emptiness questions
(:mod:`polyjoule.analysis._isl`, the one module that imports islpy).
"""

from __future__ import annotations

from collections.abc import Sequence

from polyjoule.analysis import _isl
from polyjoule.errors import NotUniformError
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Loop, Nest

Conj = list[Constraint]


def _scale(a: Affine, c: int) -> Affine:
    return Affine.of({k: v * c for k, v in a.terms}, a.const * c)


def _bounds(loops: Sequence[Loop]) -> list[Constraint]:
    out: list[Constraint] = []
    for lp in loops:
        x = Affine.of({lp.name: 1})
        out += [Constraint(x - lp.lower), Constraint(lp.upper - x)]
    return out


class Geometry:
    """Domain questions about one nest (parameters are at least 1)."""

    def __init__(self, nest: Nest):
        self.nest = nest
        self.dims = [lp.name for lp in nest.loops]
        self._params = tuple(nest.params)
        self._positive = tuple(f"{p} >= 1" for p in nest.params)

    def loop(self, name: str) -> Loop:
        """The loop of index ``name``."""
        return self.nest.loops[self.dims.index(name)]

    def domain(self) -> list[Constraint]:
        """The nest's loops as constraints ``lower <= i <= upper``."""
        return _bounds(self.nest.loops)

    def _texts(self, conds: Sequence[Constraint]) -> tuple[str, ...]:
        return (*self._positive, *(c.isl() for c in (*self.domain(), *conds)))

    def empty(self, conds: Sequence[Constraint]) -> bool:
        """Is ``domain and conds`` empty for every parameter value?"""
        return _isl.is_empty(self._params, tuple(self.dims), self._texts(conds))

    def inner_never_empty(self, depth: int) -> bool:
        """Does every point of the outer ``depth`` loops have at least one inner point?"""
        outer = (*self._positive, *(c.isl() for c in _bounds(self.nest.loops[:depth])))
        return _isl.projection_is(self._params, tuple(self.dims), self._texts([]), depth, outer)

    def prune(self, conds: Sequence[Constraint]) -> list[Constraint]:
        """Drop conditions that the domain and the other conditions already imply."""
        keep = list(dict.fromkeys(conds))
        for c in list(keep):
            if c.eq:
                continue
            rest = [x for x in keep if x is not c]
            if self.empty([*rest, Constraint((-c.expr).shift(-1))]):
                keep = rest
        return keep

    def _faces(self, d: str, sign: int) -> list[Constraint]:
        """The domain constraints that bound ``d`` from below (sign +1) or above (-1)."""
        out = []
        for c in self.domain():
            a = c.expr.coeffs.get(d, 0) * sign
            if a <= 0:
                continue
            if a != 1:
                raise NotUniformError(f"{self.loop(d).where}: loop bounds scale {d} by {a}: "
                                      f"not supported")
            out.append(c)
        return out

    def _boundary(self, d: str, sign: int) -> list[Conj]:
        """Disjoint pieces of the domain where ``p - sign * e_d`` leaves it (the first points
        along ``d`` for sign +1, the last ones for -1), each a conjunction."""
        faces = self._faces(d, sign)
        pieces: list[Conj] = []
        for k, c in enumerate(faces):
            piece = [Constraint(c.expr, eq=True)]
            piece += [Constraint(e.expr.shift(-1)) for e in faces[:k]]
            if not self.empty(piece):
                pieces.append(piece)
        if len(pieces) > 1:  # one equality may cover the union (syrk: i == 0 implies i == j)
            union = tuple(self._texts(pc) for pc in pieces)
            for c in faces:
                single = [Constraint(c.expr, eq=True)]
                if _isl.same_union(self._params, tuple(self.dims), (self._texts(single),), union):
                    return [single]
        return pieces

    def first(self, d: str) -> list[Conj]:
        """Where a value moving along ``d`` enters the domain."""
        return self._boundary(d, 1)

    def last(self, d: str) -> list[Conj]:
        """Where a value moving along ``d`` leaves the domain (a chain is finished)."""
        return self._boundary(d, -1)

    def after_first(self, d: str) -> list[Constraint]:
        """Where ``p - e_d`` stays in the domain (the region of a transport along ``d``)."""
        return [Constraint(c.expr.shift(-c.expr.coeffs[d])) for c in self.domain()
                if c.expr.coeffs.get(d, 0) > 0]

    def combos(self, dims: Sequence[str], which: str) -> list[Conj]:
        """Conjunctions of first (or last) pieces of several dims, the empty ones dropped."""
        out: list[Conj] = [[]]
        for d in dims:
            pieces = self.first(d) if which == "first" else self.last(d)
            out = [a + b for a in out for b in pieces]
        return [c for c in out if not c or not self.empty(c)]

    def maximum(self, x: Affine) -> Affine:
        """Largest value of ``x`` over the nest, as an affine function of the parameters."""
        out = Affine.of({}, x.const)
        for name, c in x.terms:
            if name in self.dims:
                lp = self.loop(name)
                out = out + _scale(self.maximum(lp.upper) if c > 0 else self.minimum(lp.lower), c)
            else:
                out = out + Affine.of({name: c})
        return out

    def minimum(self, x: Affine) -> Affine:
        """Smallest value of ``x`` over the nest."""
        return -self.maximum(-x)

    def unit(self, d: str) -> tuple[int, ...]:
        """The dependence vector ``e_d``."""
        return tuple(1 if x == d else 0 for x in self.dims)
