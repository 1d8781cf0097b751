"""Time-iterated stencils: a time loop around sweeps -> one uniform ``(t, x1..xr)`` PRA.

A time loop ``t`` holds sweeps (loop nests in sequence) that update arrays in place
(Gauss-Seidel) or ping-pong between them (Jacobi). The arrays are renamed into single
assignment with the time index, the polyhedral way:

1. every statement instance is placed at the element it writes (its target's subscripts
   are its sweep's loop indices or constants), so a time step is one ``x1..xr`` space;
2. exact value-based dataflow: the value a read ``X[y + c]`` sees is written by the latest
   writer of that element before it: an earlier statement of the same step (an earlier
   sweep, or the same sweep at a lexicographically earlier iteration), else the last
   writer in the previous step, else nobody (the value in DRAM). Each case is a region of
   the reading statement's domain, kept as disjoint conjunctions (:mod:`.regions`);
3. fusion: each sweep is shifted by the smallest constant vector that makes every
   dependence on an earlier sweep of the same step non-negative in every space dim (the
   built-in jacobi-1d computes ``A_t[i-1]`` at ``(t, i)``); dependences on the previous
   step are positive along ``t``; one inside a sweep is its loop order;
4. each read becomes a variable: a transport from the writer's variable at the constant
   distance, the writer's variable itself at distance 0 (the statement is then split by
   region), or, with no writer, the DRAM value read once and propagated along the
   outermost dim it does not depend on (boundary elements along ``t`` from ``t == 0``,
   ``fict[t]`` along a row); the final value of every element leaves for DRAM where it is
   last written.

Anything else is refused by a :class:`~polyjoule.errors.NotUniformError` that names the
statement and the reason (a read at a distance that depends on the indices, a sweep loop
that does not index what it writes, bounds that are not constant in the parameters).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from polyjoule.errors import NotUniformError
from polyjoule.frontends.localize.exprs import reads_in, render
from polyjoule.frontends.localize.phase import Phase
from polyjoule.frontends.localize.regions import Conj, Regions, moved
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Access, Loop, Nest, Stmt
from polyjoule.model.pra import PRA


@dataclass(frozen=True)
class Update:
    """One statement of a sweep: ``stmt.target = stmt.expr`` at every point of ``loops``."""

    stmt: Stmt
    sweep: int
    loops: tuple[Loop, ...]


@dataclass(frozen=True)
class TimeLoop:
    """The loop ``time`` around sweeps whose statements are ``updates``, in program order."""

    name: str
    time: Loop
    updates: tuple[Update, ...]
    params: tuple[str, ...]
    shapes: Mapping[str, tuple[Affine, ...]]
    scalars: Mapping[str, float]
    dtype: str
    live_out: frozenset[str] | None = None


Coord = Loop | Affine  # a target subscript: a loop index (its loop) or a constant
Cand = tuple[int, int]  # (writer, step distance 0 or 1)
Key = tuple[str, tuple[Affine, ...], tuple[Cand, ...]]


def _var(name: str) -> Affine:
    return Affine.of({name: 1})


def _coords(u: Update, time: str) -> tuple[Coord, ...]:
    """Per subscript of the target: its loop, or the constant it is."""
    s, by = u.stmt, {lp.name: lp for lp in u.loops}
    out: list[Coord] = []
    for x in s.target.index:
        name = x.terms[0][0] if len(x.terms) == 1 and x.terms[0][1] == 1 and not x.const else ""
        if name in by:
            out.append(by[name])
        elif not x.names() & (set(by) | {time}):
            out.append(x)
        else:
            raise NotUniformError(f"{s.where}: {s.target}: each subscript of an array the time "
                                  f"loop updates must be a loop index or a constant, {x} is not")
    order = [c.name for c in out if isinstance(c, Loop)]
    if order != [lp.name for lp in u.loops]:
        raise NotUniformError(
            f"{s.where}: {s.target} is written with the loops {', '.join(lp.name for lp in u.loops)}"
            f" in its subscripts once each and in loop order only; here they are "
            f"{', '.join(order) or 'absent'} (a reduction or a transposed sweep)")
    return tuple(out)


def _maximum(reg: Regions, xs: list[Affine]) -> Affine | None:
    """The largest of affine forms of the parameters for every legal value, if one is."""
    for a in xs:
        if all(reg.empty([Constraint((b - a).shift(-1))]) for b in xs):
            return a
    return None


def param_mins(tl: TimeLoop) -> dict[str, int]:
    """The smallest parameter values for which every loop runs at least once."""
    mins = dict.fromkeys(tl.params, 1)
    for lp in (tl.time, *(lp for u in tl.updates for lp in u.loops)):
        gap = lp.upper - lp.lower
        if len(gap.terms) == 1 and gap.terms[0][1] > 0:
            p, a = gap.terms[0]
            mins[p] = max(mins.get(p, 1), math.ceil(-gap.const / a))
    return mins


class _Step:
    """The updates of one time step placed in the fused ``(t, x1..xr)`` space."""

    def __init__(self, tl: TimeLoop, dims: tuple[str, ...]):
        self.tl, self.dims, self.t = tl, dims, tl.time.name
        self.last = tl.time.upper - tl.time.lower
        self.coords = [_coords(u, tl.time.name) for u in tl.updates]
        self.mins = param_mins(tl)
        self.reg = Regions(tl.params, self.mins, (self.t, *dims))
        self.shift = [(0,) * len(dims) for _ in tl.updates]
        self.written = {u.stmt.target.tensor for u in tl.updates}
        for k, u in enumerate(tl.updates):  # one sweep, one placement of its loops
            first = next(w for w, x in enumerate(tl.updates) if x.sweep == u.sweep)
            if [isinstance(c, Loop) for c in self.coords[k]] != [
                    isinstance(c, Loop) for c in self.coords[first]]:
                raise NotUniformError(f"{u.stmt.where}: {u.stmt.target} places the sweep's "
                                      f"loops in other subscripts than "
                                      f"{tl.updates[first].stmt.target} does")

    def _repl(self, k: int, shift: tuple[int, ...]) -> dict[str, Affine]:
        out = {self.t: _var(self.t) + self.tl.time.lower}  # the time loop starts at 0
        for d, c in enumerate(self.coords[k]):
            if isinstance(c, Loop):
                out[c.name] = _var(self.dims[d]).shift(-shift[d])
        return out

    def domain(self, k: int, shift: tuple[int, ...] | None = None) -> Conj:
        """Where update ``k`` runs (at its shift; ``None``: its own)."""
        s = self.shift[k] if shift is None else shift
        t = _var(self.t)
        out = [Constraint(t), Constraint(self.last - t)]
        for d, c in enumerate(self.coords[k]):
            x = _var(self.dims[d]).shift(-s[d])
            if isinstance(c, Loop):
                out += [Constraint(x - c.lower), Constraint(c.upper - x)]
            else:
                out.append(Constraint(x - c, eq=True))
        return out

    def element(self, k: int, a: Access, shift: tuple[int, ...] | None = None
                ) -> tuple[Affine, ...]:
        """The subscripts of ``a`` (in update ``k``) over the fused dims."""
        repl = self._repl(k, self.shift[k] if shift is None else shift)
        return tuple(x.substitute(repl) for x in a.index)

    def target(self, k: int) -> tuple[Affine, ...]:
        return self.element(k, self.tl.updates[k].stmt.target)

    def offset(self, k: int, r: Access) -> tuple[int, ...]:
        """``c`` with ``r`` reading ``X[y + c]`` where update ``k`` writes at ``y``."""
        zero = (0,) * len(self.dims)
        e = self.element(k, r, zero)
        y = self.element(k, self.tl.updates[k].stmt.target, zero)
        diff = [a - b for a, b in zip(e, y, strict=True)]
        if len(e) != len(y) or any(x.terms for x in diff):
            raise NotUniformError(
                f"{r.where}: {r} reads {r.tensor}, which the time loop updates, at a distance "
                f"from {self.tl.updates[k].stmt.target} that depends on the indices: not uniform")
        return tuple(x.const for x in diff)

    def writes(self, w: int, e: tuple[Affine, ...]) -> Conj:
        """Where update ``w`` writes the element ``e`` in some step."""
        out: Conj = []
        for x, c in zip(e, self.coords[w], strict=True):
            if isinstance(c, Loop):
                out += [Constraint(x - c.lower), Constraint(c.upper - x)]
            else:
                out.append(Constraint(x - c, eq=True))
        return out

    def candidates(self, k: int, r: Access) -> tuple[Cand, ...]:
        """Who may have written what ``r`` reads, latest first: this step, then the last."""
        if r.tensor not in self.written:
            return ()
        c = self.offset(k, r)
        loop_c = [x for x, co in zip(c, self.coords[k], strict=True) if isinstance(co, Loop)]
        before = next((x < 0 for x in loop_c if x), False)
        ups = self.tl.updates
        writers = [w for w in range(len(ups) - 1, -1, -1) if ups[w].stmt.target.tensor == r.tensor]
        now = [(w, 0) for w in writers if ups[w].sweep < ups[k].sweep or (
            ups[w].sweep == ups[k].sweep and (before or (not any(loop_c) and w < k)))]
        return (*now, *((w, 1) for w in writers))

    def flow(self, dom: Conj, e: tuple[Affine, ...], cands: tuple[Cand, ...]
             ) -> tuple[list[tuple[Cand, list[Conj]]], list[Conj]]:
        """The pieces of ``dom`` where each candidate wrote ``e`` last, and where nobody did."""
        covered: list[Conj] = []
        out = []
        for w, dt in cands:
            region = [*dom, *self.writes(w, e)]
            if dt:
                region.append(Constraint(_var(self.t).shift(-1)))
            pieces = self.reg.minus(region, covered)
            if pieces:
                out.append(((w, dt), pieces))
            covered.append(region)
        return out, self.reg.minus(dom, covered)

    def fuse(self) -> None:
        """Shift each sweep by the least vector keeping this step's dependences non-negative."""
        ups = self.tl.updates
        for sweep in sorted({u.sweep for u in ups}):
            mine = [k for k, u in enumerate(ups) if u.sweep == sweep]
            need = [0] * len(self.dims)
            zero = (0,) * len(self.dims)
            for k in mine:
                for r in ups[k].stmt.reads:
                    cands = self.candidates(k, r)
                    if not cands:
                        continue
                    c = self.offset(k, r)
                    found, _none = self.flow(self.domain(k, zero), self.element(k, r, zero), cands)
                    for (w, dt), _p in found:
                        if dt == 0 and ups[w].sweep < sweep:
                            need = [max(n, s + x) for n, s, x in zip(need, self.shift[w], c,
                                                                     strict=True)]
            for k in mine:
                self.shift[k] = tuple(need)

    def distance(self, k: int, r: Access, cand: Cand) -> tuple[int, ...]:
        """The dependence vector of ``r`` in update ``k`` on the candidate ``cand``."""
        w, dt = cand
        c = self.offset(k, r)
        dist = (dt, *(a - b - x for a, b, x in zip(self.shift[k], self.shift[w], c, strict=True)))
        if dt == 0 and (dist < (0,) * len(dist) or (not any(dist) and w >= k)):
            raise NotUniformError(
                f"{r.where}: {r} reads a value written later in the same time step at the "
                f"distance {dist}: no shift of the sweeps orders it")
        return dist


