"""Affine expressions over loop indices and parameters, parsed from text.

A bound, subscript or condition is text like ``N1 - 2`` or ``i0 + 1``; anything that is not
affine with integer coefficients (``i*j``, ``N/2``) is a :class:`NotAffineError` naming where
it came from. Constraints are normalised to ``expr >= 0`` or ``expr == 0``; a statement's
``when:`` is a union of conjunctions of them (:func:`parse_when`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from polyjoule.errors import ConditionError, NotAffineError, SpecError

if TYPE_CHECKING:
    import sympy  # imported where used: `polyjoule list`/`show` read bounds without sympy

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@dataclass(frozen=True)
class Affine:
    """``sum(coeff * name) + const`` with integer coefficients; terms sorted by name."""

    terms: tuple[tuple[str, int], ...]
    const: int = 0

    @staticmethod
    def of(coeffs: Mapping[str, int], const: int = 0) -> Affine:
        return Affine(tuple(sorted((k, int(v)) for k, v in coeffs.items() if v != 0)), int(const))

    @property
    def coeffs(self) -> dict[str, int]:
        return dict(self.terms)

    def names(self) -> set[str]:
        return {k for k, _ in self.terms}

    def __add__(self, other: Affine) -> Affine:
        c = self.coeffs
        for k, v in other.terms:
            c[k] = c.get(k, 0) + v
        return Affine.of(c, self.const + other.const)

    def __neg__(self) -> Affine:
        return Affine.of({k: -v for k, v in self.terms}, -self.const)

    def __sub__(self, other: Affine) -> Affine:
        return self + (-other)

    def shift(self, c: int) -> Affine:
        return Affine(self.terms, self.const + c)

    def evaluate(self, env: Mapping[str, int]) -> int:
        out: Any = self.const
        for k, v in self.terms:
            x = env[k]
            out = out + v * (x if hasattr(x, "shape") else int(x))
        return out

    def substitute(self, repl: Mapping[str, Affine]) -> Affine:
        out = Affine.of({}, self.const)
        for k, v in self.terms:
            piece = repl.get(k, Affine.of({k: 1}))
            out = out + Affine.of({n: c * v for n, c in piece.terms}, piece.const * v)
        return out

    def isl(self) -> str:
        parts = [f"{v}*{k}" for k, v in self.terms]
        return " + ".join([*parts, str(self.const)]) if parts else str(self.const)

    def __str__(self) -> str:
        out = ""
        for k, v in self.terms:
            sign = "-" if v < 0 else "+"
            mag = "" if abs(v) == 1 else f"{abs(v)}*"
            out += f" {sign} {mag}{k}" if out else (f"-{mag}{k}" if v < 0 else f"{mag}{k}")
        if self.const or not out:
            out += f" {'-' if self.const < 0 else '+'} {abs(self.const)}" if out else str(self.const)
        return out

    def sympy(self) -> sympy.Expr:
        import sympy

        return sympy.Integer(self.const) + sum(
            (v * sympy.Symbol(k, integer=True) for k, v in self.terms), sympy.Integer(0)
        )


def _plain(node: ast.AST) -> Affine | None:
    """The affine value of a Python expression of integers, names, ``+``, ``-`` and
    products with a constant; None for anything else (then sympy decides)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Affine.of({}, node.value)
    if isinstance(node, ast.Name):
        return Affine.of({node.id: 1})
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        x = _plain(node.operand)
        return None if x is None else (-x if isinstance(node.op, ast.USub) else x)
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
        return None
    a, b = _plain(node.left), _plain(node.right)
    if a is None or b is None:
        return None
    if isinstance(node.op, ast.Add):
        return a + b
    if isinstance(node.op, ast.Sub):
        return a - b
    if a.terms and b.terms:
        return None
    c, x = (a.const, b) if not a.terms else (b.const, a)
    return Affine.of({k: v * c for k, v in x.terms}, x.const * c)


