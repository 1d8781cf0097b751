"""Affine expressions over loop indices and parameters, parsed from text.

A bound, subscript or condition is text like ``N1 - 2`` or ``i0 + 1``; anything that is not
affine with integer coefficients (``i*j``, ``N/2``) is a :class:`NotAffineError` naming where
it came from. Text is read as a Python expression and only arithmetic (numbers, names,
``+ - * /``, parentheses) goes on: a tuple, set, list, call or comparison where an
expression belongs is refused before sympy sees it. Constraints are normalised to
``expr >= 0`` or ``expr == 0``; a statement's ``when:`` is a union of conjunctions of them
(:func:`parse_when`).
"""

from __future__ import annotations

import ast
import re
import warnings
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


#: what a node (or operator) that is not arithmetic is, as a user reads it
_WHAT: dict[type, str] = {
    ast.Tuple: "a tuple (',')", ast.List: "a list ('[...]')", ast.Set: "a set ('{...}')",
    ast.Dict: "a mapping ('{...: ...}')", ast.Compare: "a comparison",
    ast.BoolOp: "'and'/'or'", ast.Call: "a function call", ast.Subscript: "a subscript ('[...]')",
    ast.Attribute: "an attribute ('.')", ast.IfExp: "'if ... else'", ast.Starred: "'*' unpacking",
    ast.Pow: "a power ('**')", ast.FloorDiv: "a floor division ('//')",
    ast.Mod: "a remainder ('%')", ast.BitAnd: "a bitwise and ('&')",
    ast.BitOr: "a bitwise or ('|')", ast.BitXor: "a bitwise xor ('^')",
    ast.LShift: "a shift ('<<')", ast.RShift: "a shift ('>>')",
    ast.MatMult: "a matrix product ('@')", ast.Invert: "a bitwise not ('~')", ast.Not: "'not'",
    ast.NotEq: "'!='", ast.In: "'in'", ast.NotIn: "'not in'", ast.Is: "'is'",
    ast.IsNot: "'is not'",
}


def _what(node: ast.AST) -> str:
    """``node`` (an expression or an operator) in words."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return "a division by zero"  # the one division refused before sympy
    if isinstance(node, ast.BinOp | ast.UnaryOp):
        node = node.op
    if isinstance(node, ast.Constant):
        return f"a {type(node.value).__name__} constant"
    return _WHAT.get(type(node), f"Python {type(node).__name__} syntax")


def _not_arithmetic(node: ast.expr) -> ast.expr | None:
    """The first part of ``node`` that is not arithmetic of numbers and names (None: all
    is). Only arithmetic reaches sympy: ``sympify`` makes tuples, sets or errors of the rest."""
    if isinstance(node, ast.Constant):
        return None if type(node.value) in (int, float) else node
    if isinstance(node, ast.Name):
        return None
    if isinstance(node, ast.UnaryOp):
        ok = isinstance(node.op, ast.UAdd | ast.USub)
        return _not_arithmetic(node.operand) if ok else node
    if not isinstance(node, ast.BinOp) or \
            not isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
        return node
    if isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant) and \
            node.right.value == 0:
        return node
    return _not_arithmetic(node.left) or _not_arithmetic(node.right)


def _refusal(line: str, node: ast.expr) -> str | None:
    """Why ``node`` (parsed from ``line``, :func:`_one_line`) is no arithmetic: the part
    that is not, named (the whole of ``line``: only what it is)."""
    bad = _not_arithmetic(node)
    if bad is None:
        return None
    part = _part(line, bad)
    return _what(bad) if part == line else f"{part!r} is {_what(bad)}"


def _part(line: str, node: ast.expr) -> str:
    """The text of ``node`` in ``line`` (one line of ASCII: offsets are characters)."""
    return line[node.col_offset:node.end_col_offset]


def _one_line(text: str) -> str:
    """Whitespace (a YAML block scalar's newlines) as single spaces."""
    return " ".join(text.split())


def python_expression(text: str) -> ast.expr | str:
    """``text`` parsed as a Python expression, or why it is none (the parser's reason, one
    line). Python would drop a ``# comment``, read ``ｘ`` (full width) as ``x`` and print a
    ``SyntaxWarning`` for ``0not`` on stderr: all three refused here."""
    if "#" in text or not text.isascii():
        return f"the character {next(ch for ch in text if ch == '#' or not ch.isascii())!r}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a SyntaxWarning is raised as a SyntaxError
            return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, Warning) as e:  # ValueError: a NUL character
        why = e.msg if isinstance(e, SyntaxError) else str(e)
        return why.split(". ")[0]  # not Python's hints ("Perhaps you forgot a comma?")


