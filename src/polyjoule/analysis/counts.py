"""Symbolic volumes: the number of points of every statement case, as formulas.

For a tiled PRA each case's condition space is rewritten in the intra-tile indices ``j`` and
tile indices ``k`` (``i = j + p*k``) and counted with Barvinok. Two derivations:

* **symbolic tiles** (preferred): every parameter that is a tiled extent ``E = N + c`` is
  replaced by tile size ``p``, tile count ``t`` and last-tile size ``r`` with
  ``E = p*(t-1) + r``, ``1 <= r <= p``. A constraint becomes ``g + p*delta >= 0`` with ``g``
  affine in ``(j, r)`` and bounded by multiples of ``p``, so a few values of ``delta`` each
  give an affine piece. The formula holds for every size, tile size and array shape. It
  needs the dims coupled by a constraint to share one tile size.
* **fixed tiles**: tile sizes are numbers, ``i = j + P*k`` is affine, the formula is a
  quasi-polynomial in the loop bounds, re-derived per tile choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from polyjoule.analysis import _isl
from polyjoule.analysis.formula import Formula, Piece
from polyjoule.analysis.simplify import merge_pieces
from polyjoule.errors import NotSymbolic
from polyjoule.mapping.tiling import Case, Tiling, cases, min_tile
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.pra import PRA


@dataclass(frozen=True)
class Group:
    """Tiled dims sharing one extent parameter, hence one ``(p, t, r)`` triple."""

    index: int  # lowest dim index; names p{index}, t{index}, r{index}
    param: str
    dims: tuple[int, ...]
    offset: int  # extent = param + offset

    @property
    def p(self) -> str:
        return f"p{self.index}"

    @property
    def t(self) -> str:
        return f"t{self.index}"

    @property
    def r(self) -> str:
        return f"r{self.index}"


@dataclass(frozen=True)
class Volume:
    """The count of one statement case as a formula over ``Formula.vars``."""

    case: Case
    formula: Formula


def groups_of(pra: PRA, tiling: Tiling) -> list[Group]:
    """Tiled dims that share a ``(p, t, r)`` triple: dims coupled by some constraint.

    Uncoupled dims get their own triple even when their extents are one parameter (``mvt``
    on a 3x2 array tiles ``i`` and ``j`` of extent ``N`` differently). Coupled dims must have
    one extent and one tile size, else the rewrite does not apply (:class:`NotSymbolic`).
    """
    tiled = [l for l in range(pra.n) if tiling.tiled(l)]
    parent = {l: l for l in tiled}

    def find(l: int) -> int:
        while parent[l] != l:
            l = parent[l]
        return l

    names = {pra.dims[l].name: l for l in tiled}
    spaces = [pra.domain()] + [s.when for s in pra.statements]
    for space in spaces:
        for c in space:
            ls = sorted({names[n] for n in c.expr.names() if n in names})
            for a, b in zip(ls, ls[1:], strict=False):
                parent[find(b)] = find(a)
    comps: dict[int, list[int]] = {}
    for l in tiled:
        comps.setdefault(find(l), []).append(l)
    groups = []
    for dims in comps.values():
        dims.sort()
        extents = {pra.dims[l].extent for l in dims}
        if len(extents) != 1:
            raise NotSymbolic(f"coupled dims {[pra.dims[l].name for l in dims]}: different extents")
        e = extents.pop()
        if len(e.terms) != 1 or e.terms[0][1] != 1:
            raise NotSymbolic(f"dim {pra.dims[dims[0]].name}: extent {e} is not a parameter plus a constant")
        if len({tiling.t[l] for l in dims}) > 1 or (
                tiling.p is not None and len({tiling.p[l] for l in dims}) > 1):
            raise NotSymbolic(f"coupled dims {[pra.dims[l].name for l in dims]}: different tile sizes")
        groups.append(Group(dims[0], e.terms[0][0], tuple(dims), e.const))
    return sorted(groups, key=lambda g: g.index)


class _Rewriter:
    """Rewrites PRA constraints into isl constraint texts over (j, k | p, t, r, params)."""

    def __init__(self, pra: PRA, tiling: Tiling, groups: list[Group] | None,
                 fixed: tuple[int, ...] | None):
        self.pra, self.tiling, self.groups, self.fixed = pra, tiling, groups, fixed
        self.dim_group: dict[int, Group] = {}
        for g in groups or []:
            for l in g.dims:
                self.dim_group[l] = g
        self.dim_index = {d.name: l for l, d in enumerate(pra.dims)}

    def tile_term(self, l: int) -> Affine:
        """The tile size of dim ``l`` as an affine term (symbol or number)."""
        if self.fixed is not None:
            return Affine.of({}, self.fixed[l])
        return Affine.of({self.dim_group[l].p: 1})

    def split(self, e: Affine) -> tuple[Affine, dict[str, Affine]]:
        """``e`` after ``i = j + p*k`` and ``N = p*(t-1) + r - c`` as ``g + sum_g p_g*delta_g``."""
        g: dict[str, int] = {}
        delta: dict[str, dict[str, int]] = {}
        const = e.const
        # a parameter takes the (p, t, r) form of a group whose dim the constraint names
        here = {self.dim_group[self.dim_index[n]] for n in e.names()
                if n in self.dim_index and self.dim_index[n] in self.dim_group}
        param_group = {grp.param: grp for grp in here}
        if len(param_group) != len(here):
            raise NotSymbolic("one parameter bounds two uncoupled tiled dims in a constraint")
        for name, a in e.terms:
            if name in self.dim_index:
                l = self.dim_index[name]
                j = f"j_{name}"
                g[j] = g.get(j, 0) + a
                if self.tiling.tiled(l):
                    k = f"k_{name}"
                    if self.fixed is not None:
                        delta.setdefault("", {})[k] = delta.get("", {}).get(k, 0) + a * self.fixed[l]
                    else:
                        grp = self.dim_group[l]
                        d = delta.setdefault(grp.p, {})
                        d[k] = d.get(k, 0) + a
            elif name in param_group and self.fixed is None:
                grp = param_group[name]
                d = delta.setdefault(grp.p, {})
                d[grp.t] = d.get(grp.t, 0) + a
                d[""] = d.get("", 0) - a
                g[grp.r] = g.get(grp.r, 0) + a
                const -= a * grp.offset
            else:
                g[name] = g.get(name, 0) + a
        if "" in delta:  # fixed tile sizes: k terms are plain affine terms
            for k, a in delta.pop("").items():
                g[k] = g.get(k, 0) + a
        out = {}
        for p, d in delta.items():
            c = d.pop("", 0)
            out[p] = Affine.of(d, c)
        return Affine.of(g, const), out

    def pieces(self, c: Constraint) -> list[list[str]]:
        """The constraint as a union of conjunctions of isl constraint texts."""
        op = "=" if c.eq else ">="
        rest, deltas = self.split(c.expr)
        text = rest.isl()
        nonlinear = []
        for p, d in deltas.items():
            if d.terms:
                nonlinear.append((p, d))
            elif d.const:
                text += f" + {d.const}*{p}"
        if not nonlinear:
            return [[f"{text} {op} 0"]]
        if len(nonlinear) > 1:
            raise NotSymbolic("a constraint couples dims with different tile sizes")
        p, delta = nonlinear[0]
        grp = next(g for g in self.groups or [] if g.p == p)
        bounded = {f"j_{self.pra.dims[l].name}" for l in grp.dims} | {grp.r}
        if not rest.names() <= bounded:
            raise NotSymbolic("a constraint mixes a tiled dim with an unbounded term")
        # g = rest lies in [g_min, g_max] with 0 <= j <= p-1 and 1 <= r <= p (p >= 1):
        # delta >= hi makes the constraint always true, delta < lo always false.
        ap = sum(a for n, a in rest.terms if a > 0 and n != grp.r)
        an = sum(-a for n, a in rest.terms if a < 0 and n != grp.r)
        bp = sum(a for n, a in rest.terms if a > 0 and n == grp.r)
        bn = sum(-a for n, a in rest.terms if a < 0 and n == grp.r)
        c0 = rest.const
        hi = an + bn + max(0, -(c0 + bp + an))
        lo = -(ap + bp) - max(1, c0 - ap - bn + 1) + 1
        out: list[list[str]] = []
        dtext = delta.isl()
        if not c.eq:
            out.append([f"{dtext} >= {hi}"])
        for d in range(lo, hi + (1 if c.eq else 0)):
            out.append([f"{dtext} = {d}", f"{rest.isl()} + {d}*{p} {op} 0"])
        return out


class _Counter:
    """Counts the cases of one PRA under one tiling, sharing the tiled iteration space."""

    def __init__(self, pra: PRA, tiling: Tiling, groups: list[Group] | None,
                 fixed: tuple[int, ...] | None):
        self.pra, self.rw = pra, _Rewriter(pra, tiling, groups, fixed)
        dims = [f"j_{d.name}" for d in pra.dims]
        dims += [f"k_{d.name}" for l, d in enumerate(pra.dims) if tiling.tiled(l)]
        params = [x for g in groups or [] for x in (g.p, g.t, g.r)] if fixed is None else []
        self.params = params + list(pra.params)  # a parameter may appear outside its (p, t, r)
        self.sets = _isl.Sets(self.params, dims)
        base: list[str] = []
        need = min_tile(pra)
        for l, d in enumerate(pra.dims):
            if tiling.tiled(l):
                pt = self.rw.tile_term(l).isl()
                base += [f"j_{d.name} >= 0", f"j_{d.name} <= {pt} - 1", f"k_{d.name} >= 0"]
                if fixed is None:
                    base.append(f"k_{d.name} <= {self.rw.dim_group[l].t} - 1")
        for g in groups or [] if fixed is None else []:
            base += [f"{g.p} >= {max(need[l] for l in g.dims)}", f"{g.t} >= 1",
                     f"{g.r} >= 1", f"{g.r} <= {g.p}"]
        base += [f"{p} >= {lo}" for p, lo in pra.param_min]
        self.tile_terms = {l: self.rw.tile_term(l) for l in range(pra.n) if tiling.tiled(l)}
        space = self.sets.union([base])
        for c in pra.domain():  # shared by every case
            space = self.sets.intersect(space, self.sets.union(self.rw.pieces(c)))
        self.space = space

    def count(self, case: Case) -> Formula:
        current = self.space
        for c in case.statement.when:
            current = self.sets.intersect(current, self.sets.union(self.rw.pieces(c)))
        for c in case.conditions(self.pra.dim_names, self.tile_terms):
            text = f"{c.expr.isl()} {'=' if c.eq else '>='} 0"
            current = self.sets.intersect(current, self.sets.union([[text]]))
        pwqp = self.sets.card(current)
        formula = _isl.to_formula(pwqp, self.params)
        return merge_pieces(formula, _isl.samples(pwqp, self.params), _isl.prover(pwqp))


def derive_case(pra: PRA, tiling: Tiling, case: Case, groups: list[Group] | None,
                fixed: tuple[int, ...] | None) -> Formula:
    """Count the points of one statement case (see module docstring)."""
    return _Counter(pra, tiling, groups, fixed).count(case)


def _key(pra: PRA, tiling: Tiling, case: Case) -> tuple[object, ...]:
    """Cases with the same condition space and case conditions have the same volume."""
    tiles = {l: Affine.of({f"p{l}": 1}) for l in range(pra.n) if tiling.tiled(l)}
    return (frozenset(pra.statement_space(case.statement)),
            frozenset(case.conditions(pra.dim_names, tiles)))


def derive(pra: PRA, tiling: Tiling, fixed: tuple[int, ...] | None = None) -> tuple[list[Volume], str]:
    """Volumes of every case; ``fixed`` tile sizes, or symbolic tiles when ``None``.

    Raises :class:`NotSymbolic` when symbolic tiles do not apply and ``fixed`` is ``None``.
    Returns the volumes and the mode (``"symbolic"`` or ``"fixed"``).
    """
    groups = groups_of(pra, tiling) if fixed is None else None
    counter = _Counter(pra, tiling, groups, fixed)
    memo: dict[tuple[object, ...], Formula] = {}
    out = []
    for c in cases(pra, tiling):
        key = _key(pra, tiling, c)
        if key not in memo:
            memo[key] = counter.count(c)
        out.append(Volume(c, memo[key]))
    return out, "symbolic" if fixed is None else "fixed"


def symbolic_env(pra: PRA, tiling: Tiling, groups: list[Group], values: Mapping[str, object],
                 sizes: tuple[object, ...]) -> dict[str, object]:
    """Values of ``p, t, r`` (and untouched params) for given sizes and tile sizes."""
    env: dict[str, object] = dict(values)
    for g in groups:
        extent = pra.dims[g.index].extent.evaluate(values)  # type: ignore[arg-type]
        p = sizes[g.index]
        t = -(-extent // p)  # type: ignore[operator]
        env[g.p], env[g.t], env[g.r] = p, t, extent - p * (t - 1)  # type: ignore[operator]
    return env


__all__ = ["Group", "Volume", "NotSymbolic", "derive", "derive_case", "groups_of", "symbolic_env", "Piece"]
