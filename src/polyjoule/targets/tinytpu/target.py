"""TinyTPU-isa as a mapper target: roles, placement, staging, the accumulate peel, refusals.

Lowers a nest (outer loops + one ``mm`` tile) to a looped TinyTPU-isa program, or
refuses it with every cause it violates (act-mapper sheet §7-§8). Roles come from
rank structure, never from rank names. The shipped nest ``N(N/T) > K(K/T)`` re-emits
:func:`polyjoule.targets.tinytpu.programs.gemm_program` word for word.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from polyjoule.analysis import steps as timeline
from polyjoule.analysis.machine import Machine, Step
from polyjoule.errors import (
    AssemblyError,
    InfeasibleMapping,
    Kind,
    NestError,
    ParameterRangeError,
    ProgramError,
    Refused,
    ResourceLimitError,
    UnknownNameError,
)
from polyjoule.model.workload import Workload
from polyjoule.search import target as registry
from polyjoule.search.cost import Cost, Margin, Priced
from polyjoule.search.gate import ProblemSet
from polyjoule.search.mapspace import Mapspace, divisors
from polyjoule.search.nest import (
    MapNest,
    check_coverage,
    check_sequential,
    peel_intrinsic,
    refuse,
)
from polyjoule.targets.tinytpu import act_machine, blocked, cycles, fit, refmodel
from polyjoule.targets.tinytpu.assembler import Admitted, Issue, admit, expand
from polyjoule.targets.tinytpu.emit import emit
from polyjoule.targets.tinytpu.isa import Instr
from polyjoule.targets.tinytpu.params import ABI, Config
from polyjoule.targets.tinytpu.programs import gemm_program

if TYPE_CHECKING:
    from polyjoule.targets.tinytpu.energy import ProgramEnergy, UnitEnergies

E, R = Kind.EXPRESS, Kind.REFUSE
#: every cause this target names, and its kind (sheet §8)
CAUSE_KIND: dict[str, Kind] = {
    "acc-split": E, "acc-position": E, "AGU_TERMS": E, "LOOP_DEPTH": E, "capacity": E,
    "intrinsic": E, "coverage": E, "spatial": E, "shape": E, "shape-class": E,
    "trip-count": E, "resources": E, "nest": E, "ar-distance": R, "machine": R,
}
#: constraints ``lower(..., relieve=...)`` can drop
RELIEVABLE = ("acc-split", "acc-position", "ar-distance", "AGU_TERMS")
#: the build of every published figure
PUBLISHED = Config(MAXDIM=16)
#: the cost, lexicographic: modelled makespan, then dynamic data issues (ties only)
OBJECTIVES = ("makespan", "emits")
#: what ``objective=`` ranks by: cycles (the default, ``OBJECTIVES``), energy (pJ, then
#: makespan) or edp (energy x makespan in pJ.cycles, then makespan)
OBJECTIVE_SETS: dict[str, tuple[str, ...]] = {
    "cycles": OBJECTIVES, "energy": ("energy_pj", "makespan"), "edp": ("edp", "makespan"),
}


@dataclass(frozen=True)
class Roles:
    """Which rank plays rows (activation), reduce, and columns (weight)."""

    row: str
    reduce: str
    column: str


@lru_cache(maxsize=256)
def roles_of(workload: Workload) -> Roles:
    """Roles from rank structure: rows x reduce . reduce x columns, one reduce rank."""
    def no(detail: str) -> Refused:
        return Refused("shape-class", f"{workload.name}: {detail}")

    if len(workload.reduce) != 1 or len(workload.free) != 2:
        raise no(_not_one_gemm(workload))
    red = workload.reduce[0]
    found: set[tuple[str, str]] = set()
    for act, wgt in workload.contractions:
        a, w = workload.tensor(act).ranks, workload.tensor(wgt).ranks
        if len(a) != 2 or len(w) != 2 or red not in a or red not in w:
            raise no(f"contraction ({act}, {wgt}) does not carry {red} in both operands")
        row, col = a[1 - a.index(red)], w[1 - w.index(red)]
        if row == col:
            raise no(f"contraction ({act}, {wgt}): operands share their free rank {row}")
        if a != (row, red) or w != (red, col):
            raise no(f"contraction ({act}, {wgt}): operands must be laid out "
                     f"({row}, {red}) and ({red}, {col})")
        found.add((row, col))
    if len(found) != 1:
        raise no("contractions disagree on which rank is rows")
    row, col = found.pop()
    if workload.result.ranks != (row, col):
        raise no(f"result must be laid out ({row}, {col})")
    return Roles(row, red, col)


def _not_one_gemm(workload: Workload) -> str:
    """Why a workload's ranks are not one GEMM's (rows, one reduce, columns), named in its
    own ranks: the array runs one rows x reduce . reduce x columns product per program."""
    red, free = workload.reduce, workload.free
    if len(red) != 1:
        return f"needs exactly one reduce rank, has {len(red)} ({', '.join(red) or 'none'})"
    for act, wgt in workload.contractions:
        a, w = workload.tensor(act).ranks, workload.tensor(wgt).ranks
        batch = [r for r in a if r in w and r not in red]
        if batch:
            return (f"a batch rank {', '.join(batch)} (in both {act} and {wgt}): the array "
                    "maps one GEMM, not a batch of them; map per batch")
        for name, ranks in ((act, a), (wgt, w)):
            more = [r for r in ranks if r not in red]
            if len(more) > 1:
                return (f"{name} carries {len(more)} free ranks ({', '.join(more)}) besides "
                        f"{red[0]}: an mm tile has one row and one column rank; map per "
                        f"{', '.join(more[1:])}")
    return f"needs two free ranks (rows, columns), has {len(free)} ({', '.join(free)})"


@dataclass(frozen=True)
class Placement:
    """Where operands live: activation (DRAM row, column block, vr base), weight
    (DRAM row, column block, spad base), and each contraction's ar region."""

    acts: dict[str, tuple[int, int, int]]
    wgts: dict[str, tuple[int, int, int]]
    ar: tuple[int, ...]


