"""Design-space sweeps: energy, latency, EDP, utilisation and Pareto fronts of many mappings.

Derivation is per mapping, evaluation per point. A sweep therefore groups its design points
by mapping: one ``analyze`` (volumes) and one schedule derivation per array shape / tile
spec / scanning order, then one vectorised evaluation over every problem size at once
(:mod:`polyjoule.analysis.compiled`). Energy is linear in the integer counts, so every energy
table is a rescaling of the same counts and costs no re-evaluation.

Metrics per design point:

* ``energy_pj`` (also ``dynamic_pj``, its name in ``analyze`` and ``map``): dynamic energy (accesses of a word of the kernel's data type, operations
  on it), with ``energy.<class>`` per location class and ``energy.compute`` for the
  operations;
* ``latency_cycles``: exact makespan of the schedule (phases add); ``auto`` order is the
  best scanning order per point;
* ``static_pj`` (``static.<component>``): leakage of every component of the declared array
  over the latency at its clock; ``total_pj`` = dynamic + static; ``power_mw``,
  ``throughput_ips`` (iterations per second), ``energy_per_op_pj``
  (:func:`polyjoule.analysis.analyze.run_columns`, the same arithmetic as ``analyze``);
* ``edp``: energy-delay product, ``total_pj * latency_cycles`` (pJ x cycles);
* ``utilisation``: useful work / (PEs x latency), where useful work is the number of
  loop-body iterations (per phase, the executions of its most executed compute statement:
  one multiply-accumulate per point of GEMM's ``i, j, k`` space). A PE starts at most one
  iteration per cycle (``pi = 1``), so utilisation is at most 1; it is lowered by pipeline
  fill/drain (the ``lambda_K . (t-1)`` skew), by empty PEs of partial last tiles and by the
  scanning order;
* ``pareto``: on the energy-latency Pareto front of the design points sharing its problem
  size (comparing different sizes is meaningless: the smallest problem always wins), in
  total (dynamic + static) energy and latency.

Every array shape is the declaration ``SweepSpec.declaration`` (default: the shipped one)
with that grid; each energy table replaces its energies.

Exact at any size below 2**63 per parameter: counts and latencies are int64 columns while
no intermediate can overflow and Python integers (object columns) beyond, never wrapped
(:mod:`polyjoule.analysis.intprint`'s guard); the float columns derived from them are
rounded once from the exact value (:mod:`polyjoule.analysis.exact`), so every column of a
point equals ``analyze`` there, and the Pareto front compares latencies exactly.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from polyjoule.analysis.analyze import Analysis, FormulaStore, analyze, run_columns
from polyjoule.analysis.compiled import energies
from polyjoule.analysis.exact import narrow
from polyjoule.dse.space import MappingSpec, SizeGrid
from polyjoule.errors import InfeasibleMapping, PolyjouleError
from polyjoule.mapping.legality import Verdict, kernel_verdict
from polyjoule.mapping.tiling import Tiling
from polyjoule.model.pra import Kernel
from polyjoule.targets.tcpa.array import ProcessorArray, default_array, on_grid
from polyjoule.targets.tcpa.energy import EnergyTable
from polyjoule.targets.tcpa.locations import CLASSES

#: progress(stage, done, total)
Progress = Callable[[str, int, int], None]


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


@dataclass
class MappingResult:
    """Integer counts and latency of one mapping over the feasible problem sizes."""

    mapping: MappingSpec
    analysis: Analysis
    index: np.ndarray  # positions in the size grid that are feasible for this mapping
    counts: dict[str, np.ndarray]
    latency: np.ndarray
    schedules: list[Any]
    verdict: Verdict | None = None  # legality of every grid point (why the others are refused)


@dataclass
class SweepResult:
    """Columns of equal length (one row per design point) plus what the run did."""

    kernel: str
    params: tuple[str, ...]
    columns: dict[str, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)
    validation: dict[str, Any] | None = None
    mapping_results: list[MappingResult] = field(default_factory=list)

    def __len__(self) -> int:
        return int(next(iter(self.columns.values())).shape[0]) if self.columns else 0

    def row(self, i: int) -> dict[str, Any]:
        return {k: _py(v[i]) for k, v in self.columns.items()}

    def order_by(self, key: str = "edp") -> np.ndarray:
        return np.argsort(self.columns[key], kind="stable")

    def to_pandas(self) -> Any:
        """A pandas DataFrame (the ``pandas`` extra): one row per design point, the columns
        of the CSV; ``attrs`` hold the metadata."""
        from polyjoule.analysis.frames import columns_frame

        return columns_frame(self.columns, self.meta)


def _py(x: Any) -> Any:
    """A numpy scalar as the Python value it holds (exact ints stay Python ints)."""
    return x.item() if isinstance(x, np.generic) else x


# ----------------------------------------------------------------------------- feasibility


def feasible(kernel: Kernel, m: MappingSpec, sizes: Mapping[str, np.ndarray],
             schedules: Sequence[Any] | None = None) -> Verdict:
    """Which points this mapping can run, and why the others cannot
    (:func:`polyjoule.mapping.legality.kernel_verdict`; tiling only without ``schedules``)."""
    phases = []
    for n, pra in enumerate(kernel.phases):
        tl = Tiling.of(pra, m.array, m.tile if m.tile is not None and len(m.tile) == pra.n else None)
        phases.append((pra, tl, None if schedules is None else schedules[n]))
    return kernel_verdict(phases, sizes)


def _refused(v: Verdict, sizes: Mapping[str, np.ndarray]) -> InfeasibleMapping:
    """The error naming the first refused point and its reason (``.reason``)."""
    i = int(np.flatnonzero(~v.ok)[0])
    why = v.reason(i)
    assert why is not None
    at = ", ".join(f"{k}={int(x[i])}" for k, x in sizes.items())
    err = InfeasibleMapping(f"sweep: {why} at {at}; drop these points with --skip-infeasible")
    err.reason = why  # type: ignore[attr-defined]
    return err


# ----------------------------------------------------------------------------- schedules


def schedules_for(kernel: Kernel, m: MappingSpec, pi: int = 1, w: int = 1,
                  cache: Any = None) -> list[Any]:
    """One schedule per phase (``polyjoule.analysis.schedule``), cached when possible."""
    from polyjoule.analysis.analyze import derivation_key
    from polyjoule.analysis.schedule import kernel_schedules

    key = None
    if cache is not None and hasattr(cache, "get_object"):
        parts = []
        for pra in kernel.phases:
            tl = Tiling.of(pra, m.array, m.tile if m.tile is not None and len(m.tile) == pra.n else None)
            parts.append(derivation_key(pra, tl))
        key = "|".join(parts) + f"|pi={pi}|w={w}|order={m.order}"
        got = cache.get_object(key, "schedules")
        if got is not None:
            return got  # type: ignore[no-any-return]
    out = kernel_schedules(kernel, m.array, m.tile, pi, w, m.order)
    if key is not None:
        for s in out:  # drop lazily compiled evaluators (generated code does not pickle)
            for c in getattr(s, "candidates", []):
                for attr in ("_scalar", "_vector", "_lambdas"):
                    c.__dict__.pop(attr, None)
        cache.put_object(key, "schedules", out)
    return out


def latency_many(schedules: Sequence[Any], sizes: Mapping[str, np.ndarray],
                 legal: np.ndarray | None = None) -> np.ndarray:
    """Exact latency of every point (phases run one after another; -1 where a phase refuses
    it), through each schedule's compiled latency. ``legal``: the points' verdict, if known."""
    total: Any = 0
    bad: Any = False
    for s in schedules:
        lat = s.compiled_latency({p: sizes[p] for p in s.pra.params}, legal)
        bad = bad | (lat < 0)
        total = total + lat
    return narrow(np.where(bad, -1, total))


# ----------------------------------------------------------------------------- evaluation


def counts_many(a: Analysis, sizes: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Integer counts (classes, ``ops.<op>``, ``work``) of every point
    (:meth:`Analysis.counts_many`)."""
    return a.counts_many(sizes)


