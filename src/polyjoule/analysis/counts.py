"""Symbolic volumes: the number of points of every statement case, as formulas.

For a tiled PRA each case's condition space is rewritten in the intra-tile indices ``j`` and
tile indices ``k`` (``i = j + p*k``) and counted with Barvinok. Two derivations:

* **symbolic tiles** (preferred): every parameter that is a tiled extent ``E = N + c`` is
  replaced by tile size ``p``, tile count ``t`` and last-tile size ``r`` with
  ``E = p*(t-1) + r``, ``1 <= r <= p``. A constraint becomes ``g + p*delta >= 0`` with ``g``
  affine in ``(j, r)`` and bounded by multiples of ``p``, so a few values of ``delta`` each
  give an affine piece. The formula holds for every size, tile size and array shape.
  Sequential dims coupled with tiled ones are split virtually with their tile size; coupled
  dims of different tile sizes are split, per case, with the tile size of the dims the case
  crosses (:func:`groups_of`, :func:`_splits`).
* **fixed tiles** (only when one case crosses coupled dims of different tile sizes): tile
  sizes are numbers, ``i = j + P*k`` is affine, the formula is a quasi-polynomial in the
  loop bounds, re-derived per tile choice.

A case's count is the product of the counts of its classes of constraints linked by shared
variables; each class is counted once per process under canonical names (:class:`_Counter`).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from polyjoule.analysis import _isl, indices
from polyjoule.analysis.formula import Cond, Div, Formula, Piece
from polyjoule.analysis.indices import alternatives
from polyjoule.analysis.simplify import merge_groups
from polyjoule.errors import InfeasibleMapping, NotSymbolic
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
    #: sequential dims coupled with this group's dims (trmm's ``k >= i + 1``): split as
    #: ``i = j + p*k`` with this group's ``p`` too, which only re-indexes the points
    virtual: tuple[int, ...] = ()
    #: when coupled dims have different tile counts (``syrk`` on 3x2): every dim coupled
    #: with this group's; each case splits them with the tile size of the dims it crosses
    component: tuple[int, ...] = ()
    #: other parameters written in this group's tile size, ``P = p*(t_P - 1) + r_P``: those
    #: of the extent besides ``param`` (a band's ``N + W - 1``) and those a constraint names
    #: beside a dim of the group (the band's ``j <= i + W - 1``)
    others: tuple[str, ...] = ()
    #: those of ``others`` in the extent: ``param = E - offset - sum(tied)``
    tied: tuple[str, ...] = ()

    @property
    def p(self) -> str:
        return f"p{self.index}"

    @property
    def t(self) -> str:
        return f"t{self.index}"

    @property
    def r(self) -> str:
        return f"r{self.index}"

    def t_of(self, name: str) -> str:
        """The tile count of parameter ``name`` (``t`` for the extent's own)."""
        return self.t if name == self.param else f"t{self.index}_{name}"

    def r_of(self, name: str) -> str:
        return self.r if name == self.param else f"r{self.index}_{name}"

    @property
    def symbols(self) -> tuple[str, ...]:
        """``p, t, r`` and the ``(t_P, r_P)`` of the other parameters."""
        return (self.p, self.t, self.r, *(x for q in self.others for x in (self.t_of(q), self.r_of(q))))

    @property
    def ts(self) -> tuple[str, ...]:
        """The tile count, then the other parameters' (no tile index ranges over those)."""
        return (self.t, *(self.t_of(q) for q in self.others))

    @property
    def rs(self) -> tuple[str, ...]:
        """The remainders (each in ``1 .. p``): bounded terms of a rewritten constraint."""
        return (self.r, *(self.r_of(q) for q in self.others))

    def form(self, name: str) -> tuple[dict[str, int], dict[str, int], int]:
        """Parameter ``name`` as ``p*(delta) + g + c``: ``(delta terms with "" the constant,
        g terms, c)``."""
        if name != self.param:
            return {self.t_of(name): 1, "": -1}, {self.r_of(name): 1}, 0
        delta = {self.t: 1, "": -1 + len(self.tied)}
        g = {self.r: 1}
        for q in self.tied:
            delta[self.t_of(q)] = -1
            g[self.r_of(q)] = -1
        return delta, g, -self.offset

    @staticmethod
    def least_count(least: int | None) -> int | None:
        """The least ``t_P`` of a parameter whose least value is ``least`` (``P >= 1``: 1;
        ``P >= 0``: 0; unknown or negative: none), with ``r_P`` in ``1 .. p``."""
        return None if least is None or least < 0 else min(least, 1)

    def names_param(self, name: str) -> bool:
        return name == self.param or name in self.others


@dataclass(frozen=True)
class Volume:
    """The count of one statement case as a formula over ``Formula.vars``."""

    case: Case
    formula: Formula


def groups_of(pra: PRA, tiling: Tiling) -> list[Group]:
    """Tiled dims that share a ``(p, t, r)`` triple: dims coupled by some constraint.

    Uncoupled dims get their own triple even when their extents are one parameter (``mvt``
    on a 3x2 array tiles ``i`` and ``j`` of extent ``N`` differently). Coupled dims of one
    tile size share a triple; coupled dims of different tile sizes (different tile counts
    or extents: a band's ``N`` and ``N + W - 1``) get one triple each, and each case picks
    one (:func:`_splits`). An extent must be a sum of parameters plus a constant, else the
    rewrite does not apply (:class:`NotSymbolic`); the parameters besides the first, and
    those a constraint names beside a coupled dim, are written in the tile size too
    (``Group.others``).
    A sequential dim coupled with tiled dims (trmm's ``k >= i + 1`` on a 2-D array) joins
    their group as a *virtual* member: split with the group's tile size, it re-indexes the
    same points, and its constraints take the ``(p, t, r)`` form like the tiled dims'.
    """
    groups = []
    for dims in _coupled(pra):
        real = [l for l in dims if tiling.tiled(l)]
        if not real:
            continue
        beside = _params_beside(pra, dims)
        tiles: dict[tuple[int, object], list[int]] = {}
        for l in real:
            size = pra.dims[l].extent if tiling.p is None else tiling.p[l]
            tiles.setdefault((tiling.t[l], size), []).append(l)
        for same in tiles.values():
            param, tied = _extent_form(pra, same[0])
            others = tuple(sorted((beside | set(tied)) - {param}))
            e = pra.dims[same[0]].extent
            if len(tiles) == 1:
                virtual = tuple(l for l in dims if not tiling.tiled(l))
                groups.append(Group(same[0], param, tuple(same), e.const, virtual, (), others, tied))
            else:  # one triple per tile size; cases choose (see _splits)
                groups.append(Group(same[0], param, tuple(same), e.const, (), tuple(dims), others, tied))
    return sorted(groups, key=lambda g: g.index)


def _extent_form(pra: PRA, l: int) -> tuple[str, tuple[str, ...]]:
    """The first parameter of dim ``l``'s extent and the others (``N + W - 1``: ``N``, ``(W,)``)."""
    e = pra.dims[l].extent
    if not e.terms or any(a != 1 for _, a in e.terms):
        raise NotSymbolic(f"dim {pra.dims[l].name}: extent {e} is not a sum of parameters plus a constant")
    names = [n for n, _ in e.terms]
    return names[0], tuple(names[1:])


def _params_beside(pra: PRA, dims: list[int]) -> set[str]:
    """Parameters that a constraint names together with one of ``dims``."""
    names = {pra.dims[l].name for l in dims}
    out: set[str] = set()
    for c in list(pra.domain()) + [c for s in pra.statements for c in s.when]:
        used = c.expr.names()
        if used & names:
            out |= used & set(pra.params)
    return out


def _splits(pra: PRA, groups: list[Group], case: Case) -> dict[int, Group]:
    """Dims written ``j + p*k`` for ``case``, with their group.

    A group alone in its coupled dims splits them all, always. Coupled dims with different
    tile sizes are split only where the case asks for a tile position (the dims its
    dependence crosses), all with the tile size of those dims; other dims stay whole.
    """
    out: dict[int, Group] = {}
    dep = case.statement.dep if case.name not in ("input", "output", "compute") else None
    shared: dict[tuple[int, ...], list[Group]] = {}
    for g in groups:
        if not g.component:
            out.update({l: g for l in g.dims + g.virtual})
        else:
            shared.setdefault(g.component, []).append(g)
    for comp, gs in shared.items():
        asked = {g for g in gs for l in g.dims if dep is not None and dep[l] != 0}
        if len(asked) > 1:
            raise NotSymbolic(f"case {case.statement.id} {case.name} crosses coupled dims "
                              f"{[pra.dims[l].name for l in comp]} with different tile sizes")
        if asked:
            g = asked.pop()
            out.update({l: g for l in comp})
    return out


def _coupled(pra: PRA) -> list[list[int]]:
    """The dims of ``pra`` in classes of dims some constraint names together (sorted)."""
    parent = list(range(pra.n))

    def find(l: int) -> int:
        while parent[l] != l:
            l = parent[l]
        return l

    names = {d.name: l for l, d in enumerate(pra.dims)}
    for space in [pra.domain()] + [s.when for s in pra.statements]:
        for c in space:
            ls = sorted({names[n] for n in c.expr.names() if n in names})
            for a, b in zip(ls, ls[1:], strict=False):
                parent[find(b)] = find(a)
    comps: dict[int, list[int]] = {}
    for l in range(pra.n):
        comps.setdefault(find(l), []).append(l)
    return sorted(comps.values())


#: tile sizes of some groups counted apart, by group index: ``(least, exact)`` for
#: ``p >= least``, or ``p == least`` when exact (see :func:`_windows`)
Window = Mapping[int, tuple[int, bool]]


def _reach(pra: PRA, grp: Group) -> int:
    """How far a band's lower edge lies off the diagonal (``j >= i + 3``: 3), over the
    domain's constraints that couple the group's dims."""
    names = {pra.dims[l].name for l in grp.dims + grp.virtual + grp.component}
    return max((-c.expr.const for c in pra.domain() if len(c.expr.names() & names) >= 2), default=0)


def _windows(pra: PRA, split: dict[int, Group]) -> list[Window]:
    """The tile-size windows a case is counted in, one formula each: every combination of
    the windows of the groups that split its dims (:func:`_group_windows`)."""
    per = [w for g in sorted(set(split.values()), key=lambda g: g.index)
           if (w := _group_windows(pra, g))]
    return [dict(w) for w in itertools.product(*per)]


@functools.lru_cache(maxsize=1024)
def _group_windows(pra: PRA, g: Group) -> tuple[tuple[int, tuple[int, bool]], ...]:
    """A group's windows, ``(index, (least, exact))`` each; none when it is counted whole.

    A group whose band edge ``reach`` lies past its least tile is counted for
    ``p >= reach + 1`` (a tile offset across the edge takes one or two values: few
    alternatives, symbolic) and for each smaller ``p`` alone (the tile size a number: one
    Barvinok count per class, :func:`indices.whole`). The windows partition the tile sizes:
    the case's count is the sum of theirs, each restricted to its window. (Below the edge
    every alternative of every sum splits again per offset: a band ``j = i + 5 .. i + 16``
    derives 3.6x faster in windows, `benchmarks/README.md`.)"""
    need = min_tile(pra)
    least, reach = max(need[l] for l in g.dims), _reach(pra, g)
    if reach < least + 1:
        return ()
    return ((g.index, (reach + 1, False)),) + tuple((g.index, (v, True)) for v in range(least, reach + 1))


def _within(f: Formula, window: Window) -> Formula:
    """``f`` restricted to ``window`` (the counter's context only simplified it there)."""
    conds = []
    for index, (least, exact) in sorted(window.items()):
        coeffs = tuple(1 if v == f"p{index}" else 0 for v in f.vars)
        conds.append(Cond(coeffs, (), -least, exact))
    pieces = []
    for pc in f.pieces:
        pad = tuple(Cond(c.coeffs, (0,) * len(pc.divs), c.const, c.eq) for c in conds)
        domain = tuple(conj for conj in (_conjoin(d, pad) for d in pc.domain) if conj is not None)
        if domain:
            pieces.append(Piece(pc.divs, domain, pc.terms, pc.den))
    return Formula(f.vars, tuple(pieces))


class _Rewriter:
    """Rewrites PRA constraints into isl constraint texts over (j, k | p, t, r, params)."""

    def __init__(self, pra: PRA, tiling: Tiling, groups: list[Group] | None,
                 fixed: tuple[int, ...] | None, split: dict[int, Group] | None = None,
                 window: Window | None = None):
        self.pra, self.tiling, self.groups, self.fixed = pra, tiling, groups, fixed
        self.window: Window = window or {}
        #: dims written ``j + p*k``: every tiled one with fixed tiles, else those of ``split``
        self.dim_group: dict[int, Group] = dict(split or {})
        self.split_dims = set(self.dim_group) if fixed is None else {
            l for l in range(pra.n) if tiling.tiled(l)}
        self.dim_index = {d.name: l for l, d in enumerate(pra.dims)}
        self._pieces: dict[Constraint, list[list[str]]] = {}
        self._need = min_tile(pra)

    def spans(self, l: int) -> bool:
        """Is split dim ``l``'s extent its group's, so that its tile index runs over
        ``0 .. t - 1``? (A band's ``j`` split with ``i``'s tile size runs further: its own
        bounds keep it in its tiles.)"""
        return self.pra.dims[l].extent == self.pra.dims[self.dim_group[l].index].extent

    def least_tile(self, grp: Group) -> int:
        """The least tile size of a group (its dims' dependence distances, or its window's
        least): the context's ``p >= ..``, and the bound on how far back a tile offset reaches."""
        need = max(self._need[l] for l in grp.dims)
        return max(need, self.window[grp.index][0]) if grp.index in self.window else need

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
        param_group: dict[str, Group] = {}
        for grp in here:
            for name in e.names():
                if grp.names_param(name):
                    if name in param_group:
                        raise NotSymbolic("one parameter bounds two uncoupled tiled dims in a constraint")
                    param_group[name] = grp
        for name, a in e.terms:
            if name in self.dim_index:
                l = self.dim_index[name]
                j = f"j_{name}"
                g[j] = g.get(j, 0) + a
                if l in self.split_dims:
                    k = f"k_{name}"
                    if self.fixed is not None:
                        delta.setdefault("", {})[k] = delta.get("", {}).get(k, 0) + a * self.fixed[l]
                    else:
                        grp = self.dim_group[l]
                        d = delta.setdefault(grp.p, {})
                        d[k] = d.get(k, 0) + a
            elif name in param_group and self.fixed is None:
                grp = param_group[name]
                dform, gform, c = grp.form(name)
                d = delta.setdefault(grp.p, {})
                for x, b in dform.items():
                    d[x] = d.get(x, 0) + a * b
                for x, b in gform.items():
                    g[x] = g.get(x, 0) + a * b
                const += a * c
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
        """The constraint as a union of conjunctions of isl constraint texts (once per
        constraint: cases of one statement share their ``when``)."""
        hit = self._pieces.get(c)
        if hit is None:
            hit = self._pieces[c] = self._rewrite(c)
        return hit

    def _rewrite(self, c: Constraint) -> list[list[str]]:
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
        bounded = {f"j_{self.pra.dims[l].name}" for l, g in self.dim_group.items() if g is grp} | set(grp.rs)
        if not rest.names() <= bounded:
            raise NotSymbolic("a constraint mixes a tiled dim with an unbounded term")
        # tile indices of a dim beyond the group's extent are not in 0 .. t - 1
        beyond = tuple(f"k_{self.pra.dims[l].name}" for l, g in self.dim_group.items()
                       if g is grp and not self.spans(l))
        return alternatives(rest, delta, p, grp.ts + beyond, grp.rs, c.eq, self.least_tile(grp))


class _Counter:
    """Counts the cases of one PRA under one tiling, sharing work across cases.

    A case's points are a conjunction of constraints (domain, ``when``, case conditions).
    Constraints that share no variable are independent: the count is the product of the
    counts of the classes of constraints linked by shared variables (a stencil's dims
    apart), and each class is counted once however many cases it occurs in (Barvinok on a
    1-D or 2-D set instead of the whole tiled space).
    """

    def __init__(self, pra: PRA, tiling: Tiling, groups: list[Group] | None,
                 fixed: tuple[int, ...] | None, split: dict[int, Group] | None = None,
                 window: Window | None = None):
        self.pra, self.rw = pra, _Rewriter(pra, tiling, groups, fixed, split, window)
        dims = [f"j_{d.name}" for d in pra.dims]
        dims += [f"k_{d.name}" for l, d in enumerate(pra.dims) if l in self.rw.split_dims]
        self.dims, self.dimset = dims, frozenset(dims)
        params = [x for g in groups or [] for x in g.symbols] if fixed is None else []
        self.params = params + list(pra.params)  # a parameter may appear outside its (p, t, r)
        base: list[list[list[str]]] = []
        for l, d in enumerate(pra.dims):
            if l in self.rw.split_dims:
                pt = self.rw.tile_term(l).isl()
                base += [[[f"j_{d.name} >= 0"]], [[f"j_{d.name} <= {pt} - 1"]], [[f"k_{d.name} >= 0"]]]
                if fixed is None and self.rw.spans(l):
                    base.append([[f"k_{d.name} <= {self.rw.dim_group[l].t} - 1"]])
        context = []
        lows = dict(pra.param_min)
        for g in groups or [] if fixed is None else []:
            context += [f"{g.p} >= {self.rw.least_tile(g)}", f"{g.t} >= 1",
                        f"{g.r} >= 1", f"{g.r} <= {g.p}"]
            if self.rw.window.get(g.index, (0, False))[1]:
                context.append(f"{g.p} <= {self.rw.least_tile(g)}")
            for q in g.others:
                context += [f"{g.r_of(q)} >= 1", f"{g.r_of(q)} <= {g.p}"]
                if (least := g.least_count(lows.get(q))) is not None:
                    context.append(f"{g.t_of(q)} >= {least}")
        self.context = context + [f"{p} >= {lo}" for p, lo in pra.param_min]
        own = {l: g for g in groups or [] for l in g.dims}
        self.tile_terms = {l: self.rw.tile_term(l) for l in self.rw.split_dims
                           if tiling.tiled(l) and (fixed is not None or self.rw.dim_group[l] is own[l])}
        domain = [(self.rw.pieces(c), c) for c in pra.domain()]
        self.shared = base + [u for u, _ in domain if all(u)]  # in every case
        #: the PRA constraint of each union (by identity; a box constraint has none)
        self.origin: dict[int, Constraint] = {id(u): c for u, c in domain}
        self._classes: dict[_Key, Formula] = {}  # class -> count
        self._products: dict[tuple[_Key, ...], Formula] = {}  # classes -> product of counts

    def _vars(self, union: list[list[str]]) -> frozenset[str]:
        return _words(union) & self.dimset

    def _card(self, unions: list[list[list[str]]], origin: dict[int, object]) -> Formula:
        """The count of one class of linked constraints.

        The class is renamed canonically (its variables ``v0..``, the parameters it uses
        ``q0..``) so that classes equal up to names (the ``i`` and ``j`` dims of a stencil,
        the same dim in two kernels) are counted once per process. A class of two or more
        tiled dims is counted in the PRA's indices where that applies (:mod:`.indices`).
        """
        words = set().union(*(_words(u) for u in unions))
        used = words & set(self.params)
        context: list[str] = []
        while True:  # the context constraints on the parameters used, and theirs
            more = [c for c in self.context if c not in context and _words([[c]]) & used]
            if not more:
                break
            context += more
            used |= set().union(*(_words([[c]]) for c in more)) & set(self.params)
        names = sorted(words & set(self.dims), key=self.dims.index)
        params = sorted(used, key=self.params.index)
        rename = {n: f"v{i}" for i, n in enumerate(names)} | {n: f"q{i}" for i, n in enumerate(params)}

        def canon(text: str) -> str:
            return _WORD.sub(lambda m: rename.get(m.group(0), m.group(0)), text)

        ctx = tuple(sorted(canon(c) for c in context))
        spec = self._in_indices(unions, origin, rename)
        local = _index_count(spec, len(params), ctx) if spec is not None else None
        if local is not None:
            return _embed(local, params, self.params)
        key = tuple(sorted({tuple(tuple(canon(x) for x in c) for c in u) for u in unions}))
        if len(params) > HARD_PARAMS and (many := _conjunctions(key)) > HARD_CLASS:
            raise NotSymbolic(f"a class of {many} tile-offset alternatives over {len(params)} "
                              "parameters in the tile split (its count takes minutes): tile "
                              "sizes fixed per design point")
        local = _class_count(key, len(names), len(params), ctx)
        return _embed(local, params, self.params)

    def _in_indices(self, unions: list[list[list[str]]], origin: dict[int, object],
                    rename: dict[str, str]) -> _IndexSpec | None:
        """The class in the PRA's indices (``x0..`` for its dims, ``E0..`` for its groups'
        extents, canonical parameters), for :func:`indices.count`; ``None`` when it has no
        tiled dim or does not apply. One tiled dim is counted here too: cases share the
        fibre sums of its tile positions, which makes stencils derive 1.3-1.9 times faster
        than Barvinok on its tile split."""
        rw = self.rw
        words = set().union(*(_words(u) for u in unions)) & self.dimset
        dims = [l for l, d in enumerate(self.pra.dims) if f"j_{d.name}" in words or f"k_{d.name}" in words]
        split = [l for l in dims if l in rw.split_dims]
        if rw.fixed is not None or not split:
            return None
        groups = sorted({rw.dim_group[l] for l in split}, key=lambda g: g.index)
        if any(n not in rename for g in groups for n in (g.p, g.t, g.r)):
            return None
        gi = {g: i for i, g in enumerate(groups)}
        # the other parameters of a group (a band's width) are extents of its tile size too
        wholes = {(g, q): f"E{gi[g]}_{n}" for g in groups for n, q in enumerate(g.others)
                  if g.t_of(q) in rename and g.r_of(q) in rename}
        if any((g, q) not in wholes for g in groups for q in g.tied):
            return None
        ref = {l: rw.spans(l) for l in split}
        xs = {self.pra.dims[l].name: f"x{i}" for i, l in enumerate(dims)}
        texts = [f"x{dims.index(l)} >= 0" for l in split]
        conds: dict[int, list[indices.Cond]] = {}
        bounds: list[tuple[Affine, bool]] = []  # for x <= E - 1 shown without isl
        for u in unions:
            c = origin.get(id(u))
            if isinstance(c, Constraint):
                expr = self._index_expr(c, xs, gi, wholes, rename)
            elif isinstance(c, _TilePosition):
                position = self._position(c.cond, xs, dims, split)
                if position is None or not ref[dims[position[0]]]:
                    return None  # (tile positions of a dim beyond its group's extent: not in 0 .. t - 1)
                conds.setdefault(position[0], []).append(position[1])
                continue
            else:
                continue  # a tile box: the split of x in 0 .. p*t - 1, kept below (bounded)
            if expr is None:
                return None
            texts.append(f"{expr.isl()} {'=' if c.eq else '>='} 0")
            bounds.append((expr, c.eq))
        below = _upper_bounds(bounds)
        extents = [(f"E{i}", rename[g.p], rename[g.t], rename[g.r]) for i, g in enumerate(groups)]
        extents += [(name, rename[g.p], rename[g.t_of(q)], rename[g.r_of(q)]) for (g, q), name in wholes.items()]
        return (len(dims), tuple(sorted(texts)), tuple(extents),
                tuple((i, gi[rw.dim_group[dims[i]]], tuple(sorted(cs))) for i, cs in sorted(conds.items())),
                tuple((dims.index(l), gi[rw.dim_group[l]]) for l in split if ref[l]
                      and below.get((f"x{dims.index(l)}", f"E{gi[rw.dim_group[l]]}"), 0) > -1))

    def _position(self, c: Constraint, xs: dict[str, str], dims: list[int],
                  split: list[int]) -> tuple[int, indices.Cond] | None:
        """A tile-position condition as ``(x index, (s, b, c, eq))``: ``s*j + b*p + c >= 0``."""
        js = [(n, a) for n, a in c.expr.terms if n.startswith("j_") and n[2:] in xs]
        if len(js) != 1:
            return None
        i = int(xs[js[0][0][2:]][1:])
        p = self.rw.dim_group[dims[i]].p if dims[i] in split else None
        if p is None or not c.expr.names() <= {js[0][0], p}:
            return None
        return i, (js[0][1], c.expr.coeffs.get(p, 0), c.expr.const, c.eq)

    def _index_expr(self, c: Constraint, xs: dict[str, str], gi: dict[Group, int],
                    wholes: dict[tuple[Group, str], str], rename: dict[str, str]) -> Affine | None:
        """``c`` over the class's indices: a parameter is its group's extent ``E`` less the
        offset (and the extent's other parameters) where the rewrite gives it the
        ``(p, t, r)`` form (``c`` names a dim of the group), another parameter of the group
        its ``wholes`` name, else itself (``None`` if it is also a group's: two forms of one
        value)."""
        rw = self.rw
        here = {rw.dim_group[rw.dim_index[n]] for n in c.expr.names()
                if n in rw.dim_index and rw.dim_index[n] in rw.dim_group}
        by_param = {g.param: g for g in here}
        by_other = {q: g for g in list(gi) + list(here) for q in g.others}  # here's win
        coeffs: dict[str, int] = {}
        const = c.expr.const
        for n, a in c.expr.terms:
            if n in xs:
                coeffs[xs[n]] = a
            elif n in by_param:
                g = by_param[n]
                coeffs[f"E{gi[g]}"] = coeffs.get(f"E{gi[g]}", 0) + a
                const -= a * g.offset
                for q in g.tied:
                    coeffs[wholes[(g, q)]] = coeffs.get(wholes[(g, q)], 0) - a
            elif n in by_other and (by_other[n], n) in wholes:
                coeffs[wholes[(by_other[n], n)]] = coeffs.get(wholes[(by_other[n], n)], 0) + a
            elif n in rename and n not in {g.param for g in gi} and all(q != n for _, q in wholes):
                coeffs[rename[n]] = a
            else:
                return None
        return Affine.of(coeffs, const)

    def count(self, case: Case) -> Formula:
        unions = list(self.shared)
        origin: dict[int, object] = dict(self.origin)
        for c in case.statement.when:
            u = self.rw.pieces(c)
            if all(u):
                unions.append(u)
                origin[id(u)] = c
        weaker = implied([c for u in unions if isinstance(c := origin.get(id(u)), Constraint)])
        unions = [u for u in unions if origin.get(id(u)) not in weaker]
        for c in case.conditions(self.pra.dim_names, self.tile_terms):
            unions.append([[f"{c.expr.isl()} {'=' if c.eq else '>='} 0"]])
            origin[id(unions[-1])] = _TilePosition(c)
        classes = {}
        for cls in _linked(unions, self._vars):
            classes[tuple(sorted({tuple(tuple(c) for c in u) for u in cls}))] = cls
        # classes of fewer constraints first: more cases share them, hence the prefix products
        keys = sorted(classes, key=lambda k: (len(k), k))
        for i, key in enumerate(keys):  # cases share classes: products of a prefix too
            if key not in self._classes:
                self._classes[key] = self._card(classes[key], origin)
            if tuple(keys[:i + 1]) not in self._products:
                f = self._classes[key]
                self._products[tuple(keys[:i + 1])] = f if i == 0 else times(self._products[tuple(keys[:i])], f)
        return self._products[tuple(keys)]


def _upper_bounds(exprs: list[tuple[Affine, bool]]) -> dict[tuple[str, str], int]:
    """``(x, E) -> c``: the least ``c`` with ``x <= E + c`` that chains of two-term bounds
    (``E - x + c >= 0``, ``a - b + c >= 0``, equalities both ways) show, so that isl need not
    prove a class's indices stay inside their tiles (the pivot kernels' ``j <= i <= N - 1``)."""
    edges = []  # (a, b, c): b <= a + c
    for e, eq in exprs:
        if len(e.terms) == 2 and sorted(a for _, a in e.terms) == [-1, 1]:
            (hi, _), (lo, _) = sorted(e.terms, key=lambda t: -t[1])
            edges.append((hi, lo, e.const))
            if eq:
                edges.append((lo, hi, -e.const))
    ub: dict[tuple[str, str], int] = {}
    for _ in range(len(edges) + 1):  # Bellman-Ford rounds: a longer chain repeats a bound
        changed = False
        for a, b, c in edges:
            heads = [(a, 0)] if a.startswith("E") else [(e, k) for (x, e), k in ub.items() if x == a]
            for e, k in heads:
                if b.startswith("x") and k + c < ub.get((b, e), k + c + 1):
                    ub[(b, e)] = k + c
                    changed = True
        if not changed:
            break
    return ub


def implied(cs: list[Constraint]) -> set[Constraint]:
    """The inequalities of ``cs`` that another of ``cs`` implies by its constant alone
    (``N - i - 1 >= 0`` beside ``N - i - 2 >= 0`` or ``i == N - 2``): the same points without
    them, and Barvinok spends most of a class's time on the unions such bounds become."""
    # linear part -> the least constant from which on another constraint implies the bound:
    # e >= 0 implies e + 1 >= 0 and looser; e == 0 implies e >= 0 and -e >= 0 and looser
    least: dict[tuple[tuple[str, int], ...], int] = {}
    for c in cs:
        for e, gap in ((c.expr, 0), (-c.expr, 0)) if c.eq else ((c.expr, 1),):
            least[e.terms] = min(least.get(e.terms, e.const + gap), e.const + gap)
    return {c for c in cs if not c.eq and least[c.expr.terms] <= c.expr.const}


_Key = tuple[tuple[tuple[str, ...], ...], ...]
#: a class in the PRA's indices: (number of indices, constraint texts, extents, tile-position
#: conditions per index, tiled indices), the arguments of :func:`indices.count`
_IndexSpec = tuple[int, tuple[str, ...], tuple[indices.Extent, ...],
                   tuple[tuple[int, int, tuple[indices.Cond, ...]], ...], tuple[tuple[int, int], ...]]


@dataclass(frozen=True)
class _TilePosition:
    """A case condition on an intra-tile index (``j >= 1``: not the first of its tile)."""

    cond: Constraint


def _nontrivial(unions: Iterator[list[list[str]]]) -> list[list[list[str]]]:
    """The unions that constrain: an alternative without conditions holds everywhere."""
    return [u for u in unions if all(u)]
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _words(union: list[list[str]]) -> frozenset[str]:
    """The names in a union of conjunctions of constraint texts."""
    return frozenset().union(*(_text_words(t) for c in union for t in c))


@functools.lru_cache(maxsize=16384)
def _text_words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text))


