"""The processor array (TCPA) as a search target: a mapspace priced from formulas.

The mapspace of a kernel on a declared array: array shapes within the declared grid
(powers of two per side, and the declared sides) x placements (which loop dims the array's
rows and columns take, :mod:`polyjoule.mapping.placement`) x tile sizes
(:mod:`polyjoule.targets.tcpa.tiles`: ``ceil(N/t)`` and the sizes that leave part of an axis
idle; single-phase kernels whose counts are symbolic in the tile sizes) x scanning orders
(single-phase kernels; a multi-phase kernel takes the best feasible order per phase and
point) x the problem sizes given (ranges). The energy, latency and capacity formulas are
derived once per placement (:mod:`polyjoule.targets.tcpa.pricing`) and evaluated for every
shape, tile size and problem size at once; every point is priced or refused with every cause
it violates (:mod:`polyjoule.mapping.legality`, :mod:`polyjoule.analysis.capacity`), ranked
by the objective, and censused in the search core's three definitions.
"""

from __future__ import annotations

import math
import shlex
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from polyjoule.analysis.capacity import CAUSES as CAPACITY
from polyjoule.errors import Kind, Refused, SpecError
from polyjoule.mapping.legality import Causes
from polyjoule.search.census import Census
from polyjoule.search.cost import Cost, Priced, exact_key
from polyjoule.search.mapspace import Mapspace
from polyjoule.targets.tcpa.array import (
    ProcessorArray,
    array_of,
    default_array,
    is_declaration_file,
)
from polyjoule.targets.tcpa.pricing import (
    STRUCTURAL,
    clear_memos,
    derived,
    n_axes,
    price,
    timing,
)
from polyjoule.targets.tcpa.pricing import orders as placed_orders
from polyjoule.targets.tcpa.tiles import (
    Points,
    concat,
    default_points,
    fixed_points,
    flat_values,
    tile_points,
)

__all__ = ["TcpaMapping", "TcpaSearch", "TcpaTarget", "clear_memos", "evaluate", "search",
           "shapes"]

#: the order first causes are charged in
ORDER = (*STRUCTURAL, *CAPACITY)
#: kind of every cause: the structural rules the mapping cannot express; the capacity
#: rules the array would accept and then lose values
KINDS = {**dict.fromkeys(STRUCTURAL, Kind.EXPRESS), **dict.fromkeys(CAPACITY, Kind.REFUSE)}
OBJECTIVES = {"energy": ("energy_pj", "latency"), "latency": ("latency", "energy_pj"),
              "edp": ("edp", "latency"), "power": ("power_mw", "latency")}


@dataclass(frozen=True)
class TcpaMapping:
    """One point of the mapspace: an array shape, the dims on its axes, tile sizes, a
    scanning order and the problem size."""

    array: tuple[int, int]
    order: tuple[str, ...] | None  # dims innermost first; None: best per phase and point
    values: Mapping[str, Any]
    kernel: str = ""
    axes: tuple[str, ...] = ()  # dims on rows, cols; (): each phase's leading dims
    tile: tuple[int, ...] | None = None  # per dim of the placed phase; None: ceil(N/t)

    @property
    def label(self) -> str:
        """``4x8 i=5,k=4 k/i/j``: shape, dims on rows and cols (with their tile sizes when
        searched; ``lead``: each phase's leading dims), scanning order innermost first."""
        o = "auto" if self.order is None else "/".join(self.order)
        if self.tile is None:
            ax = ",".join(self.axes) or "lead"
        else:
            ax = ",".join(f"{a}={p}" for a, p in zip(self.axes, self.tile, strict=False))
        return f"{self.array[0]}x{self.array[1]} {ax} {o}"

    def command(self, kernel: str, machine: str | None = None, bandwidth_bound: bool = False
                ) -> str:
        """The ``polyjoule analyze`` command that prices this mapping alone (``machine``: the
        declaration file searched, whose grid ``--array`` then selects from;
        ``bandwidth_bound``: the latency stretched to the DRAM's bandwidth, as searched)."""
        out = f"polyjoule analyze {shlex.quote(kernel)}"
        if machine is not None:
            out += f" --machine {shlex.quote(machine)}"
        out += f" --array {self.array[0]}x{self.array[1]}"
        if self.axes:
            out += f" --axes {','.join(self.axes)}"
        if self.tile is not None:
            out += f" --tile {','.join(map(str, self.tile))}"
        if self.order is not None:
            out += f" --order {','.join(self.order)}"
        if bandwidth_bound:
            out += " --bandwidth-bound"
        return out + " --set " + ",".join(f"{k}={v}" for k, v in self.values.items())


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
    #: per problem size (grid order): its values, mappings considered and fitting
    sizes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def best(self) -> dict[str, Any] | None:
        """The best mapping at the first size that has one."""
        return self.candidates[0] if self.candidates else None

    def at(self, values: Mapping[str, int]) -> list[dict[str, Any]]:
        """The ranked mappings at one problem size."""
        return [c for c in self.candidates if c["values"] == dict(values)]