def scalar_counts(a: Analysis, values: Mapping[str, int]) -> dict[str, int]:
    """Counts of one point with the scalar formula interpreter (:meth:`Analysis.counts`):
    used for fixed-tile kernels and as the independent scalar side of ``--validate``."""
    return a.counts(values)


# ----------------------------------------------------------------------------- pareto


def pareto_mask(energy: np.ndarray, latency: np.ndarray, group: np.ndarray | None = None) -> np.ndarray:
    """Points no other point of their group beats in both energy and latency.

    A point is dominated when another has energy <= and latency <= with one strictly less;
    identical points are all kept. ``group``: int labels (e.g. the problem size index).
    """
    n = energy.shape[0]
    if n == 0:
        return np.zeros(0, dtype=bool)
    g = np.zeros(n, dtype=np.int64) if group is None else np.asarray(group, dtype=np.int64)
    out = np.ones(n, dtype=bool)
    # a point alone in its group is on its front: only shared groups need the sort
    ug, inv, cnt = np.unique(g, return_inverse=True, return_counts=True)
    shared = np.flatnonzero(cnt[inv] > 1)
    if shared.size == 0:
        return out
    out[shared] = _front(energy[shared], latency[shared], inv[shared])
    return out


def exact_rank(values: np.ndarray) -> np.ndarray:
    """int64 ranks ordering ``values`` as they are ordered, equal values equal ranks: exact
    integers beyond int64 (object arrays) compared exactly, never through float."""
    v = np.asarray(values)
    if v.dtype != object:
        return v
    _, inv = np.unique(v, return_inverse=True)
    return np.asarray(inv, dtype=np.int64).reshape(v.shape)