class _Emit:
    """The PRA statements of a placed time step, built in a :class:`Phase`."""

    def __init__(self, step: _Step, ph: Phase):
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

    def _read_var(self, key: Key) -> str:
        """``a_m1_p1`` reads ``A[i - 1][j + 1]`` at ``(t, i, j)``."""
        if key not in self.read_var:
            rel = [x - _var(d) for x, d in zip(key[1], self.step.dims, strict=False)]
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
                        self.add(("transport", self._read_var(key), src, dist), p)
                    else:
                        self.direct.setdefault(key, []).append((src, p))
        if none:
            self.spread(key, Access(r0.tensor, key[1], r0.where), none)

    def spread(self, key: Key, a: Access, region: list[Conj]) -> None:
        """DRAM values read once, then passed along the outermost dim they do not vary with."""
        var, used = self._read_var(key), {n for x in a.index for n in x.names()}
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
        when = [*st.domain(k), Constraint(_var(st.t) - st.last, eq=True)]
        a = Access(s.target.tensor, e, s.where)
        for p in self.reg.minus(when, later):
            self.ph.tensor(a, "output")
            self.add(("output", self.var[k], a), p)


def _partly_written(step: _Step, ph: Phase) -> None:
    """An output array whose writers miss some of its elements keeps those from DRAM: it is
    ``inout`` (jacobi's ``B`` keeps its boundary)."""
    xs = tuple(_var(d) for d in step.dims)
    for name, decl in list(ph.tensors.items()):
        if decl.kind != "output" or len(decl.shape) != len(xs):
            continue
        box = [c for x, n in zip(xs, decl.shape, strict=True)
               for c in (Constraint(x), Constraint(n.shift(-1) - x))]
        writes = [step.writes(w, xs) for w, u in enumerate(step.tl.updates)
                  if u.stmt.target.tensor == name]
        if step.reg.minus(box, writes):
            ph.inout(name)


def _space(tl: TimeLoop, reg: Regions, step: _Step) -> tuple[Loop, ...]:
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
    step = _Step(tl, dims)
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
