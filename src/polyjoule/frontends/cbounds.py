"""C front end: what the model can hold, checked before localisation.

Three refusals, each one line naming the place: a constant or coefficient outside the int64
range (the simulator and the counts compute in int64), an array parameter declared as a
pointer (its extents are unknown, so neither its shape nor its DRAM traffic is), and a
subscript that leaves its array's extent for some allowed parameter value (decided with
isl over the statement's loop domain, for every parameter value >= 1, as
:class:`~polyjoule.frontends.cflow.FlowSpace` assumes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from polyjoule.errors import SpecError
from polyjoule.frontends.cflow import FlowSpace
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Access, Loop, Stmt

INT64 = (-(2**63), 2**63 - 1)


def check_int64(aff: Affine, what: str, where: str) -> Affine:
    """``aff`` unchanged when its constant and coefficients fit in int64."""
    for v in (aff.const, *(c for _, c in aff.terms)):
        if not INT64[0] <= v <= INT64[1]:
            raise SpecError(f"{where}: {what} '{aff}': the constant {v} is outside the int64 "
                            f"range the model computes in")
    return aff


def check_int_constant(value: int, where: str) -> int:
    """An integer literal of an expression, refused outside int64."""
    if not INT64[0] <= value <= INT64[1]:
        raise SpecError(f"{where}: the constant {value} is outside the int64 range the model "
                        f"computes in")
    return value


def check_pointers(pointers: Mapping[str, tuple[str, str]], used: set[str]) -> None:
    """Refuse a pointer parameter the kernel uses as an array: its extents are unknown."""
    for name in sorted(used & set(pointers)):
        where, ctype = pointers[name]
        raise SpecError(f"{where}: the pointer parameter '{ctype} *{name}' has no extents: "
                        f"declare the array with its extents, e.g. '{ctype} {name}[N]'")


def _domain(loops: Sequence[Loop]) -> list[Constraint]:
    out = []
    for lp in loops:
        x = Affine.of({lp.name: 1})
        out += [Constraint(x - lp.lower), Constraint(lp.upper - x)]
    return out


def _check_access(a: Access, loops: Sequence[Loop], extents: tuple[Affine, ...]) -> None:
    dims = [lp.name for lp in loops]
    names = {n for x in (*a.index, *extents) for n in x.names()}
    names |= {n for lp in loops for b in (lp.lower, lp.upper) for n in b.names()}
    space = FlowSpace(sorted(names - set(dims)), dims)
    domain = _domain(loops)
    for d, (ix, ext) in enumerate(zip(a.index, extents, strict=True)):
        for bad in (Constraint(-ix.shift(1)), Constraint(ix - ext)):  # ix < 0, ix > ext - 1
            s = space.set([*domain, bad])
            if not s.is_empty():
                at = ", ".join(f"{n} = {v}" for n, v in space.sample(s).items())
                raise SpecError(
                    f"{a.where}: subscript '{ix}' of {a} leaves the array {a.tensor} "
                    f"(extent {ext} along dimension {d + 1}, so 0..{ext.shift(-1)}), "
                    f"e.g. at {at}")


def check_in_bounds(stmts: Sequence[tuple[Stmt, Sequence[Loop]]],
                    shapes: Mapping[str, tuple[Affine, ...]]) -> None:
    """Every access of every statement (with its enclosing loops) within its array's
    declared extents, for every parameter value; arrays of unknown shape are not checked."""
    for st, loops in stmts:
        for a in (st.target, *st.reads):
            ext = shapes.get(a.tensor)
            if ext is None or len(ext) != len(a.index):
                continue  # unknown shape, or a rank error that localisation names
            _check_access(a, loops, ext)
