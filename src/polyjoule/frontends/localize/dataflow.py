"""Which write a read of an array written in the same nest sees (value-based dataflow for
one chain of loops, decided on the outermost loop).

Every written subscript is one loop index (coefficient 1 or -1) plus terms of the outer
loops and parameters, so the iteration that writes the element a read names is an affine
function of the read's point. When every writer writes it at a later
iteration of the outermost loop (``q1(p) > p1`` on the whole read domain), the read sees the
array's value from before the nest: the input (trmm's ``B[k][j]``, ``k > i``, is overwritten
only at ``i' = k``). When every writer wrote it at an earlier one (``q1(p) < p1``), the read
sees what that outer iteration left: the finished value (trisolv's ``x[j]``, ``j < i``,
finished at ``i' = j``). A read of the same outer iteration, or of both, is neither: the
uniformity check decides it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Access, Loop, Nest, Stmt

INPUT = "input"


@dataclass(frozen=True)
class Finished:
    """A read of the value an earlier outer iteration finished: ``at`` gives the writer's
    loop indices as affine functions of the read's point."""

    tensor: str
    at: dict[str, Affine]


def solve(target: Access, read: Access, dims: Sequence[str]) -> dict[str, Affine] | None:
    """The writer's loop indices that write the element ``read`` names, or None when a
    written subscript is not one loop index with coefficient 1 or -1 plus a constant
    (``x[i]``, ``x[N - 1 - i]``); ``dims`` are the loop indices."""
    if len(target.index) != len(read.index):
        return None
    out: dict[str, Affine] = {}
    for f, g in zip(target.index, read.index, strict=True):
        moving = [(n, c) for n, c in f.terms if n in dims]
        if len(moving) != 1 or moving[0][1] not in (1, -1) or moving[0][0] in out:
            return None
        name, c = moving[0]
        rest = f - Affine.of({name: c})  # f = c * name + rest  ->  name = c * (g - rest)
        diff = g - rest
        out[name] = diff if c == 1 else -diff
    return out


def _pairs(nest: Nest, w: Stmt, read: Access) -> tuple[Geometry, list[Constraint], Affine]:
    """The space of (read point, writer point) pairs naming one element: the writer's loops
    renamed ``x_w``; returns it, the equalities, and the writer's outermost index."""
    ren = {lp.name: Affine.of({f"{lp.name}_w": 1}) for lp in nest.loops}
    mine = tuple(Loop(f"{lp.name}_w", lp.lower.substitute(ren), lp.upper.substitute(ren))
                 for lp in nest.loops[:w.depth])
    same = [Constraint(f.substitute(ren) - g, eq=True)
            for f, g in zip(w.target.index, read.index, strict=True)]
    return Geometry(replace(nest, loops=(*nest.loops, *mine))), same, ren[nest.loops[0].name]


def source_of(nest: Nest, geo: Geometry, read: Access, region: Sequence[Constraint] = (),
              reader: Stmt | None = None) -> str | Finished | None:
    """``INPUT``, a :class:`Finished` value, or None (not decided on the outermost loop) for
    a read at the points ``region`` of ``geo``'s domain; ``reader``, the statement that
    reads, does not count as a writer of what it reads (it reads before it writes). A
    statement before the inner loop runs first in its outer iteration: for its reads, a
    write in the same outer iteration comes later."""
    first = reader is not None and reader.position == "pre"
    writers = [s for s in nest.stmts if s.target.tensor == read.tensor and s is not reader]
    here = Affine.of({geo.dims[0]: 1})
    later = earlier = True
    for w in writers:
        if len(w.target.index) != len(read.index):
            return None
        pairs, same, there = _pairs(nest, w, read)
        before = Constraint((here - there).shift(-1 if first else 0))  # q1 < p1 (pre), <=
        later &= pairs.empty([*region, *same, before])
        earlier &= pairs.empty([*region, *same, Constraint(there - here)])  # never q1 >= p1
    if later:
        return INPUT
    solved = [solve(w.target, read, geo.dims) for w in writers]
    if earlier and solved[0] is not None and all(q == solved[0] for q in solved):
        return Finished(read.tensor, solved[0])
    return None


def meets(nest: Nest, read: Access, w: Stmt) -> bool:
    """Does ``w`` ever write the element ``read`` names (at any two points of the nest)?"""
    if read.tensor != w.target.tensor or len(read.index) != len(w.target.index):
        return read.tensor == w.target.tensor
    pairs, same, _ = _pairs(nest, w, read)
    return not pairs.empty(same)


def only_false_conflicts(nest: Nest) -> bool:
    """Is every read of a written array at another subscript than a writer's one that no
    instance of that writer ever writes (CORRELATION's ``corr[i][j]``, ``j > i``, against
    ``corr[i][i]``)? Then the syntactic uniformity check complains about nothing."""
    for s in nest.stmts:
        for r in s.reads:
            for w in nest.stmts:
                if w.target.tensor == r.tensor and w.target.index != r.index and meets(nest, r, w):
                    return False
    return True
