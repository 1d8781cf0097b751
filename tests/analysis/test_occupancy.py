"""The FIFO use counted on the tiles' points equals the simulator's measured occupancy: the
values in flight per FIFO (most over time, per PE and transport) and the FIFOs per PE."""

from __future__ import annotations

import itertools

import numpy as np

from polyjoule.analysis import occupancy
from polyjoule.analysis.occupancy import (
    _bounds,
    _consumers,
    _coupled_tiles,
    coupled_depths,
    fifo_use,
    run_windows,
    transports,
    window,
)
from polyjoule.analysis.simulator import simulate
from polyjoule.errors import PolyjouleError
from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.array import default_array

#: stencils (negative distances, schedules of the integer program at small tiles) and
#: kernels whose transports' conditions couple two dims (every tile counted)
KERNELS = ["jacobi-1d", "seidel-2d", "fdtd-2d", "trisolv", "lu", "syrk", "cholesky", "gesummv"]


def test_a_window_holds_the_starts_of_its_cycles() -> None:
    """Values pushed ``wait`` cycles before their consumer starts: at most the starts one
    window of ``wait`` cycles holds (a hand count)."""
    starts = np.array([0, 1, 2, 10, 12, 13, 14, 15])
    assert window(starts, 1) == 1
    assert window(starts, 3) == 3  # 0, 1, 2 (or 12, 13, 14)
    assert window(starts, 4) == 4  # 12..15
    assert window(starts, 11) == 5  # 5..15: 10, 12, 13, 14, 15
    sparse = np.array([0, 100, 101, 1000])  # starts far apart: counted sorted
    assert window(sparse, 2) == 2 and window(sparse, 101) == 2 and window(sparse, 102) == 3
    assert window(sparse, 1001) == 4
    assert window(starts, 0) == 0 and window(np.array([], dtype=np.int64), 5) == 0


def test_counted_use_equals_the_simulated_occupancy() -> None:
    """Random kernels, arrays and sizes, every phase: the count from the schedule and the
    tiles' points against the simulator's push/pop events."""
    rng = np.random.default_rng(5)
    caps = default_array().capacities("fp32")
    seen = {"ilp": 0, "scan": 0, "skew": 0}
    for _ in range(14):
        k = get(KERNELS[int(rng.integers(len(KERNELS)))])
        shape = (int(rng.choice([1, 2])), int(rng.choice([2, 4])))
        vals = {p: int(rng.integers(max(lo, 3), 10)) for ph in k.phases for p, lo in ph.param_min}
        try:
            run = simulate(k, shape, values=vals, capacities=caps, enforce=False)
        except PolyjouleError:  # refused structurally at these sizes: nothing to count
            continue
        for pra, ph in zip(k.phases, run.phases, strict=True):
            cs = ph.schedule
            use = fifo_use(pra, cs.lambda_J, cs.p, {p: vals[p] for p in pra.params})
            assert (use.depth, use.count) == (ph.usage["fd-depth"], ph.usage["fd-count"]), (
                k.name, shape, vals, pra.name, cs.method, use, ph.usage)
            seen[cs.method] += 1
    assert seen["scan"] >= 6 and seen["ilp"] + seen["skew"] >= 1



def _walked(ranges: list[np.ndarray], coupled: list[tuple[np.ndarray, int, bool]],
            lam: np.ndarray, p: list[int], wait: int) -> tuple[np.ndarray, int]:
    """The reference: every point of every tile tested, its starts windowed (the point walk
    ``_coupled_tiles`` was before it counted rows)."""
    has = np.zeros([len(r) for r in ranges], dtype=np.int64)
    deep = 0
    for k in itertools.product(*(range(len(r)) for r in ranges)):
        box = [ranges[l][kl] for l, kl in enumerate(k)]
        if any(a > b for a, b in box):
            continue
        j = np.stack([x.ravel() for x in np.meshgrid(
            *(np.arange(a, b + 1, dtype=np.int64) for a, b in box), indexing="ij")])
        glob = j + (np.asarray(k, dtype=np.int64) * np.asarray(p, dtype=np.int64))[:, None]
        ok = np.ones(j.shape[1], dtype=bool)
        for vec, const, eq in coupled:
            e = vec @ glob + const
            ok &= (e == 0) if eq else (e >= 0)
        if ok.any():
            has[k] = 1
            deep = max(deep, window(lam @ j[:, ok], wait))
    return has, deep


def _constraint(rng: np.random.Generator, n: int, p: list[int]) -> tuple[np.ndarray, int, bool]:
    """A band edge, a triangle, a skewed half-space or an equality coupling two or more dims."""
    dims = rng.choice(n, size=int(rng.integers(2, n + 1)), replace=False)
    vec = np.zeros(n, dtype=np.int64)
    kind = rng.integers(4)
    if kind < 2:  # band edge / triangle: j - i + c >= 0 or i - j + c >= 0
        vec[dims[0]], vec[dims[1]] = (1, -1) if kind == 0 else (-1, 1)
    for l in dims[2:] if kind < 2 else dims:
        vec[l] = int(rng.choice([-3, -2, -1, 1, 2, 3]))
    reach = int(np.abs(vec) @ np.asarray(p)) + 2
    return vec, int(rng.integers(-reach, reach + 1)), bool(rng.random() < 0.15)


