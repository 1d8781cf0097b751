"""Counting a tile class in the PRA's own indices instead of tile coordinates.

A tiled dim's index ``x`` is written ``x = j + p*k`` (``0 <= j <= p - 1``, ``0 <= k <= t - 1``)
and its extent ``E = p*(t-1) + r`` so that Barvinok sees affine sets in ``(j, k | p, t, r)``:
every constraint that couples dims becomes a union of alternatives, one per tile offset
(:func:`alternatives`). For the pivot kernels (lu, cholesky, ludcmp: a pivot dim coupled with
both tiled dims) that is six variables and a dozen unions, 5-100 ms of Barvinok per class.

The same points are counted much faster where the tile split is not needed: in the PRA's
indices ``x`` with the extent ``E`` as a parameter (three variables, no unions), the count
a polynomial in ``E`` that takes the ``(p, t, r)`` form afterwards. A case condition on a
tile position (``j >= 1``: not the first of its tile) needs the split, but only of the dims
it names: the count of the other indices *per value* ``y`` of those dims (a fibre count,
Barvinok in ``(x | E, y)``) is summed over ``y = j + p*k`` in the condition's range (isl's
polynomial summation, the polynomial's ``p*k`` terms being no obstacle there). The fibre
count's chamber conditions, affine in ``(y, E)``, become unions of alternatives in
``(j, k, t, r)`` by the same rule as the constraints. The count is the same set's, hence the
same function: the formulas are identical, only cheaper to derive.

Every class with a tiled dim is counted this way, a stencil's boundary of one tiled dim too:
its cases differ only in tile positions, and they share the sums of those positions (each
memoised), where Barvinok on the tile split counts every case's unions afresh.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from polyjoule.analysis import _isl
from polyjoule.model.affine import Affine

#: a canonical parameter written in a tile size, ``E = p*(t-1) + r``: (E, p, t, r); a group's
#: extent first, then its other parameters (a band's width) with the same ``p``
Extent = tuple[str, str, str, str]


def offsets(g: Affine, r: str | tuple[str, ...], pmin: int = 1) -> tuple[int, int]:
    """``(lo, hi)`` for a constraint ``g + delta*p >= 0`` whose ``g`` names intra-tile
    indices ``0 <= j <= p - 1`` and remainders ``1 <= r <= p`` (the last tile's size; ``r``
    one name or several) (``p >= pmin``): ``delta >= hi`` makes it hold at every point,
    ``delta < lo`` at none."""
    rs = (r,) if isinstance(r, str) else r
    ap = sum(a for n, a in g.terms if a > 0 and n not in rs)
    an = sum(-a for n, a in g.terms if a < 0 and n not in rs)
    bp = sum(a for n, a in g.terms if a > 0 and n in rs)
    bn = sum(-a for n, a in g.terms if a < 0 and n in rs)
    c0 = g.const
    # the least g is (-an - bn)*p + an + bp + c0: with delta = an + bn + e (e >= 1) it holds
    # for every p >= pmin once e*pmin + an + bp + c0 >= 0 (a stencil's tile of at least its
    # distance needs no alternative for a tile further back)
    hi = an + bn + max(0, -((c0 + bp + an) // max(pmin, 1)))
    # g + d*p <= (ap + bp + d)*p + c0 - ap - bn: positive for some p >= 1 iff
    # ap + bp + d >= 1, or (at p = 1) ap + bp + d + c0 - ap - bn >= 0
    return -(ap + bp) + min(1, ap + bn - c0), hi


def delta_range(delta: Affine, t: str | tuple[str, ...]) -> tuple[int | None, int | None]:
    """Bounds of ``delta`` over every tile ``0 <= k <= t - 1`` (``t >= 1``), where they are
    constants: alternatives of a constraint outside them are empty (``k = -1``), and one at
    or below the lower bound always holds (``k >= 0``). ``None``: unbounded or unknown.
    ``t`` may be several names: the tile count, then names that are no tile index in
    ``0 .. t - 1`` (other parameters' tile counts, a longer dim's tile index)."""
    ts = (t,) if isinstance(t, str) else t
    t = ts[0]
    if any(n in ts[1:] for n, _ in delta.terms):
        return None, None
    ks = [(n, a) for n, a in delta.terms if n != t]
    b = dict(delta.terms).get(t, 0)
    if len(ks) != 1 or abs(ks[0][1]) != 1 or b not in (0, -ks[0][1]):
        return None, None
    a, c = ks[0][1], delta.const
    if a == 1:  # k + c in [c, t-1+c]; k - t + c in [c-t+1... , c-1]
        return (c, None) if b == 0 else (None, c - 1)
    return (None, c) if b == 0 else (c + 1, None)  # -k + c; t - k + c in [1+c, t+c]


def alternatives(rest: Affine, delta: Affine, p: str, t: str | tuple[str, ...],
                 r: str | tuple[str, ...], eq: bool, pmin: int = 1) -> list[list[str]]:
    """``rest + p*delta >= 0`` (``= 0`` if ``eq``) as a union of conjunctions of isl
    constraint texts, one per value of the tile offset ``delta`` where it is not decided
    (``[[]]``: always true). ``rest`` names intra-tile indices and remainders ``r`` only
    (one per name of ``t``, see :func:`delta_range`); ``p`` is at least ``pmin``."""
    op = "=" if eq else ">="
    lo, hi = offsets(rest, r, pmin)
    dmin, dmax = delta_range(delta, t)
    if not eq and dmin is not None and hi <= dmin:
        return [[]]  # delta >= hi for every tile: always true
    out: list[list[str]] = []
    dtext = delta.isl()
    if not eq and (dmax is None or hi <= dmax):
        out.append([f"{dtext} >= {hi}"])
    for d in range(lo, hi + (1 if eq else 0)):
        if (dmin is None or d >= dmin) and (dmax is None or d <= dmax):
            out.append([f"{dtext} = {d}", f"{rest.isl()} + {d}*{p} {op} 0"])
    return out


#: a condition on an intra-tile index ``j``: ``s*j + b*p + c >= 0`` (``= 0`` if the flag)
Cond = tuple[int, int, int, bool]
#: where a fibre index lies in its tile: ``j = b*p + v`` (``("v", b, v)``), anywhere the
#: conditions allow (``("r", conditions)``), or anywhere (``("all",)``: no fibre)
Place = tuple


def count(params: tuple[str, ...], context: tuple[str, ...], nx: int, constraints: tuple[str, ...],
          extents: tuple[Extent, ...], split: tuple[tuple[int, int, tuple[Cond, ...]], ...],
          bounded: tuple[tuple[int, int], ...]) -> object | None:
    """Barvinok count (an isl piecewise quasi-polynomial over ``params``) of the points
    ``x0 .. x{nx-1}`` of ``constraints`` (texts over ``x``, the extents ``E`` and the other
    parameters) with every tiled index ``x = j + p*k`` in a tile position its conditions
    allow: ``split`` holds ``(x index, extent index, conditions on its j)``. ``bounded``:
    ``(x index, extent index)`` of every tiled index, which the constraints must keep below
    its extent (its tile split covers ``0 .. p*t - 1``). Only values in ``context`` (on
    ``params``) are asked for. ``None`` when the bound does not show or a fibre count is
    not a plain polynomial (the caller counts the tile split then)."""
    out = terms(params, context, nx, constraints, extents, split, bounded)
    return None if out is None else _isl.combined(list(params), out)


def whole(params: tuple[str, ...], context: tuple[str, ...], nx: int, constraints: tuple[str, ...],
          extents: tuple[Extent, ...], split: tuple[tuple[int, int, tuple[Cond, ...]], ...],
          bounded: tuple[tuple[int, int], ...]) -> object | None:
    """:func:`count` in one Barvinok count where a window fixes every tile size (``None``
    elsewhere): with ``p`` a number, ``x = p*m + j`` and ``E = p*(t-1) + r`` are affine, so
    a tile position needs no fibre sum (a band's class at ``p = 3``: 1.5 ms and one piece,
    against 16 ms of sums and 15 pieces to merge)."""
    pins = pinned(context)
    if not extents or any(e[1] not in pins for e in extents):
        return None
    if not _kept(params, nx, constraints, extents, bounded):
        return None  # as fibre_card: the caller counts the tile split
    form = {e: f"({pins[p]}*({t} - 1) + {r})" for e, p, t, r in extents}
    body = [re.sub(r"\b\w+\b", lambda m: form.get(m[0], m[0]), c) for c in constraints]
    dims = [f"x{i}" for i in range(nx)]
    for i, g, conds in split:
        size, t = pins[extents[g][1]], extents[g][2]
        dims += [f"m{i}", f"j{i}"]
        body += [f"x{i} = {size}*m{i} + j{i}", f"0 <= j{i} <= {size - 1}", f"0 <= m{i} <= {t} - 1"]
        body += [f"{s}*j{i} + {b * size + c} {'=' if eq else '>='} 0" for s, b, c, eq in conds]
    return _isl.card_of(list(params), dims, list(context) + body, [])


def terms(params: tuple[str, ...], context: tuple[str, ...], nx: int, constraints: tuple[str, ...],
          extents: tuple[Extent, ...], split: tuple[tuple[int, int, tuple[Cond, ...]], ...],
          bounded: tuple[tuple[int, int], ...]) -> list[tuple[int, object]] | None:
    """:func:`count` as signed sums whose total it is (isl objects, each memoised: cases
    that ask for the same positions share them). A position range is counted as few fixed
    positions as it takes: ``j >= 1`` as every position less ``j = 0`` (a sum over the
    tile index alone, not over ``(k, j)``)."""
    pins = pinned(context)
    plan: list[tuple[int, tuple[tuple[int, int, Place], ...]]] = [(1, ())]
    for i, g, conds in split:
        size = pins.get(extents[g][1])
        places = _places(conds) if size is None else _sized(_places(conds), size)
        plan = [(sign * s, fib + (() if place == ("all",) else ((i, g, place),)))
                for sign, fib in plan for s, place in places]
    out = []
    kept = _kept(params, nx, constraints, extents, bounded)  # else no fibre sum applies
    for sign, fibre in plan:
        slabs = _slabs(constraints, tuple(i for i, _, _ in fibre), extents, bounded) if fibre and kept else []
        for below, past in slabs:
            a = _fibre_sum(params, context, nx, below, extents, fibre, bounded)
            b = _fibre_sum(params, context, nx, past, extents, fibre, bounded) if a is not None else None
            if b is not None:
                out += [(sign, a), (-sign, b)]
                break
        else:
            q = _fibre_sum(params, context, nx, constraints, extents, fibre, bounded)
            if q is None:
                return None
            out.append((sign, q))
    return out


def _kept(params: tuple[str, ...], nx: int, constraints: tuple[str, ...], extents: tuple[Extent, ...],
          bounded: tuple[tuple[int, int], ...]) -> bool:
    """Do the constraints keep every tiled index below its extent (``fibre_card``'s rule:
    the points in the PRA's indices are then the tile split's)?"""
    return _isl.kept_below(_names(params, extents), nx, constraints,
                           tuple((i, extents[g][0]) for i, g in bounded))


def _names(params: tuple[str, ...], extents: tuple[Extent, ...]) -> tuple[str, ...]:
    """The parameters of a count in the PRA's indices: the extents, then the parameters
    that are no extent's tile size, count or remainder."""
    own = {e[0] for e in extents} | {n for e in extents for n in e[1:]}
    return tuple(e[0] for e in extents) + tuple(q for q in params if q not in own)


