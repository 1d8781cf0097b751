"""Compiled vectorised evaluation: one generated numpy function per analysed phase.

``Formula.evaluate`` interprets every piece, condition and monomial for each call, which
caps ``Analysis.evaluate_many`` near 0.6 M design points/s. A sweep evaluates the same few
formulas on millions of points, so this module turns each phase's formulas into one Python
function once: shared linear forms and conditions are computed once (common-subexpression
elimination across all volumes), conditions the validated domain already guarantees
(``t >= 1``, ``1 <= r <= p``, ``p >= 1``, parameters at their minimum) are dropped, the
polynomials are factored, and the points are processed in cache-sized chunks.

Exactness is kept: integer ``//`` floors, integer numerators divided exactly by the piece
denominator, and a per-call magnitude bound on every intermediate; when int64 could
overflow the phase falls back to ``Formula.evaluate`` (Python integers). Results equal
``Analysis.evaluate_many`` (counts bit-exact, energies to float rounding).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np
import sympy

from polyjoule.analysis.analyze import Analysis, PhaseAnalysis
from polyjoule.analysis.counts import symbolic_env
from polyjoule.analysis.exact import exact, narrow, scaled, top_of
from polyjoule.analysis.formula import Formula
from polyjoule.analysis.intprint import VECTOR_ENV, Int64Guard, compile_source, int_source, safe_top
from polyjoule.errors import SpecError
from polyjoule.mapping.legality import phase_verdict
from polyjoule.mapping.tiling import min_tile
from polyjoule.targets.tcpa.array import ProcessorArray
from polyjoule.targets.tcpa.locations import CLASSES

_SAFE = 2**62
CHUNK = 1 << 15


def _bound(e: sympy.Expr, m: Mapping[sympy.Symbol, int]) -> int:
    """An upper bound on |e| (and every intermediate) when each symbol is at most m[s]."""
    if e.is_Integer:
        return abs(int(e))
    if e.is_Symbol:
        return m[e]
    if e.is_Add:
        return sum(_bound(a, m) for a in e.args)
    if e.is_Mul:
        out = 1
        for a in e.args:
            out *= _bound(a, m)
        return out
    if e.is_Pow:
        return _bound(e.args[0], m) ** int(e.args[1])
    raise AssertionError(f"unexpected expression {e!r}")


@dataclass
class _Gen:
    lines: list[str]
    names: dict[tuple[Any, ...], str]

    def name(self, key: tuple[Any, ...], text: str) -> str:
        if key not in self.names:
            n = f"_v{len(self.names)}"
            self.names[key] = n
            self.lines.append(f"    {n} = {text}")
        return self.names[key]


class CompiledPhase:
    """Generated code for the volumes of one symbolic phase."""

    def __init__(self, ph: PhaseAnalysis):
        assert ph.volumes is not None
        self.phase = ph
        self.formulas: list[Formula] = [v.formula for v in ph.volumes]
        vars_: list[str] = []
        for f in self.formulas:
            for v in f.vars:
                if v not in vars_:
                    vars_.append(v)
        self.vars = vars_
        self.lower = self._lower_bounds(ph)
        self.source, self.bound_exprs = self._generate()

    @cached_property
    def fn(self) -> Any:
        """The generated function, compiled on first use."""
        return compile_source(self.source, "_volumes", {"np": np}, f"volumes {self.phase.pra.name}")

    @staticmethod
    def _lower_bounds(ph: PhaseAnalysis) -> dict[str, int]:
        """Lower bounds every validated environment satisfies (used to drop conditions)."""
        need = min_tile(ph.pra)
        lo: dict[str, int] = dict(ph.pra.param_min)
        for g in ph.groups:
            lo[g.p] = max(1, max(need[l] for l in g.dims))
            lo[g.t] = 1
            lo[g.r] = 1
            for q in g.others:
                lo[g.r_of(q)] = 1
                if (least := g.least_count(lo.get(q))) is not None:
                    lo[g.t_of(q)] = least
        return lo

    def _always(self, coeffs: tuple[int, ...], vars_: tuple[str, ...], const: int,
                dcoeffs: tuple[int, ...]) -> bool:
        """Is ``coeffs.vars + const >= 0`` implied by the validated domain?"""
        if any(dcoeffs):
            return False
        nz = [(c, v) for c, v in zip(coeffs, vars_, strict=True) if c]
        if len(nz) == 1:
            c, v = nz[0]
            return c == 1 and v in self.lower and self.lower[v] + const >= 0
        if len(nz) == 2 and const >= 0:
            (c1, v1), (c2, v2) = sorted(nz)
            # p - r >= 0 within one group
            return (c1, c2) == (-1, 1) and v1[0] == "r" and v2[0] == "p" and v1[1:] == v2[1:]
        return False

    def _generate(self) -> tuple[str, list[tuple[sympy.Expr, dict[str, Any]]]]:
        g = _Gen([], {})
        syms = {v: sympy.Symbol(v, integer=True) for v in self.vars}
        results: list[list[str]] = [[] for _ in self.formulas]
        pending: list[tuple[int, sympy.Expr, int, str | None]] = []
        bounds: list[tuple[sympy.Expr, dict[str, Any]]] = []
        for fi, f in enumerate(self.formulas):
            for piece in f.pieces:

                def lin(coeffs: tuple[int, ...], const: int, f: Formula = f) -> tuple[tuple[Any, ...], str]:
                    items = tuple(sorted((v, c) for c, v in zip(coeffs, f.vars, strict=False) if c))
                    key = ("lin", items, const)
                    text = " + ".join(f"({c})*{v}" if c != 1 else v for v, c in items) or "0"
                    if const:
                        text += f" + ({const})"
                    return key, text

                divnames: list[str] = []
                for d in piece.divs:
                    key, text = lin(d.coeffs, d.const)
                    ln = g.name(key, text) if key[1] else text
                    divnames.append(g.name(("div", key, d.den), f"({ln}) // {d.den}"))
                conj_names: list[str] = []
                trivially_true = False
                for conj in piece.domain:
                    cnames: list[str] = []
                    for c in conj:
                        if not c.eq and self._always(c.coeffs, f.vars[: len(c.coeffs)], c.const, c.dcoeffs):
                            continue
                        key, text = lin(c.coeffs, c.const)
                        dtext = " + ".join(f"({dc})*{divnames[k]}" for k, dc in enumerate(c.dcoeffs) if dc)
                        full = key + (tuple(zip(divnames, c.dcoeffs, strict=False)),)
                        body = g.name(full, text + (f" + {dtext}" if dtext else ""))
                        op = "==" if c.eq else ">="
                        cnames.append(g.name(("cond", full, c.eq), f"{body} {op} 0"))
                    if not cnames:
                        trivially_true = True
                        break
                    cnames = sorted(set(cnames))
                    conj_names.append(
                        cnames[0] if len(cnames) == 1
                        else g.name(("and", tuple(cnames)), " & ".join(cnames)))
                mask = None
                if not trivially_true:
                    if not conj_names:
                        continue  # empty domain
                    conj_names = sorted(set(conj_names))
                    mask = (conj_names[0] if len(conj_names) == 1
                            else g.name(("or", tuple(conj_names)), " | ".join(conj_names)))
                # polynomial (emitted after the loop, with CSE across all pieces)
                dsyms = [sympy.Symbol(n, integer=True) for n in divnames]
                allx = [syms[v] for v in f.vars] + dsyms
                poly = sympy.Add(*(c * sympy.Mul(*(x**e for x, e in zip(allx, ex, strict=True)))
                                   for c, ex in piece.terms))
                expr = sympy.factor(poly)
                bounds.append((expr, {"divs": [(d, n) for d, n in zip(piece.divs, divnames, strict=True)],
                                      "vars": f.vars}))
                pending.append((fi, expr, piece.den, mask))
        subs, reduced = sympy.cse([e for _, e, _, _ in pending],
                                  symbols=sympy.numbered_symbols("_c"), optimizations="basic")
        for sym, sub in subs:
            g.lines.append(f"    {sym} = {int_source(sub)}")
        for (fi, _, den, mask), expr in zip(pending, reduced, strict=True):
            num = g.name(("poly", str(expr)), int_source(expr))
            val = num if den == 1 else g.name(("den", num, den), f"{num} // {den}")
            if mask is not None:
                val = g.name(("where", mask, val), f"np.where({mask}, {val}, 0)")
            results[fi].append(val)
        head = f"def _volumes({', '.join(self.vars)}):"
        rets = [" + ".join(r) if r else "0" for r in results]
        body = g.lines + [f"    return [{', '.join(rets)}]"]
        return "\n".join([head, *body]) + "\n", bounds

    _SYMS: dict[str, sympy.Symbol] = {}

    @classmethod
    def _sym(cls, name: str) -> sympy.Symbol:
        s = cls._SYMS.get(name)
        if s is None:
            s = cls._SYMS[name] = sympy.Symbol(name, integer=True)
        return s

    def safe(self, maxima: Mapping[str, int]) -> bool:
        """Can every intermediate stay below 2**62 when each var is at most ``maxima``?"""
        base = {self._sym(v): int(maxima[v]) for v in self.vars}
        for expr, info in self.bound_exprs:
            m = dict(base)
            for d, name in info["divs"]:
                lin = sum(abs(c) * int(maxima[v]) for c, v in zip(d.coeffs, info["vars"], strict=False))
                m[self._sym(name)] = (lin + abs(d.const)) // d.den + 1
            if _bound(expr, m) * 64 >= _SAFE:  # headroom for sums of volumes x accesses
                return False
        return True

    def volumes(self, env: Mapping[str, Any]) -> list[Any]:
        """Every case's volume (int64 arrays), exact; Python ints if int64 could overflow."""
        xs = {v: np.asarray(env[v], dtype=np.int64) for v in self.vars}
        maxima = {v: int(np.max(np.abs(x))) if x.size else 0 for v, x in xs.items()}
        if not self.safe(maxima):
            return [np.asarray(f.evaluate({v: xs[v].astype(object) for v in self.vars}), dtype=object)
                    for f in self.formulas]
        return self.fn(*(xs[v] for v in self.vars))