#: conjunctions of tile-offset alternatives and parameters above which a class is not
#: counted on the tile split. Measured (vars, parameters, conjunctions): a band crossed by an
#: anti-diagonal condition ``i + j <= K - 3`` (4, 7, 108) and a fuzzed 3-D band (6, 7, 1296)
#: ran for over 20 minutes, a chain of two shifted bands (6, 5, 648) 40 s; the pivot kernels'
#: (6, 3, 64) take 0.02 s and a fuzzed (4, 3, 4032) 0.6 s; the seeded bands' classes have at
#: most 3 conjunctions
HARD_CLASS = 32
HARD_PARAMS = 4


def _conjunctions(key: _Key) -> int:
    """The conjunctions a class's unions multiply out to (what Barvinok faces)."""
    return math.prod(len(u) for u in key)


@functools.lru_cache(maxsize=4096)
def _class_count(unions: tuple[tuple[tuple[str, ...], ...], ...], nvars: int, nparams: int,
                 context: tuple[str, ...]) -> Formula:
    """Barvinok count of a canonical class (variables ``v0..``, parameters ``q0..``), its
    pieces merged and their domains simplified under ``context``."""
    params = [f"q{i}" for i in range(nparams)]
    pwqp = _isl.card_of(params, [f"v{i}" for i in range(nvars)], list(context),
                        [[list(c) for c in u] for u in unions])
    return _as_formula(pwqp, params, context)


