"""The only module that imports islpy: sets from constraint text, Barvinok cards, and the
conversion of isl's piecewise quasi-polynomials into polyjoule's own :class:`Formula`."""

from __future__ import annotations

import functools
from fractions import Fraction
from math import lcm

import islpy as isl

from polyjoule.analysis.formula import Cond, Div, Formula, Piece
from polyjoule.errors import NotSymbolic

HAS_BARVINOK = hasattr(isl.Set, "card")


class Sets:
    """Parametric sets over one space, built from constraint texts (memoised), and counted."""

    def __init__(self, params: list[str], dims: list[str]):
        self.head = f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] : "
        self._memo: dict[tuple[tuple[str, ...], ...], isl.Set] = {}

    def union(self, pieces: list[list[str]]) -> isl.Set:
        """The union of conjunctions (each a list of constraint texts)."""
        key = tuple(tuple(p) for p in pieces)
        hit = self._memo.get(key)
        if hit is None:
            alt = " or ".join("(" + (" and ".join(p) or "true") + ")" for p in pieces) or "false"
            hit = self._memo[key] = isl.Set(self.head + alt + " }")
        return hit

    @staticmethod
    def intersect(a: isl.Set, b: isl.Set) -> isl.Set:
        return a.intersect(b).coalesce()

    @staticmethod
    def card(s: isl.Set) -> isl.PwQPolynomial:
        """Barvinok: the number of integer points, as a piecewise quasi-polynomial."""
        return s.card().coalesce()


def card_of(params: list[str], dims: list[str], context: list[str],
            unions: list[list[list[str]]]) -> isl.PwQPolynomial:
    """Barvinok count of the conjunction of ``context`` and ``unions`` (each a union of
    conjunctions of constraint texts): the sets of the constraints and unions intersected,
    then coalesced once (one text would be expanded into the product of all the
    disjunctions; coalescing after each union costs more than once at the end). Each
    constraint and each union is parsed once per process (classes share most of them;
    parsing costs ten times an intersection)."""
    head = f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] : "
    plain = list(context) + [c[0] for u in unions if len(u) == 1 for c in u if len(c) == 1]
    out = _parsed(head + "true }")
    for c in plain:
        out = out.intersect(_parsed(head + c + " }"))
    for u in unions:
        if len(u) == 1 and len(u[0]) == 1:
            continue
        alt = " or ".join("(" + (" and ".join(c) or "true") + ")" for c in u) or "false"
        out = out.intersect(_parsed(head + alt + " }"))
    return out.coalesce().card().coalesce()


_Terms = list[tuple[Fraction | int, dict[str, int]]]


@functools.lru_cache(maxsize=4096)
def fibre_card(params: tuple[str, ...], nx: int, fibre: tuple[int, ...], constraints: tuple[str, ...],
               bounded: tuple[tuple[int, str], ...]) -> list[tuple[list[_Conj], _Terms]] | None:
    """Barvinok count of ``{x0 .. : constraints}`` per value of its ``fibre`` indices (all
    of it when there are none), as plain pieces: the conjunctions of each chamber (affine in
    ``params`` and the fibre) and its polynomial's terms. ``None`` when an ``(index, bound)``
    of ``bounded`` is not kept ``x <= bound - 1`` by the constraints, or the count needs an
    integer division or is infinite."""
    if not kept_below(params, nx, constraints, bounded):
        return None
    head = f"[{', '.join(params)}] -> "
    body = " and ".join(constraints) or "true"
    dims = [f"x{i}" for i in range(nx)]
    if fibre:
        out_dims = [d for i, d in enumerate(dims) if i not in fibre]
        ins = [dims[i] for i in fibre]
        pw = isl.Map(f"{head}{{ [{', '.join(ins)}] -> [{', '.join(out_dims)}] : {body} }}").card()
    else:
        ins = []
        pw = isl.Set(f"{head}{{ [{', '.join(dims)}] : {body} }}").card()
    names = [*params, *ins]
    out = []
    for dom, qp in pw.coalesce().get_pieces():
        conjs = [_piece(b, names) for b in dom.get_basic_sets()]
        if any(c is None for c in conjs) or qp.is_nan() or qp.is_infty() or qp.is_neginfty():
            return None
        raw: list[isl.Term] = []
        qp.foreach_term(raw.append)
        if any(t.dim(isl.dim_type.div) for t in raw):
            return None
        terms = [(_val(t.get_coefficient_val()),
                  {n: t.get_exp(k, i) for k, base in ((isl.dim_type.param, 0), (isl.dim_type.set, len(params)))
                   for i, n in enumerate(names[base:base + t.dim(k)])})
                 for t in raw]
        out.append((conjs, terms))  # type: ignore[arg-type]
    return out


