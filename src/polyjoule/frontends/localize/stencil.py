"""Pass for time-iterated stencils, second half: the placed, fused time step of
:mod:`.timesteps` as PRA statements. Each read becomes a variable (a transport from its
writer at the constant distance, the writer's own variable at distance 0, DRAM once and
then a propagation where nobody wrote the element); each statement a compute, split where
a read is a writer's variable; final values leave for DRAM at the last step."""

from __future__ import annotations

from dataclasses import replace

from polyjoule.errors import NotUniformError
from polyjoule.frontends.localize.exprs import reads_in, render
from polyjoule.frontends.localize.phase import Phase
from polyjoule.frontends.localize.regions import Conj, Regions, moved
from polyjoule.frontends.localize.timesteps import FusedStep, Key, TimeLoop, axis
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Access, Loop, Nest
from polyjoule.model.pra import PRA


def _maximum(reg: Regions, xs: list[Affine]) -> Affine | None:
    """The largest of affine forms of the parameters for every legal value, if one is."""
    for a in xs:
        if all(reg.empty([Constraint((b - a).shift(-1))]) for b in xs):
            return a
    return None


class _Emit:
    """The PRA statements of a placed time step, built in a :class:`Phase`."""

    def __init__(self, step: FusedStep, ph: Phase):
        self.step, self.ph, self.reg = step, ph, step.reg
        self.var: list[str] = []
        for k, u in enumerate(step.tl.updates):  # one variable per array where it can be
            same = [w for w, x in enumerate(step.tl.updates[:k])
                    if x.stmt.target.tensor == u.stmt.target.tensor
                    and step.shift[w] == step.shift[k]
                    and self.reg.empty([*step.domain(w), *step.domain(k)])]
            self.var.append(self.var[same[0]] if same else ph.fresh(u.stmt.target.tensor))
        self.read_var: dict[Key, str] = {}
        self.direct: dict[Key, list[tuple[str, Conj]]] = {}
        self.pending: dict[tuple[object, ...], list[Conj]] = {}

    def add(self, what: tuple[object, ...], conj: Conj) -> None:
        """A statement over ``conj``; pieces of one statement are merged by :meth:`flush`."""
        self.pending.setdefault(what, []).append(conj)

    def flush(self) -> None:
        """Emit every statement over its region in as few conjunctions as possible."""
        for what, union in self.pending.items():
            kind, var, *rest = what
            for conj in self.reg.coalesced(union):
                if kind == "transport":
                    self.ph.transport(str(var), str(rest[0]), conj, rest[1])  # type: ignore[arg-type]
                elif kind == "compute":
                    self.ph.compute(str(var), str(rest[0]), conj)
                else:
                    getattr(self.ph, str(kind))(var, rest[0], conj)

    def key(self, k: int, r: Access) -> Key:
        """Reads of one element at one fused point after the same writers share a variable."""
        return (r.tensor, self.step.element(k, r), self.step.candidates(k, r))

    def groups(self) -> dict[Key, list[tuple[int, Access]]]:
        out: dict[Key, list[tuple[int, Access]]] = {}
        for k, u in enumerate(self.step.tl.updates):
            for r in u.stmt.reads:
                out.setdefault(self.key(k, r), []).append((k, r))
        return out

    def _readvar(self, key: Key) -> str:
        """``a_m1_p1`` reads ``A[i - 1][j + 1]`` at ``(t, i, j)``."""
        if key not in self.read_var:
            rel = [x - axis(d) for x, d in zip(key[1], self.step.dims, strict=False)]
            at = "_".join("0" if not x.const else f"{'m' if x.const < 0 else 'p'}{abs(x.const)}"
                          for x in rel)
            fixed = len(rel) == len(key[1]) and not any(x.terms for x in rel)
            base = key[0].strip("_") or "x"  # PolyBench's _fict_
            self.read_var[key] = self.ph.fresh(f"{base}_{at if fixed else 'in'}")
        return self.read_var[key]

    def read(self, key: Key, sinks: list[tuple[int, Access]]) -> None:
        """The variable of one read: transports from its writers, DRAM where none."""
        st, (k0, r0) = self.step, sinks[0]
        doms = list({tuple(map(str, st.domain(k))): st.domain(k) for k, _r in sinks}.values())
        none: list[Conj] = []
        for dom in self.reg.disjoint(doms):
            found, rest = st.flow(dom, key[1], key[2])
            none += rest
            for cand, pieces in found:
                dist = st.distance(k0, r0, cand)
                src = self.var[cand[0]]
                for p in pieces:
                    if any(dist):
                        self.add(("transport", self._readvar(key), src, dist), p)
                    else:
                        self.direct.setdefault(key, []).append((src, p))
        if none:
            self.spread(key, Access(r0.tensor, key[1], r0.where), none)

    def spread(self, key: Key, a: Access, region: list[Conj]) -> None:
        """DRAM values read once, then passed along the outermost dim they do not vary with."""
        var, used = self._readvar(key), {n for x in a.index for n in x.names()}
        self.ph.tensor(a, "input")
        for d in (self.step.t, *self.step.dims):
            if d in used:
                continue
            rest = self.reg.meet(region, [moved(q, d, 1) for q in region])
            if rest:
                first = [p for q in region
                         for p in self.reg.minus(q, [moved(x, d, 1) for x in region])]
                for p in first:
                    self.add(("input", var, a), p)
                unit = tuple(int(x == d) for x in (self.step.t, *self.step.dims))
                for p in rest:
                    self.add(("transport", var, var, unit), p)
                return
        for p in region:
            self.add(("input", var, a), p)

    def compute(self, k: int) -> None:
        """Update ``k``, split where some read is a writer's variable at distance 0."""
        s = self.step.tl.updates[k].stmt
        keys = [self.key(k, r) for r in s.reads]
        cells: list[tuple[Conj, dict[Key, str]]] = [(self.step.domain(k), {})]
        for key in dict.fromkeys(keys):
            pieces = self.direct.get(key, [])
            if not pieces:
                continue
            nxt = []
            for conj, using in cells:
                nxt += [([*conj, *p], {**using, key: v}) for v, p in pieces
                        if not self.reg.empty([*conj, *p])]
                nxt += [(c, using) for c in self.reg.minus(conj, [p for _v, p in pieces])]
            cells = nxt
        for conj, using in cells:
            names = {j: using.get(keys[j]) or self.read_var[keys[j]] for j in reads_in(s.expr)}
            self.add(("compute", self.var[k], render(s.expr, names)), conj)

    def output(self, k: int) -> None:
        """The elements update ``k`` writes last leave for DRAM after the last step."""
        st, s = self.step, self.step.tl.updates[k].stmt
        live = st.tl.live_out
        if live is not None and s.target.tensor not in live:
            return
        e = st.target(k)
        later = [st.writes(w, e) for w, u in enumerate(st.tl.updates)
                 if w > k and u.stmt.target.tensor == s.target.tensor]
        when = [*st.domain(k), Constraint(axis(st.t) - st.last, eq=True)]
        a = Access(s.target.tensor, e, s.where)
        for p in self.reg.minus(when, later):
            self.ph.tensor(a, "output")
            self.add(("output", self.var[k], a), p)