@functools.lru_cache(maxsize=4096)
def _index_count(spec: _IndexSpec, nparams: int, context: tuple[str, ...]) -> Formula | None:
    """A canonical class counted in the PRA's indices (``None``: does not apply), as
    :func:`_class_count` would give it."""
    params = [f"q{i}" for i in range(nparams)]
    if (pwqp := indices.whole(tuple(params), context, *spec)) is not None:
        return _as_formula(pwqp, params, context)
    parts = indices.terms(tuple(params), context, *spec)
    if parts is None:
        return None
    if len(parts) == 1 and parts[0][0] > 0:
        return _sum_formula(parts[0][1], params, context)
    if all(q.n_piece() < MANY_PIECES for _, q in parts):  # type: ignore[attr-defined]
        return _as_formula(_isl.combined(params, parts), params, context)
    # a band's sums of many pieces (a position range as the tile less some positions, two
    # edges as a difference): each merged first (a position's own class has merged it
    # already), then combined from the fewer pieces
    merged = [(sign, _isl.from_formula(_sum_formula(q, params, context), params)) for sign, q in parts]
    return _as_formula(_isl.combined(params, merged), params, context)


#: pieces from which the sums of a class are merged before they are combined (a stencil's
#: few are combined as they are: merging each first costs more than it saves there)
MANY_PIECES = 8