@functools.lru_cache(maxsize=1024)
def kept_below(params: tuple[str, ...], nx: int, constraints: tuple[str, ...],
                bounded: tuple[tuple[int, str], ...]) -> bool:
    """Do ``constraints`` keep every ``x{i} <= bound - 1`` of ``bounded``?"""
    if not bounded:
        return True
    dims = ", ".join(f"x{i}" for i in range(nx))
    head = f"[{', '.join(params)}] -> {{ [{dims}] : "
    whole = isl.Set(head + (" and ".join(constraints) or "true") + " }")
    beyond = isl.Set(head + " or ".join(f"x{i} >= {e}" for i, e in bounded) + " }")
    return bool(whole.intersect(beyond).is_empty())


def combined(params: list[str], terms: list[tuple[int, isl.PwQPolynomial]]) -> isl.PwQPolynomial:
    """The sum of ``sign * count`` over ``terms``."""
    if len(terms) == 1 and terms[0][0] > 0:
        return terms[0][1]
    out = isl.PwQPolynomial(f"[{', '.join(params)}] -> {{ 0 }}")
    for sign, q in terms:
        out = out.add(q) if sign > 0 else out.sub(q)
    return out.coalesce()


@functools.lru_cache(maxsize=4096)
def summed(params: tuple[str, ...], setvars: tuple[str, ...], ranges: tuple[str, ...],
           pieces: tuple[tuple[str, str], ...]) -> isl.PwQPolynomial:
    """The sum over ``setvars`` (in ``ranges``) of a piecewise polynomial given as
    ``(polynomial, domain)`` texts with disjoint domains (no ``setvars``: the polynomial).
    Memoised: classes of different constraints often leave the same sum (isl objects are
    values; nothing changes them in place)."""
    head = f"[{', '.join(params)}] -> {{ "
    space = f"[{', '.join(setvars)}] -> " if setvars else ""
    box = " and ".join(ranges) or "true"
    if setvars and pieces and all(_integer(poly) for poly, _ in pieces):  # counts: Barvinok, not a sum
        return _counted(head, setvars, box, pieces)
    if setvars and sum(d.count(" or ") for _, d in pieces) >= MANY_ALTERNATIVES:
        return _summed_apart(head, setvars, box, pieces)
    out = isl.PwQPolynomial(f"{head}{space}0 }}")
    for poly, domain in pieces:
        out = out.add(isl.PwQPolynomial(f"{head}{space}{poly} : {box} and ({domain}) }}"))
    return (out.sum() if setvars else out).coalesce()


def _summed_apart(head: str, setvars: tuple[str, ...], box: str,
                  pieces: tuple[tuple[str, str], ...]) -> isl.PwQPolynomial:
    """A band's sum: each piece's domain coalesced (its tile-offset alternatives merge into
    fewer basic sets), summed alone, and the sums added (fewer pieces than one sum of all:
    62 -> 44 for a band ``j = i + 1 .. i + W``, 1.1-1.4x faster with the merging after)."""
    space = f"[{', '.join(setvars)}]"
    out = None
    for poly, domain in pieces:
        dom = isl.Set(f"{head}{space} : {box} and ({domain}) }}").coalesce()
        q = isl.PwQPolynomial(f"{head}{space} -> {poly} }}").intersect_domain(dom).sum()
        out = q if out is None else out.add(q)
    assert out is not None  # a fibre count has a piece
    return out.coalesce()


