"""The exact latency formula of one scanning order (method sheet section 5).

The latency is exact, not the full-tile formula: the largest ``start + tau_q + w_q`` over
the points each statement really executes (partial last tiles, condition spaces). For
condition spaces that constrain one dim at a time it is a closed form (an
:class:`~polyjoule.analysis.intexpr.IntExpr`, compiled to integer Python/numpy); a statement
whose conditions couple dims (triangles) contributes an exact integer-programming maximum
(isl) evaluated per point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from polyjoule.analysis.intexpr import (
    TRUE,
    Call,
    Compiled,
    IntExpr,
    Mod,
    Num,
    Piecewise,
    Rel,
    Sym,
    ceil_div,
    conj,
    eq0,
    extreme,
    floor_div,
    ge,
    max_args,
    p_sym,
    provably_ge,
    provably_nonneg,
)
from polyjoule.analysis.intexpr import affine as affine_expr
from polyjoule.analysis.timing import Timing
from polyjoule.errors import SpecError
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.pra import PRA, Statement

if TYPE_CHECKING:
    from polyjoule.analysis.scan import ScanSchedule


def _dim_bounds(cons: Sequence[Constraint], dims: Sequence[str]) -> tuple[
        list[list[IntExpr]], list[list[IntExpr]], list[Constraint], list[Constraint]]:
    """Per-dim lower/upper bound lists when every constraint involves at most one dim.

    Returns (lowers, uppers, param-only constraints, coupled constraints).
    """
    lo: list[list[IntExpr]] = [[] for _ in dims]
    hi: list[list[IntExpr]] = [[] for _ in dims]
    params_only: list[Constraint] = []
    coupled: list[Constraint] = []
    for c in cons:
        co = c.expr.coeffs
        used = [l for l, n in enumerate(dims) if co.get(n, 0)]
        if not used:
            params_only.append(c)
            continue
        if len(used) > 1:
            coupled.append(c)
            continue
        l = used[0]
        a = co[dims[l]]
        rest = affine_expr(Affine.of({k: v for k, v in co.items() if k != dims[l]}, c.expr.const))
        if c.eq:
            if abs(a) != 1:
                coupled.append(c)
                continue
            lo[l].append(-a * rest)
            hi[l].append(-a * rest)
        elif a > 0:
            lo[l].append(ceil_div(-rest, a) if a != 1 else -rest)
        else:
            hi[l].append(floor_div(rest, -a) if a != -1 else rest)
    return lo, hi, params_only, coupled


def _extreme(bounds: list[IntExpr], mins: Mapping[str, int], mode: str) -> IntExpr:
    """``Max``/``Min`` of ``bounds`` without the ones another provably dominates."""
    keep: list[IntExpr] = []
    for b in dict.fromkeys(bounds):
        if mode == "max":
            if any(provably_ge(k, b, mins) for k in keep):
                continue
            keep = [k for k in keep if not provably_ge(b, k, mins)] + [b]
        else:
            if any(provably_ge(b, k, mins) for k in keep):
                continue
            keep = [k for k in keep if not provably_ge(k, b, mins)] + [b]
    return extreme("Max" if mode == "max" else "Min", keep, evaluate=False)


def _le(a_list: list[IntExpr], b_list: list[IntExpr], mins: Mapping[str, int],
        mode: str) -> bool:
    """Provable ``Max(a_list) <= Max(b_list)`` (mode 'max') or ``Min(a) <= Min(b)`` ('min')."""
    if mode == "max":  # every a is below some b
        return all(any(provably_ge(b, a, mins) for b in b_list) for a in a_list)
    return all(any(provably_ge(b, a, mins) for a in a_list) for b in b_list)



class StatementRanges:
    """Per-statement index ranges (shared by all scanning orders) and which ones can matter."""

    def __init__(self, pra: PRA, timing: Timing, mins: dict[str, int]) -> None:
        n, dims = pra.n, pra.dim_names
        self.n, self.mins = n, mins
        self.terms: list[tuple[int, list[list[IntExpr]], list[list[IntExpr]],
                               list[Constraint]]] = []
        self.coupled: list[tuple[Statement, int, frozenset[Constraint], int | None]] = []
        self.corners: set[int] = set()  # terms standing for a coupled statement's corner
        for s in pra.statements:
            fin = timing.fin(s.id)
            lo, hi, params_only, coupled = _dim_bounds(pra.statement_space(s), dims)
            if coupled:
                corner = _corner(pra, s)
                idx = None
                if corner is not None:
                    idx = len(self.terms)
                    self.corners.add(idx)
                    self.terms.append((fin, [[h] for h in corner[0]], [[h] for h in corner[0]],
                                       corner[1]))
                self.coupled.append((s, fin, frozenset(pra.statement_space(s)), idx))
                continue
            for l in range(n):
                if not lo[l] or not hi[l]:
                    raise SpecError(f"{pra.name}: {s.id}: dim {dims[l]} is unbounded")
            self.terms.append((fin, lo, hi, params_only))
        self._kept: dict[bool, list[int]] = {}

    def _always_nonempty(self, lo: list[list[IntExpr]], hi: list[list[IntExpr]],
                         po: list[Constraint]) -> bool:
        return not po and all(provably_ge(h, a, self.mins) for l in range(self.n)
                              for a in lo[l] for h in hi[l])

    def _dom(self, a: int, b: int, monotone: bool) -> bool:
        """Term ``a`` can never exceed term ``b`` (so it can be left out)."""
        n, mins = self.n, self.mins
        fa, loa, hia, poa = self.terms[a]
        fb, lob, hib, pob = self.terms[b]
        if fb < fa or poa != pob and pob:
            return False
        same = all(_le(loa[l], lob[l], mins, "max") and _le(lob[l], loa[l], mins, "max")
                   and _le(hia[l], hib[l], mins, "min") and _le(hib[l], hia[l], mins, "min")
                   for l in range(n))
        if same and (poa == pob or not pob):
            return True
        if not monotone or not all(_le(hia[l], hib[l], mins, "min") for l in range(n)):
            return False
        if self._always_nonempty(lob, hib, pob):
            return True
        return not pob and all(_le(lob[l], loa[l], mins, "max") for l in range(n))

    def kept(self, monotone: bool) -> list[int]:
        """Terms that can be the last; corner terms only stand in when every dim is monotone."""
        if monotone not in self._kept:
            use = [a for a in range(len(self.terms)) if monotone or a not in self.corners]
            dom = {(a, b): self._dom(a, b, monotone) for a in use for b in use if a != b}
            self._kept[monotone] = [a for a in use if not any(
                b != a and dom[a, b] and (not dom[b, a] or b < a) for b in use)]
        return self._kept[monotone]


def _corner(pra: PRA, s: Statement) -> tuple[list[IntExpr], list[Constraint]] | None:
    """The componentwise-largest point of a coupled condition space, when it is in the space.

    With a start time non-decreasing in every index, that point finishes last, so the
    statement gets a closed form. Uses isl's parametric maxima on the untiled space; ``None``
    (exact per-point maximum instead) when a maximum has several pieces or divisions, or the
    corner can fall outside the space.
    """
    import islpy as isl

    params, dims = list(pra.params), list(pra.dim_names)
    pmin = dict(pra.param_min)
    ctx = " and ".join(f"{p} >= {pmin.get(p, 0)}" for p in params) or "true"
    space = " and ".join(c.isl() for c in pra.statement_space(s))
    head = f"[{', '.join(params)}] -> "
    try:
        st = isl.Set(f"{head}{{ [{', '.join(dims)}] : {ctx} and {space} }}")
        his: list[Affine] = []
        for l in range(len(dims)):
            pieces = st.dim_max(l).get_pieces()
            if len(pieces) != 1:
                return None
            _dom, aff = pieces[0]
            if aff.dim(isl.dim_type.div) != 0:
                return None
            co = {p: aff.get_coefficient_val(isl.dim_type.param, q).to_python()
                  for q, p in enumerate(params)}
            const = aff.get_constant_val().to_python()
            if not all(isinstance(v, int) for v in [*co.values(), const]):
                return None
            his.append(Affine.of(co, const))
        eqs = " and ".join(f"{d} = {h.isl()}" for d, h in zip(dims, his, strict=True))
        corner = isl.Set(f"{head}{{ [{', '.join(dims)}] : {eqs} }}").intersect(st)
        nonempty = st.params()
        if not nonempty.is_subset(corner.params()):
            return None
        guard: list[Constraint] = []
        if not isl.Set(f"{head}{{ : {ctx} }}").is_subset(nonempty):
            bsets = nonempty.get_basic_sets()
            if len(bsets) != 1:
                return None
            for c in bsets[0].get_constraints():
                co = {p: c.get_coefficient_val(isl.dim_type.param, q).to_python()
                      for q, p in enumerate(params)}
                const = c.get_constant_val().to_python()
                if not all(isinstance(v, int) for v in [*co.values(), const]):
                    return None
                guard.append(Constraint(Affine.of(co, const), eq=c.is_equality()))
    except isl.Error:
        return None
    return [affine_expr(h) for h in his], guard


def latency_formula(c: ScanSchedule, mins: dict[str, int], ranges: StatementRanges) -> IntExpr:
    """Exact ``max(start + tau_q + w_q)`` over the executed points, as a formula."""
    tiling, n = c.tiling, c.pra.n
    monotone = [
        not tiling.tiled(l) or any(provably_nonneg(a - c.lj[l] * (p_sym(l) - 1), mins)
                                   for a in max_args(c.lk[l]))
        for l in range(n)
    ]
    kept = ranges.kept(all(monotone))
    parts = [_term(c, ranges.terms[a], monotone, mins) for a in kept]
    # a coupled statement whose space contains another's, finishing no earlier, hides it
    mono = all(monotone)
    coupled_st = ranges.coupled
    for a, (sa, fa, ca, ia) in enumerate(coupled_st):
        if mono and ia is not None:
            continue  # its corner term above stands for it
        if any(b != a and cb <= ca and fb >= fa and (cb != ca or fb != fa or b < a)
               for b, (_sb, fb, cb, _ib) in enumerate(coupled_st)):
            continue
        parts.append(_coupled_term(c, sa, fa))
    if not parts:
        return Num(0)
    return extreme("Max", parts, evaluate=False) if len(parts) > 1 else parts[0]


def _term(c: ScanSchedule, term: tuple[int, list[list[IntExpr]], list[list[IntExpr]],
                                       list[Constraint]],
          monotone: list[bool], mins: Mapping[str, int]) -> IntExpr:
    """The finish of one statement's last point: its start at the largest index of each
    dim (the tile's last row when the next tile starts earlier), where it has points."""
    fin, lo, hi, po = term
    n = c.pra.n
    los = [_extreme(lo[l], mins, "max") for l in range(n)]
    his = [_extreme(hi[l], mins, "min") for l in range(n)]
    total: IntExpr = Num(fin)
    for l in range(n):
        top = _g(c, l, his[l])
        if not monotone[l]:
            q = floor_div(his[l], p_sym(l))
            edge = p_sym(l) * q - 1
            alt = c.lj[l] * (p_sym(l) - 1) + c.lk[l] * (q - 1)
            top = Piecewise(((extreme("Max", [top, alt], evaluate=False), ge(edge, los[l])),
                             (top, TRUE)))
        total = total + top
    conds: list[Rel] = [ge(his[l], los[l]) for l in range(n) if not all(
        provably_ge(h, x, mins) for x in lo[l] for h in hi[l])]
    conds += [ge(affine_expr(x.expr), Num(0)) if not x.eq else eq0(affine_expr(x.expr))
              for x in po]
    return Piecewise(((total, conj(conds)), (Num(0), TRUE))) if conds else total


def _g(c: ScanSchedule, l: int, x: IntExpr) -> IntExpr:
    """The start offset of index ``x`` along dim ``l`` (intra-tile and tile parts)."""
    if not c.tiling.tiled(l):
        return c.lj[l] * x
    return c.lj[l] * Mod(x, p_sym(l)) + c.lk[l] * floor_div(x, p_sym(l))


class _CoupledMax:
    """Exact ``max(start) + fin`` of one statement at a design point (isl ILP); picklable."""

    def __init__(self, pra: PRA, s: Statement, fin: int, lambdas: Sequence[IntExpr]) -> None:
        self.params = list(pra.params)
        self.dims = list(pra.dim_names)
        self.cons = tuple(pra.statement_space(s))
        self.fin = fin
        self.lambdas = tuple(lambdas)  # lambda_J then lambda_K, in p0, p1, ...

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_lam"}

    def __call__(self, *args: int) -> int:
        n = len(self.dims)
        if "_lam" not in self.__dict__:
            self._lam = Compiled(self.lambdas, tuple(f"p{l}" for l in range(n)), vector=False)
        vals = dict(zip(self.params, (int(a) for a in args[:len(self.params)]), strict=True))
        p = [int(a) for a in args[len(self.params):]]
        lv = [int(x) for x in self._lam(*p)]
        top = tiled_extreme(self.dims, self.cons, vals, p, lv[:n], lv[n:], "max")
        return 0 if top is None else top + self.fin


def tiled_extreme(dims: Sequence[str], cons: Sequence[Constraint], values: Mapping[str, int],
                  p: Sequence[int], lambda_J: Sequence[int], lambda_K: Sequence[int],
                  mode: str) -> int | None:
    """Exact max (``mode='max'``) or min of ``lambda_J . j + lambda_K . k`` over the points
    ``i = j + p*k`` of ``cons`` at parameter ``values`` (isl ILP); ``None`` when empty."""
    import islpy as isl

    n = len(dims)
    sub = {d: Affine.of({f"j{l}": 1, f"k{l}": p[l]}) for l, d in enumerate(dims)}
    text = [f"0 <= j{l} <= {p[l] - 1} and k{l} >= 0" for l in range(n)]
    for x in cons:
        e = x.expr.substitute(sub)
        e = Affine.of({k: v for k, v in e.terms if k not in values},
                      e.const + sum(v * values[k] for k, v in e.terms if k in values))
        text.append(f"{e.isl()} {'=' if x.eq else '>='} 0")
    names = ", ".join(f"j{l}, k{l}" for l in range(n))
    terms = [(c, v) for l in range(n) for c, v in ((lambda_J[l], f"j{l}"), (lambda_K[l], f"k{l}"))]
    obj = "0" + "".join(f" {'-' if c < 0 else '+'} {abs(c)}*{v}" for c, v in terms if c)
    st = isl.Set(f"{{ [{names}] : {' and '.join(text)} }}")
    aff = isl.Aff(f"{{ [{names}] -> [({obj})] }}")
    v = st.max_val(aff) if mode == "max" else st.min_val(aff)
    if v.is_nan() or v.is_neginfty() or v.is_infty():
        return None
    return int(v.to_python())


def _coupled_term(c: ScanSchedule, s: Statement, fin: int) -> IntExpr:
    """An opaque term ``M_<id>(params, p)``: exact ILP maximum (isl) per design point."""
    name = f"M_{s.id}"
    c.coupled[name] = _CoupledMax(c.pra, s, fin, (*c.lj, *c.lk))
    return Call(name, (*(Sym(x) for x in c.pra.params), *(p_sym(l) for l in range(c.pra.n))))
