"""A statement outside any loop (a 0-dim statement) joins a nest before it.

CORRELATION sets its last diagonal element after every loop (``corr[M - 1][M - 1] = 1.0``
follows the nest that fills the rest of ``corr``). Such a statement runs after every
iteration of the nests before it, which is what a statement after the loops of a nest at
depth 0 means in a :class:`~polyjoule.model.nest.Nest` (``position`` ``post``, no enclosing
loop). It joins the nearest nest before it that has a point for every size (correlation's
last nest is empty at ``M == 1``, where the statement still runs), provided the nests in
between never touch its element and write nothing it reads (isl): then running it at the
end of that nest or in place is the same. The localiser places it at that nest's last point
when no other statement there meets its element
(:mod:`polyjoule.frontends.localize.stores`), or refuses the nest with its own reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.model.affine import Constraint
from polyjoule.model.nest import Loop, Nest, Stmt

Found = tuple[list[Loop], list[Stmt]]


def _never_empty(loops: Sequence[Loop], params: Sequence[str]) -> bool:
    return Geometry(Nest("", tuple(params), tuple(loops), ())).inner_never_empty(0)


def _leaves_alone(s: Stmt, nest: Found, params: Sequence[str]) -> bool:
    """Does ``nest`` never touch the element ``s`` writes, and write nothing ``s`` reads?"""
    loops, stmts = nest
    if {r.tensor for r in s.reads} & {t.target.tensor for t in stmts}:
        return False
    for t in stmts:
        geo = Geometry(Nest("", tuple(params), tuple(loops[:t.depth]), ()))
        for a in (t.target, *t.reads):
            if a.tensor == s.target.tensor and (len(a.index) != len(s.target.index) or not geo.empty(
                    [Constraint(f - g, eq=True) for f, g in zip(a.index, s.target.index,
                                                               strict=True)])):
                return False
    return True


def join_after(s: Stmt, found: list[Found], params: Sequence[str]) -> bool:
    """Append the 0-dim ``s`` to a nest of ``found`` (see the module doc) as a statement
    after all its loops; False when no nest can take it."""
    for k in range(len(found) - 1, -1, -1):
        loops, stmts = found[k]
        if _never_empty(loops, params):
            found[k] = (loops, [*stmts, replace(s, depth=0, position="post")])
            return True
        if not _leaves_alone(s, found[k], params):
            return False
    return False