#: tile-offset alternatives in a sum's domain from which each piece is coalesced and summed
#: apart (:func:`_summed_apart`): worth it for a band's, not for a stencil's few
MANY_ALTERNATIVES = 8


def _integer(poly: str) -> bool:
    return poly.strip("() ").lstrip("-").isdigit()


def _counted(head: str, setvars: tuple[str, ...], box: str,
             pieces: tuple[tuple[str, str], ...]) -> isl.PwQPolynomial:
    """The sum of constants over ``setvars``: each constant times the number of points of
    its domain (a fibre count that is 0 or 1 is what positions in a tile sum), which
    Barvinok counts several times faster than isl sums a polynomial over two variables."""
    out = None
    for poly, domain in pieces:
        c = int(poly.strip("() "))
        q = isl.Set(f"{head}[{', '.join(setvars)}] : {box} and ({domain}) }}").card()
        if c != 1:
            q = q.scale_val(isl.Val(c))
        out = q if out is None else out.add(q)
    assert out is not None  # a fibre count has a piece
    return out.coalesce()


@functools.lru_cache(maxsize=4096)
def _parsed(text: str) -> isl.Set:
    return isl.Set(text)


@functools.lru_cache(maxsize=256)
def _context(params: tuple[str, ...], context: tuple[str, ...]) -> isl.Set:
    return isl.Set(f"[{', '.join(params)}] -> {{ : {' and '.join(context) or 'true'} }}")


def in_context(pwqp: isl.PwQPolynomial, params: list[str], context: list[str]) -> isl.PwQPolynomial:
    """``pwqp`` simplified under the parameter ``context`` (what evaluation validates)."""
    return pwqp.gist_params(_context(tuple(params), tuple(context))).coalesce()


@functools.lru_cache(maxsize=256)
def conditions(params: tuple[str, ...], context: tuple[str, ...]) -> tuple[Cond, ...]:
    """The parameter ``context`` as conditions over ``params`` (div-free)."""
    (ctx,) = _context(params, context).get_basic_sets()
    return _conds_of(ctx, len(params), [])


def merged(pwqp: isl.PwQPolynomial, f: Formula, groups: list[list[int]], params: list[str],
           context: list[str]) -> Formula:
    """``f`` (``pwqp`` converted) with each group ``[a, b, ...]`` of pieces as one: ``a``'s
    polynomial on the union of the group's domains, coalesced and simplified under
    ``context`` (a union that holds everywhere loses its conditions, so products of such
    formulas stay small). A piece alone is kept as isl simplified it."""
    doms = [d for d, _ in pwqp.get_pieces()]
    ctx = _context(tuple(params), tuple(context))
    pieces = []
    for a, *rest in groups:
        p = f.pieces[a]
        if not rest:
            pieces.append(p)
            continue
        dom = doms[a]
        for b in rest:
            dom = dom.union(doms[b])
        dom = dom.coalesce().gist(ctx).coalesce()
        divs = list(p.divs)
        conjs = [_conds_of(b, len(params), divs) for b in dom.get_basic_sets()]
        nd = len(divs)
        domain = tuple(tuple(Cond(c.coeffs, c.dcoeffs + (0,) * (nd - len(c.dcoeffs)), c.const, c.eq)
                             for c in conj) for conj in conjs)
        pad = (0,) * (nd - len(p.divs))
        pieces.append(Piece(tuple(divs), domain, tuple((c, e + pad) for c, e in p.terms), p.den))
    return Formula(f.vars, tuple(pieces))


def product(counts: list[isl.PwQPolynomial]) -> isl.PwQPolynomial:
    """The count of a product of independent sets: the product of their counts."""
    out = counts[0]
    for c in counts[1:]:
        out = out.mul(c)
    return out.coalesce()


def _val(v: isl.Val) -> Fraction | int:
    if v.is_int():
        return v.to_python()
    return Fraction(str(v))