#: merged formulas of the memoised position sums, by identity (the value keeps it alive)
_SUMS: dict[tuple[int, tuple[str, ...]], tuple[object, Formula]] = {}


def _sum_formula(pwqp: object, params: list[str], context: tuple[str, ...]) -> Formula:
    """A position sum as a merged formula, once per sum (the tile less a position and the
    position's own class share it)."""
    key = (id(pwqp), context)
    hit = _SUMS.get(key)
    if hit is None or hit[0] is not pwqp:
        if len(_SUMS) >= 4096:
            _SUMS.clear()
        hit = _SUMS[key] = (pwqp, _as_formula(pwqp, params, context))
    return hit[1]


def _as_formula(pwqp: object, params: list[str], context: tuple[str, ...]) -> Formula:
    """A count as a formula, its pieces merged and their domains simplified under ``context``."""
    pwqp = _isl.in_context(pwqp, params, list(context))
    formula = _isl.to_formula(pwqp, params)
    if len(formula.pieces) < 2:  # nothing to merge: no sample points, no proofs
        return formula
    groups = merge_groups(formula, _isl.samples(pwqp, params), _isl.prover(pwqp),
                          _isl.conditions(tuple(params), context), with_sympy=False)
    return _isl.merged(pwqp, formula, groups, params, list(context))


