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
4. (:mod:`.stencil`) each read becomes a variable: a transport from the writer's variable at the constant
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
from dataclasses import dataclass

from polyjoule.errors import NotUniformError
from polyjoule.frontends.localize.regions import Conj, Regions
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Access, Loop, Stmt


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


def axis(name: str) -> Affine:
    """The affine form of one dim (or loop index)."""
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




def param_mins(tl: TimeLoop) -> dict[str, int]:
    """The smallest parameter values for which every loop runs at least once."""
    mins = dict.fromkeys(tl.params, 1)
    for lp in (tl.time, *(lp for u in tl.updates for lp in u.loops)):
        gap = lp.upper - lp.lower
        if len(gap.terms) == 1 and gap.terms[0][1] > 0:
            p, a = gap.terms[0]
            mins[p] = max(mins.get(p, 1), math.ceil(-gap.const / a))
    return mins


class FusedStep:
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
        out = {self.t: axis(self.t) + self.tl.time.lower}  # the time loop starts at 0
        for d, c in enumerate(self.coords[k]):
            if isinstance(c, Loop):
                out[c.name] = axis(self.dims[d]).shift(-shift[d])
        return out

    def domain(self, k: int, shift: tuple[int, ...] | None = None) -> Conj:
        """Where update ``k`` runs (at its shift; ``None``: its own)."""
        s = self.shift[k] if shift is None else shift
        t = axis(self.t)
        out = [Constraint(t), Constraint(self.last - t)]
        for d, c in enumerate(self.coords[k]):
            x = axis(self.dims[d]).shift(-s[d])
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
                region.append(Constraint(axis(self.t).shift(-1)))
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