@dataclass
class _Block:
    """Every point of one (shape, placement, order): causes, prices."""

    mapping: TcpaMapping
    causes: Causes
    price: dict[str, np.ndarray]
    points: Points | None = None
    perm: tuple[int, ...] | None = None  # shown dim -> dim of the points' tile sizes


@dataclass
class TcpaTarget:
    """The search protocol on a declared processor array."""

    array: ProcessorArray = field(default_factory=default_array)
    objective: str = "energy"
    bandwidth_bound: bool = False
    #: where derived formulas and schedules are kept between runs (a
    #: ``polyjoule.dse.cache.FormulaCache``), or None to derive every time
    store: Any = None
    #: the declaration file searched (``--machine FILE``), for the commands printed; None:
    #: the shipped declaration, whose grids ``--array ROWSxCOLS`` names alone
    machine: str | None = None
    name: str = "tcpa"
    cause_kinds: dict[str, Kind] = field(default_factory=lambda: dict(KINDS))
    relievable: tuple[str, ...] = CAPACITY
    #: what the two kinds of refusal mean on this target (the census' legend)
    kind_gloss: str = ("express: the array cannot run the mapping as tiled (tile count, tile "
                       "size, schedule); refuse: the array would accept it and lose values (a "
                       "FIFO or border buffer over its declared capacity)")

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
        if machine is None:
            return replace(self, array=default_array(), machine=None)
        return replace(self, array=array_of(machine),
                       machine=machine if is_declaration_file(machine) else None)

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
        return self.verify(kernel, row["values"], mapping_of(row))

    # --- the protocol, one mapping at a time (the search itself is vectorised below)

    def mapspace(self, kernel: Any, extents: Mapping[str, int]) -> Mapspace:
        """No intrinsic tiles: a processor array tiles any loop; see :func:`shapes`."""
        return Mapspace(())

    def lower(self, kernel: Any, values: Mapping[str, int], mapping: TcpaMapping,
              relieve: frozenset[str] = frozenset()) -> TcpaMapping:
        """``mapping`` when it fits, else :class:`Refused` with every cause."""
        b = evaluate(self, kernel, mapping.array, mapping.order,
                     {k: np.asarray([v]) for k, v in values.items()},
                     axes=mapping.axes, tile=mapping.tile)
        bad = [c for c in ORDER if c in b.causes.masks and c not in relieve
               and bool(b.causes.masks[c].reshape(-1)[0])]
        if bad:
            raise Refused(bad[0], b.causes.reasons[bad[0]].detail, bad,
                          {c: self.cause_kinds[c] for c in bad})
        return replace(mapping, values=dict(values), kernel=kernel.name)

    def price(self, program: TcpaMapping, *, charge_control: bool = True) -> Priced:
        from polyjoule.library.kernels import get

        b = evaluate(self, get(program.kernel), program.array, program.order,
                     {k: np.asarray([v]) for k, v in program.values.items()},
                     axes=program.axes, tile=program.tile)
        first = [np.asarray(b.price[k]).reshape(-1)[0] for k in self.objectives]
        return Priced(Cost(self.objectives, [v.item() if isinstance(v, np.generic) else v
                                             for v in first]))  # exact: a latency past 2^53

    def verify(self, kernel: Any, values: Mapping[str, int], program: TcpaMapping,
               seed: int = 0) -> bool:
        """Simulate the mapping with the declared capacities enforced."""
        from polyjoule.analysis.simulator import simulate
        from polyjoule.mapping.placement import place_kernel

        caps = self.array.capacities(kernel.phases[0].dtype)
        if self.bandwidth_bound:  # the stall is priced (a longer latency), not simulated
            caps = replace(caps, dram_bandwidth_words_per_cycle=math.inf)
        r = simulate(place_kernel(kernel, program.axes), program.array, program.tile,
                     values={k: int(v) for k, v in values.items()}, order=program.order,
                     seed=seed, capacities=caps)
        return r.ok