def _embed(f: Formula, names: list[str], full: list[str]) -> Formula:
    """``f`` over ``names`` as a formula over ``full`` (a superset)."""
    idx = [full.index(n) for n in names]
    n = len(names)

    def vec(c: tuple[int, ...]) -> tuple[int, ...]:
        out = [0] * len(full)
        for i, x in zip(idx, c[:n], strict=True):
            out[i] += x
        return tuple(out)

    pieces = tuple(Piece(
        tuple(Div(vec(d.coeffs), d.const, d.den) for d in p.divs),
        tuple(tuple(Cond(vec(c.coeffs), c.dcoeffs, c.const, c.eq) for c in conj) for conj in p.domain),
        tuple((c, vec(e) + e[n:]) for c, e in p.terms), p.den) for p in f.pieces)
    return Formula(tuple(full), pieces)


def times(a: Formula, b: Formula) -> Formula:
    """The product of two formulas over the same variables (counts of independent sets).

    Pieces multiply pairwise; a pair whose domains do not meet is left out when that shows
    without a solver (two conditions on one variable that contradict)."""
    nv = len(a.vars)
    pieces = []
    for pa in a.pieces:
        na = len(pa.divs)
        for pb in b.pieces:
            nb = len(pb.divs)
            da = pa.domain if not nb else tuple(_pad(conj, 0, nb) for conj in pa.domain)
            db = pb.domain if not na else tuple(_pad(conj, na, 0) for conj in pb.domain)
            domain = tuple(conj for conj in (_conjoin(x, y) for x in da for y in db) if conj is not None)
            if not domain:
                continue
            terms: dict[tuple[int, ...], int] = {}
            for ca, ea in pa.terms:
                head, tail = ea[:nv], ea[nv:]
                for cb, eb in pb.terms:
                    e = (*map(operator.add, head, eb[:nv]), *tail, *eb[nv:])
                    terms[e] = terms.get(e, 0) + ca * cb
            pieces.append(Piece(pa.divs + pb.divs, domain,
                                tuple((c, e) for e, c in terms.items() if c), pa.den * pb.den))
    return Formula(a.vars, tuple(pieces))