def _partly_written(step: FusedStep, ph: Phase) -> None:
    """An output array whose writers miss some of its elements keeps those from DRAM: it is
    ``inout`` (jacobi's ``B`` keeps its boundary)."""
    xs = tuple(axis(d) for d in step.dims)
    for name, decl in list(ph.tensors.items()):
        if decl.kind != "output" or len(decl.shape) != len(xs):
            continue
        box = [c for x, n in zip(xs, decl.shape, strict=True)
               for c in (Constraint(x), Constraint(n.shift(-1) - x))]
        writes = [step.writes(w, xs) for w, u in enumerate(step.tl.updates)
                  if u.stmt.target.tensor == name]
        if step.reg.minus(box, writes):
            ph.inout(name)


def _space(tl: TimeLoop, reg: Regions, step: FusedStep) -> tuple[Loop, ...]:
    """The fused dims: ``t`` from 0, then each space dim from 0 to the largest of the
    written arrays' extent and the shifted sweeps' upper bounds."""
    t = tl.time
    out = [Loop(t.name, Affine.of({}), t.upper - t.lower, t.where)]
    for d, name in enumerate(step.dims):
        shapes = [tl.shapes[u.stmt.target.tensor][d].shift(-1) for u in tl.updates
                  if u.stmt.target.tensor in tl.shapes]
        tops = [(c.upper if isinstance(c, Loop) else c).shift(step.shift[k][d])
                for k, c in enumerate(cs[d] for cs in step.coords)]
        top = _maximum(reg, list(dict.fromkeys(shapes + tops))) or _maximum(reg, tops)
        if top is None:
            raise NotUniformError(f"{t.where}: the sweeps' upper bounds along {name} "
                                  f"({', '.join(map(str, tops))}) have no largest one")
        out.append(Loop(name, Affine.of({}), top))
    return tuple(out)


def stencil_pra(tl: TimeLoop, dims: tuple[str, ...]) -> PRA:
    """The single-assignment, fused PRA of the time loop (space dims named ``dims``)."""
    step = FusedStep(tl, dims)
    for k, cs in enumerate(step.coords):
        low = [c.lower for c in cs if isinstance(c, Loop)]
        if any(x.terms or x.const < 0 for x in low):
            u = tl.updates[k].loops[0]
            raise NotUniformError(f"{u.where}: a sweep loop starts below 0 or at a parameter")
    step.fuse()
    nest = Nest(tl.name, tl.params, _space(tl, step.reg, step), (), dict(tl.shapes),
                dict(tl.scalars), frozenset(), frozenset(), tl.dtype)
    ph = Phase(nest)
    emit = _Emit(step, ph)
    for key, sinks in emit.groups().items():
        emit.read(key, sinks)
    for k in range(len(tl.updates)):
        emit.compute(k)
    for k in range(len(tl.updates)):
        emit.output(k)
    emit.flush()
    _partly_written(step, ph)
    pra = ph.pra(tl.name)
    return replace(pra, param_min=tuple((p, step.mins.get(p, 1)) for p in pra.params))
