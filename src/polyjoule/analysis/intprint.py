"""sympy -> integer-only Python source, and the one place generated source is compiled.

Latency formulas and volume formulas are evaluated millions of times in sweeps; they are
printed as Python text with integer ``//`` and ``%`` (never float floors, never rationals)
and compiled once. The compiled evaluators (:mod:`polyjoule.analysis.compiled`) print sympy
with this printer; the schedule's own expressions (:mod:`polyjoule.analysis.intexpr`) print
themselves and share the compiling and the int64 guard. sympy is imported only by the
printer's functions (the map search never imports it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from polyjoule.analysis.exact import exact, top_of
from polyjoule.errors import SpecError

#: Helpers a generated function may call, scalar (Python) and vectorised (numpy).
SCALAR_ENV: dict[str, Any] = {"_max": max, "_min": min, "_where": lambda c, a, b: a if c else b}
VECTOR_ENV: dict[str, Any] = {"_max": np.maximum, "_min": np.minimum, "_where": np.where, "np": np}


def _relational(e: Any, p: Callable[[Any], str]) -> str | None:
    import sympy

    if isinstance(e, sympy.And):
        return "(" + " & ".join(p(a) for a in e.args) + ")"
    if isinstance(e, sympy.core.relational.Relational):
        return f"({p(e.lhs)} {e.rel_op} {p(e.rhs)})"
    return None


def _arith(e: Any, p: Callable[[Any], str]) -> str | None:
    import sympy

    if isinstance(e, sympy.Add):
        return "(" + " + ".join(p(a) for a in e.args) + ")"
    if isinstance(e, sympy.Mul):
        if sympy.fraction(e)[1] != 1:
            raise SpecError(f"schedule: division outside floor in {e}")
        return "(" + " * ".join(p(a) for a in e.args) + ")"
    if isinstance(e, sympy.Pow):
        if not (e.exp.is_Integer and e.exp > 0):
            raise SpecError(f"schedule: unsupported power {e}")
        return f"({p(e.base)} ** {int(e.exp)})"
    if isinstance(e, sympy.floor | sympy.ceiling):
        num, den = sympy.fraction(sympy.together(e.args[0]))
        if isinstance(e, sympy.floor):
            return f"(({p(num)}) // ({p(den)}))"
        return f"(-((-({p(num)})) // ({p(den)})))"
    if isinstance(e, sympy.Mod):
        return f"(({p(e.args[0])}) % ({p(e.args[1])}))"
    return None


def _choice(e: Any, p: Callable[[Any], str]) -> str | None:
    import sympy

    if isinstance(e, sympy.Max | sympy.Min):
        fn = "_max" if isinstance(e, sympy.Max) else "_min"
        out = p(e.args[0])
        for a in e.args[1:]:
            out = f"{fn}({out}, {p(a)})"
        return out
    if isinstance(e, sympy.Piecewise):
        out = "None"
        for val, cond in reversed(e.args):
            out = p(val) if cond is sympy.true and out == "None" else \
                f"_where({p(cond)}, {p(val)}, {out})"
        return out
    return None


def int_source(e: Any) -> str:
    """Python text of ``e`` using integer arithmetic only (``_max``/``_min``/``_where`` helpers;
    an undefined function ``M_x(...)`` is called by name)."""
    import sympy

    if isinstance(e, sympy.Integer):  # before the boolean tests: Integer(1) == True
        return f"({int(e)})"
    if e is sympy.true:
        return "True"
    if e is sympy.false:
        return "False"
    if isinstance(e, sympy.Rational):
        raise SpecError(f"schedule: rational coefficient {e} in a latency formula")
    if isinstance(e, sympy.Symbol):
        return e.name
    for rule in (_arith, _choice, _relational):
        text = rule(e, int_source)
        if text is not None:
            return text
    if isinstance(e, sympy.core.function.AppliedUndef):
        return f"{type(e).__name__}({', '.join(int_source(a) for a in e.args)})"
    raise SpecError(f"schedule: cannot compile {type(e).__name__} in {e}")


def compile_source(src: str, name: str, env: Mapping[str, Any], label: str) -> Callable[..., Any]:
    """Compile generated ``src`` (our own text, never user input) and return function ``name``."""
    ns = dict(env)
    exec(compile(src, f"<polyjoule {label}>", "exec"), ns)  # noqa: S102 - our own generated source
    return ns[name]  # type: ignore[no-any-return]


def compile_exprs(exprs: Sequence[Any], names: Sequence[str],
                  calls: Mapping[str, Callable[..., Any]], vector: bool) -> Callable[..., Any]:
    """One function of ``names`` returning ``exprs`` (a value for one expression, else a list).

    ``vector``: numpy helpers, and ``calls`` vectorised element by element.
    """
    body = int_source(exprs[0]) if len(exprs) == 1 else \
        "[" + ", ".join(int_source(e) for e in exprs) + "]"
    src = f"def _f({', '.join(names)}):\n    return {body}\n"
    if vector:
        env = {**VECTOR_ENV, **{k: exact_call(f) for k, f in calls.items()}}
        return Int64Guard(compile_source(src, "_f", env, "latency"), tuple(exprs))
    return compile_source(src, "_f", {**SCALAR_ENV, **calls}, "latency")


def exact_call(f: Callable[..., Any]) -> Any:
    """``f`` element by element on Python integers, returning Python integers (an object
    array: whatever uses its value is then computed exactly, whatever the magnitude)."""
    return np.vectorize(lambda *a: int(f(*(int(x) for x in a))), otypes=[object])


#: Every intermediate of a fast (int64) evaluation stays below this magnitude.
SAFE = 2**62


def bound(e: Any, top: float, memo: dict[Any, float] | None = None) -> float:
    """An upper bound on |e| and on every intermediate :func:`int_source`'s text computes
    for it, when every symbol is at most ``top`` in magnitude (``top >= 1``). float, so it
    never overflows itself. A call ``M_x(...)`` (a per-point schedule term) is bounded by its
    arguments only: it returns a Python integer, so what uses it is computed exactly."""
    memo = {} if memo is None else memo
    hit = memo.get(e)
    if hit is None:
        hit = memo[e] = _bound(e, top, memo)
    return hit


def _bound(e: Any, top: float, memo: dict[Any, float]) -> float:
    import sympy

    if e.is_Number:
        return abs(float(e))
    if e.is_Symbol:
        return top
    if isinstance(e, sympy.floor | sympy.ceiling):
        num, den = sympy.fraction(sympy.together(e.args[0]))
        return max(bound(num, top, memo), bound(den, top, memo)) + 1.0
    if isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp > 0:
        return max(1.0, bound(e.base, top, memo)) ** int(e.exp)
    args = [bound(a, top, memo) for a in e.args]
    if isinstance(e, sympy.Add):
        return sum(args)
    if isinstance(e, sympy.Mul):  # every partial product too
        out = 1.0
        for b in args:
            out *= max(1.0, b)
        return out
    return max(args, default=0.0)  # Max, Min, Mod, Piecewise, relations: no new magnitude


def bounder(e: Any, memo: dict[Any, Callable[[float], float]] | None = None
            ) -> Callable[[float], float]:
    """:func:`bound` of ``e`` as a function of ``top``: the expression is walked (and its
    floors' fractions taken) once, so that trying many ``top`` costs float arithmetic only."""
    memo = {} if memo is None else memo
    hit = memo.get(e)
    if hit is None:
        hit = memo[e] = _bounder(e, memo)
    return hit


def _bounder(e: Any, memo: dict[Any, Callable[[float], float]]) -> Callable[[float], float]:
    import sympy

    if e.is_Number:
        v = abs(float(e))
        return lambda top: v
    if e.is_Symbol:
        return lambda top: top
    if isinstance(e, sympy.floor | sympy.ceiling):
        num, den = (bounder(x, memo) for x in sympy.fraction(sympy.together(e.args[0])))
        return lambda top: max(num(top), den(top)) + 1.0
    if isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp > 0:
        base, k = bounder(e.base, memo), int(e.exp)
        return lambda top: max(1.0, base(top)) ** k
    args = [bounder(a, memo) for a in e.args]
    if isinstance(e, sympy.Add):
        return lambda top: sum(f(top) for f in args)
    if isinstance(e, sympy.Mul):
        return lambda top: math.prod(max(1.0, f(top)) for f in args)
    return lambda top: max((f(top) for f in args), default=0.0)


def safe_top(exprs: Sequence[Any]) -> int:
    """The largest power of two ``top`` such that every symbol at most ``top`` keeps every
    intermediate of ``exprs`` below :data:`SAFE` (0: never safe)."""
    memo: dict[Any, Callable[[float], float]] = {}
    fns = [bounder(e, memo) for e in exprs]

    def ok(k: int) -> bool:
        return max((f(float(2**k)) for f in fns), default=0.0) < SAFE

    if not ok(0):
        return 0
    lo, hi = 0, 63  # ok(lo) holds
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return 2**lo


class Int64Guard:
    """A generated vectorised function that runs in int64 when its arguments are small
    enough for no intermediate to overflow (:func:`safe_top`), else on Python integers
    (object arrays): numpy's integer arithmetic wraps silently, so the choice is made
    before, from a bound, never after."""

    def __init__(self, fn: Callable[..., Any], exprs: Sequence[Any],
                 safe: Callable[[Sequence[Any]], int] | None = None):
        self.fn = fn
        self.exprs = exprs
        self.safe = safe  # the bound of the expressions' own kind (default: sympy's)
        self._limit: int | None = None

    @property
    def limit(self) -> int:
        if self._limit is None:
            self._limit = (self.safe or safe_top)(self.exprs)
        return self._limit

    def fits(self, args: Sequence[Any]) -> bool:
        """Can ``args`` go through the int64 path?"""
        if any(np.asarray(a).dtype == object for a in args):
            return False
        return 0 < self.limit and top_of(args) <= self.limit

    def __call__(self, *args: Any) -> Any:
        if self.fits(args):
            return self.fn(*args)
        return self.fn(*(exact(a) for a in args))