def _pad(conj: tuple[Cond, ...], before: int, after: int) -> tuple[Cond, ...]:
    """``conj`` with ``before`` and ``after`` more (unused) divs around its own."""
    return tuple(Cond(c.coeffs, (0,) * before + c.dcoeffs + (0,) * after, c.const, c.eq) for c in conj)


def _conjoin(x: tuple[Cond, ...], y: tuple[Cond, ...]) -> tuple[Cond, ...] | None:
    """``x and y`` without repeated conditions; ``None`` when plainly empty (bounds on one
    div-free variable that cross)."""
    lx, hx = _var_bounds(x)
    ly, hy = _var_bounds(y)
    big = 10**18
    for i in lx.keys() | ly.keys():
        if max(lx.get(i, -big), ly.get(i, -big)) > min(hx.get(i, big), hy.get(i, big)):
            return None
    return tuple(dict.fromkeys(x + y))


@functools.lru_cache(maxsize=8192)
def _var_bounds(conj: tuple[Cond, ...]) -> tuple[dict[int, int], dict[int, int]]:
    """Bounds on single div-free variables that ``conj`` states (``x + k >= 0``, ...); its
    own contradiction shows as crossed bounds in one of them with itself."""
    lo: dict[int, int] = {}
    hi: dict[int, int] = {}
    for c in conj:
        nz = [i for i, v in enumerate(c.coeffs) if v]
        if any(c.dcoeffs) or len(nz) != 1 or abs(c.coeffs[nz[0]]) != 1:
            continue
        i, sgn = nz[0], c.coeffs[nz[0]]
        if sgn > 0 or c.eq:  # x + k >= 0: x >= -k
            lo[i] = max(lo.get(i, -(10**18)), -c.const * sgn)
        if sgn < 0 or c.eq:  # -x + k >= 0: x <= k
            hi[i] = min(hi.get(i, 10**18), c.const if sgn < 0 else -c.const)
    return lo, hi


