"""Merging formula pieces that agree, and readable display of formulas.

Barvinok splits small parameter values (``t = 1``, ``r = p``) into pieces of their own even
when the generic polynomial gives the same value there. A piece ``b`` is absorbed into ``a``
when ``a``'s polynomial equals ``b``'s on every conjunction of ``b``'s domain (checked by
substituting that conjunction's equalities, exactly, with sympy).
"""

from __future__ import annotations

import sympy

from polyjoule.analysis.formula import Cond, Formula, Piece


def _small_ranges(rels: list[sympy.Basic]) -> dict[sympy.Symbol, range]:
    """Variables pinned to a short constant range by single-variable inequalities."""
    lo: dict[sympy.Symbol, int] = {}
    hi: dict[sympy.Symbol, int] = {}
    for r in rels:
        if not isinstance(r, sympy.GreaterThan):
            continue
        e = sympy.expand(r.lhs - r.rhs)
        if len(e.free_symbols) != 1:
            continue
        (x,) = e.free_symbols
        a = e.coeff(x)
        b = e.subs(x, 0)
        if a == 1:
            lo[x] = max(lo.get(x, -(10**9)), int(-b))
        elif a == -1:
            hi[x] = min(hi.get(x, 10**9), int(b))
    return {x: range(lo[x], hi[x] + 1) for x in lo if x in hi and 0 <= hi[x] - lo[x] <= 4}


def _agree_on(pa: sympy.Expr, pb: sympy.Expr, conj: sympy.Basic) -> bool:
    rels = list(conj.args if isinstance(conj, sympy.And) else (conj,))
    eqs = [a for a in rels if isinstance(a, sympy.Eq)]
    diff = sympy.expand(pa - pb)
    if diff == 0:
        return True
    ranges = _small_ranges(rels)
    if ranges:
        x, values = next(iter(ranges.items()))
        return all(
            _agree_on(pa.subs(x, v), pb.subs(x, v), conj.subs(x, v)) for v in values
        ) if values else True
    if not eqs:
        return False
    sub: dict[sympy.Symbol, sympy.Expr] = {}
    for e in eqs:
        lin = sympy.expand((e.lhs - e.rhs).xreplace(sub))
        for x in sorted(lin.free_symbols, key=str):
            a = lin.coeff(x)
            if a in (1, -1) and not (lin - a * x).has(x):
                val = sympy.expand(-(lin - a * x) / a)
                sub = {k: v.xreplace({x: val}) for k, v in sub.items()}
                sub[x] = val
                break
        else:
            return False
    return sympy.expand(diff.xreplace(sub)) == 0


def _absorb(a: Piece, b: Piece) -> Piece:
    na, nb = len(a.divs), len(b.divs)
    terms = tuple((c, e + (0,) * nb) for c, e in a.terms)
    dom_a = tuple(tuple(Cond(c.coeffs, c.dcoeffs + (0,) * nb, c.const, c.eq) for c in conj) for conj in a.domain)
    dom_b = tuple(tuple(Cond(c.coeffs, (0,) * na + c.dcoeffs, c.const, c.eq) for c in conj) for conj in b.domain)
    return Piece(a.divs + b.divs, dom_a + dom_b, terms, a.den)


def merge_pieces(f: Formula) -> Formula:
    """Absorb every piece into another whose polynomial agrees on its domain."""
    pieces = list(f.pieces)
    changed = True
    while changed and len(pieces) > 1:
        changed = False
        exprs = Formula(f.vars, tuple(pieces)).piece_exprs()
        order = sorted(range(len(pieces)), key=lambda i: -sum(1 for _ in pieces[i].domain))
        for ia in order:
            for ib in range(len(pieces)):
                if ia == ib:
                    continue
                pa, _ = exprs[ia]
                pb, cb = exprs[ib]
                conjs = cb.args if isinstance(cb, sympy.Or) else (cb,)
                if all(_agree_on(pa, pb, c) for c in conjs):
                    merged = _absorb(pieces[ia], pieces[ib])
                    pieces = [p for k, p in enumerate(pieces) if k not in (ia, ib)] + [merged]
                    changed = True
                    break
            if changed:
                break
    return Formula(f.vars, tuple(pieces))