def _front(energy: np.ndarray, latency: np.ndarray, gid: np.ndarray) -> np.ndarray:
    n = energy.shape[0]
    order = np.lexsort((energy, latency, gid))
    e, lat, gs = energy[order], latency[order], gid[order]
    # running minimum of energy within each group, on ranks offset so earlier groups never win
    by_e = np.argsort(e, kind="stable")
    se = e[by_e]
    new = np.ones(n, dtype=bool)
    new[1:] = se[1:] != se[:-1]
    rank = np.empty(n, dtype=np.int64)
    rank[by_e] = np.maximum.accumulate(np.where(new, np.arange(n), 0))  # equal energies, equal rank
    gid = np.unique(gs, return_inverse=True)[1].astype(np.int64)
    ngroups = int(gid.max()) + 1
    key = rank + (ngroups - 1 - gid) * (n + 1)
    prev = np.empty(n, dtype=np.int64)
    prev[0] = np.iinfo(np.int64).max
    prev[1:] = np.minimum.accumulate(key)[:-1]
    first = np.ones(n, dtype=bool)
    first[1:] = gs[1:] != gs[:-1]
    prev[first] = np.iinfo(np.int64).max
    front = key < prev
    # identical to the previous point (same group, energy, latency) and that one is on the front
    same = np.zeros(n, dtype=bool)
    same[1:] = (~first[1:]) & (e[1:] == e[:-1]) & (lat[1:] == lat[:-1])
    for i in np.flatnonzero(same):
        front[i] = front[i - 1]
    res = np.zeros(n, dtype=bool)
    res[order] = front
    return res


# ----------------------------------------------------------------------------- sweep


@dataclass
class SweepSpec:
    """What to sweep."""

    kernel: Kernel
    grid: SizeGrid
    mappings: list[MappingSpec]
    tables: list[EnergyTable] = field(default_factory=list)
    pi: int = 1
    w: int = 1
    skip_infeasible: bool = False
    declaration: ProcessorArray | None = None  # clock, leakage, widths (default: shipped)

    def machine(self, shape: tuple[int, int], table: EnergyTable | None = None) -> ProcessorArray:
        """The declaration with grid ``shape`` and ``table``'s energies."""
        base = self.declaration
        decl = default_array(shape) if base is None else replace(
            on_grid(base, shape), name=f"{base.name} {shape[0]}x{shape[1]}")
        return decl if table is None else replace(decl, energy=table)


def analyses(spec: SweepSpec, store: FormulaStore | None = None, executor: Any = None,
             progress: Progress = _no_progress) -> dict[tuple[Any, ...], Analysis]:
    """One ``Analysis`` per distinct (array, tile): derived remotely when an executor is given."""
    keys = list(dict.fromkeys((m.array, m.tile) for m in spec.mappings))
    if executor is not None:
        from polyjoule.dse.cache import MemoryStore

        missing = [k for k in keys if not _cached(spec.kernel, k, store)]
        if missing:
            derived = executor.derive(spec.kernel, missing)
            mem = MemoryStore()
            for d in derived:
                mem.data.update(d)
            for key in mem.data:
                if store is not None:
                    store.put(key, mem.get(key) or [])
            if store is None:
                store = mem
    out: dict[tuple[Any, ...], Analysis] = {}
    bases: dict[tuple[int, int], Analysis] = {}
    for i, (arr, tile) in enumerate(keys):
        progress("derive", i, len(keys))
        a: Analysis | None = None
        if tile is not None:  # symbolic formulas hold for every tile size: reuse the auto ones
            if arr not in bases:
                bases[arr] = analyze(spec.kernel, arr, None, store=store)
            a = _retiled(bases[arr], tile)
        elif arr in bases:
            a = bases[arr]
        if a is None:
            a = analyze(spec.kernel, arr, tile, store=store)
        if tile is None:
            bases[arr] = a
        out[(arr, tile)] = a
    progress("derive", len(keys), len(keys))
    return out