def place(workload: Workload, extents: Mapping[str, int], roles: Roles, cfg: Config
          ) -> Placement:
    """Place operands and accumulators; ``capacity`` names the first memory that overflows."""
    st, T = cfg.MAXDIM, cfg.T
    kt, nt = extents[roles.reduce] // T, extents[roles.column] // T
    acts: dict[str, tuple[int, int, int]] = {}
    wgts: dict[str, tuple[int, int, int]] = {}
    for act, wgt in workload.contractions:
        if act not in acts:
            acts[act] = (len(acts) * extents[roles.row], 0, ABI.A_VR + len(acts) * kt * st)
        if wgt not in wgts:
            wgts[wgt] = (0, len(wgts) * nt, ABI.B_SP + len(wgts) * nt * st)
    found = []
    if len(acts) * kt * st > cfg.NVR:
        found.append(f"activations need {len(acts) * kt * st} vr rows > NVR={cfg.NVR}")
    if len(wgts) * nt * st > cfg.SPAD_ROWS:
        found.append(f"weights need {len(wgts) * nt * st} spad rows > "
                     f"SPAD_ROWS={cfg.SPAD_ROWS}")
    if len(wgts) * nt * T > st:
        found.append(f"weights need {len(wgts) * nt * T} DRAM columns > MAXDIM={st}")
    if len(acts) * extents[roles.row] > st:
        found.append(f"activations need {len(acts) * extents[roles.row]} DRAM rows > "
                     f"MAXDIM={st}")
    if st * len(workload.contractions) > cfg.NAR:
        found.append(f"accumulators need {st * len(workload.contractions)} ar rows > "
                     f"NAR={cfg.NAR}")
    if found:
        raise Refused("capacity", "; ".join(found), kinds=CAUSE_KIND)
    ar = tuple(ABI.AR_C + i * st for i in range(len(workload.contractions)))
    return Placement(acts, wgts, ar)


