"""Unions of conjunctions over a nest's dims, kept disjoint: the set algebra that exact
dataflow needs (where a read sees which write) without leaving the affine constraints the
PRA writes. Emptiness is isl's answer (:mod:`polyjoule.analysis._isl`) for parameters at
their minimums."""

from __future__ import annotations

from collections.abc import Sequence

from polyjoule.analysis import _isl
from polyjoule.model.affine import Affine, Constraint

Conj = list[Constraint]


def negations(c: Constraint) -> list[Constraint]:
    """Disjoint constraints whose union is the complement of ``c``."""
    if c.eq:
        return [Constraint(c.expr.shift(-1)), Constraint((-c.expr).shift(-1))]
    return [Constraint((-c.expr).shift(-1))]


class Regions:
    """Set questions over ``dims`` with parameters at least their minimums."""

    def __init__(self, params: Sequence[str], mins: dict[str, int], dims: Sequence[str]):
        self.params = tuple(params)
        self.dims = tuple(dims)
        self._context = tuple(f"{p} >= {mins.get(p, 1)}" for p in params)

    def empty(self, conj: Sequence[Constraint]) -> bool:
        """Has ``conj`` no point for any legal parameter value?"""
        return _isl.is_empty(self.params, self.dims,
                             (*self._context, *(c.isl() for c in conj)))

    def always(self, c: Constraint, given: Sequence[Constraint] = ()) -> bool:
        """Does ``given`` imply ``c`` (for every legal parameter value)?"""
        return all(self.empty([*given, n]) for n in negations(c))

    def minus(self, a: Conj, union: Sequence[Conj]) -> list[Conj]:
        """``a`` without every conjunction of ``union``, as disjoint non-empty pieces."""
        out = [] if self.empty(a) else [list(a)]
        for b in union:
            nxt: list[Conj] = []
            for piece in out:
                nxt.extend(self._minus_one(piece, b))
            out = nxt
        return out

    def _minus_one(self, a: Conj, b: Conj) -> list[Conj]:
        pieces: list[Conj] = []
        prefix = list(a)
        for c in b:
            if self.always(c, prefix):
                continue
            for n in negations(c):
                if not self.empty([*prefix, n]):
                    pieces.append([*prefix, n])
            prefix.append(c)
            if self.empty(prefix):
                break
        return pieces

    def disjoint(self, union: Sequence[Conj]) -> list[Conj]:
        """The union as disjoint pieces (each one minus those before it)."""
        out: list[Conj] = []
        for k, a in enumerate(union):
            out.extend(self.minus(a, union[:k]))
        return out

    def meet(self, a: Sequence[Conj], b: Sequence[Conj]) -> list[Conj]:
        """The intersection of two disjoint unions, as disjoint pieces."""
        return [[*x, *y] for x in a for y in b if not self.empty([*x, *y])]

    def simplified(self, conj: Conj) -> Conj:
        """``conj`` without the constraints the others imply; a bound the others pin from
        the other side becomes an equality (``i >= 1, i <= 1`` -> ``i == 1``)."""
        keep = list(dict.fromkeys(conj))
        for c in list(keep):
            rest = [x for x in keep if x is not c]
            if self.always(c, rest):
                keep = rest
            elif not c.eq and self.always(Constraint(-c.expr), keep):
                keep = [*rest, Constraint(c.expr, eq=True)]
        return keep

    def coalesced(self, union: Sequence[Conj]) -> list[Conj]:
        """A disjoint union in as few conjunctions as isl finds, each simplified."""
        raw = _isl.disjoint_pieces(self.params, self.dims, self._context,
                                   tuple(tuple(c.isl() for c in conj) for conj in union))
        merged = None if any(p is None for p in raw) else [
            [Constraint(Affine.of(cf, k), eq) for cf, k, eq in p or ()] for p in raw]
        if merged is None or self._couples(merged) - self._couples(union):
            # isl may merge boxes into a diagonal (i >= 1 or j >= 1 -> i + j >= 1): a
            # constraint coupling two dims makes their tiles coupled, so keep the boxes
            merged = [list(c) for c in union]
        return [self._ordered(self.simplified(c)) for c in merged]

    def _couples(self, union: Sequence[Conj]) -> set[frozenset[str]]:
        """The sets of dims that one constraint of ``union`` relates."""
        return {frozenset(n for n in c.expr.names() if n in self.dims)
                for conj in union for c in conj
                if sum(n in self.dims for n in c.expr.names()) > 1}

    def _ordered(self, conj: Conj) -> Conj:
        """Constraints in dim order (``t`` first), as a reader scans them."""
        def first(c: Constraint) -> int:
            return min((self.dims.index(n) for n in c.expr.names() if n in self.dims),
                       default=len(self.dims))
        return sorted(conj, key=first)


def moved(conj: Sequence[Constraint], dim: str, by: int) -> Conj:
    """The conjunction translated by ``by`` along ``dim`` (``p`` in it -> ``p + by e_dim``)."""
    back = {dim: Affine.of({dim: 1}, -by)}
    return [Constraint(c.expr.substitute(back), c.eq) for c in conj]