def mapping_of(row: Mapping[str, Any]) -> TcpaMapping:
    """The mapping of a ranked row (``search`` candidates, ``--json``)."""
    r, c = (int(x) for x in row["array"].split("x"))
    order = None if row["order"] == "auto" else tuple(row["order"].split("/"))
    tile = None if row.get("tile") is None else tuple(int(x) for x in row["tile"])
    return TcpaMapping((r, c), order, dict(row["values"]), axes=tuple(row.get("axes", ())),
                       tile=tile)


def shapes(array: ProcessorArray) -> list[tuple[int, int]]:
    """Array shapes within the declared grid: powers of two and the declared side per side."""
    return [(r, c) for r in sides(array.rows) for c in sides(array.cols)]


def sides(n: int) -> list[int]:
    """The sizes one side of the grid takes: powers of two up to ``n``, and ``n``."""
    return sorted({*(1 << i for i in range(n.bit_length()) if 1 << i <= n), n})


def evaluate(tgt: TcpaTarget, kernel: Any, shape: tuple[int, int],
             order: tuple[str, ...] | None, vals: Mapping[str, np.ndarray],
             memo: dict[Any, Any] | None = None, *, axes: tuple[str, ...] = (),
             tile: tuple[int, ...] | None = None) -> _Block:
    """Causes and prices of one mapping (shape, placement ``axes``, tile sizes ``tile`` or
    ``ceil(N/t)``, ``order``) at every size of ``vals`` at once."""
    d = derived(kernel, tuple(axes), n_axes(shape), tgt.array, tgt.store)
    pts = (default_points(d.kernel.phases, shape, vals) if tile is None
           else fixed_points(d.kernel.phases[0], shape, vals, tile))
    pr = price(d, tgt.array, order, pts, tgt.bandwidth_bound, memo, tgt.store)
    return _Block(TcpaMapping(shape, order, pts.values, kernel.name, tuple(axes), tile),
                  pr.causes, pr.price, pts)


def _points(d: Any, shape: tuple[int, int], axis_sides: list[list[int]],
            vals: Mapping[str, np.ndarray]) -> Points:
    """The mapping points of one (placement, shape): every size x (for a single symbolic
    phase) every tile size of :mod:`~polyjoule.targets.tcpa.tiles`."""
    from polyjoule.mapping.tiling import Tiling

    if not d.symbolic or len(d.kernel.phases) != 1:
        return default_points(d.kernel.phases, shape, vals)
    pra = d.kernel.phases[0]
    t = Tiling.of(pra, shape).t
    prev = [max((s for s in axis_sides[l] if s < t[l]), default=0) if l < len(axis_sides) else 0
            for l in range(pra.n)]
    return tile_points(pra, d.groups(), shape, t, prev, vals)


@dataclass
class _Part:
    """One placement's derivation and points; ``axes`` and ``perm`` say how to show a
    point (the placement's dims, and per shown dim its index in the derivation's PRA)."""

    derived: Any
    points: Points
    axes: tuple[str, ...]
    perm: tuple[int, ...] | None = None


#: price 1-D placements with a 2-D placement's derivation (its second dim in one tile)
REUSE = True