_MEMO: dict[tuple[Any, ...], CompiledPhase] = {}


def _compiled_phase(ph: PhaseAnalysis) -> CompiledPhase:
    """Compiled code is reused for the same PRA and formulas (a sweep over tiles/orders)."""
    assert ph.volumes is not None
    key = (repr(ph.pra), tuple(v.formula for v in ph.volumes), tuple(g for g in ph.groups))
    cp = _MEMO.get(key)
    if cp is None:
        cp = _MEMO[key] = CompiledPhase(ph)
        return cp
    if cp.phase is not ph:  # same code, this phase's tiling (tile sizes) for evaluation
        clone = object.__new__(CompiledPhase)
        clone.__dict__.update(cp.__dict__)
        clone.phase = ph
        return clone
    return cp


class CompiledAnalysis:
    """Fast ``evaluate_many`` for an :class:`Analysis` whose phases are all symbolic."""

    def __init__(self, a: Analysis):
        if any(ph.volumes is None for ph in a.phases):
            raise NotImplementedError("compiled evaluation needs symbolic tiles")
        self.analysis = a
        self.phases = [_compiled_phase(ph) for ph in a.phases]
        self.ops = sorted({op for ph in a.phases for v in ph.volumes or []
                           if v.case.statement.kind == "compute" and v.case.statement.expr
                           for op, _ in v.case.statement.expr.ops})

    def counts(self, values: Mapping[str, Any], chunk: int = CHUNK) -> dict[str, np.ndarray]:
        """Per-class access counts, ``ops.<op>`` and ``work`` (loop-body iterations).

        int64 arrays; object arrays of Python ints when int64 could overflow (exact either way).

        ``work`` is, per phase, the volume of the compute statement executed most often (the
        loop body: one MAC per point for GEMM; in a copy nest, of any statement:
        :meth:`~polyjoule.model.pra.PRA.counts_as_work`), summed over phases.
        """
        arrays = {k: np.asarray(v, dtype=np.int64) for k, v in values.items()}
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        flat = {k: np.broadcast_to(a, shape).reshape(-1) for k, a in arrays.items()}
        n = int(np.prod(shape)) if shape else 1
        keys = [*CLASSES, *(f"ops.{o}" for o in self.ops), "work"]
        out = {k: np.zeros(n, dtype=np.int64) for k in keys}
        a = self.analysis
        for lo in range(0, max(n, 1), chunk):
            hi = min(n, lo + chunk)
            part = {k: v[lo:hi] for k, v in flat.items()}
            for cp in self.phases:
                ph = cp.phase
                vals = {p: part[p] for p in ph.pra.params}
                sizes = a.tile_sizes(ph, vals)
                env = symbolic_env(ph.pra, ph.tiling, ph.groups, vals, sizes)
                vols = cp.volumes(env)
                if any(np.asarray(x).dtype == object for x in vols) and out["work"].dtype != object:
                    out = {k: v.astype(object) for k, v in out.items()}  # exact Python integers
                work: Any = 0
                for v, cnt in zip(ph.volumes or [], vols, strict=True):
                    cnt = np.asarray(cnt)
                    if cnt.dtype != object:
                        cnt = cnt.astype(np.int64)
                    for c, k in v.case.accesses.items():
                        out[c][lo:hi] += cnt * k
                    s = v.case.statement
                    if s.kind == "compute":
                        assert s.expr is not None
                        for op, m in s.expr.ops:
                            out[f"ops.{op}"][lo:hi] += cnt * m
                    if ph.pra.counts_as_work(s):
                        work = np.maximum(work, cnt)
                out["work"][lo:hi] += work
        return {k: v.reshape(shape) for k, v in out.items()}

    def evaluate_many(self, values: Mapping[str, Any], table: Any = None) -> dict[str, np.ndarray]:
        """Counts plus ``energy.<class>``, ``energy.op.<op>``, ``energy.compute``,
        ``energy_pj``; ``table`` (an EnergyTable) overrides the analysis's table."""
        c = self.counts(values)
        a = self.analysis
        decl = a.machine if table is None else replace(a.machine, energy=table)
        return {**c, **energies(c, decl, [ph.pra.dtype for ph in a.phases])}


