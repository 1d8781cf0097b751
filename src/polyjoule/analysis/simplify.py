"""Merging formula pieces that agree, and readable display of formulas.

Barvinok splits small parameter values (``t = 1``, ``r = p``) into pieces of their own even
when the generic polynomial gives the same value there. A piece ``b`` is absorbed into ``a``
when ``a``'s polynomial equals ``b``'s on every conjunction of ``b``'s domain (checked by
substituting that conjunction's equalities, exactly, with sympy).
"""

from __future__ import annotations

import sympy

from polyjoule.analysis.formula import Cond, Formula, Piece

Conj = list[tuple[sympy.Expr, bool]]


def _small_ranges(conj: Conj) -> dict[sympy.Symbol, range]:
    """Variables pinned to a short constant range by single-variable inequalities."""
    lo: dict[sympy.Symbol, int] = {}
    hi: dict[sympy.Symbol, int] = {}
    for e, eq in conj:
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
    ranges = _small_ranges(conj)
    if ranges:
        x, values = next(iter(ranges.items()))
        return all(_agree_on(diff.xreplace({x: v}), [(e.xreplace({x: v}), q) for e, q in conj])
                   for v in values)
    return False


def _absorb(a: Piece, b: Piece) -> Piece:
    na, nb = len(a.divs), len(b.divs)
    terms = tuple((c, e + (0,) * nb) for c, e in a.terms)
    dom_a = tuple(tuple(Cond(c.coeffs, c.dcoeffs + (0,) * nb, c.const, c.eq) for c in conj) for conj in a.domain)
    dom_b = tuple(tuple(Cond(c.coeffs, (0,) * na + c.dcoeffs, c.const, c.eq) for c in conj) for conj in b.domain)
    return Piece(a.divs + b.divs, dom_a + dom_b, terms, a.den)


def merge_pieces(f: Formula) -> Formula:
    """Absorb every piece into another whose polynomial agrees on its domain."""
    pieces = list(f.pieces)
    if len(pieces) < 2:
        return f
    parts = Formula(f.vars, tuple(pieces)).piece_parts()
    merged = True
    while merged and len(pieces) > 1:
        merged = False
        order = sorted(range(len(pieces)), key=lambda i: -len(pieces[i].domain))
        for ia in order:
            for ib in range(len(pieces)):
                if ia == ib:
                    continue
                pa, ca = parts[ia]
                pb, cb = parts[ib]
                if all(_agree_on(pa - pb, c) for c in cb):
                    new = _absorb(pieces[ia], pieces[ib])
                    keep = [k for k in range(len(pieces)) if k not in (ia, ib)]
                    pieces = [pieces[k] for k in keep] + [new]
                    parts = [parts[k] for k in keep] + [(pa, ca + cb)]
                    merged = True
                    break
            if merged:
                break
    return Formula(f.vars, tuple(pieces))