def _div_of(aff: isl.Aff, nvars: int) -> Div:
    """``floor(aff)`` as a :class:`Div`. A floor inside it (a band's ``i + j <= N``) is
    folded in, ``floor((x + floor(y/c))/d) = floor((c*x + y)/(c*d))`` for integer ``x``."""
    coeffs = [_val(aff.get_coefficient_val(isl.dim_type.param, i)) for i in range(nvars)]
    const = _val(aff.get_constant_val())
    nested = [(_val(aff.get_coefficient_val(isl.dim_type.div, k)), k)
              for k in range(aff.dim(isl.dim_type.div))]
    nested = [(e, k) for e, k in nested if e]
    d = lcm(*(Fraction(x).denominator for x in (*coeffs, const, *(e for e, _ in nested))))
    num, k0 = [int(c * d) for c in coeffs], int(const * d)
    if not nested:
        return Div(tuple(num), k0, d)
    if len(nested) > 1 or abs(nested[0][0] * d) != 1:
        raise NotSymbolic("a count needs a floor of several floors")
    e, k = nested[0]
    inner = _div_of(aff.get_div(k), nvars)
    c = inner.den
    sign = int(e * d)  # -floor(y/c) = floor((-y + c - 1)/c)
    ic = [sign * x for x in inner.coeffs]
    ik = inner.const if sign > 0 else -inner.const + c - 1
    return Div(tuple(c * x + y for x, y in zip(num, ic, strict=True)), c * k0 + ik, c * d)


def _conds_of(bset: isl.BasicSet, nvars: int, divs: list[Div]) -> tuple[Cond, ...]:
    ls = bset.get_local_space()
    local = [_div_of(ls.get_div(i), nvars) for i in range(bset.dim(isl.dim_type.div))]
    idx = []
    for d in local:
        if d not in divs:
            divs.append(d)
        idx.append(divs.index(d))
    out = []
    for c in bset.get_constraints():
        cs = [_val(c.get_coefficient_val(isl.dim_type.param, i)) for i in range(nvars)]
        ds = [_val(c.get_coefficient_val(isl.dim_type.div, i)) for i in range(len(local))]
        k = _val(c.get_constant_val())
        m = lcm(*(x.denominator for x in (*cs, *ds, k)))
        dcoef = [0] * len(divs)
        for i, x in zip(idx, ds, strict=True):
            dcoef[i] += int(x * m)
        out.append(Cond(tuple(int(x * m) for x in cs), tuple(dcoef), int(k * m), c.is_equality()))
    return tuple(out)


def samples(pwqp: isl.PwQPolynomial, names: list[str]) -> list[list[dict[str, int]]]:
    """Per piece, one integer point of each conjunction of its domain (for quick checks)."""
    out = []
    for dom, _ in pwqp.get_pieces():
        pts = []
        for b in dom.get_basic_sets():
            pt = b.sample_point()
            if pt.is_void():
                continue
            pts.append({n: int(str(pt.get_coordinate_val(isl.dim_type.param, i)))
                        for i, n in enumerate(names)})
        out.append(pts)
    return out


def prover(pwqp: isl.PwQPolynomial):  # type: ignore[no-untyped-def]
    """``agree(a, b)``: does piece ``a``'s polynomial equal piece ``b``'s on ``b``'s domain?

    Proved by isl (the difference, simplified in each conjunction's context, is zero);
    ``False`` means "not proved", not "different".
    """
    pieces = pwqp.get_pieces()

    def agree(a: int, b: int) -> bool:
        qa, (db, qb) = pieces[a][1], pieces[b]
        diff = qa.sub(qb)
        return all(diff.gist(isl.Set.from_basic_set(bs)).is_zero() for bs in db.get_basic_sets())

    return agree


