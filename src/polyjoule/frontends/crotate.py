"""Pivot steps on rotated indices: an in-place closure whose pivot row and column are read
on both sides of the pivot (Floyd-Warshall's ``path[i][j] = f(path[i][j], path[i][k],
path[k][j])`` in ``(k, i, j)``).

In pivot steps ``(k, i, j)`` the read ``A[i][k]`` sees its element as it entered step ``k``
where ``j < k`` and as the step's write left it where ``j > k`` (``A[k][j]`` likewise along
``i``): no one-way broadcast carries both. On rotated indices, point ``(k, i', j')`` holding
element ``((i' + k) mod N, (j' + k) mod N)``, the pivot column is ``j' == 0`` and the pivot
row ``i' == 0``: both values of a pivot element are at its home there, the old one as it
entered and the new one as the step's write left it, and each travels one way, to the points
C's order gives it (``j > k`` is ``1 <= j' <= N - 1 - k``). The rotation keeps C's dataflow
exactly: no value is assumed unchanged (the built-in floyd-warshall reads the old values
everywhere, exact only with a non-negative diagonal).

The rule applies to one statement over the full cube ``0 <= k, i, j <= N - 1`` that writes
``A[i][j]`` and reads only ``A[i][j]``, ``A[i][k]`` and ``A[k][j]``, when isl's dataflow
(:func:`.cflow.same_step_reads`) says that exactly the reads of ``A[i][k]`` at ``j > k`` and
of ``A[k][j]`` at ``i > k`` see the write of their own step, and no read sees a later step:
every other read sees its element as it entered the step (the one statement writes every
element at every step, so that is the previous step's result, or the input at the first).
:mod:`.localize.rotated` emits the PRA.
"""

from __future__ import annotations

from typing import Any

from polyjoule.frontends.cflow import Instance, same_step_reads, source_steps, step_set
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Loop, Stmt

#: The read of each kind, by its subscripts in the step space (k, i, j).
KINDS = ("own", "col", "row")


def _kind(index: tuple[Affine, ...], names: tuple[str, ...]) -> str | None:
    k, i, j = (Affine.of({n: 1}) for n in names)
    return {(i, j): "own", (i, k): "col", (k, j): "row"}.get(tuple(index))


def _cube(names: tuple[str, ...], top: Affine) -> list[Constraint]:
    out = []
    for n in names:
        x = Affine.of({n: 1})
        out += [Constraint(x), Constraint(top - x)]
    return out


def rotated_kinds(params: tuple[str, ...], names: tuple[str, ...], stmt: Stmt, inst: Instance,
                  place: dict[str, list[Affine]], dep: Any, top: Affine
                  ) -> tuple[str, ...] | None:
    """The kind of each read (``own``, ``col``, ``row``) when the rule applies to the one
    statement ``stmt`` (in step coordinates, region ``stmt.region``), else None."""
    if len(names) != 3 or top.names() - set(params):
        return None
    cube = _cube(names, top)
    if not step_set(params, names, stmt.region).is_equal(step_set(params, names, cube)):
        return None
    kinds = [_kind(tuple(r.index), names) for r in stmt.reads]
    if any(x is None or r.tensor != stmt.target.tensor for x, r in zip(kinds, stmt.reads,
                                                                         strict=True)):
        return None
    k, i, j = (Affine.of({n: 1}) for n in names)
    after = {"own": None, "col": Constraint(j - k - Affine.of({}, 1)),
             "row": Constraint(i - k - Affine.of({}, 1))}
    by = {inst.name: inst}
    for r, kind in enumerate(kinds):
        if "later" in source_steps(dep, f"{inst.name}_r{r}", inst.name, place, by, params):
            return None  # the others read the value the element entered the step with
        same = same_step_reads(dep, f"{inst.name}_r{r}", inst.name, place, by, params, names)
        want = step_set(params, names, [*cube, after[kind]]) if after[kind] is not None else \
            step_set(params, names, [*cube, Constraint(Affine.of({}, -1))])  # empty
        if not same.is_equal(want):
            return None
    return tuple(str(x) for x in kinds)


def cube_loops(names: tuple[str, ...], top: Affine, where: str) -> list[Loop]:
    """The loops of the rotated step space: every dim over ``0..top``."""
    return [Loop(n, Affine.of({}), top, where) for n in names]