def _plan(tgt: TcpaTarget, kernel: Any, vals: Mapping[str, np.ndarray]) -> list[_Part]:
    """Per placement its derivation and the points of every shape (sizes x tile sizes)."""
    from polyjoule.mapping.placement import placements

    rows, cols = sides(tgt.array.rows), sides(tgt.array.cols)
    flat = flat_values(vals)
    out: list[_Part] = []
    for k in (2, 1, 0):
        if k == 0 and out:  # one PE: the mapspace of a 1x1 grid, dominated on a larger one
            break
        shs = [sh for sh in _distinct(kernel, shapes(tgt.array)) if n_axes(sh) == k]
        for axes in placements(kernel, k) if shs else ():
            sides_ = ([rows, cols] if k == 2 else [cols if shs[0][1] != 1 else rows] if k == 1
                      else [])
            reuse = _one_tile(out, axes) if k == 1 and REUSE else None
            if reuse is not None:
                out.append(reuse(shs, sides_, flat))
                continue
            d = derived(kernel, axes, k, tgt.array, tgt.store)
            out.append(_Part(d, concat([_points(d, sh, sides_, flat) for sh in shs]), d.axes))
    return out


def _one_tile(parts: list[_Part], axes: tuple[str, ...]) -> Any:
    """A 2-D placement's derivation that prices the 1-D placement ``axes``: its other
    dim in a single tile (the counts and latency of an untiled dim; a single-phase kernel
    whose two dims may take different tile sizes), or None."""
    from polyjoule.mapping.placement import place

    for part in parts:
        d = part.derived
        if len(d.kernel.phases) != 1 or not d.symbolic or axes[0] not in d.axes:
            continue
        pra = d.kernel.phases[0]
        a = pra.dim_names.index(axes[0])
        if any(a in g and len(g) > 1 for g in d.groups()):
            continue
        shown = place(pra, axes).dim_names
        perm = tuple(pra.dim_names.index(n) for n in shown)

        def build(shs: list[tuple[int, int]], sides_: list[list[int]],
                  flat: Mapping[str, np.ndarray], d: Any = d, a: int = a,
                  perm: tuple[int, ...] = perm) -> _Part:
            pts = concat([_single(d, a, sh, sides_[0], flat) for sh in shs])
            return _Part(d, pts, axes, perm)

        return build
    return None


def _single(d: Any, a: int, shape: tuple[int, int], side: list[int],
            vals: Mapping[str, np.ndarray]) -> Points:
    """Points of a 1-D shape with dim ``a`` of the 2-D derivation ``d`` on the axis and its
    other tiled dim in one tile (at least its dependence distance: never refused for it)."""
    from polyjoule.mapping.tiling import min_tile

    pra = d.kernel.phases[0]
    c = max(shape)
    t = tuple(c if l == a else 1 for l in range(pra.n))
    prev = [max((s for s in side if s < c), default=0) if l == a else 0 for l in range(pra.n)]
    pts = tile_points(pra, [g for g in d.groups() if a in g], shape, t, prev, vals)
    need = min_tile(pra)
    pts.tiles[0] = tuple(x if l == a else np.maximum(x, need[l]) for l, x in enumerate(pts.tiles[0]))
    return pts