def energies(counts: Mapping[str, np.ndarray], array: ProcessorArray,
             dtypes: Sequence[str]) -> dict[str, np.ndarray]:
    """Dynamic energies (float64 pJ) from integer counts: access counts x the declaration's
    pJ per access of a word of the kernel's data type (``ProcessorArray.access_pj``), op
    counts x pJ per operation on that data type.

    Energy is linear in the counts, so one set of counts serves every energy table. Op
    counts are summed over phases, so the phases must share one data type.
    """
    if len(set(dtypes)) > 1:
        raise SpecError(f"energy: phases with different data types {sorted(set(dtypes))}: "
                        "op energies need one data type per kernel")
    dtype = dtypes[0]
    res: dict[str, np.ndarray] = {}
    total: Any = 0.0
    for c in CLASSES:
        e = scaled(counts[c], array.access_pj(c, dtype))
        res[f"energy.{c}"] = e
        total = total + e
    comp: Any = 0.0
    for k in sorted(counts):  # the order analyze sums them in
        if k.startswith("ops."):
            op = k[4:]
            e = scaled(counts[k], array.energy.op(dtype, op))
            res[f"energy.op.{op}"] = e
            comp = comp + e
    res["energy.compute"] = comp + np.zeros_like(total)
    res["energy_pj"] = total + comp
    return res


