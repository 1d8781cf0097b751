"""Elimination nests in pivot steps: PolyBench's ``(i, j, k)`` LU -> the right-looking
``(k, i, j)`` order, checked by exact dataflow.

An in-place elimination (LU, Cholesky, Crout, Gauss-Jordan, ...) updates every element of
one array ``A`` by a sequence of writes; the C loops may hold the pivot loop ``k`` innermost
(``for i { for j < i { for k < j  A[i][j] -= A[i][k] * A[k][j]; A[i][j] /= A[j][j] } ...}``)
and read the pivot row and column at a distance that depends on the loop indices. The rule:

1. every statement writes ``A``; each of its instances is placed at the point
   ``(step, element)`` of a new ``(k, i, j)`` space, the element being the written
   subscript and the step one of the statement's own loop indices (the one the subscript
   does not use first: the pivot loop of an update);
2. a placement is taken when no two instances share a point and isl's exact dataflow
   (:func:`.cflow.flow`) gives every read the same source under the placement, run step by
   step in ``(k, i, j)`` order, as under the C order: then every element sees the same
   writes in the same order, each reading the same values, and both orders compute the same
   values bit for bit;
3. each read then sees its element's value either as it entered the step (``in``) or as a
   write of the same step left it (``out``); a read that sees both, in different instances
   (Floyd-Warshall's pivot row: the old value before the pivot, the new one after it), has
   no single place to start from: one statement over the full cube that reads only its
   element and the pivot row and column goes to rotated pivot steps (:mod:`.crotate`), any
   other is refused.

:mod:`.localize.pivots` localises the result (broadcasts of the pivot values along the dims
their access does not use; the current value of each element travels along ``k``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pycparser import c_ast

from polyjoule.errors import NotUniformError, SpecError
from polyjoule.frontends.cflow import FlowSpace, Instance, flow, injective, same_flow, source_steps
from polyjoule.frontends.cforward import forward_scalars
from polyjoule.frontends.crotate import cube_loops, rotated_kinds
from polyjoule.frontends.localize.pivots import step_loops
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Access, Loop, Stmt

LoopOf = Callable[[c_ast.For, list[str]], Loop]
StmtOf = Callable[[Any, list[str]], Stmt]

#: At most this many placements are tried (one step index per statement).
MAX_PLACEMENTS = 256


class Unrecognised(Exception):
    """The nest is not an in-place elimination of one array (the caller keeps its reason)."""


@dataclass(frozen=True)
class StepStmt(Stmt):
    """A statement of an elimination nest in the step space ``(k, i, j)``: it runs on
    ``region``; ``sources[r]`` says where read ``r`` finds its value: ``"in"`` (as it
    entered the step) or the index of the statement whose write in the same step it reads."""

    region: tuple[Constraint, ...] = ()
    sources: tuple[str | int, ...] = ()


@dataclass
class _Src:
    stmt: Stmt
    loops: list[Loop]
    time: list[Affine]
    span: int | None = None  # in a scalar's forwarded span (:mod:`.cforward`)


def _items(node: Any) -> list[Any]:
    if isinstance(node, c_ast.Compound):
        return [x for x in (node.block_items or []) if not isinstance(x, c_ast.Pragma)]
    return [node] if node is not None else []


def _collect(node: c_ast.For, loops: list[Loop], time: list[Affine], out: list[_Src],
             loop_of: LoopOf, stmt_of: StmtOf, marks: dict[int, int]) -> None:
    names = [lp.name for lp in loops]
    for pos, x in enumerate(_items(node.stmt)):
        t = [*time, Affine.of({}, pos)]
        if isinstance(x, c_ast.For):
            lp = loop_of(x, names)
            _collect(x, [*loops, lp], [*t, Affine.of({lp.name: 1})], out, loop_of, stmt_of,
                     marks)
        elif isinstance(x, c_ast.Assignment) and isinstance(x.lvalue, c_ast.ArrayRef):
            out.append(_Src(stmt_of(x, names), loops, t, marks.get(id(x))))
        else:
            raise Unrecognised


def _domain(loops: list[Loop]) -> tuple[Constraint, ...]:
    out: list[Constraint] = []
    for lp in loops:
        x = Affine.of({lp.name: 1})
        out += [Constraint(x - lp.lower), Constraint(lp.upper - x)]
    return tuple(out)


def _is_elimination(srcs: list[_Src]) -> str:
    """The one array written in place (rank 2 or more) read at a varying distance."""
    arrays = {s.stmt.target.tensor for s in srcs}
    if len(arrays) != 1 or len(srcs[0].stmt.target.index) < 2:
        raise Unrecognised
    a = arrays.pop()
    if any(r.tensor != a for s in srcs for r in s.stmt.reads):
        raise Unrecognised
    varying = any(r.tensor == a and any((f - g).terms for f, g in
                                        zip(s.stmt.target.index, r.index, strict=True))
                  for s in srcs for r in s.stmt.reads)
    if not varying:
        raise Unrecognised
    return a


def _instances(srcs: list[_Src]) -> list[Instance]:
    return [Instance(f"S{n}", tuple(lp.name for lp in s.loops), _domain(s.loops),
                     s.stmt.target.key, tuple(r.key for r in s.stmt.reads))
            for n, s in enumerate(srcs)]


def _step_choices(s: _Src) -> list[str]:
    """The loop indices a statement's step may be: the ones its target does not use first."""
    used = {n for x in s.stmt.target.index for n in x.names()}
    names = [lp.name for lp in s.loops]
    return [n for n in names if n not in used] + [n for n in names if n in used]