def search(tgt: TcpaTarget, kernel: Any, vals: Mapping[str, np.ndarray],
           relieve: frozenset[str] = frozenset(), top: int = 8) -> TcpaSearch:
    """Every mapping of the mapspace at every size of ``vals``: priced or refused, ranked."""
    t0 = time.perf_counter()
    plan = _plan(tgt, kernel, vals)
    for part in plan:  # compile each placement's formulas once, outside the timing
        part.derived.prepare(len(part.points))
        one = part.points.take(slice(0, 1))
        for o in placed_orders(part.derived):
            timing(part.derived, tgt.array, o, one)
    t1 = time.perf_counter()
    blocks = []
    memo: dict[Any, Any] = {}
    for part in plan:
        d, pts = part.derived, part.points
        own = []
        for o in placed_orders(d):
            pr = price(d, tgt.array, o, pts, tgt.bandwidth_bound, memo, tgt.store)
            own.append(_Block(TcpaMapping((0, 0), o, pts.values, kernel.name, part.axes),
                              pr.causes, pr.price, pts, part.perm))
        blocks += own + _by_ilp(tgt, part, own)
    t2 = time.perf_counter()
    census, indep = _census(blocks, relieve)
    cands, accepted, sizes = _rank(tgt, blocks, relieve, top)
    n = sum(int(np.size(b.price["latency"])) for b in blocks)
    res = TcpaSearch(kernel.name, tgt, cands, accepted, census, n, relieve, indep,
                     t1 - t0, t2 - t1, sizes=sizes)
    if relieve:
        res.relief = _relief(blocks, relieve)
    return res


def _by_ilp(tgt: TcpaTarget, part: _Part, own: list[_Block]) -> list[_Block]:
    """The points of a placement where no scanning order is feasible, scheduled by the
    integer program (``auto``: what ``analyze`` runs there); none for a multi-phase kernel,
    whose ``auto`` order already falls back to it."""
    if len(own) < 2 and (not own or own[0].mapping.order is None):
        return []
    none = np.ones(len(part.points), bool)
    for b in own:
        none &= b.causes.masks.get("no-schedule", np.zeros(len(part.points), bool))
        for c in STRUCTURAL[:3]:
            none &= ~b.causes.masks.get(c, np.zeros(len(part.points), bool))
    if not none.any():
        return []
    pts = part.points.take(np.flatnonzero(none))
    pr = price(part.derived, tgt.array, None, pts, tgt.bandwidth_bound, None, tgt.store)
    return [_Block(TcpaMapping((0, 0), None, pts.values, own[0].mapping.kernel, part.axes),
                   pr.causes, pr.price, pts, part.perm)]


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


def _at(b: _Block, i: int) -> TcpaMapping:
    """The mapping of point ``i`` of a block."""
    pts = b.points
    assert pts is not None
    tile = None
    if pts.explicit:
        perm = b.perm or tuple(range(len(pts.tiles[0])))
        tile = tuple(int(pts.tiles[0][l][i]) for l in perm)
    return replace(b.mapping, array=(int(pts.rows[i]), int(pts.cols[i])), tile=tile,
                   values={k: int(v.reshape(-1)[i]) for k, v in b.mapping.values.items()})


def _label(b: _Block, i: int) -> str:
    m = _at(b, i)
    return f"{m.label} @ " + ",".join(f"{k}={v}" for k, v in m.values.items())


def _ok(b: _Block, relieve: frozenset[str]) -> np.ndarray:
    out = np.ones(np.shape(b.price["latency"]), bool)
    for c, m in b.causes.masks.items():
        if c not in relieve:
            out &= ~m
    return out


def _rank(tgt: TcpaTarget, blocks: list[_Block], relieve: frozenset[str], top: int
          ) -> tuple[list[dict[str, Any]], int, list[dict[str, Any]]]:
    """The ``top`` accepted mappings by the objectives at each problem size (sizes in grid
    order), how many were accepted, and per size how many were considered and fit: energy
    and latency grow with the size, so mappings are ranked against their own size only."""
    cols = _points_table(tgt, blocks, relieve)
    if cols is None:
        return [], 0, []
    size, ok, objs, bi, idx, sizes = cols
    order = np.lexsort((idx[ok], bi[ok], *reversed([o[ok] for o in objs]), size[ok]))
    ranked_size = size[ok][order]
    start = np.searchsorted(ranked_size, ranked_size, side="left")
    keep = order[np.arange(order.size) - start < top]
    rows = [_row(blocks[b], int(i), relieve, tgt)
            for b, i in zip(bi[ok][keep], idx[ok][keep], strict=True)]
    considered = np.bincount(size, minlength=len(sizes))
    fit = np.bincount(size[ok], minlength=len(sizes))
    per = [{"values": v, "nests": int(n), "encodable": int(f)}
           for v, n, f in zip(sizes, considered, fit, strict=True)]
    return rows, int(ok.sum()), per