@dataclass
class CompiledLatency:
    """Vectorised latency of a schedule: all candidate formulas in one generated function.

    ``Schedule.latency_many`` evaluates each scanning-order candidate separately; their
    formulas share most floors and remainders (``floor((N-1)/p)``, ``Mod(N-1, p)``), so here
    every floor/remainder is computed once, the polynomial rest goes through common
    subexpression elimination, and the minimum over candidates is taken in place. Points
    where no order is feasible (:meth:`Schedule.verdict`) are ``-1``, as in
    ``Schedule.latency_many``. ``fn`` is ``None`` when the schedule's own evaluation is used
    (per-point ILP terms, or a generated function that failed its check).
    """

    schedule: Any
    fn: Any = None
    source: str = ""
    _limit: int | None = None  # safe_top of the schedule's own formulas (``fn`` is None)

    def __call__(self, values: Mapping[str, Any], legal: np.ndarray | None = None) -> np.ndarray:
        """Latency per point, ``-1`` where :func:`~polyjoule.mapping.legality.phase_verdict`
        refuses it (``legal``: that verdict's mask when the caller already has it).

        int64 when no intermediate can leave it (:class:`~polyjoule.analysis.intprint.Int64Guard`),
        else exact Python integers (an object array; :func:`~polyjoule.analysis.intprint.narrow`
        returns int64 again when every latency fits)."""
        s = self.schedule
        arrays = {k: np.asarray(values[k], dtype=np.int64) for k in s.pra.params}
        if self.fn is None:
            return self._own(arrays)
        p = [np.maximum(x, 1) for x in s.tiling.sizes_many(s.pra, arrays)]
        extents = [np.asarray(d.extent.evaluate(arrays)) for d in s.pra.dims]
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        if legal is None:
            legal = phase_verdict(s.pra, s.tiling, arrays, s).ok
        args = [*(arrays[k] for k in s.pra.params), *p]
        fast = self.fn.fits(args)
        big: Any = np.iinfo(np.int64).max if fast else float("inf")
        best = np.full(shape, big, dtype=np.int64 if fast else object)
        for c, lat in zip(s.pool, self.fn.fn(*(args if fast else map(exact, args))), strict=True):
            ok = c.feasible(extents, p)
            if np.ndim(ok) == 0 and bool(ok):
                best = np.minimum(best, lat, out=best) if fast else np.minimum(best, lat)
            else:
                best = np.where(ok, np.minimum(best, lat), best)
        return narrow(np.where(legal & (best < big), best, -1))

    def _own(self, arrays: Mapping[str, np.ndarray]) -> np.ndarray:
        """The schedule's own vectorised evaluation; point by point (Python integers) when
        an intermediate could leave int64 there."""
        s = self.schedule
        p = [np.maximum(x, 1) for x in s.tiling.sizes_many(s.pra, arrays)]
        if self._limit is None:  # once: a walk over the (large) formulas
            self._limit = safe_top([c.latency_formula for c in s.pool])
        if top_of([*arrays.values(), *p]) <= self._limit:
            return np.asarray(s.latency_many(arrays), dtype=np.int64)
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        full = {k: np.broadcast_to(a, shape) for k, a in arrays.items()}
        legal = phase_verdict(s.pra, s.tiling, arrays, s).ok
        out = np.full(shape, -1, dtype=object)
        for idx in zip(*np.nonzero(np.broadcast_to(legal, shape)), strict=True):
            out[idx] = s.latency({k: int(a[idx]) for k, a in full.items()})
        return narrow(out)


