"""Pricing mappings of a kernel on a declared array: causes, latency and energy of one
(placement, array shape, scanning order) at many points (sizes x tile sizes) at once.

Derived once per placement (:mod:`polyjoule.mapping.placement`): the counts are Barvinok
formulas in tile sizes ``p``, tile counts ``t`` and last-tile sizes ``r``, and the latency
formulas are in the parameters and ``p``; neither depends on the array's size beyond which
dims are tiled. So one derivation, on a canonical ``2x2`` (or ``1x2``) array, serves every
array shape and tile size of a placement: a shape only bounds the tile counts
(``too-many-tiles``). A phase whose counts need fixed tile sizes (``NotSymbolic``: coupled
dims of different extents) is analysed per shape at ``ceil(E/t)`` instead, as ``analyze``
does it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polyjoule.analysis.capacity import FifoRules, check, io_needs, rd_need
from polyjoule.analysis.exact import narrow, times, to_float, total
from polyjoule.analysis.occupancy import ExactFifos
from polyjoule.mapping.legality import Causes, Illegal, phase_causes
from polyjoule.mapping.placement import place_kernel
from polyjoule.mapping.tiling import Tiling
from polyjoule.targets.tcpa.array import ProcessorArray, on_grid
from polyjoule.targets.tcpa.tiles import Points

STRUCTURAL = ("empty-dimension", "too-many-tiles", "tile-below-dependence", "no-schedule")
#: from this many points on, counts run as generated code (its generation costs ~0.1 s per
#: placement; the interpreter is exact and faster below)
COMPILE_FROM = 20_000


def canonical(n_axes: int) -> tuple[int, int]:
    """The array a placement onto ``n_axes`` axes is derived on (any size > 1 would do)."""
    return (2, 2) if n_axes == 2 else (1, 2)


def n_axes(shape: tuple[int, int]) -> int:
    return sum(1 for a in shape if a != 1)


@dataclass
class Derived:
    """One placement of a kernel, derived: its schedules and (when every phase's counts are
    symbolic in the tile sizes) the compiled count formulas with each case's accesses."""

    kernel: Any  # the placed kernel
    axes: tuple[str, ...]
    schedules: list[Any]
    analysis: Any  # on the canonical array
    symbolic: bool  # every phase's counts symbolic in the tile sizes (else: per shape)
    _compiled: list[Any] | None = None
    _weights: dict[int, tuple[Any, np.ndarray]] = field(default_factory=dict)

    def volumes(self, i: int, env: Mapping[str, Any], n: int) -> list[Any]:
        """Every case count of phase ``i`` at ``env`` (``n`` points): the formulas
        interpreted for few points, generated code (built once, on demand) for many."""
        ph = self.analysis.phases[i]
        if n < COMPILE_FROM:
            return [v.formula.evaluate(env) for v in ph.volumes]
        self.prepare(n)
        assert self._compiled is not None
        return self._compiled[i].volumes(env)

    def prepare(self, n: int) -> None:
        """Generate the counts' code when ``n`` points will be evaluated at once."""
        if self.symbolic and n >= COMPILE_FROM and self._compiled is None:
            from polyjoule.analysis.compiled import CompiledAnalysis

            self._compiled = CompiledAnalysis(self.analysis).phases

    def weights(self, i: int, array: ProcessorArray) -> np.ndarray:
        """Per case of phase ``i``: (pJ, IOb words, DR words) of one execution."""
        hit = self._weights.get(i)
        if hit is None or hit[0] is not array:
            hit = self._weights[i] = (array, _weights(self.analysis.phases[i], array))
        return hit[1]

    def groups(self) -> list[tuple[int, ...]]:
        """Tiled dims of the (single) phase that share one tile size."""
        return [g.dims for g in self.analysis.phases[0].groups]


_DERIVED: dict[Any, Derived] = {}
_ANALYSES: dict[Any, Any] = {}
_SCHEDULES: dict[Any, list[Any]] = {}
_FIFOS: dict[Any, tuple[Any, FifoRules]] = {}


def clear_memos() -> None:
    """Forget the in-process derivations (as a new process would)."""
    from polyjoule.analysis import schedule

    for memo in (_DERIVED, _ANALYSES, _SCHEDULES, _FIFOS, schedule._CACHE):
        memo.clear()


