"""Which top-level C nests become phases: a nest that only zeroes arrays is not a phase of
its own but the zero start of the accumulations of later nests (2MM's ``tmp``), provided it
covers exactly the range they accumulate; every other nest is a phase, in order."""

from __future__ import annotations

import ast

from polyjoule.errors import SpecError
from polyjoule.model.affine import Affine
from polyjoule.model.nest import Access, Loop, Stmt


def _range_of(a: Access, loops: list[Loop]) -> tuple[tuple[Affine, Affine], ...]:
    """Per subscript of a written access (plain loop indices): the loop's bounds, or None."""
    by = {lp.name: lp for lp in loops}
    out = []
    for x in a.index:
        name = x.terms[0][0] if len(x.terms) == 1 and x.terms[0][1] == 1 and not x.const else None
        lp = by.get(name) if name else None
        out.append((lp.lower, lp.upper) if lp is not None else (x, x))
    return tuple(out)


def _fmt_range(r: tuple[tuple[Affine, Affine], ...]) -> str:
    return " x ".join(f"[{lo}, {hi}]" for lo, hi in r)


def _is_zero_init(stmts: list[Stmt]) -> bool:
    return bool(stmts) and all(
        s.op == "=" and isinstance(s.expr, ast.Constant) and s.expr.value == 0 for s in stmts
    )


Phase = tuple[list[Loop], list[Stmt], set[str]]


def phases_of(found: list[tuple[list[Loop], list[Stmt]]]) -> list[Phase]:
    """Top-level nests that only zero arrays initialise the accumulators of later nests;
    every other nest is a phase, with the arrays zero when it starts."""
    phases: list[Phase] = []
    zero: set[str] = set()
    zero_range: dict[str, tuple[tuple[Affine, Affine], ...]] = {}
    for loops, stmts in found:
        if _is_zero_init(stmts):
            for st in stmts:
                zero.add(st.target.tensor)
                zero_range[st.target.tensor] = _range_of(st.target, loops)
            continue
        for st in stmts:  # a zero initialisation must cover what this nest accumulates
            if st.target.tensor in zero and st.position == "body":
                want = _range_of(st.target, loops)
                if zero_range[st.target.tensor] != want:
                    raise SpecError(
                        f"{st.where}: {st.target} accumulates over "
                        f"{_fmt_range(want)} but the loop zeroing {st.target.tensor} covers "
                        f"{_fmt_range(zero_range[st.target.tensor])}"
                    )
        phases.append((loops, stmts, set(zero)))
        # a later phase reads what this one wrote from DRAM: it is no longer zero
        zero -= {s.target.tensor for s in stmts}
    return phases