def _replace(e: Any, repl: Mapping[Any, sympy.Symbol]) -> Any:
    """``e.xreplace(repl)`` without re-evaluating ``Max``/``Min`` (whose argument sorting is
    exponential on the large latency formulas of deep nests)."""
    if e in repl:
        return repl[e]
    if not e.args:
        return e
    args = [_replace(a, repl) for a in e.args]
    if all(a is b for a, b in zip(args, e.args, strict=True)):
        return e
    try:
        return e.func(*args, evaluate=False)
    except TypeError:
        return e.func(*args)


def latency_source(schedule: Any) -> str:
    """The generated latency function's source: shared floors/remainders and CSE; it returns
    one latency per scanning order (which orders are feasible differs from point to point)."""
    pra = schedule.pra
    exprs = [c.latency_formula for c in schedule.pool]
    names = [*pra.params, *(f"p{l}" for l in range(pra.n))]
    lines: list[str] = []
    atoms: dict[str, sympy.Symbol] = {}
    repl: dict[sympy.Expr, sympy.Symbol] = {}
    for e in exprs:
        for a in sympy.preorder_traversal(e):
            if isinstance(a, sympy.floor | sympy.ceiling | sympy.Mod) and a not in repl:
                text = int_source(a)
                if text not in atoms:
                    atoms[text] = sympy.Symbol(f"_a{len(atoms)}", integer=True)
                    lines.append(f"    {atoms[text]} = {text}")
                repl[a] = atoms[text]
    flat = [_replace(e, repl) for e in exprs]
    subs, reduced = sympy.cse(flat, symbols=sympy.numbered_symbols("_s"))
    for sym, sub in subs:
        lines.append(f"    {sym} = {int_source(sub)}")
    body = "[" + ", ".join(int_source(r) for r in reduced) + "]"
    return f"def _lat({', '.join(names)}):\n" + "\n".join(lines) + f"\n    return {body}\n"


#: Above this many formula nodes (all orders together; a 4-deep nest like heat-3d has ~35k,
#: GEMM 300) common-subexpression elimination costs tens of seconds: the schedule's own
#: per-order functions are used instead.
MAX_SHARED_NODES = 5000


def _size(schedule: Any) -> int:
    return sum(sum(1 for _ in sympy.preorder_traversal(c.latency_formula)) for c in schedule.pool)


def compile_latency(schedule: Any) -> CompiledLatency:
    """Generate, compile and check the latency function of ``schedule``.

    Exactness is checked against the schedule's own evaluation on sample points; any
    failure (or a formula with per-point ILP terms) falls back to ``Schedule.latency_many``.
    """
    if any(c.coupled for c in schedule.pool) or _size(schedule) > MAX_SHARED_NODES:
        return CompiledLatency(schedule)
    try:
        src = latency_source(schedule)
        fn = compile_source(src, "_lat", VECTOR_ENV, f"latency {schedule.pra.name}")
        out = CompiledLatency(schedule, Int64Guard(fn, [c.latency_formula for c in schedule.pool]), src)
        _selfcheck(out)
    except Exception:  # noqa: BLE001 - any codegen problem means: use the schedule's own code
        return CompiledLatency(schedule)
    return out


def _selfcheck(cl: CompiledLatency) -> None:
    s = cl.schedule
    rng = np.random.default_rng(7)
    lo = dict(s.pra.param_min)
    t = max(s.tiling.t)
    vals = {p: rng.integers(max(lo.get(p, 1), t, 2), max(lo.get(p, 1), t, 2) + 200, 24) for p in s.pra.params}
    if not np.array_equal(cl(vals), s.latency_many(vals)):
        raise AssertionError("compiled latency differs from the schedule's")