def derived(kernel: Any, axes: tuple[str, ...], n: int, array: ProcessorArray,
            store: Any = None) -> Derived:
    """The derivation of ``kernel`` placed by ``axes`` onto ``n`` axes, once per process."""
    key = (kernel.name, kernel.phases, tuple(axes), n)
    hit = _DERIVED.get(key)
    if hit is not None:
        return hit
    pk = place_kernel(kernel, axes)
    shape = canonical(n)
    a = _analysis(pk, shape, array, store)
    symbolic = all(ph.mode == "symbolic" for ph in a.phases)
    out = _DERIVED[key] = Derived(pk, tuple(axes), _schedules(pk, shape, store), a, symbolic)
    return out


def _fifo_rules(candidate: Any, pi: int = 1) -> Any:
    """The compiled FIFO rules of a scanning order, built once per candidate; of an integer
    program's schedule (:class:`_Fixed`, kept by value) the use counted on the tiles'
    points (:class:`~polyjoule.analysis.occupancy.ExactFifos`: ``lambda_J . d`` bounds it
    only, the schedule may leave issue slots empty)."""
    fixed = isinstance(candidate, _Fixed)
    key: Any = (candidate, pi) if fixed else id(candidate)
    hit = _FIFOS.get(key)
    if hit is None or (hit[0] is not candidate and not fixed):
        rules = (ExactFifos(candidate.pra, candidate.lambda_J, pi) if fixed
                 else FifoRules(candidate, pi))
        hit = _FIFOS[key] = (candidate, rules)
    return hit[1]


def _analysis(kernel: Any, shape: tuple[int, int], array: ProcessorArray,
              store: Any = None) -> Any:
    from polyjoule.analysis.analyze import analyze

    key = (kernel.name, kernel.phases, shape, id(array))
    hit = _ANALYSES.get(key)
    if hit is None or hit[0] is not array:
        if len(_ANALYSES) > 256:
            _ANALYSES.clear()
        grid = on_grid(array, shape)
        hit = _ANALYSES[key] = (array, analyze(kernel, grid, store=store))
    return hit[1]


def _schedules(kernel: Any, shape: tuple[int, int], store: Any) -> list[Any]:
    """Every phase's schedule (all scanning orders), kept in ``store`` when given."""
    from polyjoule.analysis.analyze import derivation_key
    from polyjoule.analysis.schedule import kernel_schedules

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


def orders(d: Derived) -> list[tuple[str, ...] | None]:
    """Scanning orders (innermost first) a single-phase kernel may use; ``None`` (the best
    feasible order per phase and point) for a multi-phase kernel."""
    from polyjoule.analysis.schedule import Schedule

    s = d.schedules[0]
    if len(d.schedules) != 1 or not isinstance(s, Schedule):
        return [None]
    return [tuple(s.pra.dims[l].name for l in c.order) for c in s.pool]