def _linked(unions: list[list[list[str]]], vars_of) -> list[list[list[list[str]]]]:  # type: ignore[no-untyped-def]
    """The unions in classes linked by shared variables (each class counted on its own)."""
    owner: dict[str, int] = {}
    classes: list[list[list[list[str]]]] = []
    cvars: list[set[str]] = []
    for u in unions:
        vs = vars_of(u)
        hits = sorted({owner[v] for v in vs if v in owner})
        if not hits:
            classes.append([u])
            cvars.append(set(vs))
            i = len(classes) - 1
        else:
            i = hits[0]
            classes[i].append(u)
            cvars[i] |= vs
            for h in hits[1:]:
                classes[i] += classes[h]
                cvars[i] |= cvars[h]
                classes[h], cvars[h] = [], set()
        for v in cvars[i]:
            owner[v] = i
    return [c for c in classes if c]


def derive_case(pra: PRA, tiling: Tiling, case: Case, groups: list[Group] | None,
                fixed: tuple[int, ...] | None) -> Formula:
    """Count the points of one statement case (see module docstring)."""
    split = _splits(pra, groups, case) if fixed is None and groups is not None else {}
    return _windowed(pra, case, split, lambda w: _Counter(pra, tiling, groups, fixed, split, w))


def _windowed(pra: PRA, case: Case, split: dict[int, Group],
              counter: Callable[[Window], _Counter]) -> Formula:
    """The count of ``case``: the sum of its counts in each tile-size window (disjoint)."""
    windows = _windows(pra, split)
    if windows == [{}]:
        return counter({}).count(case)
    parts = [_within(counter(w).count(case), w) for w in windows]
    return Formula(parts[0].vars, tuple(pc for f in parts for pc in f.pieces))