def _names(srcs: list[_Src], steps: tuple[str, ...]) -> tuple[str, ...] | None:
    """The step space's dims: the step of a statement with a pivot loop, then the names of
    its written subscripts (plain, distinct loop indices)."""
    for s, k in zip(srcs, steps, strict=True):
        idx = s.stmt.target.index
        plain = [x.terms[0][0] for x in idx if len(x.terms) == 1 and x.terms[0][1] == 1
                 and not x.const]
        if len(plain) == len(idx) and len(set(plain)) == len(idx) and k not in plain:
            return (k, *plain)
    return None


def _placement(srcs: list[_Src], insts: list[Instance], params: tuple[str, ...],
               orig: Any) -> tuple[tuple[str, ...], dict[str, list[Affine]]]:
    """The first placement (a step index per statement) that keeps every read's source."""
    choices = [_step_choices(s) for s in srcs]
    for steps in itertools.islice(itertools.product(*choices), MAX_PLACEMENTS):
        names = _names(srcs, steps)
        if names is None:
            continue
        place = {i.name: [Affine.of({k: 1}), *s.stmt.target.index]
                 for i, s, k in zip(insts, srcs, steps, strict=True)}
        if injective(params, insts, place) and same_flow(orig, flow(params, insts, place)):
            return names, place
    raise NotUniformError(
        f"{srcs[0].stmt.where}: {srcs[0].stmt.target.tensor} is updated in place, but no "
        f"order in pivot steps (k, element) gives every read the value it reads in the C "
        f"order (isl dataflow), so the nest is not reordered into right-looking steps")


def _invert(inst: Instance, place: list[Affine], dims: tuple[str, ...]
            ) -> tuple[dict[str, Affine], list[Constraint]]:
    """The statement's own indices as affine functions of the step point, and the equations
    that hold on its image (the division of LU lives on ``j == k``)."""
    import sympy  # only in-place pivot kernels get here: sympy is 0.2 s of every C file's start

    m = sympy.Matrix([[f.coeffs.get(x, 0) for x in inst.dims] for f in place])
    rows = list(m.T.rref()[1])  # independent equations, one per own index
    if len(rows) != len(inst.dims):
        raise Unrecognised
    inv = m.extract(rows, list(range(len(inst.dims)))).inv()
    if any(not v.is_integer for v in inv):
        raise Unrecognised
    rhs = [Affine.of({dims[r]: 1}) - Affine.of({n: v for n, v in place[r].terms
                                               if n not in inst.dims}, place[r].const)
           for r in rows]
    back: dict[str, Affine] = {}
    for a, x in enumerate(inst.dims):
        out = Affine.of({})
        for b, e in enumerate(rhs):
            c = int(inv[a, b])
            out = out + Affine.of({n: c * v for n, v in e.terms}, c * e.const)
        back[x] = out
    eqs = [Affine.of({d: 1}) - place[r].substitute(back) for r, d in enumerate(dims)
           if r not in rows]
    return back, [Constraint(e, eq=True) for e in eqs if e.terms or e.const]


def _both_sides(read: Access, w: Stmt) -> NotUniformError:
    return NotUniformError(
        f"{read.where}: {read} reads {read.tensor}, which {w.target} ({w.where}) writes in the "
        f"same nest: in pivot steps (k, element) the read sees its element both as it entered "
        f"step k and as that write of step k left it (the distance to the write changes "
        f"sign), so the value has no one place to travel from and the nest is not uniform "
        f"(rotated pivot steps take one statement over the full cube that reads only its "
        f"element and the pivot row and column, as Floyd-Warshall)")


def _sources(n: int, stmts: list[Stmt], insts: list[Instance], dep: Any,
             place: dict[str, list[Affine]], params: tuple[str, ...]) -> tuple[str | int, ...]:
    """Per read of statement ``n``: ``"in"`` or the statement whose write in the same step
    it sees."""
    by = {i.name: i for i in insts}
    out: list[str | int] = []
    for r, read in enumerate(stmts[n].reads):
        how = {(t, h) for t, ti in enumerate(insts)
               for h in source_steps(dep, f"{insts[n].name}_r{r}", ti.name, place, by, params)}
        same = {t for t, h in how if h == "same"}
        if len(same) > 1 or (same and any(h == "earlier" for _t, h in how)):
            if len(stmts) > 1 or len(same) > 1:
                raise _both_sides(read, stmts[min(same)])
            out.append("both")  # one statement: pivot steps on rotated indices may hold it
            continue
        out.append(same.pop() if same else "in")
    return tuple(out)


