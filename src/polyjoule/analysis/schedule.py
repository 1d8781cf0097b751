"""Symbolic schedule and exact latency of a tiled PRA (method sheet section 5).

Iteration ``i = j + p*k`` (intra-tile index ``j``, tile/PE index ``k``) starts at
``lambda_J . j + lambda_K . k``; statement ``q`` runs at offset ``tau_q`` inside its iteration
for ``w_q`` cycles (compute ``w`` or a per-op override, input 1 for the DR -> IOb -> ID hop,
transport 0, output 0).

* ``tau_q`` is the longest path over zero-dependence reads of one iteration. A transport with
  ``d != 0`` is a register read with no zero-dependence input: it is placed as late as its
  first zero-dependence reader, which is what makes ``lambda . d >= w`` enough for a
  recurrence like ``s = s' + t``.
* ``lambda_J`` scans a tile: one candidate per permutation of the dims (innermost first:
  ``pi``, ``pi*p_first``, ...). Every dependence case must satisfy
  ``lambda_J . d_j + lambda_K . d_k >= r`` with ``r = max(w, fin(source) - tau(transport))``
  (``r = w`` for every shipped kernel; the second term only matters when a producer chain is
  longer than the consumer's offset). ``lambda_K`` is the smallest vector doing so.
* The latency is exact, not the full-tile formula: the largest ``start + tau_q + w_q`` over
  the points each statement really executes (partial last tiles, condition spaces). For
  condition spaces that constrain one dim at a time it is a closed form (sympy, compiled to
  integer Python/numpy); a statement whose conditions couple dims (triangles) contributes an
  exact integer-programming maximum (isl) evaluated per point.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
import sympy

from polyjoule.errors import InfeasibleMapping, InfeasibleSchedule, SpecError
from polyjoule.mapping.tiling import Tiling, min_tile
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.pra import PRA, Kernel, Statement

#: Cycles of an input hop (DR -> IOb -> ID), a transport (register read) and an output.
KIND_LATENCY = {"input": 1, "transport": 0, "output": 0}


# ----------------------------------------------------------------------------- timing


@dataclass(frozen=True)
class Timing:
    """Offsets ``tau`` and latencies ``w`` per statement id, and one iteration's latency."""

    tau: Mapping[str, int]
    w: Mapping[str, int]
    topo: tuple[str, ...]  # an order respecting zero-dependence reads
    L_c: int

    def fin(self, sid: str) -> int:
        return self.tau[sid] + self.w[sid]


def _zero_reads(s: Statement) -> tuple[str, ...]:
    """Variables ``s`` reads at its own iteration."""
    if s.kind == "transport":
        return (s.source,) if not any(s.dep or ()) else ()  # type: ignore[return-value]
    return s.reads


def statement_timing(pra: PRA, w: int = 1, op_latency: Mapping[str, int] | None = None) -> Timing:
    """``tau_q`` (longest zero-dependence path) and ``w_q`` for every statement of ``pra``."""
    if int(w) != w or w < 0:
        raise InfeasibleSchedule(f"schedule: operation latency w={w} must be a non-negative integer")
    ops_w = dict(op_latency or {})
    lat: dict[str, int] = {}
    for s in pra.statements:
        if s.kind == "compute":
            assert s.expr is not None
            lat[s.id] = max((int(ops_w.get(op, w)) for op, _ in s.expr.ops), default=int(w))
        else:
            lat[s.id] = KIND_LATENCY[s.kind]
    writers: dict[str, list[str]] = {}
    for s in pra.statements:
        if s.kind != "output":
            writers.setdefault(s.var, []).append(s.id)
    preds = {s.id: sorted({wid for v in _zero_reads(s) for wid in writers.get(v, [])})
             for s in pra.statements}
    # Kahn's algorithm in statement order; a zero-dependence cycle has no schedule.
    indeg = {sid: len(ps) for sid, ps in preds.items()}
    succs: dict[str, list[str]] = {sid: [] for sid in preds}
    for sid, ps in preds.items():
        for q in ps:
            succs[q].append(sid)
    ready = [s.id for s in pra.statements if indeg[s.id] == 0]
    topo: list[str] = []
    while ready:
        sid = ready.pop(0)
        topo.append(sid)
        for r in succs[sid]:
            indeg[r] -= 1
            if indeg[r] == 0:
                ready.append(r)
    if len(topo) != len(preds):
        bad = sorted(set(preds) - set(topo))
        raise InfeasibleSchedule(f"{pra.name}: zero-dependence cycle through {', '.join(bad)}")
    tau: dict[str, int] = {}
    for sid in topo:
        tau[sid] = max((tau[q] + lat[q] for q in preds[sid]), default=0)
    # a d != 0 transport is read when its first zero-dependence reader starts (as late as possible)
    for s in pra.statements:
        if s.kind == "transport" and any(s.dep or ()):
            readers = [r.id for r in pra.statements if s.id in preds[r.id]]
            if readers:
                tau[s.id] = min(tau[r] for r in readers)
    order = {sid: n for n, sid in enumerate(topo)}
    # by offset, then dependence order (a zero-latency writer and its reader share an offset)
    topo_final = tuple(sorted(topo, key=lambda sid: (tau[sid], order[sid])))
    return Timing(tau, lat, topo_final, max(tau[s] + lat[s] for s in tau))