def to_formula(pwqp: isl.PwQPolynomial, names: list[str]) -> Formula:
    """Convert isl's result into a :class:`Formula` over ``names`` (the isl parameters)."""
    nvars = len(names)
    pieces = []
    for dom, qp in pwqp.get_pieces():
        divs: list[Div] = []
        terms_raw = []
        qp.foreach_term(terms_raw.append)
        terms = []
        for t in terms_raw:
            coeff = _val(t.get_coefficient_val())
            exps = [t.get_exp(isl.dim_type.param, i) for i in range(nvars)]
            dexp: dict[int, int] = {}
            for i in range(t.dim(isl.dim_type.div)):
                e = t.get_exp(isl.dim_type.div, i)
                if e:
                    d = _div_of(t.get_div(i), nvars)
                    if d not in divs:
                        divs.append(d)
                    dexp[divs.index(d)] = dexp.get(divs.index(d), 0) + e
            terms.append((coeff, exps, dexp))
        domain = tuple(_conds_of(b, nvars, divs) for b in dom.get_basic_sets())
        nd = len(divs)
        den = lcm(*(c.denominator for c, _, _ in terms)) if terms else 1
        iterms = tuple(
            (int(c * den), tuple(e) + tuple(de.get(i, 0) for i in range(nd))) for c, e, de in terms
        )
        domain = tuple(
            tuple(Cond(c.coeffs, c.dcoeffs + (0,) * (nd - len(c.dcoeffs)), c.const, c.eq) for c in b)
            for b in domain
        )
        pieces.append(Piece(tuple(divs), domain, iterms, den))
    return Formula(tuple(names), tuple(pieces))


def from_formula(f: Formula, params: list[str]) -> isl.PwQPolynomial:
    """``f`` as isl's piecewise quasi-polynomial over ``params`` (its vars, in order): the
    inverse of :func:`to_formula`, for sums of formulas already merged (fewer pieces)."""
    def lin(coeffs: tuple[int, ...], const: int, divs: list[str], dco: tuple[int, ...] = ()) -> str:
        parts = [f"{c}*{x}" for c, x in zip(coeffs, params, strict=False) if c]
        parts += [f"{c}*{x}" for c, x in zip(dco, divs, strict=False) if c]
        return " + ".join([*parts, str(const)])

    texts = []
    for piece in f.pieces:
        divs = [f"floor(({lin(d.coeffs, d.const, [])})/{d.den})" for d in piece.divs]
        names = [*params, *divs]
        poly = " + ".join(
            f"({c}/{piece.den})" + "".join(f" * ({x})^{e}" for x, e in zip(names, exps, strict=True) if e)
            for c, exps in piece.terms) or "0"
        dom = " or ".join(
            "(" + (" and ".join(f"{lin(c.coeffs, c.const, divs, c.dcoeffs)} {'=' if c.eq else '>='} 0"
                                for c in conj) or "true") + ")" for conj in piece.domain) or "false"
        texts.append(f"{poly} : {dom}")
    return isl.PwQPolynomial(f"[{', '.join(params)}] -> {{ {'; '.join(texts) or '0'} }}")


def overlap(params: list[str], dims: list[str], a: list[str], b: list[str]) -> bool:
    """Do the conjunctions ``a`` and ``b`` share an integer point for some parameter values?"""
    sets = Sets(params, dims)
    return not sets.union([a]).intersect(sets.union([b])).is_empty()


# --- questions localisation asks (frontends/localize/geometry.py) --------------------------
# Sets are given as constraint texts over ``params`` and ``dims``; a union is a tuple of
# conjunctions. Answers are memoised: localisation asks the same question many times.


def _set(params: tuple[str, ...], dims: tuple[str, ...],
         pieces: tuple[tuple[str, ...], ...]) -> isl.Set:
    alt = " or ".join("(" + (" and ".join(p) or "true") + ")" for p in pieces) or "false"
    return isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] : {alt} }}")


@functools.lru_cache(maxsize=4096)
def is_empty(params: tuple[str, ...], dims: tuple[str, ...], conds: tuple[str, ...]) -> bool:
    """Has the conjunction ``conds`` no integer point for any parameter value?"""
    return bool(_set(params, dims, (conds,)).is_empty())


@functools.lru_cache(maxsize=1024)
def same_union(params: tuple[str, ...], dims: tuple[str, ...],
               a: tuple[tuple[str, ...], ...], b: tuple[tuple[str, ...], ...]) -> bool:
    """Are two unions of conjunctions the same set?"""
    return bool(_set(params, dims, a).is_equal(_set(params, dims, b)))


