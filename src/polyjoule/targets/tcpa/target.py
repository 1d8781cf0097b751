"""The processor array (TCPA) as a search target: a mapspace priced from formulas.

The mapspace of a kernel on a declared array: array shapes within the declared grid
(powers of two per side, and the declared sides) x scanning orders (single-phase kernels;
a multi-phase kernel takes the best feasible order per phase and point) x the problem
sizes given (ranges). Array axes go to the kernel's leading dims (``Tiling.of``); tile
sizes are ``ceil(N / t)``. Per (shape, order) the energy, latency and capacity formulas
are derived once and evaluated for every size at once; every point is priced or refused
with every cause it violates (:mod:`polyjoule.mapping.legality`,
:mod:`polyjoule.analysis.capacity`), ranked by the objective, and censused in the search
core's three definitions.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from polyjoule.analysis.capacity import CAUSES as CAPACITY
from polyjoule.analysis.capacity import FifoRules, check, io_needs, rd_need
from polyjoule.errors import Kind, Refused, SpecError
from polyjoule.mapping.legality import Causes, Illegal, phase_causes
from polyjoule.search.census import Census
from polyjoule.search.cost import Cost, Priced
from polyjoule.search.mapspace import Mapspace
from polyjoule.targets.tcpa.array import ProcessorArray, array_of, default_array

STRUCTURAL = ("empty-dimension", "too-many-tiles", "tile-below-dependence", "no-schedule")
#: the order first causes are charged in
ORDER = (*STRUCTURAL, *CAPACITY)
#: kind of every cause: the structural rules the mapping cannot express; the capacity
#: rules the array would accept and then lose values
KINDS = {**dict.fromkeys(STRUCTURAL, Kind.EXPRESS), **dict.fromkeys(CAPACITY, Kind.REFUSE)}
OBJECTIVES = {"energy": ("energy_pj", "latency"), "latency": ("latency", "energy_pj"),
              "edp": ("edp", "latency"), "power": ("power_mw", "latency")}


@dataclass(frozen=True)
class TcpaMapping:
    """One point of the mapspace: an array shape, a scanning order, the problem size."""

    array: tuple[int, int]
    order: tuple[str, ...] | None  # dims innermost first; None: best per phase and point
    values: Mapping[str, int]
    kernel: str = ""

    @property
    def label(self) -> str:
        o = "auto" if self.order is None else "/".join(self.order)
        return f"{self.array[0]}x{self.array[1]} {o}"


@dataclass
class TcpaSearch:
    """Ranked mappings, the census, and how many mappings were considered and how fast."""

    kernel: str
    target: Any
    candidates: list[dict[str, Any]]
    accepted: int
    census: Census
    considered: int
    relieved: frozenset[str]
    independent: Counter[str]
    derive_seconds: float
    eval_seconds: float
    relief: dict[str, Any] | None = None

    @property
    def best(self) -> dict[str, Any] | None:
        return self.candidates[0] if self.candidates else None


@dataclass
class _Block:
    """Every size of one (shape, order): causes, prices."""

    mapping: TcpaMapping
    causes: Causes
    price: dict[str, np.ndarray]


@dataclass
class TcpaTarget:
    """The search protocol on a declared processor array."""

    array: ProcessorArray = field(default_factory=default_array)
    objective: str = "energy"
    bandwidth_bound: bool = False
    #: where derived formulas and schedules are kept between runs (a
    #: ``polyjoule.dse.cache.FormulaCache``), or None to derive every time
    store: Any = None
    name: str = "tcpa"
    cause_kinds: dict[str, Kind] = field(default_factory=lambda: dict(KINDS))
    relievable: tuple[str, ...] = CAPACITY

    @property
    def objectives(self) -> tuple[str, ...]:
        return OBJECTIVES[self.objective]

    def describe(self) -> str:
        a = self.array
        return (f"tcpa ({a.name}, {a.rows}x{a.cols} PEs, FD {a.pe.fd_fifos}x{a.pe.fd_depth}, "
                f"{a.clock_mhz:g} MHz)")

    def machine_header(self) -> str:
        return f"machine: {self.describe()}"

    def on_machine(self, machine: str | None) -> TcpaTarget:
        return replace(self, array=default_array() if machine is None else array_of(machine))

    def with_objective(self, objective: str | None, table: str | None) -> TcpaTarget:
        if table is not None:
            raise SpecError("--energy-table: the tcpa target's energies are in its "
                            "declaration (--machine ARCH.yaml, docs/arch.md)")
        objective = objective or "energy"
        if objective not in OBJECTIVES:
            raise SpecError(f"--objective {objective}: tcpa ranks by "
                            f"{', '.join(OBJECTIVES)}")
        return replace(self, objective=objective)

    def configured(self, *, bandwidth_bound: bool, store: Any) -> TcpaTarget:
        """This target with the command's options."""
        return replace(self, bandwidth_bound=bandwidth_bound, store=store)

    def search_kernel(self, kernel: Any, vals: Mapping[str, np.ndarray],
                      relieve: frozenset[str] = frozenset(), top: int = 8) -> TcpaSearch:
        """The vectorised search (:func:`search`): ``map`` asks a kernel target this."""
        return search(self, kernel, vals, relieve, top)

    def verify_row(self, kernel: Any, row: Mapping[str, Any]) -> bool | None:
        """Simulate a ranked mapping (capacities enforced); None when too large to run."""
        from polyjoule.analysis.simulator import MEMORY_LIMIT, estimate_bytes

        if estimate_bytes(kernel, row["values"]) > MEMORY_LIMIT // 8:
            return None
        r, c = (int(x) for x in row["array"].split("x"))
        order = None if row["order"] == "auto" else tuple(row["order"].split("/"))
        return self.verify(kernel, row["values"], TcpaMapping((r, c), order, {}))

    # --- the protocol, one mapping at a time (the search itself is vectorised below)

    def mapspace(self, kernel: Any, extents: Mapping[str, int]) -> Mapspace:
        """No intrinsic tiles: a processor array tiles any loop; see :func:`shapes`."""
        return Mapspace(())

    def lower(self, kernel: Any, values: Mapping[str, int], mapping: TcpaMapping,
              relieve: frozenset[str] = frozenset()) -> TcpaMapping:
        """``mapping`` when it fits, else :class:`Refused` with every cause."""
        b = evaluate(self, kernel, mapping.array, mapping.order,
                     {k: np.asarray([v]) for k, v in values.items()})
        bad = [c for c in ORDER if c in b.causes.masks and c not in relieve
               and bool(b.causes.masks[c].reshape(-1)[0])]
        if bad:
            raise Refused(bad[0], b.causes.reasons[bad[0]].detail, bad,
                          {c: self.cause_kinds[c] for c in bad})
        return replace(mapping, values=dict(values), kernel=kernel.name)

    def price(self, program: TcpaMapping, *, charge_control: bool = True) -> Priced:
        from polyjoule.library.kernels import get

        b = evaluate(self, get(program.kernel), program.array, program.order,
                     {k: np.asarray([v]) for k, v in program.values.items()})
        return Priced(Cost(self.objectives, [float(b.price[k][0]) for k in self.objectives]))

    def verify(self, kernel: Any, values: Mapping[str, int], program: TcpaMapping,
               seed: int = 0) -> bool:
        """Simulate the mapping with the declared capacities enforced."""
        from polyjoule.analysis.simulator import simulate

        r = simulate(kernel, program.array, values={k: int(v) for k, v in values.items()},
                     order=program.order, seed=seed,
                     capacities=self.array.capacities(kernel.phases[0].dtype))
        return r.ok