def parse_affine(text: str | int, known: Iterable[str], where: str) -> Affine:
    """Parse ``text`` as an affine expression over ``known`` names; ``where`` names the place.
    Plain sums of integer multiples are read directly (the built-in kernels' bounds and
    subscripts, without sympy); anything else goes through sympy."""
    if isinstance(text, bool):
        raise SpecError(f"{where}: expected an affine expression, got {text!r}")
    if isinstance(text, int):
        return Affine.of({}, text)
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"{where}: expected an affine expression, got {text!r}")
    known = set(known)
    for name in _NAME.findall(text):
        if name not in known:
            raise SpecError(f"{where}: unknown name {name!r} in {text!r}")
    try:
        fast = _plain(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        fast = None
    if fast is not None:
        return fast
    return _by_sympy(text, known, where)


def _by_sympy(text: str, known: set[str], where: str) -> Affine:
    import sympy

    symbols = {n: sympy.Symbol(n, integer=True) for n in known}
    try:
        expr = sympy.sympify(text, locals=symbols, rational=True)
    except (sympy.SympifyError, SyntaxError, TypeError) as e:
        raise SpecError(f"{where}: cannot parse {text!r}: {e}") from None
    expr = sympy.expand(expr)
    used = sorted(expr.free_symbols, key=str)
    try:
        poly = sympy.Poly(expr, *used) if used else None
    except sympy.PolynomialError:
        raise NotAffineError(f"{where}: {text!r} is not affine") from None
    if poly is not None and poly.total_degree() > 1:
        raise NotAffineError(f"{where}: {text!r} is not affine (degree {poly.total_degree()})")
    coeffs: dict[str, int] = {}
    const = expr.subs({s: 0 for s in used}) if used else expr
    for s in used:
        c = expr.coeff(s)
        if c.free_symbols or not c.is_integer:
            raise NotAffineError(f"{where}: {text!r} has a non-integer coefficient on {s}")
        coeffs[str(s)] = int(c)
    if not const.is_integer:
        raise NotAffineError(f"{where}: {text!r} has a non-integer constant")
    return Affine.of(coeffs, int(const))


@dataclass(frozen=True)
class Constraint:
    """``expr >= 0`` (``eq=False``) or ``expr == 0`` (``eq=True``)."""

    expr: Affine
    eq: bool = False

    def holds(self, env: Mapping[str, int]) -> bool:
        v = self.expr.evaluate(env)
        return v == 0 if self.eq else v >= 0

    def isl(self) -> str:
        return f"{self.expr.isl()} {'=' if self.eq else '>='} 0"

    def __str__(self) -> str:
        return f"{self.expr} {'==' if self.eq else '>='} 0"


_REL = re.compile(r"(<=|>=|==|<|>|=)")


def parse_condition(text: str, known: Iterable[str], where: str,
                    affine: Callable[[str, Iterable[str], str], Affine] = parse_affine
                    ) -> list[Constraint]:
    """``i1 >= 1``, ``i0 == 0``, ``1 <= i1 < N1``, ``j <= i`` -> normalised constraints
    (each side parsed by ``affine``)."""
    if not isinstance(text, str):
        raise SpecError(f"{where}: expected a condition like 'i1 >= 1', got {text!r}")
    parts = _REL.split(text)
    if len(parts) < 3 or len(parts) % 2 == 0:
        raise SpecError(f"{where}: {text!r} is not a comparison like 'i1 >= 1'")
    out: list[Constraint] = []
    exprs = [affine(p.strip(), known, where) for p in parts[0::2]]
    for lhs, rel, rhs in zip(exprs, parts[1::2], exprs[1:], strict=False):
        if rel in ("==", "="):
            out.append(Constraint(lhs - rhs, eq=True))
        elif rel == ">=":
            out.append(Constraint(lhs - rhs))
        elif rel == ">":
            out.append(Constraint((lhs - rhs).shift(-1)))
        elif rel == "<=":
            out.append(Constraint(rhs - lhs))
        else:  # "<"
            out.append(Constraint((rhs - lhs).shift(-1)))
    return out


Conjunction = tuple[Constraint, ...]
MAX_ALTERNATIVES = 64  # a condition expanded into more conjunctions is refused


def parse_when(data: Any, known: Iterable[str], where: str,
               affine: Callable[[str, Iterable[str], str], Affine] = parse_affine
               ) -> tuple[Conjunction, ...]:
    """A ``when:`` as alternatives (a union of conjunctions), expanded from its tree:

    * a string is one comparison (``i0 == 0``, ``1 <= i < N``);
    * a list holds when all its entries hold (``[]``: always);
    * ``{any: [...]}`` holds when at least one entry holds (a non-empty list).

    ``[{any: [i == 0, a == K - 1]}, {any: [j == 0, b == K - 1]}]`` is four alternatives.
    """
    known = set(known)
    if isinstance(data, str):
        return (tuple(parse_condition(data, known, where, affine=affine)),)
    if isinstance(data, list):
        out: tuple[Conjunction, ...] = ((),)
        for k, entry in enumerate(data):
            alts = parse_when(entry, known, f"{where}[{k}]", affine)
            out = tuple(a + b for a in out for b in alts)
            _check_size(out, where)
        return out
    if isinstance(data, dict):
        if set(data) != {"any"}:
            raise ConditionError(f"{where}: a mapping in 'when' is {{any: [...]}} (alternatives), "
                                 f"not keys {sorted(map(str, data))}")
        entries = data["any"]
        if not isinstance(entries, list) or not entries:
            raise ConditionError(f"{where}.any: expected a non-empty list of alternatives, "
                                 f"got {entries!r}")
        union = tuple(a for k, e in enumerate(entries)
                      for a in parse_when(e, known, f"{where}.any[{k}]", affine))
        _check_size(union, where)
        return union
    raise ConditionError(f"{where}: expected a condition like 'i1 >= 1', a list of them or "
                         f"{{any: [...]}}, got {data!r}")


def _check_size(alts: tuple[Conjunction, ...], where: str) -> None:
    if len(alts) > MAX_ALTERNATIVES:
        raise ConditionError(f"{where}: expands into {len(alts)} alternatives (more than "
                             f"{MAX_ALTERNATIVES}); split the statement")
