"""``analyze``: derive every volume of a kernel once, then evaluate energy for any sizes.

Derivation (Barvinok) happens once per kernel and mapping; evaluation is exact integer
arithmetic on compiled formulas, for Python scalars or numpy arrays of design points.
Prices come from the array declaration (``docs/arch.md``): dynamic energy per access of a
word of the kernel's data type and per operation on it, static energy from the leakage of
every component over the schedule's latency at the declared clock
(:mod:`polyjoule.targets.tcpa.power`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from polyjoule.analysis.counts import Group, NotSymbolic, Volume, derive, groups_of, symbolic_env
from polyjoule.analysis.formula import Formula
from polyjoule.errors import ParameterRangeError, UnknownNameError
from polyjoule.mapping.legality import Verdict, kernel_verdict, phase_verdict, refusal
from polyjoule.mapping.tiling import Tiling, cases
from polyjoule.model.pra import PRA, Kernel
from polyjoule.targets.tcpa.array import ProcessorArray, default_array
from polyjoule.targets.tcpa.energy import EnergyTable
from polyjoule.targets.tcpa.locations import CLASSES
from polyjoule.targets.tcpa.power import PowerSummary, power_columns, power_summary

if TYPE_CHECKING:
    import sympy


def r_subst(pra: PRA, groups: list[Group]) -> dict[sympy.Symbol, sympy.Expr]:
    """``r = E - p*(t-1)``: show formulas in loop bounds, tile sizes and tile counts; another
    parameter written in a tile size, ``P = p*(t_P - 1) + r_P``, shows as ``P`` and
    ``ceiling(P/p)``."""
    import sympy

    sub = {}
    for g in groups:
        p, t = sympy.Symbol(g.p, integer=True), sympy.Symbol(g.t, integer=True)
        sub[sympy.Symbol(g.r, integer=True)] = pra.dims[g.index].extent.sympy() - p * (t - 1)
        for q in g.others:
            whole = sympy.Symbol(q, integer=True)
            tq = sympy.ceiling(whole / p)
            sub[sympy.Symbol(g.r_of(q), integer=True)] = whole - p * (tq - 1)
            sub[sympy.Symbol(g.t_of(q), integer=True)] = tq
    return sub


def display(f: Formula, pra: PRA, groups: list[Group]) -> str:
    """A readable formula in loop bounds ``N``, tile sizes ``p`` and tile counts ``t``."""
    parts = display_pieces(f, pra, groups)
    if not parts:
        return "0"
    if len(parts) == 1:  # its condition is where the case has points: mostly where it is 0
        return parts[0][0]
    return conditional(parts)


def conditional(parts: Sequence[tuple[str, str]]) -> str:
    """Pieces written with their conditions: ``e1 if c1; e2 if c2; else 0``."""
    return "; ".join(f"{e} if {c}" for e, c in parts) + "; else 0"


def display_pieces(f: Formula, pra: PRA, groups: list[Group]) -> tuple[tuple[str, str], ...]:
    """(expression, condition) of each piece of ``f`` as :func:`display` writes them."""
    return tuple(display_piece(f, pra, groups, i) for i in range(len(f.pieces)))


def display_piece(f: Formula, pra: PRA, groups: list[Group], i: int) -> tuple[str, str]:
    """(expression, condition) of piece ``i`` of ``f``: a table that shows the piece holding
    at its point writes that piece alone (sympy takes 0.1 s for a band window's piece with
    floors of remainders; a case has a dozen)."""
    return _display_piece(f, pra, tuple(groups), i)


@lru_cache(maxsize=4096)
def _display_piece(f: Formula, pra: PRA, groups: tuple[Group, ...], i: int) -> tuple[str, str]:
    """:func:`display_piece`, once per piece (analyses of one kernel on one array share
    their formulas)."""
    import sympy

    sub = r_subst(pra, list(groups))
    poly, conjs = Formula(f.vars, (f.pieces[i],)).piece_parts()[0]
    e = sympy.factor_terms(sympy.expand(poly.xreplace(sub)))
    cond = " or ".join(
        " and ".join(f"{sympy.expand(x.xreplace(sub))} {'=' if eq else '>='} 0" for x, eq in conj)
        or "true" for conj in conjs)
    return str(e), cond


def latex(f: Formula, pra: PRA, groups: list[Group]) -> str:
    import sympy

    sub = r_subst(pra, groups)
    pieces = [(sympy.factor_terms(sympy.expand(poly.xreplace(sub))), cond.xreplace(sub))
              for poly, cond in f.piece_exprs()]
    if len(pieces) == 1:
        return sympy.latex(pieces[0][0])
    return sympy.latex(sympy.Piecewise(*pieces, (0, True)))


@dataclass
class PhaseAnalysis:
    """One PRA phase: its tiling, derivation mode and volumes."""

    pra: PRA
    tiling: Tiling
    mode: str  # "symbolic" or "fixed"
    groups: list[Group]
    volumes: list[Volume] | None  # symbolic mode: derived once
    _fixed: dict[tuple[int, ...], list[Volume]] = field(default_factory=dict)
    _display: dict[tuple[int, tuple[int, ...] | None], str] = field(default_factory=dict)

    def volumes_for(self, sizes: tuple[int, ...]) -> list[Volume]:
        if self.volumes is not None:
            return self.volumes
        if sizes not in self._fixed:
            self._fixed[sizes] = derive(self.pra, self.tiling, fixed=sizes)[0]
        return self._fixed[sizes]

    def formula_text(self, k: int, sizes: tuple[int, ...]) -> str:
        """Display text of case ``k`` (per tile sizes in fixed mode), built once."""
        key = (k, sizes if self.volumes is None else None)
        if key not in self._display:
            f = self.volumes_for(sizes)[k].formula
            if self._summarised(f):
                terms = sum(len(p.terms) for p in f.pieces)
                self._display[key] = (
                    f"quasi-polynomial in {', '.join(self.pra.params)}: {len(f.pieces)} "
                    f"piece{'s' * (len(f.pieces) > 1)}, {terms} terms "
                    f"(tiles {','.join(map(str, sizes))}; --latex)")
            else:
                self._display[key] = display(f, self.pra, self.groups)
        return self._display[key]

    def _summarised(self, f: Formula) -> bool:
        """Whether the text of ``f`` is a summary (:data:`FIXED_TERMS_SHOWN`)."""
        return self.volumes is None and sum(len(p.terms) for p in f.pieces) > FIXED_TERMS_SHOWN

    def piece_here(self, k: int, sizes: tuple[int, ...], env: Mapping[str, int]
                   ) -> PieceHere | None:
        """The piece of case ``k``'s formula that holds at ``env`` (its point), for a table
        that shows that piece alone; None when the formula is not piecewise or its text is
        a summary."""
        f = self.volumes_for(sizes)[k].formula
        if not f.pieces or self._summarised(f):
            return None
        i = f.piece_at(env)
        if len(f.pieces) == 1 and i is not None:
            return None  # the formula as shown holds here
        text = "0" if i is None else display_piece(f, self.pra, self.groups, i)[0]
        return PieceHere(text, None if i is None else i + 1, len(f.pieces))

    def row_text(self, k: int, sizes: tuple[int, ...], here: PieceHere | None) -> str:
        """Case ``k``'s formula for a row: a single piece that does not hold at the row's
        point is written with its condition (shown bare, it would not be 0 there)."""
        if here is not None and here.pieces == 1:
            f = self.volumes_for(sizes)[k].formula
            return conditional(display_pieces(f, self.pra, self.groups))
        return self.formula_text(k, sizes)


@dataclass(frozen=True)
class PieceHere:
    """The piece of a piecewise case formula that holds at the evaluated point."""

    text: str  # its expression; "0" where no piece holds (the formula's ``else 0``)
    number: int | None  # from 1, in the formula's order; None: the ``else 0``
    pieces: int  # the formula's pieces, its ``else 0`` not counted


#: a fixed-tile formula (no closed form in the tile sizes) longer than this is summarised in
#: tables: a banded kernel's runs to pages of floors, and sympy takes seconds to print it
FIXED_TERMS_SHOWN = 48


@dataclass(frozen=True)
class VolumeRow:
    phase: str
    statement: str
    text: str
    case: str
    cls: str
    #: the case formula's text, or how to write it: on demand, since a table that shows the
    #: piece holding here never asks for the whole (sympy writes every piece: seconds)
    written: str | Callable[[], str]
    value: int
    energy_pj: float
    here: PieceHere | None = None  # a piecewise formula's piece at this point (tables)

    @property
    def formula(self) -> str:
        if callable(self.written):
            object.__setattr__(self, "written", self.written())
        assert isinstance(self.written, str)
        return self.written


@dataclass(frozen=True)
class Result:
    """Counts, energies and volumes of one design point."""

    values: dict[str, int]
    tile_sizes: dict[str, tuple[int, ...]]
    counts: dict[str, Any]  # RD..DR -> int, "ops" -> {op: int}
    #: total (dynamic + static), dynamic (by_class and by_op add up to it), static (leakage)
    energy_pj: dict[str, Any]
    volumes: list[VolumeRow]
    modes: dict[str, str]
    schedule: list[dict[str, Any]]  # per phase: order, lambda_J/K, latency and its formula
    latency_cycles: int  # phases one after another
    clock_mhz: float
    iterations: int  # loop-body iterations (``work``)
    utilisation: float  # iterations / (PEs x latency): busy PE-cycles at pi = 1
    power: PowerSummary  # dynamic vs static energy, power, throughput, energy per op
    #: the schedule's latency where ``latency_cycles`` is stretched to the DRAM's bandwidth
    #: (``evaluate(bandwidth_bound=True)`` and the DRAM the slower); else None
    schedule_latency_cycles: int | None = None

    def to_pandas(self, table: str = "volumes") -> Any:
        """A pandas DataFrame (the ``pandas`` extra): ``volumes`` (one row per case, the JSON's
        ``volumes``) or ``totals`` (one row, the columns of a sweep point)."""
        from polyjoule.analysis.frames import result_frame

        return result_frame(self, table)

    def to_csv(self) -> str:
        """The per-case table as CSV text (``analyze --csv``), exact values."""
        from polyjoule.analysis.frames import volumes_csv

        return volumes_csv(self)

    def to_json(self) -> dict[str, Any]:
        """The analysis part of ``polyjoule analyze --json`` (README.md)."""
        return {
            "values": self.values,
            "tile_sizes": {k: list(v) for k, v in self.tile_sizes.items()},
            "counts": self.counts,
            "energy_pj": self.energy_pj,
            "volumes": [
                {"phase": r.phase, "statement": r.statement, "text": r.text, "case": r.case,
                 "class": r.cls, "formula": r.formula, "value": r.value, "energy_pj": r.energy_pj}
                for r in self.volumes
            ],
            "modes": self.modes,
            "schedule": self.schedule,
            "latency_cycles": self.latency_cycles,
            "clock_mhz": self.clock_mhz,
            **self.power.to_json(),
            "iterations": self.iterations,
            "utilisation": self.utilisation,
            **({} if self.schedule_latency_cycles is None
               else {"schedule_latency_cycles": self.schedule_latency_cycles}),
        }


def case_energy(vol: Volume, pra: PRA, array: ProcessorArray) -> tuple[dict[str, float], dict[str, float]]:
    """Energy of one execution of a case, split by location class and by op: accesses of a
    word of the phase's data type (its width: ``array.word_bits``) and ops on it."""
    by_class = {c: n * array.access_pj(c, pra.dtype) for c, n in vol.case.accesses.items()}
    by_op: dict[str, float] = {}
    s = vol.case.statement
    if s.kind == "compute":
        assert s.expr is not None
        for op, n in s.expr.ops:
            by_op[op] = n * array.energy.op(pra.dtype, op)
    return by_class, by_op