@functools.lru_cache(maxsize=1024)
def projection_is(params: tuple[str, ...], dims: tuple[str, ...], conds: tuple[str, ...],
                  keep: int, want: tuple[str, ...]) -> bool:
    """Is ``conds`` projected onto the leading ``keep`` dims exactly the set ``want``?"""
    full = _set(params, dims, (conds,))
    shadow = full.project_out(isl.dim_type.set, keep, len(dims) - keep)
    return bool(shadow.is_equal(_set(params, dims[:keep], (want,))))


# --- questions the PRA loader asks (model/pra.py check_semantics) -------------------------


def shifted_within(params: tuple[str, ...], dims: tuple[str, ...], conds: tuple[str, ...],
                   shift: tuple[int, ...], target: tuple[tuple[str, ...], ...]) -> bool:
    """Is every point ``i`` of ``conds`` moved to ``i - shift`` inside the union ``target``?

    A transport ``x[i] = y[i - d]`` reads a value that must exist: its source lies in the
    iteration space where some statement writes ``y``.
    """
    sets = Sets(list(params), list(dims))
    src = sets.union([list(conds)])
    out = [f"o{k}" for k in range(len(dims))]
    back = " and ".join(f"{o} = {n} - ({d})" for o, n, d in zip(out, dims, shift, strict=True))
    move = isl.Map(f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] -> "
                   f"[{', '.join(out)}] : {back} }}")
    return bool(src.apply(move).is_subset(sets.union([list(p) for p in target])))


# --- conditions with alternatives (model/pra.py split_alternatives) -----------------------
# A statement's ``when:`` may be a union of conjunctions; the model splits it once, at load,
# into disjoint conjunctions so that every later stage sees plain conjunctions.

_Conj = list[tuple[dict[str, int], int, bool]]  # constraints: (coefficients, constant, is_eq)


def _piece(b: isl.BasicSet, names: list[str]) -> _Conj | None:
    """A basic set's constraints as integers; ``None`` if it needs an existential (a div)."""
    if b.dim(isl.dim_type.div):
        return None
    n_par = b.dim(isl.dim_type.param)
    out: _Conj = []
    for c in b.get_constraints():
        vals = [c.get_coefficient_val(isl.dim_type.param, i) for i in range(n_par)]
        vals += [c.get_coefficient_val(isl.dim_type.set, i)
                 for i in range(b.dim(isl.dim_type.set))]
        coeffs = {n: int(v.to_python()) for n, v in zip(names, vals, strict=True)
                  if not v.is_zero()}
        out.append((coeffs, int(c.get_constant_val().to_python()), bool(c.is_equality())))
    return out


def disjoint_pieces(params: tuple[str, ...], dims: tuple[str, ...], context: tuple[str, ...],
                    alternatives: tuple[tuple[str, ...], ...]) -> list[_Conj | None]:
    """The union of ``alternatives`` within ``context`` as disjoint conjunctions, each
    simplified against ``context`` (the domain and parameter minimums).

    Two splits are tried: isl's ``make_disjoint`` of the coalesced union, and each
    alternative minus the ones before it; the one with fewer pieces wins (each piece is a
    counted case later). A piece that needs an integer division is ``None``.
    """
    ctx = _set(params, dims, (context,))
    whole = _set(params, dims, alternatives).intersect(ctx).coalesce().make_disjoint()
    seq: list[isl.BasicSet] = []
    covered = ctx.subtract(ctx)
    for alt in alternatives:
        a = _set(params, dims, (alt,)).intersect(ctx)
        seq += a.subtract(covered).coalesce().make_disjoint().get_basic_sets()
        covered = covered.union(a)
    best = min((whole.get_basic_sets(), seq), key=len)
    hull = ctx.polyhedral_hull()
    names = [*params, *dims]
    return [_piece(b.gist(hull), names) for b in best if not b.is_empty()]