def _moved(n: int, srcs: list[_Src], insts: list[Instance], place: dict[str, list[Affine]],
           names: tuple[str, ...], dep: Any, params: tuple[str, ...]) -> StepStmt:
    """Statement ``n`` in the step space: its reads and region in step coordinates."""
    inst, st = insts[n], srcs[n].stmt
    try:
        back, eqs = _invert(inst, place[inst.name], names)
    except Unrecognised:
        raise NotUniformError(
            f"{st.where}: {st.target}: its loop indices are not determined by its place in "
            f"the pivot steps (step, element), so it has no one point there") from None
    moved = [Access(r.tensor, tuple(x.substitute(back) for x in r.index), r.where)
             for r in st.reads]
    region = tuple(Constraint(c.expr.substitute(back), c.eq) for c in inst.domain) + tuple(eqs)
    target = Access(st.target.tensor, tuple(Affine.of({d: 1}) for d in names[1:]),
                    st.target.where)
    return StepStmt(target, st.op, st.expr, tuple(moved), len(names), "body", st.where,
                    region, _sources(n, [x.stmt for x in srcs], insts, dep, place, params))


def _check_forwarded(srcs: list[_Src], params: tuple[str, ...]) -> None:
    """In a forwarded span, no access but the scalar's own may reach its element (the
    store's target, last in the span)."""
    for span in {s.span for s in srcs if s.span is not None}:
        stmts = [s for s in srcs if s.span == span]
        e = stmts[-1].stmt.target
        for s in stmts:
            sp = FlowSpace(params, [lp.name for lp in s.loops])
            for a in (s.stmt.target, *s.stmt.reads):
                if a.tensor == e.tensor and a.index != e.index and not sp.empty(
                        [*_domain(s.loops), *(Constraint(x - y, eq=True)
                                              for x, y in zip(a.index, e.index, strict=True))]):
                    raise Unrecognised


def _params(srcs: list[_Src]) -> tuple[str, ...]:
    """The names the bounds and subscripts use that no loop binds, in order of use."""
    loops = {lp.name for s in srcs for lp in s.loops}
    seen: dict[str, None] = {}
    for s in srcs:
        for x in [*(b for lp in s.loops for b in (lp.lower, lp.upper)),
                  *(i for a in (s.stmt.target, *s.stmt.reads) for i in a.index)]:
            seen.update({n: None for n in sorted(x.names() - loops)})
    return tuple(seen)


def in_steps(top: c_ast.For, loop_of: LoopOf,
             stmt_of: StmtOf) -> tuple[list[Loop], list[Stmt]] | None:
    """The nest as the loops and statements of the step space (see the module doc), or
    None when it is not an in-place elimination of one array."""
    srcs: list[_Src] = []
    top, marks = forward_scalars(top)
    try:
        lp = loop_of(top, [])
        _collect(top, [lp], [Affine.of({}, 0), Affine.of({lp.name: 1})], srcs, loop_of, stmt_of,
                 marks)
        _is_elimination(srcs)
        params = _params(srcs)
        _check_forwarded(srcs, params)
    except (Unrecognised, SpecError):  # not an elimination the steps can hold: keep the reason
        return None
    depth = max(len(s.time) for s in srcs)
    for s in srcs:
        s.time += [Affine.of({}, 0)] * (depth - len(s.time))
    insts = _instances(srcs)
    orig = flow(params, insts, {i.name: s.time for i, s in zip(insts, srcs, strict=True)})
    names, place = _placement(srcs, insts, params, orig)
    stmts = [_moved(n, srcs, insts, place, names, orig[0], params) for n in range(len(srcs))]
    if any(x == "both" for s in stmts for x in s.sources):
        return _rotated(params, names, stmts[0], insts[0], place, orig[0], srcs[0].loops)
    return step_loops(params, names, stmts), stmts


def _rotated(params: tuple[str, ...], names: tuple[str, ...], st: StepStmt, inst: Instance,
             place: dict[str, list[Affine]], dep: Any, loops: list[Loop]
             ) -> tuple[list[Loop], list[Stmt]]:
    """The one statement on rotated indices (:mod:`.crotate`), or the read's refusal."""
    top = loops[0].upper
    kinds = rotated_kinds(params, names, st, inst, place, dep, top)
    if kinds is None:
        r = next(n for n, x in enumerate(st.sources) if x == "both")
        raise _both_sides(st.reads[r], st)
    moved = dataclasses.replace(st, sources=tuple(f"rotated:{x}" for x in kinds))
    return cube_loops(names, top, st.where), [moved]