# ----------------------------------------------------------------------------- symbols


def p_sym(l: int) -> sympy.Symbol:
    return sympy.Symbol(f"p{l}", integer=True, positive=True)


def t_sym(l: int) -> sympy.Symbol:
    return sympy.Symbol(f"t{l}", integer=True, positive=True)


def _param(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True)


def _aff(a: Affine) -> sympy.Expr:
    return sympy.Integer(a.const) + sum((v * _param(k) for k, v in a.terms), sympy.Integer(0))


def _nonneg(e: sympy.Expr, mins: Mapping[sympy.Symbol, int]) -> bool:
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


def _max_args(e: sympy.Expr) -> list[sympy.Expr]:
    return list(e.args) if isinstance(e, sympy.Max) else [e]


# ----------------------------------------------------------------------------- compile


class _Printer:
    """sympy -> integer Python source (``//`` and ``%``, never float floor)."""

    def __init__(self) -> None:
        self.calls: dict[str, Callable[..., Any]] = {}

    def __call__(self, e: Any) -> str:  # noqa: C901 - one branch per node type
        if e is sympy.true or e == True:  # noqa: E712
            return "True"
        if e is sympy.false:
            return "False"
        if isinstance(e, sympy.Integer):
            return f"({int(e)})"
        if isinstance(e, sympy.Rational):
            raise SpecError(f"schedule: rational coefficient {e} in a latency formula")
        if isinstance(e, sympy.Symbol):
            return e.name
        if isinstance(e, sympy.Add):
            return "(" + " + ".join(self(a) for a in e.args) + ")"
        if isinstance(e, sympy.Mul):
            num, den = sympy.fraction(e)
            if den != 1:
                raise SpecError(f"schedule: division outside floor in {e}")
            return "(" + " * ".join(self(a) for a in e.args) + ")"
        if isinstance(e, sympy.Pow):
            if not (e.exp.is_Integer and e.exp > 0):
                raise SpecError(f"schedule: unsupported power {e}")
            return f"({self(e.base)} ** {int(e.exp)})"
        if isinstance(e, sympy.floor | sympy.ceiling):
            num, den = sympy.fraction(sympy.together(e.args[0]))
            if isinstance(e, sympy.floor):
                return f"(({self(num)}) // ({self(den)}))"
            return f"(-((-({self(num)})) // ({self(den)})))"
        if isinstance(e, sympy.Mod):
            return f"(({self(e.args[0])}) % ({self(e.args[1])}))"
        if isinstance(e, sympy.Max | sympy.Min):
            fn = "_max" if isinstance(e, sympy.Max) else "_min"
            out = self(e.args[0])
            for a in e.args[1:]:
                out = f"{fn}({out}, {self(a)})"
            return out
        if isinstance(e, sympy.Piecewise):
            out = "None"
            for val, cond in reversed(e.args):
                out = self(val) if cond is sympy.true and out == "None" else \
                    f"_where({self(cond)}, {self(val)}, {out})"
            return out
        if isinstance(e, sympy.And):
            return "(" + " & ".join(self(a) for a in e.args) + ")"
        if isinstance(e, sympy.core.relational.Relational):
            return f"({self(e.lhs)} {e.rel_op} {self(e.rhs)})"
        if isinstance(e, sympy.core.function.AppliedUndef):
            name = type(e).__name__
            return f"{name}({', '.join(self(a) for a in e.args)})"
        raise SpecError(f"schedule: cannot compile {type(e).__name__} in {e}")


def _compile(expr: sympy.Expr, names: Sequence[str], calls: Mapping[str, Callable[..., Any]],
             vector: bool) -> Callable[..., Any]:
    src = f"def _f({', '.join(names)}):\n    return {_Printer()(expr)}\n"
    if vector:
        env: dict[str, Any] = {"_max": np.maximum, "_min": np.minimum, "_where": np.where}
        env.update({k: np.vectorize(f, otypes=[np.int64]) for k, f in calls.items()})
    else:
        env = {"_max": max, "_min": min, "_where": lambda c, a, b: a if c else b}
        env.update(calls)
    exec(compile(src, "<latency>", "exec"), env)  # noqa: S102 - our own generated source
    return env["_f"]


# ----------------------------------------------------------------------------- candidate


@dataclass(frozen=True)
class Dependence:
    """One dependence case: ``lambda_J . d_j + lambda_K . d_k >= r``."""

    statement: str
    case: str
    d_j: tuple[sympy.Expr, ...]
    d_k: tuple[int, ...]
    r: int