def check_parameters(kernel: Kernel, values: Mapping[str, Any]) -> None:
    """Every parameter of ``kernel`` given and no other: named errors, never a ``KeyError``."""
    known = ", ".join(kernel.params)
    unknown = [k for k in values if k not in kernel.params]
    if unknown:
        raise UnknownNameError(f"parameters: {kernel.name} has no parameter "
                               f"{', '.join(map(str, unknown))} (parameters: {known})")
    missing = [p for p in kernel.params if p not in values]
    if missing:
        raise ParameterRangeError(f"parameters: {kernel.name}: {', '.join(missing)} not set "
                                  f"(parameters: {known})")
    for p in kernel.params:
        _check_whole(p, values[p])


def _check_whole(name: str, value: Any) -> None:
    """A size is a whole number: ``N=2.5`` was truncated to 2 without a word."""
    v = np.asarray(value)
    if v.dtype.kind in "iu":
        return
    try:
        x = v.astype(np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ParameterRangeError(f"parameters: {name}={value!r} is not an integer") from None
    bad = np.flatnonzero(~np.isfinite(x) | (x != np.round(x)))
    if bad.size:
        raise ParameterRangeError(f"parameters: {name}={float(x[bad[0]])!r} is not an integer")


@dataclass
class Analysis:
    """A kernel analysed for one array (and optional tile sizes); evaluate it for any sizes."""

    kernel: Kernel
    array: tuple[int, int]
    tile: tuple[int, ...] | None
    table: EnergyTable
    phases: list[PhaseAnalysis]
    derive_seconds: float  # obtaining the formulas: derived, or read from the cache
    declaration: ProcessorArray | None = None  # clock, leakage, widths; ``table`` its energies
    #: scanning order, dims innermost first (phases with as many dims); None: the best
    #: feasible order per phase and point
    order: tuple[str, ...] | None = None
    _compiled: Any = field(default=None, repr=False)
    _schedules: list[Any] | None = field(default=None, repr=False)

    @property
    def machine(self) -> ProcessorArray:
        """The declaration that prices this analysis (its energies are ``table``)."""
        decl = self.declaration or default_array(self.array)
        return decl if decl.energy is self.table else replace(decl, energy=self.table)

    @staticmethod
    def _check_domain(ph: PhaseAnalysis, values: Mapping[str, Any]) -> None:
        """Every parameter given, none below its minimum: bad input otherwise."""
        ph.pra.check_params(values)
        for p, lo in ph.pra.param_min:
            if np.any(np.asarray(values[p]) < lo):
                raise ParameterRangeError(f"parameters: {p} below its minimum {lo}")

    def tile_sizes(self, ph: PhaseAnalysis, values: Mapping[str, Any]) -> tuple[Any, ...]:
        """Tile sizes per dim at ``values`` (ints or arrays), after checking the domain the
        formulas hold on: parameter minima and the tiling rules of
        :mod:`polyjoule.mapping.legality`. Outside it: an error, never a silent 0."""
        pra = ph.pra
        self._check_domain(ph, values)
        why = phase_verdict(pra, ph.tiling, values).first()
        if why is not None:
            if why.cause == "empty-dimension":
                raise ParameterRangeError(f"parameters: {why.detail}")
            raise refusal(why, [(pra, ph.tiling)], values)
        sizes = ph.tiling.sizes_many(pra, values)
        if all(np.ndim(p) == 0 for p in sizes):
            return tuple(int(p) for p in sizes)
        return tuple(sizes)

    def schedules(self) -> list[Any]:
        """Per phase: its schedule (pi = w = 1; ``Unschedulable`` when no order exists)."""
        if self._schedules is None:
            from polyjoule.analysis.schedule import kernel_schedules

            self._schedules = kernel_schedules(self.kernel, self.array, self.tile, order=self.order)
        return self._schedules

    def verdict(self, values: Mapping[str, Any]) -> Verdict:
        """Legality of the points of ``values``: the one rule of :mod:`polyjoule.mapping.legality`."""
        check_parameters(self.kernel, values)
        return kernel_verdict([(ph.pra, ph.tiling, s) for ph, s in zip(self.phases, self.schedules(),
                                                                        strict=True)], values)

    def _volumes_at(self, values: Mapping[str, int]
                    ) -> Iterator[tuple[PhaseAnalysis, tuple[int, ...], int, Volume, int, dict[str, Any]]]:
        """(phase, tile sizes, index, volume, its value, the formula's variables' values) for
        every case at scalar ``values``."""
        check_parameters(self.kernel, values)
        for ph in self.phases:
            self._check_domain(ph, values)
        why = self.verdict({k: int(values[k]) for k in self.kernel.params}).reason()
        if why is not None:
            raise refusal(why, [(ph.pra, ph.tiling) for ph in self.phases], values)
        for ph in self.phases:
            vals = {p: int(values[p]) for p in ph.pra.params}
            sizes = self.tile_sizes(ph, vals)
            vols = ph.volumes_for(sizes)
            env = symbolic_env(ph.pra, ph.tiling, ph.groups, vals, sizes) if ph.volumes is not None else vals
            for k, v in enumerate(vols):
                yield ph, sizes, k, v, int(v.formula.evaluate(env)), env

    def evaluate(self, values: Mapping[str, int], bandwidth_bound: bool = False) -> Result:
        """Counts, energies (dynamic and static), latency, power and the per-case report
        rows for scalar parameter values; ``bandwidth_bound``: the latency at least the
        cycles the DRAM takes to move the DR words (as ``map --bandwidth-bound`` prices)."""
        from polyjoule.analysis.latency import schedule_report

        decl = self.machine
        counts = dict.fromkeys(CLASSES, 0)
        ops: dict[str, int] = {}
        e_class = dict.fromkeys(CLASSES, 0.0)
        e_op: dict[str, float] = {}
        rows: list[VolumeRow] = []
        tile_sizes: dict[str, tuple[int, ...]] = {}
        work: dict[str, int] = {}
        exact_pj: dict[str, Fraction] = {}  # rounded once, as a sweep rounds (analysis.exact)
        for ph, sizes, k, v, n, env in self._volumes_at(values):
            tile_sizes[ph.pra.name] = sizes
            bc, bo = case_energy(v, ph.pra, decl)
            for c, a in v.case.accesses.items():
                counts[c] += n * a
                exact_pj[c] = exact_pj.get(c, 0) + n * a * Fraction(decl.access_pj(c, ph.pra.dtype))
            s = v.case.statement
            for op, m in (s.expr.ops if s.kind == "compute" and s.expr is not None else ()):
                ops[op] = ops.get(op, 0) + n * m
                exact_pj[op] = exact_pj.get(op, 0) + n * m * Fraction(decl.energy.op(ph.pra.dtype, op))
            if ph.pra.counts_as_work(s):
                work[ph.pra.name] = max(work.get(ph.pra.name, 0), n)
            here = ph.piece_here(k, sizes, env)
            rows.append(VolumeRow(ph.pra.name, s.id, s.text, v.case.name, v.case.cls,
                                  partial(ph.row_text, k, sizes, here), n,
                                  n * (sum(bc.values()) + sum(bo.values())), here))
        e_class.update({c: float(exact_pj.get(c, 0)) for c in CLASSES})
        e_op = {op: float(exact_pj[op]) for op in sorted(ops)}
        total = sum(e_class.values()) + sum(e_op.values())
        lat = schedule_report(self, {p: int(values[p]) for p in self.kernel.params})
        iterations = sum(work.values())
        if lat["latency_cycles"] < 1:  # (a triangle j = i + 1 .. N - 1 at N = 1)
            shown = ", ".join(f"{k}={int(v)}" for k, v in values.items())
            raise ParameterRangeError(f"parameters: {self.kernel.name} runs no iteration at "
                                      f"{shown}: nothing to count or time")
        latency = lat["latency_cycles"]
        if bandwidth_bound:
            latency = self._bandwidth_latency(latency, counts["DR"])
        power = power_summary(decl, latency, total, sum(ops.values()), iterations)
        return Result(
            values={k: int(v) for k, v in values.items()},
            tile_sizes=tile_sizes,
            counts={**counts, "ops": dict(sorted(ops.items()))},
            energy_pj={"total": power.total_pj, "dynamic": total, "static": power.static_pj,
                       "by_class": e_class, "by_op": dict(sorted(e_op.items()))},
            volumes=rows,
            modes={ph.pra.name: ph.mode for ph in self.phases},
            schedule=lat["schedule"], latency_cycles=latency,
            clock_mhz=decl.clock_mhz, iterations=iterations,
            utilisation=iterations / (decl.n_pes * latency),
            power=power,
            schedule_latency_cycles=None if latency == lat["latency_cycles"]
            else lat["latency_cycles"],
        )

    def _bandwidth_latency(self, latency: int, dr_words: int) -> int:
        """``latency`` stretched to the cycles the DRAM needs for ``dr_words`` (the rule the
        map search applies: :func:`~polyjoule.analysis.capacity.bandwidth_latency`)."""
        from polyjoule.analysis.capacity import bandwidth_latency

        bw = self.machine.capacities(self.kernel.phases[0].dtype).dram_bandwidth_words_per_cycle
        return int(bandwidth_latency(latency, dr_words, bw))

    def counts(self, values: Mapping[str, int]) -> dict[str, int]:
        """Per-class access counts, ``ops.<op>`` and ``work`` (per phase the most executed
        statement that counts as work, :meth:`PRA.counts_as_work`, summed) at scalar values:
        :meth:`evaluate` without the report."""
        out: dict[str, int] = dict.fromkeys(CLASSES, 0)
        work: dict[str, int] = {}
        for ph, _, _, v, n, _ in self._volumes_at(values):
            for c, k in v.case.accesses.items():
                out[c] += n * k
            s = v.case.statement
            if s.kind == "compute" and s.expr is not None:
                for op, m in s.expr.ops:
                    out[f"ops.{op}"] = out.get(f"ops.{op}", 0) + n * m
            if ph.pra.counts_as_work(s):
                work[ph.pra.name] = max(work.get(ph.pra.name, 0), n)
        out["work"] = sum(work.values())
        return out

    def counts_many(self, values: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Vectorised :meth:`counts`: generated numpy code when every phase is symbolic
        (``analysis.compiled``); point by point when tile sizes are fixed per point."""
        check_parameters(self.kernel, values)
        if all(ph.volumes is not None for ph in self.phases):
            if self._compiled is None:
                from polyjoule.analysis.compiled import CompiledAnalysis

                self._compiled = CompiledAnalysis(self)
            return self._compiled.counts(values)
        arrays = {k: np.asarray(v, dtype=np.int64) for k, v in values.items()}
        shape = np.broadcast_shapes(*(x.shape for x in arrays.values()))
        flat = {k: np.broadcast_to(x, shape).reshape(-1) for k, x in arrays.items()}
        n = int(np.prod(shape)) if shape else 1
        rows = [self.counts({k: int(x[i]) for k, x in flat.items()}) for i in range(n)]
        keys = sorted({k for r in rows for k in r}, key=lambda k: (k.startswith("ops."), k == "work", k))
        return {k: np.asarray([r.get(k, 0) for r in rows], dtype=np.int64).reshape(shape) for k in keys}

    def latency_many(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """Exact latency of every point (phases one after another), after the legality
        check of :meth:`verdict`: a refused point is an error, as in :meth:`evaluate`."""
        why = self.verdict(values).first()
        if why is not None:
            raise refusal(why)
        total: Any = 0
        for s in self.schedules():
            vals = {p: np.asarray(values[p], dtype=np.int64) for p in s.pra.params}
            total = total + s.compiled_latency(vals)
        from polyjoule.analysis.exact import narrow

        return narrow(np.asarray(total))  # int64, or Python ints beyond it

    def evaluate_many(self, values: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Vectorised over design points: per-class counts (``RD``..``DR``), ``ops.<op>``,
        ``work``, dynamic energies ``energy.<class>``, ``energy.op.<op>``,
        ``energy.compute``, ``energy_pj``; ``latency_cycles``, ``utilisation`` and the
        static part (:func:`~polyjoule.targets.tcpa.power.power_columns`: ``static_pj``,
        ``total_pj``, ``power_mw``, ...).

        Exact counts: int64 where it cannot overflow, Python integers where it could;
        energies float64.
        """
        from polyjoule.analysis.compiled import energies

        c = self.counts_many(values)
        out = {**c, **energies(c, self.machine, [ph.pra.dtype for ph in self.phases])}
        out.update(run_columns(self.machine, self.latency_many(values), out))
        return out


def run_columns(decl: ProcessorArray, latency: np.ndarray,
                cols: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Latency, utilisation and the power columns of design points whose counts and
    dynamic energies are ``cols`` (what :meth:`Analysis.evaluate_many` and a sweep add)."""
    from polyjoule.analysis import exact

    ops = exact.to_float(exact.total(v for k, v in cols.items() if k.startswith("ops.")))
    work = exact.to_float(cols["work"])
    lat = np.asarray(latency)
    lat = lat if lat.dtype == object else lat.astype(np.int64)  # exact beyond int64
    return {"latency_cycles": lat,
            "utilisation": exact.ratio(cols["work"], exact.times(lat, decl.n_pes)),
            **power_columns(decl, lat, cols["energy_pj"], ops + np.zeros_like(work), work)}


class FormulaStore(Protocol):
    """Where derived formulas are kept between runs (see ``polyjoule.dse.cache``)."""

    def get(self, key: str) -> list[Formula] | None: ...

    def put(self, key: str, formulas: list[Formula]) -> None: ...


def derivation_key(pra: PRA, tiling: Tiling) -> str:
    """Identifies one derivation: the PRA's content, the tiling and the code that derives it
    (version and source digest: a formula of other code is never read back)."""
    import hashlib

    from polyjoule.build import code_id

    text = repr((pra, tiling.t, tiling.p, code_id()))
    return hashlib.sha256(text.encode()).hexdigest()


def analyze(
    kernel: Kernel | str | Path | None = None,
    array: tuple[int, ...] | ProcessorArray = (8, 8),
    tile: tuple[int, ...] | None = None,
    energy_table: EnergyTable | None = None,
    values: Mapping[str, int] | None = None,
    store: FormulaStore | None = None,
    *,
    einsum: str | None = None,
    extents: Mapping[str, int] | None = None,
    order: Sequence[str] | None = None,
) -> Analysis:
    """Derive the volumes of ``kernel`` mapped on ``array`` (symbolic in sizes and tiles).

    ``kernel``: a :class:`Kernel`, a built-in name, a PRA YAML or C file, or einsum text (or
    ``einsum=`` with ``extents=``), read as the CLI reads it
    (:func:`polyjoule.frontends.resolve.kernel_from`).
    ``array``: a declaration (``ProcessorArray``: grid, clock, leakage, word widths and
    energies) or a grid shape (the shipped declaration with that grid); ``energy_table``
    replaces the declaration's energies. ``order``: the tile scanning order, dims innermost
    first (default: the best feasible one per phase and point).

    When the symbolic-tile rewrite does not apply (a case crossing coupled dims of different tile
    sizes), tile sizes are fixed per design point and derived on demand; ``values`` then
    lets the derivation happen here instead of at the first evaluation.
    """
    from polyjoule.frontends.resolve import kernel_from

    k = kernel_from(kernel, einsum, extents)
    if values is not None:
        check_parameters(k, values)
    decl = array if isinstance(array, ProcessorArray) else None
    array = decl.shape if decl is not None else tuple(array)
    if decl is None:
        decl = default_array((array[0], array[1]) if len(array) == 2 else (1, array[0]))
    if energy_table is not None:
        decl = replace(decl, energy=energy_table)
    table = decl.energy
    t0 = time.perf_counter()
    phases = []
    derived: list[tuple[str, list[Formula]]] = []  # stored after the clock: kept for next time
    for pra in k.phases:
        tiling = Tiling.of(pra, array, tile if tile is not None and len(k.phases) == 1 else
                           (tile if tile is not None and len(tile) == pra.n else None))
        try:
            groups = groups_of(pra, tiling)
            key = derivation_key(pra, tiling) if store is not None else ""
            cached = store.get(key) if store is not None else None
            cs = cases(pra, tiling)
            if cached is not None and len(cached) == len(cs):
                vols = [Volume(c, f) for c, f in zip(cs, cached, strict=True)]
            else:
                vols, _ = derive(pra, tiling)
                derived.append((key, [v.formula for v in vols]))
            phases.append(PhaseAnalysis(pra, tiling, "symbolic", groups, vols))
        except NotSymbolic:
            ph = PhaseAnalysis(pra, tiling, "fixed", [], None)
            if values is not None:
                vals = {p: int(values[p]) for p in pra.params if p in values}
                pra.check_params(vals)
                ph.volumes_for(tiling.sizes(pra, vals))
            phases.append(ph)
    seconds = time.perf_counter() - t0
    for key, formulas in derived if store is not None else ():
        store.put(key, formulas)
    t = (array[0], array[1]) if len(array) == 2 else (1, array[0])
    return Analysis(k, t, tile, table, phases, seconds, decl, tuple(order) if order else None)