def test_coupled_tiles_counted_by_rows_equal_the_point_walk(monkeypatch) -> None:
    """Random boxes per tile (some empty), schedules (0, 1, negative and larger lambdas,
    some sharing a factor), bands, triangles and equalities, tile offsets and waits: tiles'
    consumers counted by rows (or whole, or walked) hold what the walk of every point
    holds, tile by tile."""
    paths = dict.fromkeys(["run_windows", "box_window", "walk_tile"], 0)
    for name in paths:
        def counted(*a, _f=getattr(occupancy, name), _n=name):
            paths[_n] += 1
            return _f(*a)
        monkeypatch.setattr(occupancy, name, counted)
    rng = np.random.default_rng(7)
    some = 0
    for case in range(600):
        n = int(rng.integers(2, 4))
        p = [int(rng.integers(1, 9)) for _ in range(n)]
        t = [int(rng.integers(1, 4)) for _ in range(n)]
        ranges = []
        for q, tl in zip(p, t, strict=True):
            a = rng.integers(-1, q + 1, size=tl)
            ranges.append(np.stack([a, a + rng.integers(-1, q + 1, size=tl)], axis=1))
        lam = rng.choice([-3, -2, -1, 0, 1, 1, 2, 3, 5, 9], size=n).astype(np.int64)
        if case % 5 == 0:  # a common factor (the run dim's lambda is the gcd, not 1)
            lam *= int(rng.integers(2, 4))
        coupled = [_constraint(rng, n, p) for _ in range(int(rng.integers(1, 4)))]
        wait = int(rng.integers(-1, int(np.abs(lam) @ np.asarray(p)) + 3))
        occupancy._walked.cache_clear()
        got = _coupled_tiles(ranges, coupled, lam, p, wait)
        want = _walked(ranges, coupled, lam, p, wait)
        assert np.array_equal(got[0], want[0]) and got[1] == want[1], (
            case, ranges, lam, coupled, p, wait, got, want)
        some += int(want[1] > 0)
    assert some >= 150 and min(paths.values()) >= 20, (some, paths)


def run_window(first: np.ndarray, last: np.ndarray, wait: int) -> int:
    """The most cycles of the runs one window of ``wait`` cycles holds (every run's)."""
    return int(run_windows(first, last, np.full(first.shape, wait)).max())


def test_runs_overlapping_in_a_window() -> None:
    """Runs of cycles as a multiset, against their starts listed (a hand count too)."""
    first, last = np.array([0, 2, 2, 10]), np.array([4, 3, 2, 12])
    assert run_window(first, last, 1) == 3  # cycle 2: three runs
    assert run_window(first, last, 3) == 6  # cycles 1..3 or 2..4: 2 three times, 3 twice
    starts = np.concatenate([np.arange(a, b + 1) for a, b in zip(first, last, strict=True)])
    for w in range(1, 15):
        assert run_window(first, last, w) == window(starts, w), w


def test_many_points_counted_at_once_equal_each_walked() -> None:
    """Banded and triangular transports (syrk's third dim named by no constraint), random
    tile sizes and schedules (scans, whose outer ``lambda`` exceeds the inner span, and
    others): every tile of every point counted in one pass equals each point's tiles walked."""
    rng = np.random.default_rng(11)
    checked = 0
    for name in ["trisolv", "lu", "syrk", "cholesky"]:
        pra = get(name).phases[0]
        for mv in (m for m in transports(pra) if m.coupled):
            pts = 40
            vals = {k: rng.integers(3, 13, size=pts) for k in pra.params}
            ext = [np.asarray(d.extent.evaluate(vals)) for d in pra.dims]
            p = [np.minimum(rng.integers(1, 9, size=pts), e) for e in ext]
            scan = np.cumprod(np.stack([np.ones(pts, np.int64), *p[:-1]]), axis=0)
            free = rng.choice([-2, -1, 0, 1, 2, 3, 5], size=(pra.n, pts))
            lam = [np.where(np.arange(pts) % 2 == 0, scan[l], free[l]) for l in range(pra.n)]
            got = coupled_depths(pra, mv, lam, p, vals)
            for i in range(pts):
                v = {k: int(x[i]) for k, x in vals.items()}
                e, q = [int(x[i]) for x in ext], [int(x[i]) for x in p]
                t = [-(-a // b) for a, b in zip(e, q, strict=True)]
                lj = np.asarray([int(x[i]) for x in lam], dtype=np.int64)
                coupled = [(np.asarray(vec, dtype=np.int64), rest.evaluate(v), eq)
                           for vec, rest, eq in mv.coupled]
                want = _walked(_consumers(mv, *_bounds(mv, v, e), e, q, t), coupled, lj, q,
                               int(lj @ np.asarray(mv.dep)))[1]
                assert got[i] == want, (name, mv.statement, v, q, lj.tolist(), got[i], want)
                checked += int(want > 0)
    assert checked >= 100, checked