def _tiles(sched: Any, pts: Points, i: int) -> tuple[Any, ...]:
    """Phase ``i``'s tiling causes, parameter values, extents, tile sizes and PEs used at
    the points (the same for every scanning order: kept with the points)."""
    hit = pts.cache.get(("tiles", i))
    if hit is not None:
        return hit
    pra = sched.pra
    p = [np.maximum(x, 1) for x in pts.tiles[i]]
    top = max(int(pts.rows.max(initial=1)), int(pts.cols.max(initial=1)), 2)
    # the dims the derivation tiles; the tiles never outnumber the PEs (every tile size is
    # at least ceil(E/t)): the largest side as the tile count bound keeps the message a number
    tiling = Tiling((2, 2), tuple(top if sched.tiling.tiled(l) else 1 for l in range(pra.n)),
                    tuple(p))
    v = {key: pts.values[key] for key in pra.params}
    tc = phase_causes(pra, tiling, v)
    extents = [np.asarray(d.extent.evaluate(v), dtype=np.int64) for d in pra.dims]
    t_eff = np.prod([-(-e // q) for e, q in zip(extents, p, strict=True)], axis=0)
    hit = pts.cache[("tiles", i)] = (tc, v, extents, p, np.broadcast_to(t_eff, (len(pts),)))
    return hit


def _phase(caps: Any, sched: Any, order: tuple[str, ...] | None, pts: Points, i: int,
           out: Causes) -> tuple[np.ndarray, np.ndarray]:
    """Phase ``i``: its causes added to ``out``; (latency, PEs used) per point."""
    from polyjoule.analysis.schedule import Schedule

    pra = sched.pra
    tc, v, extents, p, t_eff = _tiles(sched, pts, i)
    for c, m in tc.masks.items():
        out.add(tc.reasons[c], m)
    n = len(pts)
    if not isinstance(sched, Schedule):
        out.add(sched.reason, np.ones(n, bool))
        return np.zeros(n, np.int64), t_eff
    pool = sched.pool if order is None else [
        c for c in sched.pool if tuple(pra.dims[l].name for l in c.order) == tuple(order)]
    big = np.iinfo(np.int64).max
    feas = [np.broadcast_to(c.feasible(extents, p), (n,)) for c in pool]
    lat = np.stack([np.where(f, c.latency_many(v, p), big) for c, f in zip(pool, feas, strict=True)]
                   ) if pool else np.full((1, n), big)
    pick = np.argmin(lat, axis=0)
    lat = np.min(lat, axis=0)
    ok = np.logical_or.reduce(feas) if pool else np.zeros(n, bool)
    fifo: tuple[Any, ...] = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, bool))
    cap = caps.fd_depth_words
    for j, c in enumerate(pool):  # the depth counted where the closed form refuses
        mine = pick == j
        got = _fifo_rules(c).needs(extents, p, v, cap, mine & ok)
        fifo = tuple(np.where(mine, x, y) for x, y in zip(got, fifo, strict=True))
    miss = ~ok & ~np.logical_or.reduce([np.zeros(n, bool), *tc.masks.values()])
    if order is None and sched.auto and miss.any():  # skewed orders, all points at once
        found, sk = sched.skew.points(v, extents, p, miss, cap)
        lat, *fifo = (np.where(found, x, y) for x, y in zip(sk, (lat, *fifo), strict=True))
        ok, miss = ok | found, miss & ~found
    if order is None and sched.auto and miss.any():  # the integer program, as analyze
        found, ilp = _ilp_points(sched, v, extents, p, miss)
        lat, *fifo = (np.where(found, x, y) for x, y in zip(ilp, (lat, *fifo), strict=True))
        ok = ok | found
    if not ok.all():
        out.add(Illegal("no-schedule", f"{pra.name}: scanning order "
                        f"{'auto' if order is None else '/'.join(order)} violates a dependence"), ~ok)
    check(out, caps, {"fd-depth": fifo[0], "fd-count": fifo[1],
                      "rd-count": np.full(n, rd_need(pra))}, bound=fifo[2])
    return narrow(np.where(ok, lat, 0)), t_eff


@dataclass(frozen=True)
class _Fixed:
    """A schedule of the integer program as the FIFO rules read a scanning order: its
    (integer) ``lambda_J`` and the phase's dependence cases."""

    pra: Any
    lambda_J: tuple[int, ...]
    deps: tuple[Any, ...]


def _ilp_points(sched: Any, v: Mapping[str, Any], extents: list[np.ndarray], p: list[np.ndarray],
                where: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """(found, (latency, FIFO depth, FIFO count, depth only bounded)) at the points
    ``where``: per point the integer program's schedule at its tile sizes
    (:meth:`Schedule.ilp_at`, what ``analyze`` and the simulator run there) and the FIFO use
    of its ``lambda_J`` on the tiles."""
    from polyjoule.analysis.schedule import ConcreteSchedule

    n = where.size
    found = np.zeros(n, bool)
    out: list[Any] = [np.zeros(n, object), np.zeros(n, np.int64), np.zeros(n, np.int64),
                      np.zeros(n, bool)]
    full = [np.broadcast_to(np.asarray(x, dtype=np.int64), (n,)) for x in (*extents, *p)]
    vals = {k: np.broadcast_to(np.asarray(x, dtype=np.int64), (n,)) for k, x in v.items()}
    k = len(extents)
    for j in np.flatnonzero(where):
        c = sched.ilp_at({key: int(x[j]) for key, x in vals.items()}, [int(x[j]) for x in full[k:]])
        if not isinstance(c, ConcreteSchedule):
            continue
        rules = _fifo_rules(_Fixed(sched.pra, tuple(c.lambda_J), tuple(sched.deps)), sched.pi)
        got = rules.needs([x[j:j + 1] for x in full[:k]], [x[j:j + 1] for x in full[k:]],
                          {key: x[j:j + 1] for key, x in vals.items()})
        found[j] = True
        for arr, val in zip(out, (int(c.latency), *(x[0] for x in got)), strict=True):
            arr[j] = val
    return found, (narrow(out[0]), *out[1:])


@dataclass
class BlockPrices:
    """Causes and prices of every point of one block."""

    causes: Causes
    price: dict[str, np.ndarray]


def timing(d: Derived, array: ProcessorArray, order: tuple[str, ...] | None, pts: Points
           ) -> tuple[Causes, np.ndarray, np.ndarray]:
    """The structural, schedule and PE capacity causes; latency and PEs used per point."""
    out = Causes({}, {})
    caps = array.capacities(d.kernel.phases[0].dtype)
    lat = np.zeros(len(pts), np.int64)
    pes = np.ones_like(lat)
    for i, s in enumerate(d.schedules):
        l, n = _phase(caps, s, order, pts, i, out)
        lat, pes = lat + l, np.maximum(pes, n)
    return out, lat, pes


def price(d: Derived, array: ProcessorArray, order: tuple[str, ...] | None, pts: Points,
          bandwidth_bound: bool = False, memo: dict[Any, Any] | None = None,
          store: Any = None) -> BlockPrices:
    """Causes, latency, dynamic and total energy, EDP and power of every point of ``pts``.

    ``memo``: counts per block of points, shared by the orders of one search."""
    from polyjoule.targets.tcpa import power

    out, lat, pes = timing(d, array, order, pts)
    caps = array.capacities(d.kernel.phases[0].dtype)
    tiled = np.ones(lat.shape, bool)  # where the tiling rules hold: the counts' domain
    for c in STRUCTURAL[:3]:
        if c in out.masks:
            tiled &= ~out.masks[c]
    ev = None if memo is None else memo.get(id(pts))
    if ev is None:
        ev = counts(d, array, pts, tiled, store)
        if memo is not None:
            memo[id(pts)] = ev
    # every capacity checked wherever the counts and the latency hold (as analyze names
    # them all): a point the FIFOs refuse may exceed its border buffers too
    timed = tiled & ~out.masks.get("no-schedule", np.zeros(lat.shape, bool))
    iob, rate = io_needs(ev["IOb"], ev["DR"], pes, lat)
    check(out, caps, {"iob-capacity": np.where(timed, iob, 0),
                      "dram-bandwidth": np.where(timed, rate, 0)}, bandwidth_bound)
    if bandwidth_bound:
        from polyjoule.analysis.capacity import bandwidth_latency

        lat = bandwidth_latency(lat, ev["DR"], caps.dram_bandwidth_words_per_cycle)
    leak_uw = _leakage_uw(array, pts.rows * pts.cols)
    cycles = to_float(lat)  # each latency rounded once (Python integers past int64)
    secs = cycles * array.cycle_seconds
    dyn = np.asarray(ev["energy_pj"], dtype=np.float64)
    energy = dyn + leak_uw * secs * power.PJ_PER_UW_S
    return BlockPrices(out, {"latency": lat, "energy_pj": energy, "dynamic_pj": dyn,
                        "edp": energy * cycles,
                        "power_mw": energy * 1e-9 / np.maximum(secs, 1e-30)})


def _leakage_uw(array: ProcessorArray, n_pes: np.ndarray) -> np.ndarray:
    """Leakage of the grids of ``n_pes`` PEs (the PEs a mapping instantiates): linear in
    the PE count, the I/O buffers fixed (:func:`~polyjoule.targets.tcpa.power.leakage_uw`)."""
    from polyjoule.targets.tcpa import power

    one = sum(power.leakage_uw(on_grid(array, (1, 1))).values())
    two = sum(power.leakage_uw(on_grid(array, (1, 2))).values())
    return (one - (two - one)) + (two - one) * np.asarray(n_pes, dtype=np.float64)


def counts(d: Derived, array: ProcessorArray, pts: Points, ok: np.ndarray,
           store: Any = None) -> dict[str, np.ndarray]:
    """Dynamic energy, I/O buffer and DRAM words at the points where the tiling rules
    hold (elsewhere zeros: the formulas hold only where legal)."""
    n = len(pts)
    out = {"energy_pj": np.zeros(n), "IOb": np.zeros(n, np.int64), "DR": np.zeros(n, np.int64)}
    sym = ok & _symbolic_rows(d, pts)
    if sym.any():
        got = _symbolic_counts(d, array, pts.take(sym))
        for k, v in got.items():
            out[k] = _put(out[k], sym, v)
    rest = ok & ~sym
    for r, c in set(zip(pts.rows[rest].tolist(), pts.cols[rest].tolist(), strict=True)):
        assert not pts.explicit, "explicit tile sizes are searched for symbolic phases only"
        m = rest & (pts.rows == r) & (pts.cols == c)
        ev = _analysis(d.kernel, (r, c), array, store).evaluate_many(
            {k: v[m] for k, v in pts.values.items()})
        for k in out:
            out[k] = _put(out[k], m, ev[k])
    return out


def _put(into: np.ndarray, mask: np.ndarray, values: Any) -> np.ndarray:
    values = np.asarray(values)
    if values.dtype == object and into.dtype != object:
        into = into.astype(object)
    into[mask] = values
    return into


def _symbolic_rows(d: Derived, pts: Points) -> np.ndarray:
    """Points the placement's symbolic formulas count: coupled dims of one tile size."""
    ok = np.full(len(pts), d.symbolic)
    if d.symbolic:
        for ph, tile in zip(d.analysis.phases, pts.tiles, strict=True):
            for g in ph.groups:
                for l in g.dims:
                    ok &= tile[l] == tile[g.index]
    return ok


def _weights(ph: Any, array: ProcessorArray) -> np.ndarray:
    """Per case of a phase: (pJ, IOb words, DR words) of one execution."""
    from polyjoule.analysis.analyze import case_energy

    rows = []
    for v in ph.volumes:
        by_class, by_op = case_energy(v, ph.pra, array)
        acc = v.case.accesses
        rows.append((sum(by_class.values()) + sum(by_op.values()), acc.get("IOb", 0),
                     acc.get("DR", 0)))
    return np.asarray(rows, dtype=np.float64).reshape(-1, 3)


def _symbolic_counts(d: Derived, array: ProcessorArray, pts: Points) -> dict[str, np.ndarray]:
    """The compiled formulas of the canonical derivation at the points' tile sizes; the
    words exact at any size (a case's count fits int64 where its sum of cases may not)."""
    from polyjoule.analysis.counts import symbolic_env

    n = len(pts)
    e = np.zeros(n)
    io: list[list[np.ndarray]] = [[], []]
    for i, ph in enumerate(d.analysis.phases):
        v = {p: pts.values[p] for p in ph.pra.params}
        env = symbolic_env(ph.pra, ph.tiling, ph.groups, v, pts.tiles[i])
        w = d.weights(i, array)
        for k, cnt in enumerate(d.volumes(i, env, n)):
            cnt = np.broadcast_to(np.asarray(cnt), (n,))
            e = e + cnt.astype(np.float64) * w[k, 0]
            for j in (0, 1):
                if w[k, j + 1]:
                    io[j].append(times(cnt, int(w[k, j + 1])))
    words = [np.broadcast_to(total(x), (n,)) for x in io]
    return {"energy_pj": e, "IOb": words[0], "DR": words[1]}


def capacity_causes(a: Any, values: Mapping[str, int], result: Any) -> Causes:
    """The capacity rules asked of one analysed mapping (``polyjoule analyze``): every
    cause the map search would refuse it for, with the numbers. ``a``: the
    :class:`~polyjoule.analysis.analyze.Analysis`, ``result`` its evaluation at ``values``
    (counts and latency); the scanning order is the one the analysis chose there."""
    from polyjoule.analysis.schedule import Schedule

    caps = a.machine.capacities(a.kernel.phases[0].dtype)
    out = Causes({}, {})
    pes = 1
    for ph, s in zip(a.phases, a.schedules(), strict=True):
        scalar = {p: int(values[p]) for p in ph.pra.params}
        v = {p: np.asarray([x]) for p, x in scalar.items()}
        sizes = [np.asarray([int(x)]) for x in a.tile_sizes(ph, scalar)]
        extents = [np.asarray(d.extent.evaluate(v), dtype=np.int64) for d in ph.pra.dims]
        pes = max(pes, int(np.prod([-(-e // q) for e, q in zip(extents, sizes, strict=True)])))
        if not isinstance(s, Schedule):
            continue
        cs = s.at(scalar)
        rules = (_fifo_rules(next(c for c in s.candidates if c.order == cs.order))
                 if cs.method == "scan"
                 else _fifo_rules(_Fixed(ph.pra, tuple(cs.lambda_J), tuple(s.deps)), s.pi))
        need = rules.needs(extents, sizes, v, caps.fd_depth_words)
        check(out, caps, {"fd-depth": need.depth, "fd-count": need.count,
                          "rd-count": np.asarray([rd_need(ph.pra)])}, bound=need.bound)
    iob, rate = io_needs([result.counts["IOb"]], [result.counts["DR"]], pes,
                         [result.latency_cycles])
    check(out, caps, {"iob-capacity": iob, "dram-bandwidth": rate})
    return out