def shapes(array: ProcessorArray) -> list[tuple[int, int]]:
    """Array shapes within the declared grid: powers of two and the declared side per side."""
    def sides(n: int) -> list[int]:
        return sorted({*(1 << i for i in range(n.bit_length()) if 1 << i <= n), n})

    return [(r, c) for r in sides(array.rows) for c in sides(array.cols)]


def orders(kernel: Any, shape: tuple[int, int], store: Any = None
           ) -> list[tuple[str, ...] | None]:
    """Scanning orders (innermost first) a single-phase kernel may use; ``None`` (auto)
    for a multi-phase kernel."""
    from polyjoule.analysis.schedule import Schedule

    if len(kernel.phases) != 1:
        return [None]
    s = _schedules(kernel, shape, store)[0]
    if not isinstance(s, Schedule):
        return [None]
    return [tuple(s.pra.dims[l].name for l in c.order) for c in s.pool]


def _phase(tgt: TcpaTarget, sched: Any, order: tuple[str, ...] | None,
           vals: Mapping[str, np.ndarray], out: Causes) -> tuple[np.ndarray, np.ndarray]:
    """One phase: its causes added to ``out``; (latency, PEs used) per point."""
    from polyjoule.analysis.schedule import Schedule

    pra, tiling = sched.pra, sched.tiling
    v = {k: vals[k] for k in pra.params}
    tile = phase_causes(pra, tiling, v)
    for c, m in tile.masks.items():
        out.add(tile.reasons[c], m)
    extents = [np.asarray(d.extent.evaluate(v), dtype=np.int64) for d in pra.dims]
    p = [np.maximum(np.asarray(x, dtype=np.int64), 1) for x in tiling.sizes_many(pra, v)]
    shape = np.broadcast_shapes(*(e.shape for e in extents))
    if not isinstance(sched, Schedule):
        out.add(sched.reason, np.ones(shape, bool))
        return np.zeros(shape, np.int64), np.ones(shape, np.int64)
    pool = sched.pool if order is None else [
        c for c in sched.pool if tuple(pra.dims[l].name for l in c.order) == tuple(order)]
    big = np.iinfo(np.int64).max
    feas = [np.broadcast_to(c.feasible(extents, p), shape) for c in pool]
    lat = np.stack([np.where(f, c.latency_many(v, p), big) for c, f in zip(pool, feas, strict=True)])
    pick = np.argmin(lat, axis=0)
    ok = np.logical_or.reduce(feas)
    if not ok.all():
        out.add(Illegal("no-schedule", f"{pra.name}: scanning order "
                        f"{'auto' if order is None else '/'.join(order)} violates a dependence"), ~ok)
    depth = np.zeros(shape, np.int64)
    count = np.zeros(shape, np.int64)
    for i, c in enumerate(pool):
        d, n = _fifo_rules(c).needs(extents, p)
        depth = np.where(pick == i, d, depth)
        count = np.where(pick == i, n, count)
    caps = tgt.array.capacities(pra.dtype)
    check(out, caps, {"fd-depth": depth, "fd-count": count, "rd-count": np.full(shape, rd_need(pra))})
    t_eff = [-(-e // q) for e, q in zip(extents, p, strict=True)]
    return np.where(ok, np.min(lat, axis=0), 0), np.prod(t_eff, axis=0)


def evaluate(tgt: TcpaTarget, kernel: Any, shape: tuple[int, int],
             order: tuple[str, ...] | None, vals: Mapping[str, np.ndarray],
             memo: dict[Any, Any] | None = None) -> _Block:
    """Causes and prices of one (shape, order) at every size of ``vals`` at once.

    ``memo``: counts per shape shared by the orders of one search (they do not depend on
    the scanning order)."""
    from polyjoule.targets.tcpa import power

    out = Causes({}, {})
    scheds = _schedules(kernel, shape, tgt.store)  # every order; _phase picks ``order``
    lat = np.zeros(np.shape(next(iter(vals.values()))), np.int64)
    pes = np.ones_like(lat)
    for s in scheds:
        l, n = _phase(tgt, s, order, vals, out)
        lat, pes = lat + l, np.maximum(pes, n)
    ok = out.ok
    tiled = np.ones(lat.shape, bool)  # where the tiling rules hold: the counts' domain
    for c in STRUCTURAL[:3]:
        if c in out.masks:
            tiled &= ~out.masks[c]
    ev = None if memo is None else memo.get(shape)
    if ev is None:
        ev = _counts(kernel, shape, tgt.array, vals, tiled, tgt.store)
        if memo is not None:
            memo[shape] = ev
    caps = tgt.array.capacities(kernel.phases[0].dtype)
    iob, rate = io_needs(ev["IOb"], ev["DR"], pes, lat)
    check(out, caps, {"iob-capacity": np.where(ok, iob, 0), "dram-bandwidth": np.where(ok, rate, 0)},
          tgt.bandwidth_bound)
    if tgt.bandwidth_bound:
        from polyjoule.analysis.capacity import bandwidth_latency

        lat = bandwidth_latency(lat, ev["DR"], caps.dram_bandwidth_words_per_cycle)
    leak_uw = sum(power.leakage_uw(tgt.array).values())
    secs = lat * tgt.array.cycle_seconds
    dyn = np.asarray(ev["energy_pj"], dtype=np.float64)
    energy = dyn + leak_uw * secs * power.PJ_PER_UW_S
    price = {"latency": lat, "energy_pj": energy, "dynamic_pj": dyn, "edp": energy * lat,
             "power_mw": energy * 1e-9 / np.maximum(secs, 1e-30)}
    return _Block(TcpaMapping(shape, order, {}), out, price)


def _counts(kernel: Any, shape: tuple[int, int], array: ProcessorArray,
            vals: Mapping[str, np.ndarray], ok: np.ndarray, store: Any = None
            ) -> dict[str, np.ndarray]:
    """Energy and I/O counts at the accepted points (refused points take an accepted
    point's values, or zeros when none is accepted: the formulas hold only where legal)."""
    if not ok.any():
        z = np.zeros(ok.shape)
        return {"IOb": z, "DR": z, "energy_pj": z}
    i = int(np.flatnonzero(ok.reshape(-1))[0])
    safe = {k: np.where(ok, x, np.asarray(x).reshape(-1)[i]) for k, x in vals.items()}
    return _analysis(kernel, shape, array, store).evaluate_many(safe)


_ANALYSES: dict[Any, Any] = {}
_SCHEDULES: dict[Any, list[Any]] = {}
_FIFOS: dict[int, tuple[Any, FifoRules]] = {}


def _fifo_rules(candidate: Any) -> FifoRules:
    """The compiled FIFO rules of a scanning order, built once per candidate."""
    hit = _FIFOS.get(id(candidate))
    if hit is None or hit[0] is not candidate:
        hit = _FIFOS[id(candidate)] = (candidate, FifoRules(candidate))
    return hit[1]


def clear_memos() -> None:
    """Forget the in-process analyses and schedules (as a new process would)."""
    from polyjoule.analysis import schedule

    _ANALYSES.clear()
    _SCHEDULES.clear()
    _FIFOS.clear()
    schedule._CACHE.clear()


def _analysis(kernel: Any, shape: tuple[int, int], array: ProcessorArray,
              store: Any = None) -> Any:
    from polyjoule.analysis.analyze import analyze

    key = (kernel.name, kernel.phases, shape, id(array.energy))
    if key not in _ANALYSES:
        if len(_ANALYSES) > 256:
            _ANALYSES.clear()
        _ANALYSES[key] = analyze(kernel, shape, energy_table=array.energy, store=store)
    return _ANALYSES[key]


def _schedules(kernel: Any, shape: tuple[int, int], store: Any) -> list[Any]:
    """Every phase's schedule (all scanning orders), kept in ``store`` when given."""
    from polyjoule.analysis.analyze import derivation_key
    from polyjoule.analysis.schedule import kernel_schedules
    from polyjoule.mapping.tiling import Tiling

    memo = (kernel.name, kernel.phases, shape)
    if memo in _SCHEDULES:
        return _SCHEDULES[memo]
    if store is None or not hasattr(store, "get_object"):
        out = _SCHEDULES[memo] = kernel_schedules(kernel, shape)
        return out
    key = "|".join(derivation_key(pra, Tiling.of(pra, shape)) for pra in kernel.phases)
    key += "|pi=1|w=1|order=None"  # the key dse.sweep.schedules_for uses for these
    got = store.get_object(key, "schedules")
    if got is not None:
        out = _SCHEDULES[memo] = list(got)
        return out
    out = _SCHEDULES[memo] = kernel_schedules(kernel, shape)
    store.put_object(key, "schedules", out)  # pickles without compiled code
    return out


def _census(blocks: list[_Block], relieve: frozenset[str]) -> tuple[Census, Counter[str]]:
    """First cause, every cause and the independent census over every block's points."""
    census, indep = Census(), Counter()
    causes = [c for c in ORDER if c not in relieve]
    for b in blocks:
        first = b.causes.first(causes)
        for i, c in enumerate(causes):
            m = b.causes.masks.get(c)
            if m is None:
                continue
            n_first, n_any = int((first == i).sum()), int(m.sum())
            census.counts[c] += n_first
            census.any_counts[c] += n_any
            indep[c] += n_any
            census.kinds.setdefault(c, KINDS[c])
            if n_first and c not in census.examples:
                census.examples[c] = (_label(b, int(np.flatnonzero(first == i)[0])),
                                      b.causes.reasons[c].detail)
    census.counts = Counter({c: n for c, n in census.counts.items() if n})
    return census, indep


def _label(b: _Block, i: int) -> str:
    vals = ",".join(f"{k}={int(v.reshape(-1)[i])}" for k, v in b.mapping.values.items())
    return f"{b.mapping.label} @ {vals}"


def search(tgt: TcpaTarget, kernel: Any, vals: Mapping[str, np.ndarray],
           relieve: frozenset[str] = frozenset(), top: int = 8) -> TcpaSearch:
    """Every mapping of the mapspace at every size of ``vals``: priced or refused, ranked."""
    t0 = time.perf_counter()
    plan = [(sh, o) for sh in _distinct(kernel, shapes(tgt.array)) for o in orders(kernel, sh, tgt.store)]
    one = {k: np.asarray(v).reshape(-1)[:1] for k, v in vals.items()}
    for sh, o in plan:  # derive and compile every formula once, outside the timing
        evaluate(tgt, kernel, sh, o, one)
    t1 = time.perf_counter()
    blocks = []
    memo: dict[Any, Any] = {}
    for sh, o in plan:
        b = evaluate(tgt, kernel, sh, o, vals, memo)
        b.mapping = TcpaMapping(sh, o, vals, kernel.name)
        blocks.append(b)
    t2 = time.perf_counter()
    census, indep = _census(blocks, relieve)
    cands, accepted = _rank(tgt, blocks, relieve, top)
    n = sum(int(np.size(b.price["latency"])) for b in blocks)
    res = TcpaSearch(kernel.name, tgt, cands, accepted, census, n, relieve, indep, t1 - t0, t2 - t1)
    if relieve:
        res.relief = _relief(blocks, relieve)
    return res


def _distinct(kernel: Any, shapes_: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """One shape per tiling (``1x8`` and ``8x1`` tile the same dims alike)."""
    seen, out = set(), []
    for sh in shapes_:
        key = (tuple(sorted(x for x in sh if x != 1)) if min(sh) == 1 else sh)
        if len([x for x in sh if x != 1]) > min(ph.n for ph in kernel.phases):
            continue
        if key not in seen:
            seen.add(key)
            out.append(sh)
    return out


def _ok(b: _Block, relieve: frozenset[str]) -> np.ndarray:
    out = np.ones(np.shape(b.price["latency"]), bool)
    for c, m in b.causes.masks.items():
        if c not in relieve:
            out &= ~m
    return out


def _rank(tgt: TcpaTarget, blocks: list[_Block], relieve: frozenset[str], top: int
          ) -> tuple[list[dict[str, Any]], int]:
    """The ``top`` accepted mappings by the objectives, and how many were accepted."""
    keys, rows = [], []
    accepted = 0
    for bi, b in enumerate(blocks):
        idx = np.flatnonzero(_ok(b, relieve))
        accepted += idx.size
        if idx.size:
            o = np.lexsort(tuple(b.price[k][idx] for k in reversed(tgt.objectives)))[:max(top, 1)]
            for i in idx[o]:
                keys.append(tuple(float(b.price[k][i]) for k in tgt.objectives) + (bi, int(i)))
    for *_, bi, i in sorted(keys)[:top]:
        b = blocks[bi]
        rows.append({"mapping": _label(b, i), "array": f"{b.mapping.array[0]}x{b.mapping.array[1]}",
                     "order": "auto" if b.mapping.order is None else "/".join(b.mapping.order),
                     "values": {k: int(v[i]) for k, v in b.mapping.values.items()},
                     "latency": int(b.price["latency"][i]),
                     "energy_pj": round(float(b.price["energy_pj"][i]), 3),
                     "dynamic_pj": round(float(b.price["dynamic_pj"][i]), 3),
                     "edp": float(b.price["edp"][i]), "power_mw": round(float(b.price["power_mw"][i]), 6)})
    return rows, accepted


def _relief(blocks: list[_Block], relieve: frozenset[str]) -> dict[str, Any]:
    """Mappings the relieved causes alone refused, and what binds the rest next."""
    alone = returned = 0
    rebound: Counter[str] = Counter()
    rest = [c for c in ORDER if c not in relieve]
    for b in blocks:
        named = np.zeros(np.shape(b.price["latency"]), bool)
        for c in relieve:
            named |= b.causes.masks.get(c, False)
        others = ~_ok(b, relieve)
        alone += int((named & ~others).sum())
        returned += int((named & ~others).sum())
        first = b.causes.first(rest)
        for i, c in enumerate(rest):
            rebound[c] += int((named & (first == i)).sum())
    return {"cause": ",".join(sorted(relieve)), "alone": alone, "returned": returned,
            "rebound": {c: n for c, n in rebound.items() if n}}


def _register() -> None:
    from polyjoule.search import target as targets

    targets.register(TcpaTarget())


_register()