@dataclass(frozen=True, eq=False)
class Lowered:
    """A lowered nest: the instructions, the assembled image, and the build they are for."""

    instrs: tuple[Instr, ...]
    words: tuple[int, ...]
    cfg: Config
    placement: Placement
    roles: Roles
    rows: int
    _cache: dict[str, object] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.instrs)

    def __iter__(self) -> Iterator[Instr]:
        return iter(self.instrs)


@dataclass(frozen=True, eq=False)
class Blocked(Lowered):
    """A layer larger than MAXDIM: ``count`` host blocks, each running ``instrs``
    (:mod:`polyjoule.targets.tinytpu.blocked`); cycles and issues are summed."""

    block: blocked.Block = blocked.Block(1, 1, 1)
    count: int = 1


@dataclass(frozen=True)
class Repeated:
    """One block program's timeline run ``count`` times in sequence (host blocks): the
    makespan and every unit's load are summed over the blocks; ``one`` is one block's."""

    one: timeline.Timeline
    count: int

    @property
    def makespan(self) -> int:
        return self.count * self.one.makespan

    @property
    def unit_load(self) -> dict[str, int]:
        return {u: self.count * v for u, v in self.one.unit_load.items()}

    @property
    def bottleneck(self) -> tuple[str, int]:
        unit, load = self.one.bottleneck
        return unit, self.count * load


def _default_build_name() -> str:
    from polyjoule.targets.tinytpu.builds import DEFAULT_NAME

    return DEFAULT_NAME