def parse_affine(text: str | int, known: Iterable[str], where: str) -> Affine:
    """Parse ``text`` as an affine expression over ``known`` names; ``where`` names the place.
    Plain sums of integer multiples are read directly (the built-in kernels' bounds and
    subscripts, without sympy); other arithmetic goes through sympy, anything else is a
    :class:`NotAffineError` saying what it is."""
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
    line = _one_line(text)
    tree = python_expression(line)
    if isinstance(tree, ast.Compare):
        raise NotAffineError(f"{where}: {text!r} is a comparison; a bound, extent, shape or "
                             "subscript is an expression like 'N - 1'")
    why = tree if isinstance(tree, str) else _refusal(line, tree)
    if why is not None:
        raise NotAffineError(f"{where}: {text!r} is not an affine expression: {why}")
    fast = _plain(tree)
    return fast if fast is not None else _by_sympy(line, known, where)


def _by_sympy(text: str, known: set[str], where: str) -> Affine:
    """Arithmetic that is not a plain sum (``(2*N)/2``, ``N - 1.0``) as an affine form."""
    import sympy

    symbols = {n: sympy.Symbol(n, integer=True) for n in known}
    try:
        expr = sympy.sympify(text, locals=symbols, rational=True)
    except (sympy.SympifyError, SyntaxError, TypeError):  # a guard: Python read it as arithmetic
        raise NotAffineError(f"{where}: {text!r} is not an affine expression") from None
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


#: the relations of a condition (``!=`` is no convex set: write ``{any: [j < 0, j > 0]}``)
_RELATIONS: dict[type, str] = {ast.Eq: "==", ast.GtE: ">=", ast.Gt: ">", ast.LtE: "<=",
                               ast.Lt: "<"}
_LONE_EQ = re.compile(r"(?<![<>=!])=(?!=)")


def _joined(tree: ast.Tuple | ast.BoolOp) -> str:
    """What to write instead of ``c1, c2``, ``c1 and c2`` or ``c1 or c2`` in one string."""
    either = isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.Or)
    joint = "','" if isinstance(tree, ast.Tuple) else ("'or'" if either else "'and'")
    fix = "{any: ['i == 0', 'j >= 1']}" if either else "a list like ['i == 0', 'j >= 1']"
    return f"{joint} joins two conditions; write {fix}"


def _comparison(text: str, where: str) -> tuple[list[str], list[str]]:
    """The sides (text) and relations of a comparison chain like ``1 <= i < N``; anything
    else is a :class:`NotAffineError` naming what it is."""
    def refuse(why: str) -> NotAffineError:
        return NotAffineError(f"{where}: {text!r} is not an affine constraint: {why}")

    if _LONE_EQ.search(text):
        raise refuse("a single '=' is not a comparison; write '==' (or '<=', '>=')")
    line = _one_line(text)
    tree = python_expression(line)
    if isinstance(tree, str):
        raise refuse(tree)
    if isinstance(tree, ast.Tuple | ast.BoolOp):
        raise refuse(_joined(tree))
    if not isinstance(tree, ast.Compare):
        raise NotAffineError(f"{where}: {text!r} is not a comparison like 'i1 >= 1'")
    for op in tree.ops:
        if type(op) not in _RELATIONS:
            hint = " ('j != 0' is {any: ['j < 0', 'j > 0']})" if type(op) is ast.NotEq else ""
            raise refuse(f"{_what(op)} is not one of ==, <, <=, >, >={hint}")
    sides = [tree.left, *tree.comparators]
    for side in sides:
        why = _refusal(line, side)
        if why is not None:
            raise refuse(why)
    return ([_part(line, s) for s in sides],
            [_RELATIONS[type(op)] for op in tree.ops])


def parse_condition(text: str, known: Iterable[str], where: str,
                    affine: Callable[[str, Iterable[str], str], Affine] = parse_affine
                    ) -> list[Constraint]:
    """``i1 >= 1``, ``i0 == 0``, ``1 <= i1 < N1``, ``j <= i`` -> normalised constraints
    (each side parsed by ``affine``)."""
    if not isinstance(text, str):
        raise SpecError(f"{where}: expected a condition like 'i1 >= 1', got {text!r}")
    sides, relations = _comparison(text, where)
    out: list[Constraint] = []
    exprs = [affine(p, known, where) for p in sides]
    for lhs, rel, rhs in zip(exprs, relations, exprs[1:], strict=False):
        if rel == "==":
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
