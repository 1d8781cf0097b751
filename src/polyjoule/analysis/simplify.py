"""Merging formula pieces that agree, and readable display of formulas.

Barvinok splits small parameter values (``t = 1``, ``r = p``) into pieces of their own even
when the generic polynomial gives the same value there. A piece ``b`` is absorbed into ``a``
when ``a``'s polynomial equals ``b``'s on every conjunction of ``b``'s domain within the
context the caller guarantees (``1 <= r <= p``, ...). Checked exactly: by isl, else by
enumeration (a variable the conjunction bounds takes every value, an unbounded one ``D + 1``
values, ``D`` the difference's degree in it: a polynomial of degree ``D`` in ``x`` that
vanishes at ``D + 1`` values of ``x`` vanishes for all), else with sympy (equalities
substituted, small ranges enumerated).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from polyjoule.analysis.formula import Cond, Formula, Piece

if TYPE_CHECKING:  # sympy only for the last resort (the map search never gets there)
    import sympy

Conj = list[tuple["sympy.Expr", bool]]


def _small_ranges(conj: Conj) -> dict[sympy.Symbol, range]:
    """Variables pinned to a short constant range by single-variable inequalities."""
    import sympy

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
    import sympy

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
    import sympy

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


#: most points :func:`_box_agree` enumerates (a bounded conjunction holds a few dozen)
_BOX_POINTS = 4096


def _bounds(conds: Sequence[Cond], n: int) -> list[tuple[int, int]]:
    """Integer bounds of every variable implied by the div-free conditions (interval
    propagation, a few rounds); about +-10**9 where there is none."""
    big = 10**9
    lo, hi = [-big] * n, [big] * n
    lin = [c for c in conds if not any(c.dcoeffs)]
    for _ in range(4):
        for c in lin:
            for sign in ((1,) if not c.eq else (1, -1)):
                a = [sign * x for x in c.coeffs]  # sum a_i x_i + k >= 0
                top = [x * (hi[i] if x > 0 else lo[i]) for i, x in enumerate(a)]  # max per term
                free = [i for i, x in enumerate(a) if x and abs(top[i]) >= big // 2]
                total = sign * c.const + sum(t for i, t in enumerate(top) if i not in free)
                for i, x in enumerate(a):
                    if not x or [f for f in free if f != i]:
                        continue
                    rest = total - (top[i] if i not in free else 0)  # max of the others
                    if x > 0:  # x_i >= -rest / x
                        lo[i] = max(lo[i], -(rest // x))
                    else:  # x_i <= rest / -x
                        hi[i] = min(hi[i], rest // -x)
    return list(zip(lo, hi, strict=True))


def _relevant(n: int, a: Piece, b: Piece) -> dict[int, int]:
    """Variables the difference of the two polynomials depends on, with its degree in
    each (-1: inside a floor, not polynomial)."""
    out: dict[int, int] = {}
    for p in (a, b):
        for d in p.divs:
            out.update({i: -1 for i, x in enumerate(d.coeffs) if x})
    diff: dict[tuple[int, ...], Fraction] = {}
    for p, sign in ((a, 1), (b, -1)):
        shift = (0,) * len(a.divs) if p is b else ()
        for c, e in p.terms:
            key = e[:n] + shift + e[n:] + ((0,) * len(b.divs) if p is a else ())
            diff[key] = diff.get(key, Fraction(0)) + Fraction(sign * c, p.den)
    for e, c in diff.items():
        for i, x in enumerate(e[:n]):
            if c and x and out.get(i, 0) >= 0:
                out[i] = max(out.get(i, 0), x)
    return out


def _box_agree(vars_: tuple[str, ...], a: Piece, b: Piece, conj: tuple[Cond, ...],
               context: Sequence[Cond]) -> bool | None:
    """Do ``a`` and ``b`` agree on every point of ``conj`` (within ``context``)? Exact, by
    enumerating the variables the difference depends on, when the conditions bound them
    to a small box; ``None`` when they do not (unbounded, too many points, or a
    disagreement where a condition on another variable was left out)."""
    n, nd = len(vars_), len(b.divs)
    conds = tuple(conj) + tuple(Cond(c.coeffs, (0,) * nd, c.const, c.eq) for c in context)
    box = _bounds(conds, n)
    if any(h < l for l, h in box):
        return True  # no point at all
    deg = _relevant(n, a, b)
    rel = sorted(deg)
    free = [i for i in rel if abs(box[i][0]) >= 10**8 and abs(box[i][1]) >= 10**8]
    half = [i for i in rel if i not in free and (abs(box[i][0]) >= 10**8 or abs(box[i][1]) >= 10**8)]
    poly = all(deg[i] >= 0 for i in free + half)
    # a polynomial of degree D in x that vanishes at D + 1 values of x vanishes for all x:
    # unbounded variables take D + 1 values next to their bound, bounded ones every value
    grid = [(box[i][0], box[i][1]) if i not in free + half else
            ((box[i][0], box[i][0] + deg[i]) if abs(box[i][0]) < 10**8 else
             ((box[i][1] - deg[i], box[i][1]) if i in half else (0, deg[i]))) for i in range(n)]
    if poly and np.prod([grid[i][1] - grid[i][0] + 1 for i in rel], dtype=float) <= _BOX_POINTS:
        keep = set(rel) - set(free + half)
        usable = {k for k, d in enumerate(b.divs) if all(i in keep for i, x in enumerate(d.coeffs) if x)}
        kept = tuple(c for c in conds if all(i in keep for i, x in enumerate(c.coeffs) if x)
                     and all(k in usable for k, x in enumerate(c.dcoeffs) if x))
        if _agree_at(vars_, a, b, kept, [grid[i] if i in deg else (0, 0) for i in range(n)]):
            return True
        if len(kept) == len(conds) and not free + half:
            return False
    # refute on a corner of the conjunction: a point of it where they differ
    corner = [(l, l + 3) if l > -10**8 else ((h - 3, h) if h < 10**8 else (0, 3)) for l, h in box]
    corner = [(l, min(h, hh)) for (l, h), (_, hh) in zip(corner, box, strict=True)]
    return False if not _agree_at(vars_, a, b, conds, corner) else None


def _agree_at(vars_: tuple[str, ...], a: Piece, b: Piece, conds: tuple[Cond, ...],
              box: list[tuple[int, int]]) -> bool:
    """Do ``a`` and ``b`` agree at every point of ``box`` where ``conds`` hold (with ``b``'s
    floors)?"""
    grid = np.array(list(product(*(range(l, h + 1) for l, h in box))), dtype=np.int64)
    env = {v: grid[:, i] for i, v in enumerate(vars_)}
    one = ((1, (0,) * (len(vars_) + len(b.divs))),)
    inside = Formula(vars_, (Piece(b.divs, (conds,), one, 1),)).evaluate(env)
    # a/den_a == b/den_b exactly: compare a*den_b with b*den_a (no floor division)
    va = Formula(vars_, (Piece(a.divs, ((),), tuple((c * b.den, e) for c, e in a.terms), 1),)).evaluate(env)
    vb = Formula(vars_, (Piece(b.divs, ((),), tuple((c * a.den, e) for c, e in b.terms), 1),)).evaluate(env)
    return bool(np.all((inside == 0) | (va == vb)))


def merge_pieces(f: Formula, samples: list[list[dict[str, int]]] | None = None,
                 prove: Callable[[int, int], bool] | None = None,
                 context: Sequence[Cond] = ()) -> Formula:
    """Absorb pieces into one whose polynomial agrees on their domains (see
    :func:`merge_groups`)."""
    out = []
    for a, *absorbed in merge_groups(f, samples, prove, context):
        merged = f.pieces[a]
        for b in absorbed:
            merged = _absorb(merged, f.pieces[b])
        out.append(merged)
    return Formula(f.vars, tuple(out))


def merge_groups(f: Formula, samples: list[list[dict[str, int]]] | None = None,
                 prove: Callable[[int, int], bool] | None = None,
                 context: Sequence[Cond] = (), with_sympy: bool = True) -> list[list[int]]:
    """Pieces in groups ``[a, b, ...]``: ``a``'s polynomial agrees on the domains of the rest.

    Candidates to absorb into are tried most generic first (fewest equalities in their
    domain): the polynomial Barvinok found for the general case usually covers the rest.
    ``samples`` (a point of each conjunction of each piece) reject most pairs numerically
    before the exact checks: ``prove(a, b)`` (isl, fast), then every point of a
    conjunction that ``context`` (div-free conditions the caller guarantees) and its own
    conditions bound to a small box, and then sympy (small ranges) unless ``with_sympy`` is
    off (a derivation leaves such a pair apart: importing sympy alone costs a cold process
    more than the derivation, and no built-in kernel needs it).
    """
    pieces = list(f.pieces)
    if len(pieces) < 2:
        return [[i] for i in range(len(pieces))]
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
        left = []
        for k, conj in enumerate(pieces[b].domain):
            boxed = _box_agree(f.vars, pieces[a], pieces[b], conj, context)
            if boxed is False:
                return False
            if boxed is None:
                left.append(k)
        if not left:
            return True
        if not with_sympy:
            return False
        pa, pb = parts(a)[0], parts(b)
        return all(_agree_on(pa - pb[0], pb[1][k]) for k in left)

    alive = sorted(range(len(pieces)), key=generality)
    out: list[list[int]] = []
    while alive:
        a = alive[0]
        absorbed = [b for b in alive[1:] if agrees(a, b)]
        out.append([a, *absorbed])
        alive = [b for b in alive[1:] if b not in absorbed]
    return out
