"""A piecewise quasi-polynomial as data: exact integer evaluation, scalar or vectorised.

isl returns 0 outside its pieces; a :class:`Formula` does the same *inside* the valid
parameter domain (a case that does not occur has volume 0) while the caller validates the
domain itself. Evaluation never uses floats: floors are integer ``//`` and rational
coefficients are scaled to integers and divided exactly at the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

_INT64_SAFE = 2**62

if TYPE_CHECKING:
    import sympy


@dataclass(frozen=True)
class Div:
    """``floor((coeffs . vars + const) / den)``."""

    coeffs: tuple[int, ...]
    const: int
    den: int


@dataclass(frozen=True)
class Cond:
    """``coeffs . vars + dcoeffs . divs + const >= 0`` (or ``== 0``)."""

    coeffs: tuple[int, ...]
    dcoeffs: tuple[int, ...]
    const: int
    eq: bool


@dataclass(frozen=True)
class Piece:
    """``sum(c * prod(x^e)) / den`` on the union of the conjunctions in ``domain``."""

    divs: tuple[Div, ...]
    domain: tuple[tuple[Cond, ...], ...]
    terms: tuple[tuple[int, tuple[int, ...]], ...]
    den: int


def _lin(coeffs: tuple[int, ...], const: int, xs: list[Any]) -> Any:
    out: Any = const
    for c, x in zip(coeffs, xs, strict=False):
        if c:
            out = out + c * x
    return out


def _divs(piece: Piece, xs: list[Any]) -> list[Any]:
    return [_lin(d.coeffs, d.const, xs) // d.den for d in piece.divs]


def _inside(piece: Piece, xs: list[Any], divs: list[Any]) -> Any:
    """Whether ``xs`` lie in the piece's domain (a bool, or a bool array for arrays)."""
    inside: Any = False
    for conj in piece.domain:
        ok: Any = True
        for c in conj:
            v = _lin(c.coeffs, c.const, xs) + _lin(c.dcoeffs, 0, divs)
            ok = ok & ((v == 0) if c.eq else (v >= 0))
        inside = inside | ok
    return inside


@dataclass(frozen=True)
class Formula:
    """A piecewise quasi-polynomial over ``vars`` with pairwise disjoint pieces."""

    vars: tuple[str, ...]
    pieces: tuple[Piece, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain data (for the formula cache); :meth:`from_json` inverts it exactly."""
        return {
            "vars": list(self.vars),
            "pieces": [
                {
                    "divs": [[list(d.coeffs), d.const, d.den] for d in p.divs],
                    "domain": [[[list(c.coeffs), list(c.dcoeffs), c.const, c.eq] for c in conj]
                               for conj in p.domain],
                    "terms": [[c, list(e)] for c, e in p.terms],
                    "den": p.den,
                }
                for p in self.pieces
            ],
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Formula:
        pieces = []
        for p in data["pieces"]:
            pieces.append(Piece(
                tuple(Div(tuple(c), k, d) for c, k, d in p["divs"]),
                tuple(tuple(Cond(tuple(a), tuple(b), k, bool(q)) for a, b, k, q in conj)
                      for conj in p["domain"]),
                tuple((int(c), tuple(e)) for c, e in p["terms"]),
                int(p["den"]),
            ))
        return Formula(tuple(data["vars"]), tuple(pieces))

    def degree(self) -> int:
        return max((sum(e) for p in self.pieces for _, e in p.terms), default=0)

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        """Exact value for integer scalars (a Python int) or integer arrays (an int64 array)."""
        xs = [env[v] for v in self.vars]
        vector = any(isinstance(x, np.ndarray) for x in xs)
        if vector:
            xs = [np.asarray(x, dtype=np.int64) for x in xs]
            big = max((int(np.max(np.abs(x))) if x.size else 0) for x in xs) if xs else 0
            if big and (big + 1) ** max(self.degree(), 1) * 64 >= _INT64_SAFE:
                xs = [x.astype(object) for x in xs]
            shape = np.broadcast_shapes(*(np.shape(x) for x in xs)) if xs else ()
            total: Any = np.zeros(shape, dtype=xs[0].dtype if xs else np.int64)
        else:
            xs = [int(x) for x in xs]
            total = 0
        for piece in self.pieces:
            divs = _divs(piece, xs)
            inside = _inside(piece, xs, divs)
            if not vector and not inside:
                continue
            allx = xs + divs
            num: Any = 0
            for coeff, exps in piece.terms:
                term: Any = coeff
                for x, e in zip(allx, exps, strict=True):
                    if e:
                        term = term * x**e
                num = num + term
            value = num // piece.den
            total = total + (np.where(inside, value, 0) if vector else value)
        return total

    def piece_at(self, env: Mapping[str, int]) -> int | None:
        """The index of the piece whose domain holds at integer scalars ``env``, the one
        :meth:`evaluate` counts there; None where none does (the formula is 0 there)."""
        xs = [int(env[v]) for v in self.vars]
        return next((i for i, piece in enumerate(self.pieces)
                     if _inside(piece, xs, _divs(piece, xs))), None)

    @cached_property
    def _symbols(self) -> list[sympy.Symbol]:
        import sympy

        return [sympy.Symbol(v, integer=True) for v in self.vars]

    def piece_parts(self) -> list[tuple[sympy.Expr, list[list[tuple[sympy.Expr, bool]]]]]:
        """(polynomial, [[(linear form, is_equality), ...] per conjunction]) per piece."""
        import sympy

        xs = self._symbols
        out = []
        for piece in self.pieces:
            divs = [sympy.floor(_lin(d.coeffs, d.const, xs) / sympy.Integer(d.den)) for d in piece.divs]
            allx = xs + divs
            poly = sympy.Add(*(
                sympy.Rational(c, piece.den) * sympy.Mul(*(x**e for x, e in zip(allx, ex, strict=True) if e))
                for c, ex in piece.terms))
            conjs = [[(_lin(c.coeffs, c.const, xs) + _lin(c.dcoeffs, 0, divs), c.eq) for c in b]
                     for b in piece.domain]
            out.append((poly, conjs))
        return out

    def piece_exprs(self) -> list[tuple[sympy.Expr, sympy.Basic]]:
        """(polynomial, condition) per piece, as sympy objects."""
        import sympy

        xs = self._symbols
        out = []
        for piece in self.pieces:
            divs = [sympy.floor(_lin(d.coeffs, d.const, xs) / sympy.Integer(d.den)) for d in piece.divs]
            allx = xs + divs
            poly = sum(
                (sympy.Rational(c, piece.den) * sympy.Mul(*(x**e for x, e in zip(allx, ex, strict=True)))
                 for c, ex in piece.terms),
                sympy.Integer(0),
            )
            conj = []
            for b in piece.domain:
                rel = []
                for c in b:
                    v = _lin(c.coeffs, c.const, xs) + _lin(c.dcoeffs, 0, divs)
                    rel.append(sympy.Eq(v, 0) if c.eq else sympy.Ge(v, 0))
                conj.append(sympy.And(*rel))
            out.append((sympy.expand(poly), sympy.Or(*conj)))
        return out