def _retiled(base: Analysis, tile: tuple[int, ...]) -> Analysis | None:
    """``base`` (derived with ``p = ceil(N/t)``) under explicit tile sizes, without deriving.

    The symbolic-tile formulas are derived for a symbolic ``p`` and are valid for any tile
    size, so only the tiling changes; ``None`` when a phase is not symbolic or its tile
    groups differ (then the caller derives).
    """
    from polyjoule.analysis.counts import NotSymbolic, groups_of

    phases = []
    for ph in base.phases:
        if ph.volumes is None:
            return None
        use = tile if len(base.kernel.phases) == 1 or len(tile) == ph.pra.n else None
        tl = Tiling.of(ph.pra, base.array, use)
        try:
            groups = groups_of(ph.pra, tl)
        except NotSymbolic:
            return None
        if groups != ph.groups:
            return None
        phases.append(replace(ph, tiling=tl, _fixed={}, _display={}))
    return replace(base, tile=tile, phases=phases, derive_seconds=0.0, _compiled=None, _schedules=None)


def _cached(kernel: Kernel, key: tuple[Any, ...], store: FormulaStore | None) -> bool:
    """Is every phase of this mapping already in the store (so no remote work is needed)?"""
    from polyjoule.analysis.analyze import derivation_key
    from polyjoule.analysis.counts import NotSymbolic, groups_of

    if store is None:
        return False
    arr, tile = key
    for pra in kernel.phases:
        tl = Tiling.of(pra, arr, tile if tile is not None and len(tile) == pra.n else None)
        try:
            groups_of(pra, tl)
        except NotSymbolic:
            continue
        peek = getattr(store, "contains", None)
        if peek is not None:
            if not peek(derivation_key(pra, tl)):
                return False
        elif store.get(derivation_key(pra, tl)) is None:
            return False
    return True


def run_sweep(spec: SweepSpec, store: FormulaStore | None = None, executor: Any = None,
              progress: Progress = _no_progress) -> SweepResult:
    """Evaluate every design point of ``spec``; see the module docstring for the metrics."""
    t0 = time.perf_counter()
    kernel, grid = spec.kernel, spec.grid
    tables = spec.tables or [spec.machine((1, 1)).energy]
    if not spec.mappings:
        raise PolyjouleError("sweep: no mapping (give --arrays)")
    # legality first: a bad request fails before the volumes are derived or anything written
    ts = time.perf_counter()
    scheds: dict[MappingSpec, list[Any]] = {}
    masks: list[np.ndarray] = []
    verdicts: list[Verdict] = []
    for i, m in enumerate(spec.mappings):
        progress("schedule", i, len(spec.mappings))
        scheds[m] = schedules_for(kernel, m, spec.pi, spec.w, cache=store)
        v = feasible(kernel, m, grid.values, scheds[m])
        if not v.ok.all() and not spec.skip_infeasible:
            raise _refused(v, grid.values)
        masks.append(v.ok)
        verdicts.append(v)
    progress("schedule", len(spec.mappings), len(spec.mappings))
    schedule_s = time.perf_counter() - ts
    if not any(mk.any() for mk in masks):
        raise InfeasibleMapping("sweep: no design point is feasible for any mapping")
    td = time.perf_counter()
    ans = analyses(spec, store, executor, progress)
    derive_s = time.perf_counter() - td
    results: list[MappingResult] = []
    te = time.perf_counter()
    shared = _shared_counts(spec.mappings, masks, ans, grid.values)
    for i, (m, ok) in enumerate(zip(spec.mappings, masks, strict=True)):
        progress("evaluate", i, len(spec.mappings))
        idx = np.flatnonzero(ok)
        sizes = {p: v[idx] for p, v in grid.values.items()}
        union, counts = shared[(m.array, m.tile)]
        rows = np.searchsorted(union, idx)  # this order's points among its array and tile's
        lat = latency_many(scheds[m], sizes, np.ones(idx.size, dtype=bool)) if idx.size \
            else np.zeros(0, dtype=np.int64)  # only legal points (the verdict above)
        results.append(MappingResult(m, ans[(m.array, m.tile)], idx, {k: v[rows] for k, v in counts.items()},
                                     lat, scheds[m], verdicts[i]))
    progress("evaluate", len(spec.mappings), len(spec.mappings))
    eval_s = time.perf_counter() - te
    columns = _assemble(spec, results, tables)
    meta = {
        "kernel": kernel.name, "params": list(grid.params), "points": len(columns["energy_pj"]),
        "mappings": len(spec.mappings), "problem_sizes": len(grid), "tables": [t.name for t in tables],
        "pi": spec.pi, "w": spec.w, "skipped_infeasible": int(sum((~mk).sum() for mk in masks)),
        "seconds": {"derive": derive_s, "schedule": schedule_s, "evaluate": eval_s,
                    "total": time.perf_counter() - t0},
        "derive_seconds_per_mapping": {f"{a.array[0]}x{a.array[1]} tile={_tile_text(k[1])}":
                                       a.derive_seconds for k, a in ans.items()},
    }
    return SweepResult(kernel.name, grid.params, columns, meta, None, results)