def _slabs(constraints: tuple[str, ...], fibre: tuple[int, ...], extents: tuple[Extent, ...],
           bounded: tuple[tuple[int, int], ...]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """A band's two edges in a fibre sum as a difference: the points between the edges
    ``e_lo >= 0`` and ``e_hi >= 0`` (``e_lo + e_hi`` free of indices) are the points below
    ``e_hi`` less those below it and past ``e_lo`` (``-e_lo - 1 >= 0``). Each side has its
    edges parallel, so its fibre count has few chambers: a band's position sum in 9 + 3
    pieces instead of 35, 3x faster with the merging. Both ways of dropping an edge, the
    one naming more parameters (a width ``W``) first; the caller keeps the first whose
    counts are finite (the dropped edge may have been an index's only bound). The indices
    kept below their extents are kept there by name. None: no such pair on a fibre index."""
    lins = [(c, lin) for c in constraints if (lin := _linear(c)) is not None]
    xs = lambda lin: {n: a for n, a in lin[0].items() if n.startswith("x")}  # noqa: E731
    edges = [(c, lin) for c, lin in lins if not lin[2] and any(f"x{i}" in lin[0] for i in fibre)
             and any(n not in {f"x{i}" for i in fibre} for n in xs(lin))]
    kept = tuple(f"1*{extents[g][0]} + -1*x{i} + -1 >= 0" for i, g in bounded)
    for a, (ca, la) in enumerate(edges):
        for cb, lb in edges[a + 1:]:
            if xs(la) != {n: -v for n, v in xs(lb).items()}:
                continue
            out = []
            for cd, ld in sorted(((ca, la), (cb, lb)), key=lambda e: len(xs(e[1])) - len(e[1][0])):
                keep = tuple(c for c in constraints if c != cd) + kept
                past = " + ".join([f"{-v}*{n}" for n, v in ld[0].items()] + [str(-ld[1] - 1)]) + " >= 0"
                out.append((keep, keep + (past,)))
            return out
    return []


def _linear(text: str) -> tuple[dict[str, int], int, bool] | None:
    """``a*x + ... + c >= 0`` (or ``= 0``), as :meth:`Affine.isl` writes it, parsed."""
    m = re.fullmatch(r"(.+) (>=|=) 0", text)
    if m is None:
        return None
    coeffs: dict[str, int] = {}
    const = 0
    for term in m[1].split(" + "):
        if re.fullmatch(r"-?\d+", term):
            const += int(term)
        elif (t := re.fullmatch(r"(-?\d+)\*(\w+)", term)) is not None:
            coeffs[t[2]] = coeffs.get(t[2], 0) + int(t[1])
        elif re.fullmatch(r"\w+", term):
            coeffs[term] = coeffs.get(term, 0) + 1
        else:
            return None
    return {n: a for n, a in coeffs.items() if a}, const, m[2] == "="


def _places(conds: tuple[Cond, ...]) -> list[tuple[int, Place]]:
    """The tile positions ``conds`` allow, as signed fixed positions where that is short."""
    if any(eq or abs(s) != 1 for s, _, _, eq in conds):
        return [(1, ("r", conds))]
    lows = {(-b, -c) for s, b, c, _ in conds if s == 1}  # j >= b*p + c
    highs = {(b, c) for s, b, c, _ in conds if s == -1}  # j <= b*p + c
    lb = {b for b, _ in lows}
    hb = {b for b, _ in highs}
    if len(lb) > 1 or len(hb) > 1:
        return [(1, ("r", conds))]
    lo = (lb.pop(), max(c for _, c in lows)) if lows else (0, 0)
    hi = (hb.pop(), min(c for _, c in highs)) if highs else (1, -1)
    if lo[0] == hi[0]:  # a constant number of positions
        return _fixed(lo[0], lo[1], hi[1])
    if lo[0] == 0 and hi == (1, -1):  # the tile less its first positions
        return [(1, ("all",))] + [(-s, x) for s, x in _fixed(0, 0, lo[1] - 1)]
    if lo == (0, 0) and hi[0] == 1:  # the tile less its last positions
        return [(1, ("all",))] + [(-s, x) for s, x in _fixed(1, hi[1] + 1, -1)]
    return [(1, ("r", conds))]


def _sized(places: list[tuple[int, Place]], size: int) -> list[tuple[int, Place]]:
    """:func:`_places`' signed positions in a tile of known ``size`` (a window's fixed tile
    size): positions outside the tile dropped, each fixed one written from the tile's start;
    none when they cancel (a tile of 1 has no position but its first: a band's "not first
    in its tile" class is empty there, not the whole less a sum of its first positions),
    every position as one."""
    def inside(place: Place) -> list[int]:
        if place[0] == "v":
            j = place[1] * size + place[2]
            return [j] if 0 <= j < size else []
        return [j for j in range(size) if all(
            (s * j + b * size + c == 0) if eq else (s * j + b * size + c >= 0) for s, b, c, eq in place[1])]

    out: list[tuple[int, Place]] = []
    net = [0] * size
    for sign, place in places:
        if place == ("all",):
            out.append((sign, place))
            net = [n + sign for n in net]
            continue
        js = inside(place)
        if js:
            out.append((sign, ("v", 0, js[0]) if place[0] == "v" else place))
            for j in js:
                net[j] += sign
    if all(n == 0 for n in net):
        return []
    if all(n == 1 for n in net):
        return [(1, ("all",))]
    return out


def pinned(context: tuple[str, ...]) -> dict[str, int]:
    """Parameters that ``context`` fixes to one value (``p0 >= 3`` and ``p0 <= 3``)."""
    lows = {m[1]: int(m[2]) for c in context if (m := re.fullmatch(r"(\w+) >= (-?\d+)", c))}
    highs = {m[1]: int(m[2]) for c in context if (m := re.fullmatch(r"(\w+) <= (-?\d+)", c))}
    return {n: v for n, v in lows.items() if highs.get(n) == v}


#: at most this many positions are summed one by one; more are one range (each sum is an isl
#: summation, and adding many sums of different chambers costs more than summing a range)
FIXED = 2


def _fixed(b: int, first: int, last: int) -> list[tuple[int, Place]]:
    """Positions ``j = b*p + first .. b*p + last``: each alone, or one range."""
    if last < first:
        return []
    if last - first + 1 <= FIXED:
        return [(1, ("v", b, v)) for v in range(first, last + 1)]
    return [(1, ("r", ((1, -b, -first, False), (-1, b, last, False))))]


@functools.lru_cache(maxsize=1024)
def _fibre_sum(params: tuple[str, ...], context: tuple[str, ...], nx: int,
               constraints: tuple[str, ...], extents: tuple[Extent, ...],
               fibre: tuple[tuple[int, int, Place], ...],
               bounded: tuple[tuple[int, int], ...]) -> object | None:
    """The count with each ``fibre`` index in its place: the count of the other indices per
    value of the fibre (Barvinok) summed over the tile indices (and positions) of the fibre."""
    pieces = _isl.fibre_card(_names(params, extents), nx, tuple(i for i, _, _ in fibre),
                             constraints, tuple((i, extents[g][0]) for i, g in bounded))
    if pieces is None:
        return None
    where = {f"x{i}": (g, place) for i, g, place in fibre}
    least = {e[1]: least_value(context, e[1]) for e in extents}
    texts = []
    for conjs, terms in pieces:
        domain = [_tile_form(conj, extents, where, least) for conj in conjs]
        if any(d is None for d in domain):
            return None
        texts.append((_polynomial(terms, extents, where), " or ".join(f"({d})" for d in domain)))
    setvars: list[str] = []
    ranges = list(context)
    for i, g, place in fibre:
        _, p, t, _ = extents[g]
        setvars.append(f"m{i}")
        ranges.append(f"0 <= m{i} <= {t} - 1")
        if place[0] == "r":
            setvars.append(f"j{i}")
            ranges += [f"0 <= j{i} <= {p} - 1"] + [
                f"{s}*j{i} + {b}*{p} + {c} {'=' if eq else '>='} 0" for s, b, c, eq in place[1]]
        else:  # j = b*p + v lies in 0 .. p - 1
            ranges.append(f"{p} >= {place[2] + 1}" if place[1] == 0 else f"{p} >= {-place[2]}")
    return _isl.summed(params, tuple(setvars), tuple(ranges), tuple(texts))


def _position(place: Place, p: str, i: str) -> tuple[str, dict[str, int], int, int]:
    """A fibre index's position in its tile: (isl text, its ``j`` terms, constant, multiple of ``p``)."""
    if place[0] == "r":
        return f"j{i}", {f"j{i}": 1}, 0, 0
    return f"{place[1]}*{p} + {place[2]}", {}, place[2], place[1]


def least_value(context: tuple[str, ...], name: str) -> int:
    """The least value of ``name`` that ``context`` states (``p0 >= 3``; else 1)."""
    lows = [int(m[1]) for c in context if (m := re.fullmatch(rf"{re.escape(name)} >= (-?\d+)", c))]
    return max([1, *lows])


def _tile_form(conj: list[tuple[dict[str, int], int, bool]], extents: tuple[Extent, ...],
               where: dict[str, tuple[int, Place]], least: dict[str, int]) -> str | None:
    """A chamber of the fibre count (affine in the fibre indices ``x``, the extents and
    other parameters) with ``x = j + p*m`` and ``E = p*(t-1) + r``: a conjunction of unions."""
    whole = {e[0]: e for e in extents}
    out = []
    for coeffs, const, eq in conj:
        ps = {extents[where[n][0]][1] for n in coeffs if n in where}
        ps |= {whole[n][1] for n in coeffs if n in whole}
        if not ps:
            out.append(f"{Affine.of(coeffs, const).isl()} {'=' if eq else '>='} 0")
            continue
        if len(ps) > 1:
            return None
        p = ps.pop()
        mine = [e for e in extents if e[1] == p]  # the extents written in this tile size
        rest: dict[str, int] = {}
        delta: dict[str, int] = {}
        dconst = 0
        for n, a in coeffs.items():
            if n in where:
                _, js, v, b = _position(where[n][1], p, n[1:])
                for j, x in js.items():
                    rest[j] = rest.get(j, 0) + a * x
                const += a * v
                dconst += a * b
                delta[f"m{n[1:]}"] = a
            elif n in whole:
                _, _, t, r = whole[n]
                rest[r] = rest.get(r, 0) + a
                delta[t] = delta.get(t, 0) + a
                dconst -= a
            else:
                return None  # another parameter: the offsets are not bounded
        alts = alternatives(Affine.of(rest, const), Affine.of(delta, dconst), p,
                            tuple(e[2] for e in mine), tuple(e[3] for e in mine), eq, least[p])
        if alts == [[]]:
            continue
        if not alts:
            return "false"  # no tile offset satisfies it
        out.append("(" + " or ".join("(" + (" and ".join(a) or "true") + ")" for a in alts) + ")")
    return " and ".join(out) or "true"


def _polynomial(terms: list[tuple[Fraction | int, dict[str, int]]], extents: tuple[Extent, ...],
                where: dict[str, tuple[int, Place]]) -> str:
    """The fibre count's polynomial with ``x = p*m + j`` and ``E = p*(t-1) + r`` (isl text)."""
    base = {e: f"({p}*({t} - 1) + {r})" for e, p, t, r in extents}
    for x, (g, place) in where.items():
        p = extents[g][1]
        base[x] = f"({p}*m{x[1:]} + {_position(place, p, x[1:])[0]})"
    out = []
    for c, exps in terms:
        factors = [f"({c})"] + [f"{base.get(n, n)}^{e}" for n, e in exps.items() if e]
        out.append(" * ".join(factors))
    return " + ".join(out) or "0"
