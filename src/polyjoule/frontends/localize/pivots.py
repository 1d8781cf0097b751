"""Localisation of an elimination nest in pivot steps (:mod:`polyjoule.frontends.creorder`).

In the step space ``(k, i, j)`` every element ``(i, j)`` of the array holds its current
value ``a`` at every step; ``a`` travels along ``k`` (from the write of step ``k - 1`` where
there is one). A read of another element ``r(p)`` at point ``p`` finds that element at its
home ``(k, r(p))`` of the same step, as it entered the step or as a write of the step left
it, and the value travels from home to ``p`` along the dims the access does not use (the
pivot row of LU along ``i``, the pivot column along ``j``, the pivot element down column
``k`` along ``i``): a *leg* along dim ``b`` holds the element ``r`` on the points between
home and reader; it starts one step after its *corner* (``p - e_b`` where ``p_b == r_b + 1``),
whose value comes from home or from another leg (Cholesky's column operand ``L[j][k]`` is its
row operand on the diagonal ``i == j``, then travels down along ``i``). Legs that carry the
same element along the same dim are one variable. Every element leaves for DRAM at its last
step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from polyjoule.errors import NotUniformError
from polyjoule.frontends.cflow import Conj, FlowSpace, ISet
from polyjoule.frontends.localize.exprs import has_op, render
from polyjoule.frontends.localize.phase import Phase
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Access, Loop, Nest, Stmt
from polyjoule.model.pra import PRA

Ref = tuple[str, Any]  # ("home", "in" | statement index) or ("leg", key)
LegKey = tuple[tuple[Affine, ...], Any, str]


@dataclass
class Leg:
    """Element ``element`` (as it is at its source) carried along ``dim`` over ``region``."""

    element: tuple[Affine, ...]
    source: Any
    dim: str
    region: ISet
    corner: list[tuple[ISet, Ref]] = field(default_factory=list)
    var: str = ""


class PivotPlan:
    """Where every read of the step statements finds its value, and the legs that carry it."""

    def __init__(self, params: tuple[str, ...], dims: tuple[str, ...], stmts: list[Any]):
        self.sp = FlowSpace(params, dims)
        self.dims, self.stmts = dims, stmts
        self.legs: dict[LegKey, Leg] = {}
        self.regions = [self.sp.set(s.region) for s in stmts]
        self.reads = [[self.need(tuple(a.index), src, reg, a)
                       for a, src in zip(s.reads, s.sources, strict=True)]
                      for s, reg in zip(stmts, self.regions, strict=True)]
        self._corners()

    def _d(self, r: tuple[Affine, ...]) -> dict[str, Affine]:
        return {b: Affine.of({b: 1}) - x for b, x in zip(self.dims[1:], r, strict=True)}

    def _where(self, d: dict[str, Affine], b: str, rel: str) -> ISet:
        c = {"0": Constraint(d[b], eq=True), "1": Constraint(d[b].shift(-1)),
             "<0": Constraint((-d[b]).shift(-1)), "2": Constraint(d[b].shift(-2)),
             "==1": Constraint(d[b].shift(-1), eq=True)}[rel]
        return self.sp.set([c])

    def _forms(self, r: tuple[Affine, ...], s: ISet) -> list[tuple[Affine, ...]]:
        """``r`` and its forms on ``s`` with one dim eliminated by an equality of ``s``."""
        out = [r]
        hull = self.sp.pieces(s.affine_hull().to_set())
        for c in hull[0] if hull else []:
            if not c.eq:
                continue
            for b in self.dims[1:]:
                a = c.expr.coeffs.get(b, 0)
                if abs(a) == 1:
                    rest = Affine.of({n: v for n, v in c.expr.terms if n != b}, c.expr.const)
                    val = rest if a == -1 else -rest
                    out.append(tuple(x.substitute({b: val}) for x in r))
        return out

    def _axis(self, r: tuple[Affine, ...], rest: ISet) -> tuple[tuple[Affine, ...], str] | None:
        """A form of ``r`` and the innermost dim it does not use along which ``rest``
        lies ahead of home (the value travels forward along it)."""
        for form in self._forms(r, rest):
            d = self._d(form)
            for b in reversed(self.dims[1:]):
                if any(b in x.names() for x in form):
                    continue
                if rest.intersect(self._where(d, b, "0")).is_equal(rest):
                    continue
                if rest.intersect(self._where(d, b, "<0")).is_empty():
                    return form, b
        return None

    def need(self, r: tuple[Affine, ...], src: Any, s: ISet, acc: Any = None
             ) -> list[tuple[ISet, Ref]]:
        """Pieces of ``s`` with the variable that holds element ``r`` there."""
        d = self._d(r)
        home = s
        for b in self.dims[1:]:
            home = home.intersect(self._where(d, b, "0"))
        out: list[tuple[ISet, Ref]] = [(home, ("home", src))] if not home.is_empty() else []
        rest = s.subtract(home).coalesce()
        if rest.is_empty():
            return out
        found = self._axis(r, rest)
        if found is None:
            where = f"{acc.where}: {acc}" if acc is not None else str(r)
            raise NotUniformError(
                f"{where}: the element is needed on both sides of where its step holds it "
                f"(or off the axes), so it cannot travel there one way along the dims the "
                f"access does not use")
        form, b = found
        d = self._d(form)
        ahead = rest.intersect(self._where(d, b, "1"))
        self._extend((form, src, b), self.sp.sweep_back(ahead, b).intersect(self._where(d, b, "1")))
        out.append((ahead, ("leg", (form, src, b))))
        at = rest.intersect(self._where(d, b, "0"))
        if not at.is_empty():
            out += self.need(form, src, at, acc)
        return out

    def _extend(self, key: LegKey, region: ISet) -> None:
        leg = self.legs.get(key)
        if leg is None:
            self.legs[key] = Leg(key[0], key[1], key[2], region.coalesce())
        else:
            leg.region = leg.region.union(region).coalesce()

    def _corners(self) -> None:
        """Each leg starts one step after its corner, whose value comes from home or another
        leg (which may grow: repeat until no leg grows)."""
        done: dict[LegKey, ISet] = {}
        while True:
            todo = [k for k, leg in self.legs.items()
                    if k not in done or not leg.region.is_subset(done[k])]
            if not todo:
                return
            for key in todo:
                leg = self.legs[key]
                d = self._d(leg.element)
                entry = leg.region.intersect(self._where(d, leg.dim, "==1"))
                corner = self.sp.shift(entry, leg.dim, -1)
                done[key] = leg.region
                leg.corner = self.need(leg.element, leg.source, corner)

    def domain(self) -> ISet:
        """Every point a statement, a leg or a home lives on."""
        out = self.sp.nothing()
        for s in self.regions:
            out = out.union(s)
        for leg in self.legs.values():
            out = out.union(leg.region)
            for piece, _ref in leg.corner:
                out = out.union(piece)
        return out.coalesce()


def _bounds(sp: FlowSpace, dom: ISet, n: int, dims: tuple[str, ...]) -> tuple[Affine, Affine]:
    """The single lower and upper bound of dim ``n`` given the outer ones."""
    pieces = sp.projected(dom, n + 1)
    if len(pieces) != 1:
        raise NotUniformError(f"the step space is not convex along {dims[n]}")
    lo, hi = [], []
    for c in pieces[0]:
        a = c.expr.coeffs.get(dims[n], 0)
        rest = Affine.of({k: v for k, v in c.expr.terms if k != dims[n]}, c.expr.const)
        if a == 1:
            lo.append(-rest)
            hi += [-rest] if c.eq else []
        elif a == -1:
            hi.append(rest)
            lo += [rest] if c.eq else []
        elif a:
            raise NotUniformError(f"the step space scales {dims[n]} by {a}")
    if len(lo) != 1 or len(hi) != 1:
        raise NotUniformError(f"the step space bounds {dims[n]} by {len(lo)} lower and "
                              f"{len(hi)} upper bounds: not one loop")
    return lo[0], hi[0]


def _steps_as_far_as_elements(sp: FlowSpace, dom: ISet) -> ISet:
    """Drop an upper bound of the step by the parameters alone (LU's ``k <= N - 2``) when the
    element bounds still bound the step: every step ``k`` the elements allow is kept (LU's
    last, ``k == N - 1``, holds only ``A[N-1][N-1]``, which leaves for DRAM there). The step
    space is then the pivot triangle ``k <= i, j`` whose counts the analysis derives in
    closed form, without a facet that cuts one corner."""
    pieces = sp.pieces(dom)
    if len(pieces) != 1:
        return dom
    k = sp.dims[0]
    keep = [c for c in pieces[0] if c.eq or c.expr.coeffs.get(k, 0) >= 0
            or c.expr.names() - {k} - set(sp.params)]
    relaxed = sp.set(keep)
    return relaxed if relaxed.is_bounded() else dom


def step_loops(params: tuple[str, ...], dims: tuple[str, ...], stmts: list[Stmt]) -> list[Loop]:
    """The loops of the step space: every point some statement, leg or home needs, the
    steps as far as the elements go."""
    plan = PivotPlan(params, dims, stmts)
    dom = _steps_as_far_as_elements(plan.sp, plan.domain())
    out = []
    for n, d in enumerate(dims):
        lo, hi = _bounds(plan.sp, dom, n, dims)
        out.append(Loop(d, lo, hi, stmts[0].where))
    return out


def is_steps(nest: Nest) -> bool:
    """Is this nest an elimination in pivot steps?"""
    return bool(nest.stmts) and all(hasattr(s, "sources") for s in nest.stmts)


class _Emit:
    def __init__(self, nest: Nest):
        self.ph = Phase(nest)
        self.plan = PivotPlan(tuple(nest.params), tuple(self.ph.dims), list(nest.stmts))
        self.tensor = nest.stmts[0].target.tensor
        self.a = self.ph.fresh(self.tensor)
        self.outs = [self.ph.fresh(f"{self.tensor}{n + 1}") for n in range(len(nest.stmts))]
        for leg in self.plan.legs.values():  # named by the element it carries: a_ik
            plain = all(len(x.terms) == 1 and x.terms[0][1] == 1 and not x.const
                        for x in leg.element)
            tag = "".join(x.terms[0][0] for x in leg.element) if plain else leg.dim
            leg.var = self.ph.fresh(f"{self.tensor}_{tag}")

    def conj(self, s: ISet) -> list[Conj]:
        return self.plan.sp.pieces(s)

    def var(self, ref: Ref) -> str:
        kind, what = ref
        if kind == "leg":
            return self.plan.legs[what].var
        return self.a if what == "in" else self.outs[what]

    def legs(self) -> None:
        for leg in self.plan.legs.values():
            d = self.plan._d(leg.element)
            e = self.ph.geo.unit(leg.dim)
            for piece, ref in leg.corner:
                for c in self.conj(self.plan.sp.shift(piece, leg.dim, 1)):
                    self.ph.transport(leg.var, self.var(ref), c, e)
            for c in self.conj(leg.region.intersect(self.plan._where(d, leg.dim, "2"))):
                self.ph.transport(leg.var, leg.var, c, e)

    def computes(self) -> None:
        for n, (s, reg) in enumerate(zip(self.plan.stmts, self.plan.regions, strict=True)):
            combos: list[tuple[ISet, dict[int, str]]] = [(reg, {})]
            for r, pieces in enumerate(self.plan.reads[n]):
                combos = [(c.intersect(p), {**names, r: self.var(ref)})
                          for c, names in combos for p, ref in pieces
                          if not c.intersect(p).is_empty()]
            for where, names in combos:
                for c in self.conj(where):
                    self.ph.compute(self.outs[n], step_text(s, self.a, names), c)

    def current(self) -> None:
        """``a`` enters from DRAM at the first step and travels along ``k``."""
        k = self.ph.dims[0]
        target = Access(self.tensor, tuple(Affine.of({d: 1}) for d in self.ph.dims[1:]))
        self.ph.tensor(target, "input")
        self.ph.inout(self.tensor)
        for piece in self.ph.geo.first(k):
            self.ph.input(self.a, target, piece)
        dom = self.plan.sp.set(self.ph.geo.domain())
        after = self.plan.sp.set(self.ph.geo.after_first(k)).intersect(dom)
        e = self.ph.geo.unit(k)
        for n, reg in enumerate(self.plan.regions):
            moved = self.plan.sp.shift(reg, k, 1).intersect(after)
            after = after.subtract(moved)
            for c in self.conj(moved):
                self.ph.transport(self.a, self.outs[n], c, e)
        for c in self.conj(after):
            self.ph.transport(self.a, self.a, c, e)
        last = self.plan.sp.set(self.ph.geo.domain()).subtract(
            self.plan.sp.shift(dom, k, -1))
        for n, reg in enumerate(self.plan.regions):
            for c in self.conj(last.intersect(reg)):
                self.ph.output(self.outs[n], target, c)
            last = last.subtract(reg)
        for c in self.conj(last):
            self.ph.output(self.a, target, c)


def step_text(s: Stmt, a: str, names: dict[int, str]) -> str:
    """The right-hand side of a step statement, its reads named by ``names`` and the
    element itself by ``a``."""
    rhs = render(s.expr, names)
    if s.op == "=":
        return rhs
    return f"{a} {s.op[0]} ({rhs})" if has_op(s.expr) else f"{a} {s.op[0]} {rhs}"


def _param_min(sp: FlowSpace, dom: ISet) -> tuple[tuple[str, int], ...]:
    """Each parameter's smallest value with a step (LU of a 1 x 1 matrix has none: N >= 2)."""
    out = []
    for p in sp.params:
        v = next((v for v in range(1, 65) if not dom.intersect(
            sp.set([Constraint(Affine.of({p: 1}, -v), eq=True)])).is_empty()), 1)
        out.append((p, v))
    return tuple(out)


def localize_steps(nest: Nest, name: str) -> PRA:
    """The uniform PRA of an elimination nest in pivot steps (on rotated indices when
    :mod:`..crotate` placed it so)."""
    if any(str(x).startswith("rotated:") for s in nest.stmts for x in s.sources):
        from polyjoule.frontends.localize.rotated import localize_rotated  # imports Phase

        return localize_rotated(nest, name)
    em = _Emit(nest)
    em.current()
    em.computes()
    em.legs()
    pra = em.ph.pra(name)
    return replace(pra, param_min=_param_min(em.plan.sp, em.plan.sp.set(em.ph.geo.domain())))