def _shared_counts(mappings: Sequence[MappingSpec], masks: list[np.ndarray], ans: Mapping[tuple[Any, ...], Analysis],
                   values: Mapping[str, np.ndarray]) -> dict[tuple[Any, ...], tuple[np.ndarray, dict[str, np.ndarray]]]:
    """Counts once per array shape and tile over the points feasible for any of its scanning
    orders (counts do not depend on the order, feasibility does): grid positions, counts."""
    union: dict[tuple[Any, ...], np.ndarray] = {}
    for m, ok in zip(mappings, masks, strict=True):
        key = (m.array, m.tile)
        union[key] = union[key] | ok if key in union else ok.copy()
    out: dict[tuple[Any, ...], tuple[np.ndarray, dict[str, np.ndarray]]] = {}
    for key, ok in union.items():
        idx = np.flatnonzero(ok)
        out[key] = (idx, counts_many(ans[key], {p: v[idx] for p, v in values.items()}) if idx.size else {})
    return out


def _tile_text(t: tuple[int, ...] | None) -> str:
    return "auto" if t is None else ",".join(map(str, t))


def _assemble(spec: SweepSpec, results: list[MappingResult], tables: list[EnergyTable]) -> dict[str, np.ndarray]:
    """Rows: mapping-major, then energy table, then problem size (grid order)."""
    grid = spec.grid
    dtypes = [ph.dtype for ph in spec.kernel.phases]
    ops = sorted({k for r in results for k in r.counts if k.startswith("ops.")})
    parts: list[dict[str, np.ndarray]] = []
    machines: dict[tuple[Any, ...], ProcessorArray] = {}
    for r in results:
        n = r.index.size
        if n == 0:
            continue
        for t in tables:
            cols: dict[str, np.ndarray] = {
                "array": np.full(n, r.mapping.array_text),
                "pes": np.full(n, r.mapping.array[0] * r.mapping.array[1], dtype=np.int64),
                "tile": np.full(n, r.mapping.tile_text),
                "order": np.full(n, r.mapping.order_text),
                "table": np.full(n, t.name),
                "dataset": grid.labels[r.index],
            }
            for p in grid.params:
                cols[p] = grid.values[p][r.index]
            for c in CLASSES:
                cols[c] = r.counts[c]
            for o in ops:
                cols[o] = r.counts.get(o, np.zeros(n, dtype=np.int64))
            cols["work"] = r.counts["work"]
            key = (r.mapping.array, id(t))
            if key not in machines:
                machines[key] = spec.machine(r.mapping.array, t)
            decl = machines[key]
            cols.update(energies(r.counts, decl, dtypes))
            cols["dynamic_pj"] = cols["energy_pj"]  # named as analyze and map name it
            cols.update(run_columns(decl, r.latency, cols))
            cols["edp"] = cols["total_pj"] * np.asarray(r.latency, dtype=np.float64)
            cols["_size"] = r.index
            parts.append(cols)
    out = dict(parts[0]) if len(parts) == 1 else {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    size = out.pop("_size")
    if len(parts) == 1:  # one mapping and table: every point is alone with its problem size
        out["pareto"] = np.ones(size.shape[0], dtype=bool)
    else:
        out["pareto"] = pareto_mask(out["total_pj"], exact_rank(out["latency_cycles"]), size)
    return out
