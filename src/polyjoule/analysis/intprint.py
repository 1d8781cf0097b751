"""sympy -> integer-only Python source, and the one place generated source is compiled.

Latency formulas and volume formulas are evaluated millions of times in sweeps; they are
printed as Python text with integer ``//`` and ``%`` (never float floors, never rationals)
and compiled once. Both the schedule (:mod:`polyjoule.analysis.scan`) and the compiled
evaluators (:mod:`polyjoule.analysis.compiled`) use this printer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy

from polyjoule.errors import SpecError

#: Helpers a generated function may call, scalar (Python) and vectorised (numpy).
SCALAR_ENV: dict[str, Any] = {"_max": max, "_min": min, "_where": lambda c, a, b: a if c else b}
VECTOR_ENV: dict[str, Any] = {"_max": np.maximum, "_min": np.minimum, "_where": np.where, "np": np}


def _relational(e: Any, p: Callable[[Any], str]) -> str | None:
    if isinstance(e, sympy.And):
        return "(" + " & ".join(p(a) for a in e.args) + ")"
    if isinstance(e, sympy.core.relational.Relational):
        return f"({p(e.lhs)} {e.rel_op} {p(e.rhs)})"
    return None


def _arith(e: Any, p: Callable[[Any], str]) -> str | None:
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


def compile_exprs(exprs: Sequence[sympy.Expr], names: Sequence[str],
                  calls: Mapping[str, Callable[..., Any]], vector: bool) -> Callable[..., Any]:
    """One function of ``names`` returning ``exprs`` (a value for one expression, else a list).

    ``vector``: numpy helpers, and ``calls`` vectorised element by element.
    """
    body = int_source(exprs[0]) if len(exprs) == 1 else \
        "[" + ", ".join(int_source(e) for e in exprs) + "]"
    src = f"def _f({', '.join(names)}):\n    return {body}\n"
    if vector:
        env = {**VECTOR_ENV, **{k: np.vectorize(f, otypes=[np.int64]) for k, f in calls.items()}}
    else:
        env = {**SCALAR_ENV, **calls}
    return compile_source(src, "_f", env, "latency")
