"""Pass 1: refuse what cannot be made uniform, naming the access and the reason."""

from __future__ import annotations

from collections.abc import Sequence

from polyjoule.errors import NotUniformError, SpecError
from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.model.affine import Affine
from polyjoule.model.nest import Nest, Stmt


def _rank(rows: list[list[int]]) -> int:
    """Rank of a small integer matrix (fraction-free Gaussian elimination)."""
    m = [r[:] for r in rows]
    rank, ncols = 0, len(m[0]) if m else 0
    for c in range(ncols):
        piv = next((r for r in range(rank, len(m)) if m[r][c] != 0), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        for r in range(len(m)):
            if r != rank and m[r][c] != 0:
                a, b = m[rank][c], m[r][c]
                m[r] = [a * x - b * y for x, y in zip(m[r], m[rank], strict=True)]
        rank += 1
    return rank


def reuse_is_axial(rows: list[list[int]], used: Sequence[str]) -> bool:
    """Is every reuse direction of an access a loop axis (its subscripts have full rank in
    the loops they use)?"""
    return not used or _rank(rows) == len(used)


def _distance_error(r: object, w: Stmt, text: str, where: str) -> NotUniformError:
    return NotUniformError(
        f"{where}: {r} reads {w.target.tensor}, which {w.target} ({w.where}) writes in "
        f"the same nest: the dependence distance ({text}) depends on the loop "
        f"indices, so it is not uniform and cannot be localised"
    )


def check_uniform(nest: Nest) -> None:
    """Refuse reads of an array that the nest writes at a different index (in-place updates).

    A distance that depends on the loop indices (``lu``: ``A[i][k]`` against ``A[i][j]``) is
    reported first; a constant distance in place (a stencil updating its own array) second.
    """
    written: dict[str, Stmt] = {}
    for s in nest.stmts:
        written.setdefault(s.target.tensor, s)
    constant: str | None = None
    for s in nest.stmts:
        for r in s.reads:
            w = written.get(r.tensor)
            if w is None or r.index == w.target.index:
                continue
            if len(r.index) != len(w.target.index):
                raise NotUniformError(f"{r.where}: {r} and {w.target} index {r.tensor} differently")
            dist = [f - g for f, g in zip(w.target.index, r.index, strict=True)]
            text = ", ".join(str(d) for d in dist)
            if any(d.terms for d in dist):
                raise _distance_error(r, w, text, r.where)
            if constant is None:
                constant = (
                    f"{r.where}: {r} reads {r.tensor} in place while {w.target} ({w.where}) "
                    f"writes it: the distance ({text}) is constant but whether the old or the new "
                    f"value is read depends on the iteration order; rename the array into single "
                    f"assignment first"
                )
    if constant is not None:
        raise NotUniformError(constant)


def _check_loops(nest: Nest, geo: Geometry) -> None:
    for lp in nest.loops:
        low = geo.minimum(lp.lower)
        if low.terms or low.const < 0:
            raise SpecError(f"{lp.where}: loop {lp.name}: lower bound {lp.lower} can be negative "
                            f"or depends on a parameter; loops must start at 0 or at an outer index")


def _check_around(nest: Nest, geo: Geometry) -> None:
    """A statement before or after the inner loops needs them non-empty everywhere."""
    for s in [*(t for t in nest.stmts if t.position == "pre"),
              *(t for t in nest.stmts if t.position == "post")]:
        if not geo.inner_never_empty(s.depth):
            raise NotUniformError(
                f"{s.where}: the loops inside {', '.join(geo.dims[:s.depth])} are empty for some "
                f"of its values, so this statement {'before' if s.position == 'pre' else 'after'} "
                f"them has no iteration to live in (extend the inner range, as the built-in trmm "
                f"does)"
            )


def written_dim(x: Affine, dims: Sequence[str]) -> str | None:
    """The loop index a written subscript names: ``i``, or ``N - 1 - i`` (a loop the front
    end mirrored, frontends/creverse.py); None for any other subscript."""
    moving = [(n, c) for n, c in x.terms if n in dims]
    if len(moving) != 1 or (moving[0][1] == 1 and (x.const or len(x.terms) > 1)) \
            or moving[0][1] not in (1, -1):
        return None
    return moving[0][0]


def _check_targets(nest: Nest, geo: Geometry) -> None:
    """Every written subscript is a distinct loop index (or a mirrored one, ``N - 1 - i``)."""
    for s in nest.stmts:
        for x in s.target.index:
            if written_dim(x, geo.dims) is None:
                raise NotUniformError(
                    f"{s.where}: {s.target}: every subscript of a written array must be a loop "
                    f"index, {x} is not"
                )
        if len({written_dim(x, geo.dims) for x in s.target.index}) != len(s.target.index):
            raise NotUniformError(f"{s.where}: {s.target}: a loop index appears twice")


def check_nest(nest: Nest, geo: Geometry) -> None:
    """Everything localisation refuses before it emits a statement."""
    check_uniform(nest)
    _check_loops(nest, geo)
    _check_around(nest, geo)
    if not any(s.position == "body" for s in nest.stmts):
        raise SpecError(f"{nest.name}: the innermost loop has no statement")
    _check_targets(nest, geo)
