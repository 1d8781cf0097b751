"""Merging formula pieces that agree, and readable display of formulas.

Barvinok splits small parameter values (``t = 1``, ``r = p``) into pieces of their own even
when the generic polynomial gives the same value there. A piece ``b`` is absorbed into ``a``
when ``a``'s polynomial equals ``b``'s on every conjunction of ``b``'s domain (checked by
substituting that conjunction's equalities, exactly, with sympy).
"""

from __future__ import annotations

from collections.abc import Callable

import sympy

from polyjoule.analysis.formula import Cond, Formula, Piece

Conj = list[tuple[sympy.Expr, bool]]


def _small_ranges(conj: Conj) -> dict[sympy.Symbol, range]:
    """Variables pinned to a short constant range by single-variable inequalities."""
    lo: dict[sympy.Symbol, int] = {}
    hi: dict[sympy.Symbol, int] = {}
    for e, eq in conj:
        e = sympy.sympify(e)
        if eq or len(e.free_symbols) != 1:
            continue
        (x,) = e.free_symbols
        a = e.coeff(x)
        b = e.subs(x, 0)
        if a == 1:
            lo[x] = max(lo.get(x, -(10**9)), int(-b))
        elif a == -1:
            hi[x] = min(hi.get(x, 10**9), int(b))
    return {x: range(lo[x], hi[x] + 1) for x in lo if x in hi and 0 <= hi[x] - lo[x] <= 4}


def _agree_on(diff: sympy.Expr, conj: Conj) -> bool:
    """Is ``diff`` zero on every integer point of the conjunction? (sound, not complete)"""
    diff = sympy.expand(diff)
    if diff == 0:
        return True
    sub: dict[sympy.Symbol, sympy.Expr] = {}
    for e, eq in conj:
        if not eq:
            continue
        lin = sympy.expand(e.xreplace(sub))
        for x in sorted(lin.free_symbols, key=str):
            a = lin.coeff(x)
            if a in (1, -1) and not (lin - a * x).has(x):
                val = sympy.expand(-(lin - a * x) / a)
                sub = {k: v.xreplace({x: val}) for k, v in sub.items()}
                sub[x] = val
                break
        else:
            return False
    if sub:
        diff = sympy.expand(diff.xreplace(sub))
        if diff == 0:
            return True
        conj = [(sympy.expand(e.xreplace(sub)), eq) for e, eq in conj if not eq]
    if any(_false(e, eq) for e, eq in conj):
        return True  # an empty conjunction: nothing to disagree on
    ranges = _small_ranges(conj)
    if ranges:
        x, values = next(iter(ranges.items()))
        return all(_agree_on(diff.xreplace({x: sympy.Integer(v)}),
                             [(sympy.sympify(e).xreplace({x: sympy.Integer(v)}), q) for e, q in conj])
                   for v in values)
    return False


def _false(e: sympy.Expr, eq: bool) -> bool:
    """A condition with no variable left that does not hold (``e >= 0``, or ``e == 0``)."""
    e = sympy.sympify(e)
    if e.free_symbols:
        return False
    return bool(e != 0) if eq else bool(e < 0)


def _absorb(a: Piece, b: Piece) -> Piece:
    na, nb = len(a.divs), len(b.divs)
    terms = tuple((c, e + (0,) * nb) for c, e in a.terms)
    dom_a = tuple(tuple(Cond(c.coeffs, c.dcoeffs + (0,) * nb, c.const, c.eq) for c in conj) for conj in a.domain)
    dom_b = tuple(tuple(Cond(c.coeffs, (0,) * na + c.dcoeffs, c.const, c.eq) for c in conj) for conj in b.domain)
    return Piece(a.divs + b.divs, dom_a + dom_b, terms, a.den)


def _value(piece: Piece, vars_: tuple[str, ...], env: dict[str, int]) -> int:
    """The piece's polynomial at ``env``, ignoring its domain."""
    return int(Formula(vars_, (Piece(piece.divs, ((),), piece.terms, piece.den),)).evaluate(env))


def merge_pieces(f: Formula, samples: list[list[dict[str, int]]] | None = None,
                 prove: Callable[[int, int], bool] | None = None) -> Formula:
    """Absorb pieces into one whose polynomial agrees on their domains.

    Candidates to absorb into are tried most generic first (fewest equalities in their
    domain): the polynomial Barvinok found for the general case usually covers the rest.
    ``samples`` (a point of each conjunction of each piece) reject most pairs numerically
    before the exact checks: ``prove(a, b)`` (isl, fast) and then sympy (small ranges).
    """
    pieces = list(f.pieces)
    if len(pieces) < 2:
        return f
    cache: dict[int, tuple[sympy.Expr, list[Conj]]] = {}

    def parts(i: int) -> tuple[sympy.Expr, list[Conj]]:
        """Sympy form of piece ``i``, built only when the isl proof did not settle a pair."""
        if i not in cache:
            cache[i] = Formula(f.vars, (pieces[i],)).piece_parts()[0]
        return cache[i]

    def generality(i: int) -> tuple[int, int]:
        eqs = min(sum(1 for c in conj if c.eq) for conj in pieces[i].domain) if pieces[i].domain else 0
        return (eqs, -len(pieces[i].domain))

    def agrees(a: int, b: int) -> bool:
        if samples is not None and any(
                _value(pieces[a], f.vars, env) != _value(pieces[b], f.vars, env)
                for env in samples[b]):
            return False
        if prove is not None and prove(a, b):
            return True
        pa, pb = parts(a)[0], parts(b)
        return all(_agree_on(pa - pb[0], c) for c in pb[1])

    alive = sorted(range(len(pieces)), key=generality)
    out: list[Piece] = []
    while alive:
        a = alive[0]
        absorbed = [b for b in alive[1:] if agrees(a, b)]
        merged = pieces[a]
        for b in absorbed:
            merged = _absorb(merged, pieces[b])
        out.append(merged)
        alive = [b for b in alive[1:] if b not in absorbed]
    return Formula(f.vars, tuple(out))