def _key(pra: PRA, tiling: Tiling, case: Case, domain: frozenset[Constraint]) -> tuple[object, ...]:
    """Cases with the same condition space and case conditions have the same volume."""
    tiles = {l: Affine.of({f"p{l}": 1}) for l in range(pra.n) if tiling.tiled(l)}
    return (domain | frozenset(case.statement.when),
            frozenset(case.conditions(pra.dim_names, tiles)))


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while many small acyclic objects are built
    (formulas, isl results): in a process that imported sympy a full collection costs more
    than a derivation."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def derive(pra: PRA, tiling: Tiling, fixed: tuple[int, ...] | None = None) -> tuple[list[Volume], str]:
    """Volumes of every case; ``fixed`` tile sizes, or symbolic tiles when ``None``.

    Raises :class:`NotSymbolic` when symbolic tiles do not apply and ``fixed`` is ``None``.
    Returns the volumes and the mode (``"symbolic"`` or ``"fixed"``).
    """
    if fixed is not None:
        try:
            return _derive(pra, tiling, fixed)
        except NotSymbolic as e:  # no fallback left: a refusal, not a traceback
            raise InfeasibleMapping(f"{pra.name}: cannot count at tile sizes {fixed}: {e}") from None
    return _derive(pra, tiling, None)


def _derive(pra: PRA, tiling: Tiling, fixed: tuple[int, ...] | None) -> tuple[list[Volume], str]:
    groups = groups_of(pra, tiling) if fixed is None else None
    counters: dict[tuple[object, ...], _Counter] = {}  # per choice of split dims and window
    memo: dict[tuple[object, ...], Formula] = {}
    out = []
    domain = frozenset(pra.domain())
    with paused_gc():
        for c in cases(pra, tiling):
            key = _key(pra, tiling, c, domain)
            if key not in memo:
                split = _splits(pra, groups, c) if groups is not None else {}
                how = tuple(sorted((l, g.index) for l, g in split.items()))

                def counter(w: Window, how=how, split=split) -> _Counter:
                    at = (how, tuple(sorted(w.items())))
                    if at not in counters:
                        counters[at] = _Counter(pra, tiling, groups, fixed, split, w)
                    return counters[at]

                memo[key] = _windowed(pra, c, split, counter)
            out.append(Volume(c, memo[key]))
    return out, "symbolic" if fixed is None else "fixed"


def symbolic_env(pra: PRA, tiling: Tiling, groups: list[Group], values: Mapping[str, object],
                 sizes: tuple[object, ...]) -> dict[str, object]:
    """Values of ``p, t, r`` (and untouched params) for given sizes and tile sizes."""
    env: dict[str, object] = dict(values)
    for g in groups:
        p = sizes[g.index]
        wholes = [(g.t, g.r, pra.dims[g.index].extent.evaluate(values))]  # type: ignore[arg-type]
        wholes += [(g.t_of(q), g.r_of(q), values[q]) for q in g.others]
        env[g.p] = p
        for t_name, r_name, whole in wholes:
            t = -(-whole // p)  # type: ignore[operator]
            env[t_name], env[r_name] = t, whole - p * (t - 1)  # type: ignore[operator]
    return env


__all__ = ["Group", "Volume", "NotSymbolic", "derive", "derive_case", "groups_of", "symbolic_env", "Piece"]
