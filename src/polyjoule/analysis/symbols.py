"""Symbols of a schedule (tile sizes ``p_l``, tile counts ``t_l``, parameters) and a
provable-sign test used to drop dominated bounds and terms."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import sympy

from polyjoule.model.affine import Affine


def p_sym(l: int) -> sympy.Symbol:
    return sympy.Symbol(f"p{l}", integer=True, positive=True)


def t_sym(l: int) -> sympy.Symbol:
    return sympy.Symbol(f"t{l}", integer=True, positive=True)


def param_sym(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True)


def affine_expr(a: Affine) -> sympy.Expr:
    return sympy.Integer(a.const) + sum((v * param_sym(k) for k, v in a.terms), sympy.Integer(0))


def provably_nonneg(e: sympy.Expr, mins: Mapping[sympy.Symbol, int]) -> bool:
    """Provably ``e >= 0`` for every symbol at or above its minimum (coefficient test)."""
    fs = e.free_symbols
    used = frozenset((k, v) for k, v in mins.items() if k in fs)
    return _nonneg_cached(e, used)


@lru_cache(maxsize=65536)
def _nonneg_cached(e: sympy.Expr, used: frozenset[tuple[sympy.Symbol, int]]) -> bool:
    mins = dict(used)
    if e.has(sympy.Max, sympy.Min, sympy.Piecewise, sympy.floor, sympy.ceiling, sympy.Mod,
             sympy.core.function.AppliedUndef):
        return False
    e = sympy.expand(e)
    if e.is_Number:
        return bool(e >= 0)
    if e.has(sympy.Max, sympy.Min, sympy.Piecewise, sympy.floor, sympy.ceiling, sympy.Mod,
             sympy.core.function.AppliedUndef):
        return False
    shifted = sympy.expand(e.xreplace({s: mins.get(s, 1) + s for s in e.free_symbols}))
    return all(c >= 0 for c in shifted.as_coefficients_dict().values())


def max_args(e: sympy.Expr) -> list[sympy.Expr]:
    return list(e.args) if isinstance(e, sympy.Max) else [e]