class TinyTPUTarget:
    """The five questions answered for one TinyTPU-isa build (default: the published one)."""

    name = "tinytpu-isa"
    objectives = OBJECTIVES
    cause_kinds = CAUSE_KIND
    relievable = RELIEVABLE
    #: what a measured figure is (the cosim rows of the cost model's calibration)
    measured_basis = "QD=8 build"
    #: how a measured figure reads in the evidence column
    measured_format = "cosim {cycles}"
    #: the ranking's objectives in words: the makespan is the ACT step model's, not cycles
    objective_words = {"makespan": "modelled makespan (the ranking model's steps, not "
                                   "cycles)"}
    #: printed under the ranking: which figure is which
    ranking_notes = ("cycles: the event model's estimate on this build, as tinytpu cycles "
                     "and judge print; measured: cosim on the older QD=8 build the ranking "
                     "model was fitted to, a measurement, not this build's model figure",)

    def __init__(self, cfg: Config = PUBLISHED, name: str = "tinytpu-isa",
                 build_name: str | None = None, objective: str = "cycles",
                 energies: UnitEnergies | None = None) -> None:
        self.cfg = cfg
        self.name = name
        self.build_name = build_name or _default_build_name()
        self._machines: dict[Config, Machine] = {}
        if objective not in OBJECTIVE_SETS:
            raise UnknownNameError(f"--objective: {objective!r} is not one of "
                                   f"{', '.join(OBJECTIVE_SETS)}")
        self.objective = objective
        self.objectives = OBJECTIVE_SETS[objective]
        self.energies = energies  # None: the shipped table, loaded on first use

    def on_machine(self, machine: str | None) -> TinyTPUTarget:
        """This target on the build ``machine`` (a shipped name or a build file)."""
        from polyjoule.targets.tinytpu import builds

        build = builds.load(machine)
        return TinyTPUTarget(build.cfg, self.name, build.name, self.objective, self.energies)

    def with_objective(self, objective: str | None, energy_table: str | None = None
                       ) -> TinyTPUTarget:
        """This target ranking by ``objective`` (cycles, energy, edp; None keeps it), its
        energies from the shipped table overridden by the file ``energy_table``."""
        from polyjoule.targets.tinytpu.energy import load_energies

        table = load_energies(energy_table) if energy_table else self.energies
        return TinyTPUTarget(self.cfg, self.name, self.build_name,
                             objective or self.objective, table)

    def machine_header(self) -> str:
        from polyjoule.targets.tinytpu.builds import Build

        return Build(self.build_name, self.cfg).header()

    def describe(self) -> str:
        c = self.cfg
        return (f"{self.name} (T={c.T}, MAXDIM={c.MAXDIM}, LOOP_DEPTH={c.LOOP_DEPTH}, "
                f"AGU_TERMS={c.AGU_TERMS}, IMEM_SIZE={c.IMEM_SIZE})")

    # --- question 1: the mapspace (exact tiles: every loop trip count divides)
    def mapspace(self, workload: Workload, extents: Mapping[str, int]) -> Mapspace:
        return Mapspace(tuple(self.intrinsics(workload, extents)), exact=True)

    def intrinsics(self, workload: Workload, extents: Mapping[str, int]
                   ) -> list[dict[str, int]]:
        """One ``mm`` tile per row count: rows x T (reduce) x T (columns)."""
        try:
            ro = roles_of(workload)
        except Refused:
            return [{}]  # one trivial tile, so every nest is asked and refused shape-class
        if self.blocked(workload, extents):
            roles = (ro.row, ro.reduce, ro.column)
            fits = blocked.blocks(extents, roles, self.cfg)
            if not fits:  # the target offers host blocks; none fits this build
                shape = "x".join(str(extents[r]) for r in workload.ranks)
                raise InfeasibleMapping(f"{workload.name} {shape}: "
                                        f"{blocked.none_fits(extents, roles, self.cfg)}")
            return [{ro.row: b.mb, ro.reduce: b.K, ro.column: b.nb} for b in fits]
        cap = min(self.cfg.MAXROWS, self.cfg.MAXDIM)
        return [{ro.row: r, ro.reduce: self.cfg.T, ro.column: self.cfg.T}
                for r in divisors(extents[ro.row]) if r <= cap]

    def blocked(self, workload: Workload, extents: Mapping[str, int]) -> bool:
        """A one-term GEMM (relu or not) with an extent above MAXDIM: host blocks."""
        return (any(extents[r] > self.cfg.MAXDIM for r in workload.ranks)
                and len(workload.contractions) == 1 and workload.epilogue in ((), ("relu",)))

    def lower_blocked(self, workload: Workload, extents: Mapping[str, int], nest: MapNest,
                      roles: Roles) -> Blocked:
        """Host loops over blocks (each rank in one loop), the band one block program."""
        refuse(check_sequential(nest) + check_coverage(nest, extents), CAUSE_KIND)
        emitted, tile = peel_intrinsic(nest)
        ranks = [lp.rank for lp in emitted]
        if len(set(ranks)) != len(ranks):
            raise Refused("nest", "a rank over two host loops walks the same blocks as one",
                          kinds=CAUSE_KIND)
        try:
            b = blocked.check_band(tile, (roles.row, roles.reduce, roles.column), extents,
                                   self.cfg)
        except Refused as r:
            raise Refused(r.cause, r.detail, kinds=CAUSE_KIND) from None
        instrs = blocked.program(b, bool(workload.epilogue), self.cfg)
        ok = admitted(instrs, self.cfg)
        count = int(np.prod([lp.factor for lp in emitted]))
        low = Blocked(tuple(instrs), tuple(ok.words), self.cfg, Placement({}, {}, (ABI.AR_C,)),
                      roles, b.mb, block=b, count=count)
        low._cache["stream"] = ok.stream
        return low

    # --- structural causes (independent of emission)
    def _structural(self, roles: Roles, emitted: MapNest, rows: int,
                    relieve: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
        found = []
        red = [i for i, lp in enumerate(emitted) if lp.rank == roles.reduce]
        if len(red) > 1:
            if "acc-split" not in relieve:
                found.append(("acc-split", f"{roles.reduce} split over {len(red)} loops: the "
                              "first partial sum is not a contiguous prefix"))
        elif red and red[0] != len(emitted) - 1 and "acc-position" not in relieve:
            found.append(("acc-position", f"{roles.reduce} loop is not innermost: peeling "
                          "k=0 would duplicate the body"))
        if rows < self.cfg.AR_RAW_DIST and "ar-distance" not in relieve:
            found.append(("ar-distance", f"rows={rows} < AR_RAW_DIST={self.cfg.AR_RAW_DIST}: "
                          "accumulating mm re-reads inside the accu pipeline window"))
        return found

    def refusals(self, workload: Workload, extents: Mapping[str, int],
                 nest: MapNest) -> list[tuple[str, str]]:
        """Structural causes alone (acc-split, acc-position, ar-distance), never raising."""
        try:
            roles = roles_of(workload)
            emitted, tile = peel_intrinsic(nest)
        except Refused:
            return []
        return self._structural(roles, emitted, tile.get(roles.row, 1))

    # --- question 2: lower
    def lower(self, workload: Workload, extents: Mapping[str, int], nest: MapNest,
              relieve: frozenset[str] = frozenset()) -> Lowered:
        cfg = self.cfg
        if "AGU_TERMS" in relieve:
            cfg = replace(cfg, AGU_TERMS=16)
        try:
            roles = roles_of(workload)
        except Refused as r:
            raise Refused(r.cause, r.detail, kinds=CAUSE_KIND) from None
        if self.blocked(workload, extents):
            return self.lower_blocked(workload, extents, nest, roles)
        found = [("shape", f"{r}={extents[r]} > MAXDIM={cfg.MAXDIM}")
                 for r in workload.ranks if extents[r] > cfg.MAXDIM][:1]
        found += check_sequential(nest) + check_coverage(nest, extents)
        refuse(found, CAUSE_KIND)
        emitted, tile = peel_intrinsic(nest)
        rows = tile.get(roles.row, 1)
        if (tile.get(roles.reduce, 1) != cfg.T or tile.get(roles.column, 1) != cfg.T
                or not 1 <= rows <= cfg.MAXROWS or set(tile) - set(workload.ranks)):
            raise Refused("intrinsic", f"band {tile} is not one mm tile (rows x {cfg.T} x "
                          f"{cfg.T}, rows <= {cfg.MAXROWS})", kinds=CAUSE_KIND)
        refuse(self._structural(roles, emitted, rows, relieve), CAUSE_KIND)
        pl = place(workload, extents, roles, cfg)
        try:
            instrs = emit(workload, extents, roles, emitted, rows, pl, cfg)
        except NestError as e:
            raise Refused(e.code or "nest", str(e), kinds=CAUSE_KIND) from None
        ok = admitted(instrs, cfg)
        low = Lowered(tuple(instrs), tuple(ok.words), cfg, pl, roles, rows)
        low._cache["stream"] = ok.stream
        return low

    # --- questions 3-5
    def _machine(self, cfg: Config) -> Machine:
        if cfg not in self._machines:
            self._machines[cfg] = act_machine.machine(cfg)
        return self._machines[cfg]

    def steps(self, program: Lowered) -> Sequence[Step]:
        if "steps" not in program._cache:
            program._cache["steps"] = act_machine.steps_of(program.instrs, program.cfg,
                                                           self._machine(program.cfg))
        return program._cache["steps"]  # type: ignore[return-value]

    def price(self, program: Lowered, *, charge_control: bool = True) -> Priced:
        """The objectives (default (makespan, emits)) of the in-order schedule of the
        program's fetches; ``charge_control=False`` drops loop/endloop fetches (the
        sequencer still runs; their imem reads are then not charged either)."""
        steps = self.steps(program)
        if not charge_control:
            steps = [s for s in steps if not s.control]
        one = timeline.run(steps)
        # host blocks run one by one: the makespan (and the timeline shown) is their sum
        tl = Repeated(one, program.count) if isinstance(program, Blocked) else one
        if self.objective == "cycles":
            return Priced(Cost(OBJECTIVES, (tl.makespan, self.emits(program))), tl)
        pj = self.energy(program, charge_control=charge_control).total_pj
        first = pj if self.objective == "energy" else pj * tl.makespan
        return Priced(Cost(self.objectives, (round(first, 3), tl.makespan)), tl)

    def energy(self, program: Lowered, *, charge_control: bool = True) -> ProgramEnergy:
        """Event counts of the program's fetched stream x this target's unit energies; a
        blocked mapping runs (and loads) its program once per block, so its counts are
        one block's times the blocks."""
        from polyjoule.targets.tinytpu.energy import count_events, priced_events

        key = f"events:{charge_control}"  # the counts; the table is this target's
        if key not in program._cache:
            steps = self.steps(program)
            fetched = len(steps) if charge_control else sum(1 for s in steps if not s.control)
            one = count_events(self._stream_of(program), fetched, program.cfg)
            n = program.count if isinstance(program, Blocked) else 1
            program._cache[key] = {ev: n * c for ev, c in one.items()}
        return priced_events(program._cache[key], program.cfg,  # type: ignore[arg-type]
                             self.energies)

    def energy_pj(self, program: Lowered) -> float:
        """The program's energy in pJ (what the CLI shows next to the cycles), summed over
        the host blocks of a blocked mapping."""
        return self.energy(program).total_pj

    @staticmethod
    def _stream_of(program: Lowered) -> Sequence[Issue]:
        if "stream" not in program._cache:
            program._cache["stream"] = expand(list(program.instrs), program.cfg)
        return program._cache["stream"]  # type: ignore[return-value]

    def margin(self, best: Cost, runner_up: Cost) -> Margin | None:
        """Makespans of best and runner-up next to the makespan->cosim fit (None when
        ranking by energy: no measured energy gives the energy model an error bar)."""
        if self.objective != "cycles":
            return None
        return fit.margin(best["makespan"], runner_up["makespan"])

    def energy_table(self) -> str:
        """The name of the unit-energy table this target prices with."""
        from polyjoule.targets.tinytpu.energy import default_energies

        return (self.energies or default_energies()).name

    def notes(self) -> tuple[str, ...]:
        return (fit.CAVEAT, "measured figures: cosim cycles of the QD=8-era rows, the "
                "fit's calibration", "energy: event counts of the fetched stream x the "
                f"unit energies of {self.energy_table()!r}; no measured energy: a ranking "
                "device")

    def problem_set(self) -> ProblemSet:
        """The gate's twelve problems, with the published best makespans."""
        from polyjoule.library.workloads import get
        from polyjoule.search.search import Problem

        return ProblemSet(tuple(Problem(get(w), dict(zip(get(w).ranks, s, strict=True)))
                                for w, s in GATE_PROBLEMS), PUBLISHED_BEST)

    def emits(self, program: Lowered) -> int:
        """Dynamic data issues (loop/endloop excluded), summed over host blocks."""
        n = program.count if isinstance(program, Blocked) else 1
        return n * sum(1 for s in self.steps(program) if not s.control)

    def report(self, program: Lowered) -> dict[str, int]:
        """Counts for display, and ``cycles``: the event model's ap_start-to-ap_done
        estimate (what ``tinytpu cycles`` and ``judge`` print), summed over host blocks;
        the makespan beside it is the ranking model's, not cycles."""
        n = program.count if isinstance(program, Blocked) else 1
        out = {"rows": program.rows, "static": len(program.instrs),
               "words": len(program.words), "dynamic": self.emits(program),
               "cycles": n * cycles.estimate(list(program.instrs), program.cfg)}
        if isinstance(program, Blocked):
            out["programs"] = program.count
        return out

    def verify(self, workload: Workload, extents: Mapping[str, int], program: Lowered,
               seed: int = 0) -> bool:
        """Random operands at their placement through the reference model vs numpy."""
        if isinstance(program, Blocked):
            return verify_blocked(workload, extents, program, seed)
        cfg, pl, ro = program.cfg, program.placement, program.roles
        T, md = cfg.T, cfg.MAXDIM
        A = np.zeros((md, md), np.int8)
        B = np.zeros((md, md), np.int8)
        rng = np.random.default_rng(seed)
        values: dict[str, np.ndarray] = {}
        for t in workload.operands:
            if t.name not in pl.acts and t.name not in pl.wgts:
                continue
            shape = t.extent(extents)
            v = rng.integers(-4, 5, size=shape)
            values[t.name] = v
            img, (r0, cb, _) = (A, pl.acts[t.name]) if t.name in pl.acts else (B, pl.wgts[t.name])
            img[r0:r0 + shape[0], cb * T:cb * T + shape[1]] = v
        out = _run_checked(program, A, B, np.zeros((md, md), np.int8))
        gold = np.clip(workload.evaluate(values), -128, 127).astype(np.int8)
        m, n = extents[ro.row], extents[ro.column]
        return bool(np.array_equal(out[:m, :n], gold))

    def measured(self, workload: Workload, extents: Mapping[str, int],
                 program: Lowered) -> int | None:
        """Published cosim cycles of exactly this program (the shipped ``gemm_program``,
        or the mapper's loop-free 4x4x4 program) on a T=4, MAXDIM=16 build; else None.

        The cycles are the QD=8-era row the cost model was calibrated on; the program
        does not depend on QD.
        """
        ro = program.roles
        m, k, n = extents[ro.row], extents[ro.reduce], extents[ro.column]
        title = f"{workload.name} {m}x{k}x{n}"
        if isinstance(program, Blocked):
            return None
        if ((program.cfg.T, program.cfg.MAXDIM) != (4, 16) or title not in PUBLISHED_COSIM
                or len(workload.contractions) != 1 or workload.epilogue not in ((), ("relu",))):
            return None
        try:
            ref = gemm_program(m, k, n, relu=bool(workload.epilogue), cfg=program.cfg)
        except ParameterRangeError:
            return None
        if list(program.instrs) == ref:
            return HANDWRITTEN_COSIM.get(title, PUBLISHED_COSIM[title])
        if (title == "gemm 4x4x4" and len(program.instrs) == len(ref) - 2
                and _stream(program.instrs, program.cfg) == _stream(ref, program.cfg)):
            return PUBLISHED_COSIM[title]  # same issues, no trip-1 output loop: 169
        return None


def admitted(instrs: Sequence[Instr], cfg: Config) -> Admitted:
    """An emitted program through the one gate (``assembler.admit``), or the refusal its
    first broken rule is: a checker rule is ``machine`` (the machine would take the
    program and compute wrongly or hang), an encoding limit -- instruction memory, header
    counts, a field -- or a program too long to expand is ``resources`` (the words
    cannot say it). The detail keeps the rule's name."""
    try:
        return admit(instrs, cfg)
    except ProgramError as e:
        raise Refused("machine", str(e), kinds=CAUSE_KIND) from None
    except (AssemblyError, ResourceLimitError) as e:
        raise Refused("resources", str(e), kinds=CAUSE_KIND) from None


#: row (and column) blocks ``verify`` checks of a blocked layer: every block of a layer
#: up to VERIFY_SPAN x VERIFY_SPAN blocks; past that, the blocks of VERIFY_SPAN row-block
#: and VERIFY_SPAN column-block indices spread over the layer, first and last included
#: (every block runs the same program, so its cost must not grow with the extent)
VERIFY_SPAN = 8


def verify_blocked(workload: Workload, extents: Mapping[str, int], program: Blocked,
                   seed: int = 0) -> bool:
    """Host blocks' programs on their folded images vs numpy over the sub-layer they
    cover: every block, or the spread of :data:`VERIFY_SPAN` row and column blocks."""
    ro, b, cfg = program.roles, program.block, program.cfg
    rows = spread(extents[ro.row] // b.mb, VERIFY_SPAN)
    cols = spread(extents[ro.column] // b.nb, VERIFY_SPAN)
    rng = np.random.default_rng(seed)
    act, wgt = workload.contractions[0]
    A = rng.integers(-4, 5, size=(len(rows) * b.mb, b.K))
    B = rng.integers(-4, 5, size=(b.K, len(cols) * b.nb))
    out = np.zeros((A.shape[0], B.shape[1]), np.int64)
    md = cfg.MAXDIM
    for i in range(len(rows)):
        for j in range(len(cols)):
            Ai, Bj = blocked.pack(b, A, B, i, j, cfg)
            C = _run_checked(program, Ai, Bj, np.zeros((md, md), np.int8))
            out[i * b.mb:(i + 1) * b.mb, j * b.nb:(j + 1) * b.nb] = C[:b.mb, :b.nb]
    gold = np.clip(workload.evaluate({act: A, wgt: B}), -128, 127)
    return bool(np.array_equal(out, gold))


def spread(n: int, k: int) -> list[int]:
    """``k`` indices spread evenly over ``range(n)``, the first and last included (all of
    them when ``n <= k``)."""
    if n <= k:
        return list(range(n))
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def _run_checked(program: Lowered, A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``refmodel.run`` minus its checker pass when this exact program (same instructions,
    same build) was already admitted at lowering: the stream it would walk is the same."""
    stream = program._cache.get("stream")
    if stream is None:
        return refmodel.run(list(program.instrs), A, B, C, program.cfg)
    return refmodel.execute(stream, A, B, C, program.cfg)  # type: ignore[arg-type]


def _stream(program: Sequence[Instr], cfg: Config) -> list[tuple[int, ...]]:
    """The dynamic issues as (op, nr, f0..f3), without pcs or ivs."""
    return [(int(x.op), x.nr, *x.f) for x in expand(list(program), cfg)]


def _register() -> TinyTPUTarget:
    return registry.register(TinyTPUTarget())  # type: ignore[return-value]


TARGET = _register()


#: the gate's twelve problems (act-mapper sheet §11): (workload, (M, K, N))
GATE_PROBLEMS: tuple[tuple[str, tuple[int, int, int]], ...] = (
    *((w, s) for w in ("gemm", "gemm.relu")
      for s in ((4, 4, 4), (8, 8, 8), (12, 12, 12), (16, 16, 8), (16, 16, 16))),
    ("gemm.sum", (8, 8, 8)),
    ("gemm.sum.relu", (16, 16, 4)),
)
#: published best makespans of the cost model (T=4, MAXDIM=16), by problem title
PUBLISHED_BEST: dict[str, int] = {
    "gemm 4x4x4": 40, "gemm 8x8x8": 115, "gemm 12x12x12": 227, "gemm 16x16x8": 261,
    "gemm 16x16x16": 453, "gemm.relu 16x16x16": 517,
}
#: published cosim cycles (MAXDIM=16, QD=8 era) of the flow's pick, by problem title
PUBLISHED_COSIM: dict[str, int] = {
    "gemm 4x4x4": 169, "gemm 8x8x8": 262, "gemm 12x12x12": 418, "gemm 16x16x8": 484,
    "gemm 16x16x16": 686, "gemm.relu 16x16x16": 750,
}
#: where the shipped gemm_program's cosim differs from the pick's (4x4x4: 10 vs 8 instrs)
HANDWRITTEN_COSIM: dict[str, int] = {"gemm 4x4x4": 172}