def _points_table(tgt: TcpaTarget, blocks: list[_Block], relieve: frozenset[str]) -> Any:
    """Every point of every block as columns: its size's index, accepted?, objectives,
    block and index in the block; and the sizes in grid order."""
    if not blocks:
        return None
    params = list(blocks[0].mapping.values)
    size, uniq = _size_index(blocks, params)
    ok = np.concatenate([_ok(b, relieve).reshape(-1) for b in blocks])
    objs = [exact_key(b.price[k] for b in blocks) for k in tgt.objectives]  # past 2^53 too
    bi = np.concatenate([np.full(np.size(b.price["latency"]), n) for n, b in enumerate(blocks)])
    idx = np.concatenate([np.arange(np.size(b.price["latency"])) for b in blocks])
    sizes = [dict(zip(params, (int(x) for x in u), strict=True)) for u in uniq]
    return size.reshape(-1), ok, objs, bi, idx, sizes


def _size_index(blocks: list[_Block], params: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per point the index of its size among the sizes present (in lexicographic order),
    and those sizes as rows. Each parameter's values are few: they are ranked by a search
    in their sorted distinct values and combined in mixed radix, so millions of points
    cost no row sort (``np.unique(axis=0)`` took 11.7 s on 7.4 M points)."""
    digits, radix = [], []
    for p in params:
        known = np.unique(np.concatenate([np.unique(np.asarray(b.mapping.values[p]))
                                          for b in blocks]))
        digits.append(np.concatenate([
            np.searchsorted(known, np.broadcast_to(b.mapping.values[p],
                                                   np.shape(b.price["latency"])).reshape(-1))
            for b in blocks]))
        radix.append(known)
    n = sum(int(np.size(b.price["latency"])) for b in blocks)
    key = np.zeros(n, dtype=np.int64)
    for d, known in zip(digits, radix, strict=True):
        key = key * len(known) + d
    span = int(np.prod([len(k) for k in radix]))
    if span > 8 * n + 1024:  # a sparse grid: sort the keys instead of a table of all
        codes, rank_of = np.unique(key, return_inverse=True)
        rank, key = rank_of, np.arange(n)
    else:
        present = np.zeros(span, dtype=bool)
        present[key] = True
        rank = np.cumsum(present) - 1
        codes = np.flatnonzero(present)
    cols = []
    for known in reversed(radix):
        cols.append(known[codes % len(known)])
        codes = codes // len(known)
    return rank[key], np.stack(cols[::-1], axis=1)


def _row(b: _Block, i: int, relieve: frozenset[str], tgt: TcpaTarget) -> dict[str, Any]:
    """One ranked mapping as ``map`` shows it (and ``--json`` gives it); ``relieved``: the
    relieved causes that would refuse it."""
    m = _at(b, i)
    flagged = [c for c in sorted(relieve)
               if c in b.causes.masks and bool(np.asarray(b.causes.masks[c]).reshape(-1)[i])]
    return {"mapping": _label(b, i), "array": f"{m.array[0]}x{m.array[1]}",
            "axes": list(m.axes), "tile": None if m.tile is None else list(m.tile),
            "order": "auto" if m.order is None else "/".join(m.order),
            "values": dict(m.values), "analyze": m.command(m.kernel, tgt.machine, tgt.bandwidth_bound),
            "latency": int(b.price["latency"][i]),
            "energy_pj": round(float(b.price["energy_pj"][i]), 3),
            "dynamic_pj": round(float(b.price["dynamic_pj"][i]), 3),
            # named as analyze --json and sweep name them (their energy_pj: the dynamic part)
            "static_pj": round(float(b.price["energy_pj"][i] - b.price["dynamic_pj"][i]), 3),
            "total_pj": round(float(b.price["energy_pj"][i]), 3),
            "edp": float(b.price["edp"][i]),
            "power_mw": round(float(b.price["power_mw"][i]), 6), "relieved": flagged}


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
