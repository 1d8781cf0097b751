"""Integer expressions of a schedule (lambdas, latency and FIFO formulas) without sympy.

The schedule's formulas are built from a few operations: sums and products of symbols
(tile sizes ``p0, p1, ...``, tile counts ``t0, ...``, parameters), integer floors and
ceilings, ``Mod``, ``Max``/``Min``, ``Piecewise`` and an opaque per-point call. An
:class:`IntExpr` records how it was built (so :meth:`IntExpr.sympy` replays the same sympy
operations for display, giving the very expression sympy would have built) and evaluates
itself as generated integer Python/numpy code. Decisions the derivation takes (is a bound
provably dominated? is a slack constant?) read the expanded form: a polynomial whose
variables are symbols and the non-polynomial parts (floors, ``Max``, ...), like terms
collected as sympy's own ``Add`` does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: a monomial: (variable key, exponent) pairs, sorted; a polynomial: monomial -> coefficient
Monomial = tuple[tuple[str, int], ...]
Poly = dict[Monomial, int]

_POSITIVE = re.compile(r"[pt]\d+")  # tile sizes and tile counts are positive integers


def _coerce(x: Any) -> IntExpr:
    if isinstance(x, IntExpr):
        return x
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"not an integer expression: {x!r}")
    return Num(x)


class IntExpr:
    """Base of the expression nodes: arithmetic builds nodes, ``key`` compares them."""

    __slots__ = ()

    # --- building -------------------------------------------------------------------
    def __add__(self, o: Any) -> IntExpr:
        return add(self, _coerce(o))

    def __radd__(self, o: Any) -> IntExpr:
        return add(_coerce(o), self)

    def __sub__(self, o: Any) -> IntExpr:
        return add(self, mul(Num(-1), _coerce(o)))

    def __rsub__(self, o: Any) -> IntExpr:
        return add(_coerce(o), mul(Num(-1), self))

    def __mul__(self, o: Any) -> IntExpr:
        return mul(self, _coerce(o))

    def __rmul__(self, o: Any) -> IntExpr:
        return mul(_coerce(o), self)

    def __neg__(self) -> IntExpr:
        return mul(Num(-1), self)

    # --- reading --------------------------------------------------------------------
    def _expand(self) -> Poly:  # pragma: no cover - every node defines it
        raise NotImplementedError

    def expand(self) -> Poly:
        """The expanded form (kept: nodes never change); do not modify it."""
        d = self.__dict__
        if "_poly" not in d:
            d["_poly"] = self._expand()
        return d["_poly"]  # type: ignore[no-any-return]

    def key(self) -> str:
        """Canonical text of the expanded form: equal keys, equal expressions."""
        d = self.__dict__
        if "_key" not in d:
            d["_key"] = poly_key(self.expand())
        return d["_key"]  # type: ignore[no-any-return]

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_poly", "_key")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __eq__(self, o: object) -> bool:
        if isinstance(o, int) and not isinstance(o, bool):
            o = Num(o)
        return isinstance(o, IntExpr) and self.key() == o.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def source(self) -> str:  # pragma: no cover
        raise NotImplementedError

    def bound(self, top: Any) -> Any:  # pragma: no cover
        """An upper bound on the magnitude of the value and of every intermediate of
        :meth:`source`'s code when every symbol is at most ``top`` (a float or an array of
        them: one walk bounds every ``top`` at once)."""
        raise NotImplementedError

    def to_sympy(self, s: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def sympy(self) -> Any:
        """The same expression as sympy (display, LaTeX): the operations replayed."""
        import sympy

        return self.to_sympy(sympy)

    def __str__(self) -> str:
        return str(self.sympy())

    __repr__ = __str__

    def constant(self) -> int | None:
        """The value when the expanded form is a constant, else None."""
        return poly_constant(self.expand())

    def atoms(self) -> bool:
        """Does the expanded form keep a non-polynomial part (floor, Max, Piecewise, ...)?"""
        return any(not k.startswith("s:") for m in self.expand() for k, _ in m)


# --- polynomials over keys ----------------------------------------------------------

def poly_key(p: Poly) -> str:
    return " + ".join(f"{c}*{'*'.join(f'{k}^{e}' for k, e in m)}" for m, c in sorted(p.items()))


def poly_constant(p: Poly) -> int | None:
    if not p:
        return 0
    if len(p) == 1 and () in p:
        return p[()]
    return None


def poly_add(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for m, c in b.items():
        v = out.get(m, 0) + c
        if v:
            out[m] = v
        else:
            out.pop(m, None)
    return out


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    if not a:
        return b
    if not b:
        return a
    d = dict(a)
    for k, e in b:
        d[k] = d.get(k, 0) + e
    return tuple(sorted(d.items()))


def poly_mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = _mono_mul(ma, mb)
            v = out.get(m, 0) + ca * cb
            if v:
                out[m] = v
            else:
                out.pop(m, None)
    return out


# --- nodes --------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class Num(IntExpr):
    value: int

    def _expand(self) -> Poly:
        return {(): self.value} if self.value else {}

    def source(self) -> str:
        return f"({self.value})"

    def bound(self, top: Any) -> Any:
        return abs(float(self.value))

    def to_sympy(self, s: Any) -> Any:
        return s.Integer(self.value)


@dataclass(frozen=True, eq=False, repr=False)
class Sym(IntExpr):
    """A symbol: ``p<l>``/``t<l>`` positive integers, any other name an integer."""

    name: str

    def _expand(self) -> Poly:
        return {((f"s:{self.name}", 1),): 1}

    def source(self) -> str:
        return self.name

    def bound(self, top: Any) -> Any:
        return top

    def to_sympy(self, s: Any) -> Any:
        if _POSITIVE.fullmatch(self.name):
            return s.Symbol(self.name, integer=True, positive=True)
        return s.Symbol(self.name, integer=True)


@dataclass(frozen=True, eq=False, repr=False)
class Add(IntExpr):
    args: tuple[IntExpr, ...]

    def _expand(self) -> Poly:
        out: Poly = {}
        for a in self.args:
            out = poly_add(out, a.expand())
        return out

    def source(self) -> str:
        return "(" + " + ".join(a.source() for a in self.args) + ")"

    def bound(self, top: Any) -> Any:
        return sum((a.bound(top) for a in self.args), 0.0)

    def to_sympy(self, s: Any) -> Any:
        return s.Add(*(a.to_sympy(s) for a in self.args))


@dataclass(frozen=True, eq=False, repr=False)
class Mul(IntExpr):
    args: tuple[IntExpr, ...]

    def _expand(self) -> Poly:
        out: Poly = {(): 1}
        for a in self.args:
            out = poly_mul(out, a.expand())
        return out

    def source(self) -> str:
        return "(" + " * ".join(a.source() for a in self.args) + ")"

    def bound(self, top: Any) -> Any:
        return math.prod(np.maximum(1.0, a.bound(top)) for a in self.args)

    def to_sympy(self, s: Any) -> Any:
        return s.Mul(*(a.to_sympy(s) for a in self.args))


class _Atom(IntExpr):
    """A non-polynomial node: a variable of the expanded form, keyed by its structure."""

    __slots__ = ()

    def parts(self) -> tuple[Any, ...]:  # pragma: no cover
        raise NotImplementedError

    def atom_key(self) -> str:
        return f"{type(self).__name__}(" + ",".join(
            p.key() if isinstance(p, IntExpr) else repr(p) for p in self.parts()) + ")"

    def _expand(self) -> Poly:
        return {((self.atom_key(), 1),): 1}

    def bound(self, top: Any) -> Any:
        return _most(p.bound(top) for p in self.parts() if isinstance(p, IntExpr))


@dataclass(frozen=True, eq=False, repr=False)
class Floor(_Atom):
    """``floor(num / den)``."""

    num: IntExpr
    den: IntExpr

    def parts(self) -> tuple[Any, ...]:
        return (self.num, self.den)

    def source(self) -> str:
        return f"(({self.num.source()}) // ({self.den.source()}))"

    def bound(self, top: Any) -> Any:
        return np.maximum(self.num.bound(top), self.den.bound(top)) + 1.0

    def to_sympy(self, s: Any) -> Any:
        return s.floor(self.num.to_sympy(s) / self.den.to_sympy(s))


@dataclass(frozen=True, eq=False, repr=False)
class Ceil(_Atom):
    """``ceiling(num / den)``."""

    num: IntExpr
    den: IntExpr

    def parts(self) -> tuple[Any, ...]:
        return (self.num, self.den)

    def source(self) -> str:
        return f"(-((-({self.num.source()})) // ({self.den.source()})))"

    def bound(self, top: Any) -> Any:
        return np.maximum(self.num.bound(top), self.den.bound(top)) + 1.0

    def to_sympy(self, s: Any) -> Any:
        return s.ceiling(self.num.to_sympy(s) / self.den.to_sympy(s))


@dataclass(frozen=True, eq=False, repr=False)
class Mod(_Atom):
    """``x mod m`` (sympy's ``Mod(x, m, evaluate=False)``)."""

    x: IntExpr
    m: IntExpr

    def parts(self) -> tuple[Any, ...]:
        return (self.x, self.m)

    def source(self) -> str:
        return f"(({self.x.source()}) % ({self.m.source()}))"

    def to_sympy(self, s: Any) -> Any:
        return s.Mod(self.x.to_sympy(s), self.m.to_sympy(s), evaluate=False)


@dataclass(frozen=True, eq=False, repr=False)
class Extreme(_Atom):
    """``Max``/``Min`` of ``args``; ``evaluate``: sympy may simplify (and orders) them."""

    kind: str  # "Max" or "Min"
    args: tuple[IntExpr, ...]
    evaluate: bool = True

    def parts(self) -> tuple[Any, ...]:
        keys = [a.key() for a in self.args]
        return (self.kind, *(sorted(keys) if self.evaluate else keys))

    def atom_key(self) -> str:
        return f"{self.kind}[{self.evaluate}](" + ",".join(self.parts()[1:]) + ")"

    def bound(self, top: Any) -> Any:
        return _most(a.bound(top) for a in self.args)

    def source(self) -> str:
        fn = "_max" if self.kind == "Max" else "_min"
        out = self.args[0].source()
        for a in self.args[1:]:
            out = f"{fn}({out}, {a.source()})"
        return out

    def to_sympy(self, s: Any) -> Any:
        return getattr(s, self.kind)(*(a.to_sympy(s) for a in self.args), evaluate=self.evaluate)


@dataclass(frozen=True, eq=False, repr=False)
class Rel(_Atom):
    """A condition: ``a >= b`` (``op='>='``), ``a == 0`` (``'=='``), ``And(*args)`` or true."""

    op: str
    args: tuple[IntExpr, ...] = ()

    def parts(self) -> tuple[Any, ...]:
        return (self.op, *self.args)

    def source(self) -> str:
        if self.op == "true":
            return "True"
        if self.op == "and":
            return "(" + " & ".join(a.source() for a in self.args) + ")"
        a, b = self.args
        return f"({a.source()} {self.op} {b.source()})"

    def to_sympy(self, s: Any) -> Any:
        if self.op == "true":
            return s.true
        if self.op == "and":
            return s.And(*(a.to_sympy(s) for a in self.args))
        a, b = (x.to_sympy(s) for x in self.args)
        return a >= b if self.op == ">=" else s.Eq(a, b)


TRUE = Rel("true")


@dataclass(frozen=True, eq=False, repr=False)
class Piecewise(_Atom):
    """``value`` of the first pair whose condition holds (the last condition is true)."""

    pairs: tuple[tuple[IntExpr, Rel], ...]

    def parts(self) -> tuple[Any, ...]:
        return tuple(x for pair in self.pairs for x in pair)

    def source(self) -> str:
        out = "None"
        for val, cond in reversed(self.pairs):
            out = val.source() if cond.op == "true" and out == "None" else \
                f"_where({cond.source()}, {val.source()}, {out})"
        return out

    def to_sympy(self, s: Any) -> Any:
        return s.Piecewise(*((v.to_sympy(s), c.to_sympy(s)) for v, c in self.pairs))


@dataclass(frozen=True, eq=False, repr=False)
class Call(_Atom):
    """``name(*args)``: a per-point term (an exact maximum), opaque to the algebra."""

    name: str
    args: tuple[IntExpr, ...]

    def parts(self) -> tuple[Any, ...]:
        return (self.name, *self.args)

    def source(self) -> str:
        return f"{self.name}({', '.join(a.source() for a in self.args)})"

    def bound(self, top: Any) -> Any:
        return _most(a.bound(top) for a in self.args)

    def to_sympy(self, s: Any) -> Any:
        return s.Function(self.name)(*(a.to_sympy(s) for a in self.args))


# --- constructors (the folding sympy would do at once) ------------------------------

def add(*xs: IntExpr) -> IntExpr:
    args: list[IntExpr] = []
    const = 0
    for x in xs:
        for a in (x.args if isinstance(x, Add) else (x,)):
            if isinstance(a, Num):
                const += a.value
            else:
                args.append(a)
    if not args:
        return Num(const)
    if const:
        args.append(Num(const))
    return args[0] if len(args) == 1 else Add(tuple(args))


def mul(*xs: IntExpr) -> IntExpr:
    args: list[IntExpr] = []
    const = 1
    for x in xs:
        for a in (x.args if isinstance(x, Mul) else (x,)):
            if isinstance(a, Num):
                const *= a.value
            else:
                args.append(a)
    if const == 0 or not args:
        return Num(const)
    if const != 1:
        args.insert(0, Num(const))
    return args[0] if len(args) == 1 else Mul(tuple(args))


def from_poly(p: Poly) -> IntExpr:
    """An expanded polynomial (symbols only) as an expression."""
    terms = []
    for m, c in sorted(p.items()):
        fac: list[IntExpr] = [Num(c)]
        for k, e in m:
            assert k.startswith("s:"), "only symbols"
            fac += [Sym(k[2:])] * e
        terms.append(mul(*fac))
    return add(*terms)


def expanded(e: IntExpr) -> IntExpr:
    """``sympy.expand`` of a polynomial expression; anything with atoms is kept."""
    return e if e.atoms() else from_poly(e.expand())


def _integer_part(num: IntExpr, den: int) -> tuple[IntExpr, int]:
    """``num = rest + den*k`` with the constant multiple of ``den`` taken out (as sympy's
    floor and ceiling take the integer terms out of their argument)."""
    p = num.expand()
    c = p.get((), 0)
    k = c // den if c % den == 0 else 0
    if not k:
        return num, 0
    q = dict(p)
    q.pop(())
    return from_poly(q), k


def floor_div(num: IntExpr, den: IntExpr | int) -> IntExpr:
    """``floor(num / den)``, with the folding sympy does: ``floor(0) = 0``, integer terms
    of the quotient taken out, an exact division by an integer."""
    den = _coerce(den)
    return _div(num, den, Floor)


def ceil_div(num: IntExpr, den: IntExpr | int) -> IntExpr:
    return _div(num, _coerce(den), Ceil)


def _div(num: IntExpr, den: IntExpr, kind: type) -> IntExpr:
    c = num.constant()
    d = den.constant()
    if c == 0:
        return Num(0)
    if d is not None and not num.atoms():
        p = num.expand()
        if all(v % d == 0 for v in p.values()):
            return from_poly({m: v // d for m, v in p.items()})
        rest, k = _integer_part(num, d)
        if k:
            return add(kind(rest, den), Num(k))
    return kind(num, den)


def extreme(kind: str, args: Sequence[IntExpr], evaluate: bool = True) -> IntExpr:
    """``Max``/``Min`` of ``args`` (one argument: itself)."""
    args = list(dict.fromkeys(args))
    if len(args) == 1:
        return args[0]
    return Extreme(kind, tuple(args), evaluate)


def max_args(e: IntExpr) -> list[IntExpr]:
    return list(e.args) if isinstance(e, Extreme) and e.kind == "Max" else [e]


def first_max_arg(e: IntExpr) -> IntExpr:
    """The first argument of ``e`` in sympy's order (``Max`` orders its arguments)."""
    args = max_args(e)
    if len(args) == 1:
        return args[0]
    first = e.sympy().args[0]
    return next(a for a in args if a.sympy() == first)


def ge(a: IntExpr, b: IntExpr) -> Rel:
    return Rel(">=", (a, b))


def eq0(a: IntExpr) -> Rel:
    return Rel("==", (a, Num(0)))


def conj(conds: Sequence[Rel]) -> Rel:
    return conds[0] if len(conds) == 1 else Rel("and", tuple(conds))


def p_sym(l: int) -> Sym:
    return Sym(f"p{l}")


def t_sym(l: int) -> Sym:
    return Sym(f"t{l}")


def affine(a: Any) -> IntExpr:
    """An :class:`~polyjoule.model.affine.Affine` in the parameters."""
    return add(Num(a.const), *(mul(Num(v), Sym(k)) for k, v in a.terms))


# --- the provable-sign test ---------------------------------------------------------

def provably_nonneg(e: IntExpr, mins: Mapping[str, int]) -> bool:
    """Provably ``e >= 0`` for every symbol at or above its minimum (symbols without one
    at least 1): every coefficient of ``e`` with each symbol shifted to its minimum is
    non-negative. An expression keeping a floor, ``Max``, ... is never proved."""
    return provably_ge(e, Num(0), mins)


_NONNEG: dict[tuple[str, str, tuple[tuple[str, int], ...]], bool] = {}


def provably_ge(a: IntExpr, b: IntExpr, mins: Mapping[str, int]) -> bool:
    """:func:`provably_nonneg` of ``a - b`` (memoised on the two expressions)."""
    memo = (a.key(), b.key(), tuple(sorted(mins.items())))
    hit = _NONNEG.get(memo)
    if hit is None:
        neg = {m: -c for m, c in b.expand().items()}
        hit = _shifted_nonneg(poly_add(a.expand(), neg), mins)
        if len(_NONNEG) > 65536:
            _NONNEG.clear()
        _NONNEG[memo] = hit
    return hit


def _shifted_nonneg(p: Poly, mins: Mapping[str, int]) -> bool:
    if any(not k.startswith("s:") for m in p for k, _ in m):
        return False
    c = poly_constant(p)
    if c is not None:
        return c >= 0
    out: Poly = {}
    for m, coeff in p.items():
        term: Poly = {(): coeff}
        for k, e in m:
            shift: Poly = {((k, 1),): 1}
            lo = mins.get(k[2:], 1)
            if lo:
                shift[()] = lo
            for _ in range(e):
                term = poly_mul(term, shift)
        out = poly_add(out, term)
    return all(v >= 0 for v in out.values())


# --- generated code -----------------------------------------------------------------

@dataclass
class Compiled:
    """``exprs`` as one generated function of ``names`` (integer arithmetic only); the
    vectorised form runs in int64 when no intermediate can overflow, else exactly."""

    exprs: tuple[IntExpr, ...]
    names: tuple[str, ...]
    calls: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    vector: bool = True

    def __post_init__(self) -> None:
        from polyjoule.analysis.intprint import (
            SCALAR_ENV,
            VECTOR_ENV,
            Int64Guard,
            compile_source,
            exact_call,
        )

        es = self.exprs
        body = es[0].source() if len(es) == 1 else "[" + ", ".join(e.source() for e in es) + "]"
        src = f"def _f({', '.join(self.names)}):\n    return {body}\n"
        if self.vector:
            env = {**VECTOR_ENV, **{k: exact_call(f) for k, f in self.calls.items()}}
            self.fn: Callable[..., Any] = Int64Guard(compile_source(src, "_f", env, "latency"),
                                                     es, safe_top)
        else:
            self.fn = compile_source(src, "_f", {**SCALAR_ENV, **self.calls}, "latency")

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)


def safe_top(exprs: Sequence[IntExpr]) -> int:
    """The largest power of two ``top`` such that every symbol at most ``top`` keeps every
    intermediate of ``exprs`` below ``SAFE`` (0: never safe)."""
    from polyjoule.analysis.intprint import SAFE

    tops = 2.0 ** np.arange(63)
    with np.errstate(over="ignore", invalid="ignore"):
        worst = _most(np.broadcast_to(e.bound(tops), tops.shape) for e in exprs)
    ok = np.broadcast_to(worst < SAFE, tops.shape)
    if not ok[0]:
        return 0
    return 2 ** int(np.flatnonzero(ok).max())


def _most(xs: Any) -> Any:
    """The elementwise largest of ``xs`` (0 for none)."""
    out: Any = 0.0
    for x in xs:
        out = np.maximum(out, x)
    return out
