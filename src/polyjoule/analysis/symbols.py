"""The sympy symbols of a schedule's display (tile sizes ``p_l``, tile counts ``t_l``,
parameters): the formulas themselves are :mod:`~polyjoule.analysis.intexpr` expressions,
shown as sympy with these symbols. sympy is imported on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sympy


def p_sym(l: int) -> sympy.Symbol:
    import sympy

    return sympy.Symbol(f"p{l}", integer=True, positive=True)


def t_sym(l: int) -> sympy.Symbol:
    import sympy

    return sympy.Symbol(f"t{l}", integer=True, positive=True)


def param_sym(name: str) -> sympy.Symbol:
    import sympy

    return sympy.Symbol(name, integer=True)