@dataclass(frozen=True)
class ConcreteSchedule:
    """A schedule at one design point: integer lambdas, tile sizes and offsets."""

    order: tuple[int, ...]
    lambda_J: tuple[int, ...]
    lambda_K: tuple[int, ...]
    p: tuple[int, ...]
    t: tuple[int, ...]  # effective tile counts ceil(E/p)
    timing: Timing
    latency: int
    pi: int = 1

    def to_json(self, dims: Sequence[str]) -> dict[str, Any]:
        return {"order": [dims[l] for l in self.order], "lambda_J": list(self.lambda_J),
                "lambda_K": list(self.lambda_K), "p": list(self.p), "t": list(self.t),
                "L_c": self.timing.L_c, "latency_cycles": self.latency}


#: Compiled (unpicklable) members of a candidate, rebuilt lazily.
_COMPILED = frozenset({"_scalar", "_vector", "_lambdas", "_d_j", "_slacks"})


@dataclass
class Candidate:
    """One scanning order: symbolic lambdas, the exact latency formula, compiled."""

    pra: PRA
    tiling: Tiling
    order: tuple[int, ...]  # dims innermost first
    lambda_J: tuple[sympy.Expr, ...]
    lambda_K: tuple[sympy.Expr, ...]
    deps: tuple[Dependence, ...]
    timing: Timing
    latency_formula: sympy.Expr
    coupled: dict[str, Callable[..., int]] = field(default_factory=dict)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the compiled functions (rebuilt on first use)."""
        return {k: v for k, v in self.__dict__.items() if k not in _COMPILED}

    @property
    def sheet_formula(self) -> sympy.Expr:
        """The sheet's full-tile latency ``lambda_J.(p-1) + lambda_K.(t-1) + L_c``."""
        n = self.pra.n
        return sympy.expand(sum(self.lambda_J[l] * (p_sym(l) - 1) for l in range(n))) + sum(
            (self.lambda_K[l] * (t_sym(l) - 1) for l in range(n)), sympy.Integer(0)
        ) + self.timing.L_c

    @cached_property
    def _names(self) -> list[str]:
        return [*self.pra.params, *(f"p{l}" for l in range(self.pra.n))]

    @cached_property
    def _scalar(self) -> Callable[..., Any]:
        return _compile(self.latency_formula, self._names, self.coupled, vector=False)

    @cached_property
    def _vector(self) -> Callable[..., Any]:
        return _compile(self.latency_formula, self._names, self.coupled, vector=True)

    @cached_property
    def _lambdas(self) -> Callable[..., Any]:
        e = sympy.Tuple(*self.lambda_J, *self.lambda_K)
        return sympy.lambdify([p_sym(l) for l in range(self.pra.n)], e, modules=[{}, "math"])

    def lambdas(self, p: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        vals = [int(v) for v in self._lambdas(*p)]
        n = self.pra.n
        return tuple(vals[:n]), tuple(vals[n:])

    @cached_property
    def _d_j(self) -> Callable[..., Any]:
        e = sympy.Tuple(*(sympy.Tuple(*d.d_j) for d in self.deps))
        return sympy.lambdify([p_sym(l) for l in range(self.pra.n)], e, modules=[{}, "math"])

    def feasible(self, p: Sequence[int]) -> str | None:
        """``None`` when every dependence case holds at tile sizes ``p``, else the first failure."""
        lj, lk = self.lambdas(p)
        djs = self._d_j(*p) if self.deps else ()
        for d, dj_raw in zip(self.deps, djs, strict=True):
            dj = [int(x) for x in dj_raw]
            if sum(a * b for a, b in zip(lj, dj, strict=True)) + \
                    sum(a * b for a, b in zip(lk, d.d_k, strict=True)) < d.r:
                return f"{d.statement} ({d.case}) needs lambda.d >= {d.r}"
        return None

    def latency_at(self, values: Mapping[str, int], p: Sequence[int]) -> int:
        return int(self._scalar(*(int(values[k]) for k in self.pra.params), *(int(x) for x in p)))

    def latency_many(self, values: Mapping[str, np.ndarray], p: Sequence[np.ndarray]) -> np.ndarray:
        return np.asarray(self._vector(*(np.asarray(values[k]) for k in self.pra.params),
                                       *(np.asarray(x) for x in p)), dtype=np.int64)

    @cached_property
    def _slacks(self) -> Callable[..., Any]:
        n = self.pra.n
        slacks = [sum((self.lambda_J[l] * d.d_j[l] + self.lambda_K[l] * d.d_k[l] for l in range(n)),
                      sympy.Integer(0)) - d.r for d in self.deps]
        return _compile(sympy.Min(*slacks, evaluate=False) if len(slacks) > 1 else
                        (slacks[0] if slacks else sympy.Integer(0)),
                        [f"p{l}" for l in range(n)], {}, vector=True)

    def feasible_many(self, p: Sequence[np.ndarray]) -> np.ndarray:
        """Vectorised :meth:`feasible`: every dependence case holds at tile sizes ``p``."""
        return np.asarray(self._slacks(*(np.asarray(x) for x in p))) >= 0


# ----------------------------------------------------------------------------- ranges


def _dim_bounds(cons: Sequence[Constraint], dims: Sequence[str]) -> tuple[
        list[list[sympy.Expr]], list[list[sympy.Expr]], list[Constraint], list[Constraint]]:
    """Per-dim lower/upper bound lists when every constraint involves at most one dim.

    Returns (lowers, uppers, param-only constraints, coupled constraints).
    """
    lo: list[list[sympy.Expr]] = [[] for _ in dims]
    hi: list[list[sympy.Expr]] = [[] for _ in dims]
    params_only: list[Constraint] = []
    coupled: list[Constraint] = []
    for c in cons:
        co = c.expr.coeffs
        used = [l for l, n in enumerate(dims) if co.get(n, 0)]
        if not used:
            params_only.append(c)
            continue
        if len(used) > 1:
            coupled.append(c)
            continue
        l = used[0]
        a = co[dims[l]]
        rest = _aff(Affine.of({k: v for k, v in co.items() if k != dims[l]}, c.expr.const))
        if c.eq:
            if abs(a) != 1:
                coupled.append(c)
                continue
            lo[l].append(-a * rest)
            hi[l].append(-a * rest)
        elif a > 0:
            lo[l].append(sympy.ceiling(-rest / a) if a != 1 else -rest)
        else:
            hi[l].append(sympy.floor(rest / -a) if a != -1 else rest)
    return lo, hi, params_only, coupled


def _extreme(bounds: list[sympy.Expr], mins: Mapping[sympy.Symbol, int], mode: str) -> sympy.Expr:
    """``Max``/``Min`` of ``bounds`` without the ones another provably dominates."""
    keep: list[sympy.Expr] = []
    for b in dict.fromkeys(bounds):
        if mode == "max":
            if any(_nonneg(k - b, mins) for k in keep):
                continue
            keep = [k for k in keep if not _nonneg(b - k, mins)] + [b]
        else:
            if any(_nonneg(b - k, mins) for k in keep):
                continue
            keep = [k for k in keep if not _nonneg(k - b, mins)] + [b]
    if len(keep) == 1:
        return keep[0]
    return (sympy.Max if mode == "max" else sympy.Min)(*keep, evaluate=False)


def _le(a_list: list[sympy.Expr], b_list: list[sympy.Expr], mins: Mapping[sympy.Symbol, int],
        mode: str) -> bool:
    """Provable ``Max(a_list) <= Max(b_list)`` (mode 'max') or ``Min(a) <= Min(b)`` ('min')."""
    if mode == "max":  # every a is below some b
        return all(any(_nonneg(b - a, mins) for b in b_list) for a in a_list)
    return all(any(_nonneg(b - a, mins) for a in a_list) for b in b_list)


# ----------------------------------------------------------------------------- derive


def _dependences(pra: PRA, tiling: Tiling, timing: Timing, w: int) -> list[Dependence]:
    writers: dict[str, list[str]] = {}
    for s in pra.statements:
        if s.kind != "output":
            writers.setdefault(s.var, []).append(s.id)
    out: list[Dependence] = []
    for s in pra.statements:
        if s.kind != "transport" or not any(s.dep or ()):
            continue
        assert s.dep is not None and s.source is not None
        fin = max((timing.fin(q) for q in writers.get(s.source, [])), default=0)
        r = max(int(w), fin - timing.tau[s.id], 1)
        choices = [(0,) if d == 0 or not tiling.tiled(l) else (0, 1 if d > 0 else -1)
                   for l, d in enumerate(s.dep)]
        for crossing in itertools.product(*choices):
            d_j = tuple(sympy.Integer(d) - c * p_sym(l) if c else sympy.Integer(d)
                        for l, (d, c) in enumerate(zip(s.dep, crossing, strict=True)))
            name = "intra" if not any(crossing) else "inter(" + ",".join(
                pra.dims[l].name for l, c in enumerate(crossing) if c) + ")"
            out.append(Dependence(s.id, name, d_j, tuple(crossing), r))
    return out


def _candidate(pra: PRA, tiling: Tiling, order: tuple[int, ...], pi: int, timing: Timing,
               deps: list[Dependence], mins: dict[sympy.Symbol, int], ranges: _Ranges) -> Candidate:
    n = pra.n
    lj: list[sympy.Expr] = [sympy.Integer(0)] * n
    coef: sympy.Expr = sympy.Integer(pi)
    for l in order:
        lj[l] = coef
        coef = coef * p_sym(l)
    for d in deps:
        if not any(d.d_k):
            slack = sum((lj[l] * d.d_j[l] for l in range(n)), sympy.Integer(0)) - d.r
            if sympy.expand(slack).is_Number and slack < 0:
                raise InfeasibleSchedule(
                    f"{pra.name}: scanning order {'/'.join(pra.dims[l].name for l in order)} "
                    f"(innermost first) violates {d.statement}: lambda_J.d = "
                    f"{sympy.expand(slack + d.r)} < {d.r}")
    # lambda_K: single-dim crossings with d_k = +1 give lower bounds; others add a bound on
    # their last crossing dim when their d_k is non-negative (checked per point anyway).
    lower: list[list[sympy.Expr]] = [[sympy.Integer(0)] for _ in range(n)]
    for d in deps:
        cross = [l for l in range(n) if d.d_k[l]]
        if len(cross) == 1 and d.d_k[cross[0]] == 1:
            l = cross[0]
            lower[l].append(sympy.expand(d.r - sum((lj[m] * d.d_j[m] for m in range(n)),
                                                   sympy.Integer(0))))

    def reduce(bounds: list[sympy.Expr]) -> sympy.Expr:
        bounds = list(dict.fromkeys(sympy.expand(b) for b in bounds))
        keep: list[sympy.Expr] = []
        for b in bounds:
            if any(_nonneg(k - b, mins) for k in keep):
                continue
            keep = [k for k in keep if not _nonneg(b - k, mins)] + [b]
        return keep[0] if len(keep) == 1 else sympy.Max(*keep)

    lk = [reduce(b) for b in lower]
    for d in deps:
        cross = [l for l in range(n) if d.d_k[l]]
        if len(cross) < 2 or any(d.d_k[l] < 0 for l in cross):
            continue
        base = sum((lj[m] * d.d_j[m] for m in range(n)), sympy.Integer(0))
        others = [lk[m] for m in cross[:-1]]
        if all(len(_max_args(o)) == 1 for o in others) and _nonneg(
                base + sum(others, sympy.Integer(0)) + lk[cross[-1]] - d.r, mins):
            continue
        l = cross[-1]
        extra = sympy.expand(d.r - base - sum((_max_args(o)[0] for o in others), sympy.Integer(0)))
        lower[l].append(extra)
        lk[l] = reduce(lower[l])
    lk = [x if tiling.tiled(l) else sympy.Integer(0) for l, x in enumerate(lk)]
    cand = Candidate(pra, tiling, order, tuple(lj), tuple(lk), tuple(deps), timing, sympy.Integer(0))
    cand.latency_formula = _latency_formula(cand, mins, ranges)
    return cand


class _Ranges:
    """Per-statement index ranges (shared by all scanning orders) and which ones can matter."""

    def __init__(self, pra: PRA, timing: Timing, mins: dict[sympy.Symbol, int]) -> None:
        n, dims = pra.n, pra.dim_names
        self.n, self.mins = n, mins
        self.terms: list[tuple[int, list[list[sympy.Expr]], list[list[sympy.Expr]],
                               list[Constraint]]] = []
        self.coupled: list[tuple[Statement, int, frozenset[Constraint], int | None]] = []
        self.corners: set[int] = set()  # terms standing for a coupled statement's corner
        for s in pra.statements:
            fin = timing.fin(s.id)
            lo, hi, params_only, coupled = _dim_bounds(pra.statement_space(s), dims)
            if coupled:
                corner = _corner(pra, s)
                idx = None
                if corner is not None:
                    idx = len(self.terms)
                    self.corners.add(idx)
                    self.terms.append((fin, [[h] for h in corner[0]], [[h] for h in corner[0]],
                                       corner[1]))
                self.coupled.append((s, fin, frozenset(pra.statement_space(s)), idx))
                continue
            for l in range(n):
                if not lo[l] or not hi[l]:
                    raise SpecError(f"{pra.name}: {s.id}: dim {dims[l]} is unbounded")
            self.terms.append((fin, lo, hi, params_only))
        self._kept: dict[bool, list[int]] = {}

    def _always_nonempty(self, lo: list[list[sympy.Expr]], hi: list[list[sympy.Expr]],
                         po: list[Constraint]) -> bool:
        return not po and all(_nonneg(h - a, self.mins) for l in range(self.n)
                              for a in lo[l] for h in hi[l])

    def _dom(self, a: int, b: int, monotone: bool) -> bool:
        """Term ``a`` can never exceed term ``b`` (so it can be left out)."""
        n, mins = self.n, self.mins
        fa, loa, hia, poa = self.terms[a]
        fb, lob, hib, pob = self.terms[b]
        if fb < fa or poa != pob and pob:
            return False
        same = all(_le(loa[l], lob[l], mins, "max") and _le(lob[l], loa[l], mins, "max")
                   and _le(hia[l], hib[l], mins, "min") and _le(hib[l], hia[l], mins, "min")
                   for l in range(n))
        if same and (poa == pob or not pob):
            return True
        if not monotone or not all(_le(hia[l], hib[l], mins, "min") for l in range(n)):
            return False
        if self._always_nonempty(lob, hib, pob):
            return True
        return not pob and all(_le(lob[l], loa[l], mins, "max") for l in range(n))

    def kept(self, monotone: bool) -> list[int]:
        """Terms that can be the last; corner terms only stand in when every dim is monotone."""
        if monotone not in self._kept:
            use = [a for a in range(len(self.terms)) if monotone or a not in self.corners]
            dom = {(a, b): self._dom(a, b, monotone) for a in use for b in use if a != b}
            self._kept[monotone] = [a for a in use if not any(
                b != a and dom[a, b] and (not dom[b, a] or b < a) for b in use)]
        return self._kept[monotone]


def _corner(pra: PRA, s: Statement) -> tuple[list[sympy.Expr], list[Constraint]] | None:
    """The componentwise-largest point of a coupled condition space, when it is in the space.

    With a start time non-decreasing in every index, that point finishes last, so the
    statement gets a closed form. Uses isl's parametric maxima on the untiled space; ``None``
    (exact per-point maximum instead) when a maximum has several pieces or divisions, or the
    corner can fall outside the space.
    """
    import islpy as isl

    params, dims = list(pra.params), list(pra.dim_names)
    pmin = dict(pra.param_min)
    ctx = " and ".join(f"{p} >= {pmin.get(p, 0)}" for p in params) or "true"
    space = " and ".join(c.isl() for c in pra.statement_space(s))
    head = f"[{', '.join(params)}] -> "
    try:
        st = isl.Set(f"{head}{{ [{', '.join(dims)}] : {ctx} and {space} }}")
        his: list[Affine] = []
        for l in range(len(dims)):
            pieces = st.dim_max(l).get_pieces()
            if len(pieces) != 1:
                return None
            _dom, aff = pieces[0]
            if aff.dim(isl.dim_type.div) != 0:
                return None
            co = {p: aff.get_coefficient_val(isl.dim_type.param, q).to_python()
                  for q, p in enumerate(params)}
            const = aff.get_constant_val().to_python()
            if not all(isinstance(v, int) for v in [*co.values(), const]):
                return None
            his.append(Affine.of(co, const))
        eqs = " and ".join(f"{d} = {h.isl()}" for d, h in zip(dims, his, strict=True))
        corner = isl.Set(f"{head}{{ [{', '.join(dims)}] : {eqs} }}").intersect(st)
        nonempty = st.params()
        if not nonempty.is_subset(corner.params()):
            return None
        guard: list[Constraint] = []
        if not isl.Set(f"{head}{{ : {ctx} }}").is_subset(nonempty):
            bsets = nonempty.get_basic_sets()
            if len(bsets) != 1:
                return None
            for c in bsets[0].get_constraints():
                co = {p: c.get_coefficient_val(isl.dim_type.param, q).to_python()
                      for q, p in enumerate(params)}
                const = c.get_constant_val().to_python()
                if not all(isinstance(v, int) for v in [*co.values(), const]):
                    return None
                guard.append(Constraint(Affine.of(co, const), eq=c.is_equality()))
    except isl.Error:
        return None
    return [_aff(h) for h in his], guard


def _latency_formula(c: Candidate, mins: dict[sympy.Symbol, int], ranges: _Ranges) -> sympy.Expr:
    """Exact ``max(start + tau_q + w_q)`` over the executed points, as a formula."""
    tiling, n = c.tiling, c.pra.n
    monotone = [
        not tiling.tiled(l) or any(_nonneg(a - c.lambda_J[l] * (p_sym(l) - 1), mins)
                                   for a in _max_args(c.lambda_K[l]))
        for l in range(n)
    ]

    def g(l: int, x: sympy.Expr) -> sympy.Expr:
        if not tiling.tiled(l):
            return c.lambda_J[l] * x
        q = sympy.floor(x / p_sym(l))
        return c.lambda_J[l] * sympy.Mod(x, p_sym(l), evaluate=False) + c.lambda_K[l] * q

    terms, coupled_st = ranges.terms, ranges.coupled
    kept = ranges.kept(all(monotone))
    parts: list[sympy.Expr] = []
    for a in kept:
        fin, lo, hi, po = terms[a]
        los = [_extreme(lo[l], mins, "max") for l in range(n)]
        his = [_extreme(hi[l], mins, "min") for l in range(n)]
        total: sympy.Expr = sympy.Integer(fin)
        for l in range(n):
            top = g(l, his[l])
            if not monotone[l]:
                edge = p_sym(l) * sympy.floor(his[l] / p_sym(l)) - 1
                alt = c.lambda_J[l] * (p_sym(l) - 1) + c.lambda_K[l] * (sympy.floor(his[l] / p_sym(l)) - 1)
                top = sympy.Piecewise((sympy.Max(top, alt, evaluate=False), edge >= los[l]),
                                      (top, True))
            total = total + top
        conds = [his[l] >= los[l] for l in range(n) if not all(
            _nonneg(h - x, mins) for x in lo[l] for h in hi[l])]
        conds += [(_aff(x.expr) >= 0) if not x.eq else sympy.Eq(_aff(x.expr), 0) for x in po]
        if conds:
            parts.append(sympy.Piecewise((total, sympy.And(*conds)), (0, True)))
        else:
            parts.append(total)
    # a coupled statement whose space contains another's, finishing no earlier, hides it
    mono = all(monotone)
    for a, (sa, fa, ca, ia) in enumerate(coupled_st):
        if mono and ia is not None:
            continue  # its corner term above stands for it
        if any(b != a and cb <= ca and fb >= fa and (cb != ca or fb != fa or b < a)
               for b, (_sb, fb, cb, _ib) in enumerate(coupled_st)):
            continue
        parts.append(_coupled_term(c, sa, fa))
    if not parts:
        return sympy.Integer(0)
    return parts[0] if len(parts) == 1 else sympy.Max(*parts, evaluate=False)


class _CoupledMax:
    """Exact ``max(start) + fin`` of one statement at a design point (isl ILP); picklable."""

    def __init__(self, pra: PRA, s: Statement, fin: int, lambdas: Sequence[sympy.Expr]) -> None:
        self.params = list(pra.params)
        self.dims = list(pra.dim_names)
        self.cons = tuple(pra.statement_space(s))
        self.fin = fin
        self.lambdas = tuple(lambdas)  # lambda_J then lambda_K, in p0, p1, ...

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_lam"}

    def __call__(self, *args: int) -> int:
        import islpy as isl

        n = len(self.dims)
        if "_lam" not in self.__dict__:
            self._lam = sympy.lambdify([p_sym(l) for l in range(n)], sympy.Tuple(*self.lambdas),
                                       modules=[{}, "math"])
        vals = dict(zip(self.params, (int(a) for a in args[:len(self.params)]), strict=True))
        p = [int(a) for a in args[len(self.params):]]
        lv = [int(x) for x in self._lam(*p)]
        sub = {d: Affine.of({f"j{l}": 1, f"k{l}": p[l]}) for l, d in enumerate(self.dims)}
        text = [f"0 <= j{l} <= {p[l] - 1} and k{l} >= 0" for l in range(n)]
        for x in self.cons:
            e = x.expr.substitute(sub)
            e = Affine.of({k: v for k, v in e.terms if k not in vals},
                          e.const + sum(v * vals[k] for k, v in e.terms if k in vals))
            text.append(f"{e.isl()} {'=' if x.eq else '>='} 0")
        names = ", ".join(f"j{l}, k{l}" for l in range(n))
        obj = " + ".join(f"{lv[l]}*j{l} + {lv[n + l]}*k{l}" for l in range(n))
        st = isl.Set(f"{{ [{names}] : {' and '.join(text)} }}")
        v = st.max_val(isl.Aff(f"{{ [{names}] -> [({obj})] }}"))
        if v.is_nan() or v.is_neginfty():
            return 0
        return int(v.to_python()) + self.fin


def _coupled_term(c: Candidate, s: Statement, fin: int) -> sympy.Expr:
    """An opaque term ``M_<id>(params, p)``: exact ILP maximum (isl) per design point."""
    name = f"M_{s.id}"
    c.coupled[name] = _CoupledMax(c.pra, s, fin, (*c.lambda_J, *c.lambda_K))
    fn = sympy.Function(name)
    return fn(*[_param(x) for x in c.pra.params], *[p_sym(l) for l in range(c.pra.n)])


@dataclass
class Schedule:
    """The schedule of one tiled PRA: the chosen candidate and all feasible ones.

    With ``order=None`` the displayed candidate is the first (in permutation order) whose
    latency no other candidate provably beats; :meth:`at` picks the best one per point.
    """

    pra: PRA
    tiling: Tiling
    pi: int
    w: int
    candidates: list[Candidate]
    chosen: Candidate
    auto: bool
    _memo: dict[tuple[int, ...], ConcreteSchedule] = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_memo": {}}

    @property
    def order(self) -> tuple[str, ...]:
        """Dim names, innermost first."""
        return tuple(self.pra.dims[l].name for l in self.chosen.order)

    @property
    def lambda_J(self) -> tuple[sympy.Expr, ...]:
        return self.chosen.lambda_J

    @property
    def lambda_K(self) -> tuple[sympy.Expr, ...]:
        return self.chosen.lambda_K

    @property
    def timing(self) -> Timing:
        return self.chosen.timing

    @property
    def L_c(self) -> int:
        return self.chosen.timing.L_c

    @property
    def latency_formula(self) -> sympy.Expr:
        """Exact latency in the parameters and tile sizes ``p0, p1, ...``."""
        if not self.auto or len(self.candidates) == 1:
            return self.chosen.latency_formula
        return sympy.Min(*(c.latency_formula for c in self.candidates), evaluate=False)

    @property
    def sheet_formula(self) -> sympy.Expr:
        return self.chosen.sheet_formula

    def latex(self) -> str:
        return sympy.latex(self.latency_formula)

    def sizes(self, values: Mapping[str, int]) -> tuple[int, ...]:
        """Tile sizes at ``values`` (legal for every dependence distance)."""
        self.pra.check_params(values)
        p = self.tiling.sizes(self.pra, values)
        need = min_tile(self.pra)
        for l, d in enumerate(self.pra.dims):
            if self.tiling.tiled(l) and p[l] < need[l]:
                raise InfeasibleMapping(
                    f"dim {d.name}: tile size {p[l]} below the dependence distance {need[l]} "
                    "(problem too small for the array, or --tile too small)")
        return p

    def at(self, values: Mapping[str, int]) -> ConcreteSchedule:
        """The concrete schedule at ``values`` (the best feasible candidate when automatic)."""
        self.pra.check_params(values)
        key = tuple(int(values[k]) for k in self.pra.params)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._at(values)
            if len(self._memo) > 4096:
                self._memo.clear()
            self._memo[key] = hit
        return hit

    def _at(self, values: Mapping[str, int]) -> ConcreteSchedule:
        p = self.sizes(values)
        pool = self.candidates if self.auto else [self.chosen]
        best: tuple[int, Candidate] | None = None
        why = ""
        for c in pool:
            bad = c.feasible(p)
            if bad is not None:
                why = why or bad
                continue
            lat = c.latency_at(values, p)
            if best is None or lat < best[0]:
                best = (lat, c)
        if best is None:
            raise InfeasibleSchedule(f"{self.pra.name}: no feasible schedule at tile sizes {p}: {why}")
        lat, c = best
        lj, lk = c.lambdas(p)
        t = tuple(-(-d.extent.evaluate(values) // p[l]) for l, d in enumerate(self.pra.dims))
        return ConcreteSchedule(c.order, lj, lk, p, t, c.timing, lat, self.pi)

    def latency(self, values: Mapping[str, int]) -> int:
        """Exact latency in cycles (the simulated makespan) at parameter ``values``."""
        return self.at(values).latency

    def latency_many(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """Vectorised latency over arrays of parameter values; -1 where no schedule is feasible.

        Parameter minima and tile legality are not checked per point (use :meth:`latency`).
        """
        arrays = {k: np.asarray(v, dtype=np.int64) for k, v in values.items()}
        p = self.tiling.sizes_many(self.pra, arrays)
        pool = self.candidates if self.auto else [self.chosen]
        big = np.iinfo(np.int64).max
        lat = np.stack([np.where(c.feasible_many(p), c.latency_many(arrays, p), big)
                        for c in pool])
        best = np.min(lat, axis=0)
        return np.where(best == big, -1, best)


def derive_schedule(pra: PRA, tiling: Tiling, pi: int = 1, w: int = 1,
                    order: Sequence[int | str] | None = None,
                    op_latency: Mapping[str, int] | None = None) -> Schedule:
    """Symbolic schedule of ``pra`` under ``tiling``.

    ``order``: dims (indices or names) innermost first; ``None`` tries every permutation.
    An infeasible request (``pi < 1``, an order violating a dependence) is
    :class:`InfeasibleSchedule`.
    """
    if int(pi) != pi or pi < 1:
        raise InfeasibleSchedule(f"schedule: pipeline interval pi={pi} must be an integer >= 1")
    timing = statement_timing(pra, w, op_latency)
    deps = _dependences(pra, tiling, timing, w)
    mins: dict[sympy.Symbol, int] = {}
    need = min_tile(pra)
    for l in range(pra.n):
        mins[p_sym(l)] = max(1, need[l])
        mins[t_sym(l)] = 1
    for name, lo in pra.param_min:
        mins[_param(name)] = lo
    ranges = _Ranges(pra, timing, mins)
    if order is not None:
        idx: list[int] = []
        for o in order:
            if isinstance(o, str):
                if o not in pra.dim_names:
                    raise SpecError(f"--order: {pra.name} has no dim {o!r} "
                                    f"(dims: {', '.join(pra.dim_names)})")
                idx.append(pra.dim_names.index(o))
            else:
                idx.append(int(o))
        if sorted(idx) != list(range(pra.n)):
            raise SpecError(f"--order: {list(order)} is not a permutation of the {pra.n} dims")
        c = _candidate(pra, tiling, tuple(idx), int(pi), timing, deps, mins, ranges)
        return Schedule(pra, tiling, int(pi), int(w), [c], c, auto=False)
    cands: list[Candidate] = []
    errors: list[str] = []
    for perm in itertools.permutations(range(pra.n)):
        try:
            cands.append(_candidate(pra, tiling, perm, int(pi), timing, deps, mins, ranges))
        except InfeasibleSchedule as e:
            errors.append(str(e))
    if not cands:
        raise InfeasibleSchedule(errors[0] if errors else f"{pra.name}: no scanning order")
    chosen = cands[0]
    for c in cands:
        if all(o is c or not _nonneg(c.latency_formula - o.latency_formula, {**mins})
               for o in cands):
            chosen = c
            break
    return Schedule(pra, tiling, int(pi), int(w), cands, chosen, auto=True)


def kernel_schedules(kernel: Kernel, array: tuple[int, ...], tile: tuple[int, ...] | None = None,
                     pi: int = 1, w: int = 1, order: Sequence[int | str] | None = None,
                     op_latency: Mapping[str, int] | None = None) -> list[Schedule]:
    """One schedule per phase (a tile or order is used only by phases with as many dims)."""
    key = (kernel.phases, tuple(array), tile, pi, w, tuple(order) if order is not None else None,
           tuple(sorted((op_latency or {}).items())))
    hit = _CACHE.get(key)
    if hit is not None:
        return list(hit)
    out = []
    for pra in kernel.phases:
        tl = Tiling.of(pra, array, tile if tile is not None and len(tile) == pra.n else None)
        o = order if order is not None and len(order) == pra.n else None
        out.append(derive_schedule(pra, tl, pi, w, o, op_latency))
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = tuple(out)
    return out


_CACHE: dict[Any, tuple[Schedule, ...]] = {}


def kernel_latency(schedules: Sequence[Schedule], values: Mapping[str, int]) -> int:
    """Phases run one after another: their latencies add."""
    return sum(s.latency({p: values[p] for p in s.pra.params}) for s in schedules)
