"""Which loop dims are spread over the array's axes: a placement, as a renaming of dims.

:class:`~polyjoule.mapping.tiling.Tiling` spreads the leading dims of a PRA over the array's
axes (rows first, then columns). A placement ``("i", "k")`` puts dim ``i`` on the rows and
``k`` on the columns by reordering the PRA's dims (and every dependence vector with them) so
the named dims lead; the rest keep their order. Nothing else changes: statements, conditions
and subscripts refer to dims by name, so counts, energies, schedules and the simulator see
the same algorithm and need no change (a count is invariant under renaming dims).

In a multi-phase kernel every phase puts the named dims it has first; a phase without one of
them fills that axis with its next dim, as without a placement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations

from polyjoule.errors import SpecError, UnknownNameError
from polyjoule.model.pra import PRA, Kernel


def place(pra: PRA, axes: Sequence[str]) -> PRA:
    """``pra`` with the dims named in ``axes`` first (in that order), the others after."""
    names = pra.dim_names
    lead = [names.index(a) for a in axes if a in names]
    perm = lead + [l for l in range(pra.n) if l not in lead]
    if perm == list(range(pra.n)):
        return pra
    stmts = tuple(s if s.dep is None else replace(s, dep=tuple(s.dep[l] for l in perm))
                  for s in pra.statements)
    return replace(pra, dims=tuple(pra.dims[l] for l in perm), statements=stmts)


def place_kernel(kernel: Kernel, axes: Sequence[str] | None,
                 shape: tuple[int, int] | None = None) -> Kernel:
    """Every phase of ``kernel`` placed by ``axes`` (None or empty: unchanged) on an array of
    ``shape`` when given (a 1-D array places one dim)."""
    if not axes:
        return kernel
    check_axes(kernel, axes, shape=shape)
    phases = tuple(place(ph, axes) for ph in kernel.phases)
    return kernel if phases == kernel.phases else replace(kernel, phases=phases)


def check_axes(kernel: Kernel, axes: Sequence[str], what: str = "--axes",
               shape: tuple[int, int] | None = None) -> None:
    """Named dims of the kernel, none twice, at most one per array axis (of ``shape``'s when
    given: a dim beyond them would be dropped without a word)."""
    known = dim_names(kernel)
    for a in axes:
        if a not in known:
            raise UnknownNameError(f"{what}: {kernel.name} has no dim {a!r} "
                                   f"(dims: {', '.join(known)})")
    if len(set(axes)) != len(axes):
        raise SpecError(f"{what}: a dim is named twice in {','.join(axes)}")
    if len(axes) > 2:
        raise SpecError(f"{what}: {len(axes)} dims for an array of two axes (rows, cols)")
    if shape is not None and len(axes) > max(1, sum(a != 1 for a in shape)):
        raise SpecError(f"{what}: {len(axes)} dims for a {shape[0]}x{shape[1]} array, which "
                        f"places one (give --axes {axes[0]})")


def parse_axes(text: str | None) -> tuple[str, ...] | None:
    """``i,k`` -> ``("i", "k")`` (rows, cols); None stays None."""
    if text is None:
        return None
    out = tuple(x.strip() for x in text.split(",") if x.strip())
    if not out:
        raise SpecError(f"--axes: {text!r} names no dim (give e.g. --axes i,j)")
    return out


def dim_names(kernel: Kernel) -> tuple[str, ...]:
    """Every dim name of the kernel's phases, in order of first appearance."""
    seen: dict[str, None] = {}
    for ph in kernel.phases:
        seen.update(dict.fromkeys(ph.dim_names))
    return tuple(seen)


def placements(kernel: Kernel, n_axes: int) -> list[tuple[str, ...]]:
    """Candidate placements onto ``n_axes`` axes, each a distinct renaming: every set of
    ``n_axes`` dims in the order of first appearance (the other orientation is the
    transposed array shape). A multi-phase kernel takes the dims all its phases name, and
    ``()``: each phase's own leading dims (as without a placement)."""
    names = dim_names(kernel)
    multi = len(kernel.phases) > 1
    if multi:
        names = tuple(n for n in names if all(n in ph.dim_names for ph in kernel.phases))
    cands = [(), *combinations(names, n_axes)] if multi or n_axes == 0 else list(
        combinations(names, n_axes))
    seen, out = set(), []
    for axes in cands:
        key = place_kernel(kernel, axes).phases
        if key not in seen:
            seen.add(key)
            out.append(axes)
    return out
