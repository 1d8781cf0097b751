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


def _nested(rng: np.random.Generator, n: int, top: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A box whose starts nest (each dim's step past the span of the smaller ones, some
    steps just past it, as a dense scan's), with negative, zero and one-point dims."""
    sizes = tuple(int(rng.integers(1, top)) for _ in range(n))
    lam, span = [0] * n, 0
    for l in rng.permutation(n).tolist():
        step = span + int(rng.choice([1, 1, 2, 3, 7])) if rng.random() < 0.9 else 0
        lam[l] = step * int(rng.choice([1, -1]))
        span += step * (sizes[l] - 1)
    return sizes, tuple(lam)


def test_nested_boxes_counted_on_their_digits_equal_their_starts_listed() -> None:
    """A box whose starts nest is counted without listing its points: against its starts
    listed and windowed (random sizes, steps with and without gaps, waits across levels)."""
    rng = np.random.default_rng(17)
    for case in range(3000):
        sizes, lam = _nested(rng, int(rng.integers(1, 5)), 7)
        span = sum(abs(a) * (s - 1) for a, s in zip(lam, sizes, strict=True))
        wait = int(rng.integers(-1, span + 3))
        j = np.stack([x.ravel() for x in np.meshgrid(*(np.arange(s) for s in sizes),
                                                     indexing="ij")])
        want = window(np.asarray(lam) @ j, wait)
        assert occupancy.nested_window(sizes, lam, wait) == want, (case, sizes, lam, wait)


def test_a_nested_box_past_any_listing_is_counted_exactly() -> None:
    """Rows of ``n0`` consecutive starts ``P`` cycles apart, ``n1`` of them (a tile's
    consumers less its edges): a window of ``q P + rho`` cycles holds ``q`` rows and the
    most of the next two one window of ``rho`` cycles holds (by hand:
    ``min(2 n0, max(min(rho, n0), rho - (P - n0)))``), at sizes no listing reaches."""
    for n0, gap, n1 in [(374_999_999, 1, 2_999_999_999), (10**12, 5 * 10**11, 10**9),
                        (7, 3, 10**15)]:
        big = n0 + gap
        for wait in [big, 3 * big - 1, 5 * big + gap + 1, 2 * big + n0 // 2, gap + 2]:
            q, rho = divmod(wait, big)
            want = q * n0 + min(2 * n0, max(min(rho, n0), rho - gap))
            assert occupancy.box_window((n0, n1), (1, big), wait) == want, (n0, gap, n1, wait)
            assert occupancy.box_window((n1, n0), (-big, 1), wait) == want
            assert occupancy.nested_window((n1, n0), (-big, 1), wait) == want


def _one_sign(rng: np.random.Generator, n: int, p: list[int], outer: int
              ) -> tuple[np.ndarray, int, bool]:
    """A band edge or triangle naming the outer dim with one sign (or not at all)."""
    vec = np.zeros(n, dtype=np.int64)
    others = [l for l in range(n) if l != outer]
    vec[others[int(rng.integers(len(others)))]] = int(rng.choice([-2, -1, 1, 2]))
    if rng.random() < 0.8:
        vec[outer] = 1 if rng.random() < 0.5 else -1
    reach = int(np.abs(vec) @ np.asarray(p)) + 2
    return vec, int(rng.integers(-reach, reach + 1)), False


def test_scanned_tiles_cut_to_the_slices_a_window_meets_equal_the_point_walk(monkeypatch) -> None:
    """Scanning orders (the outer dim's ``lambda`` past the others' span), conditions naming
    the outer dim with one sign (slices growing or shrinking along it) or not at all: the
    tiles cut to the slices a window meets, and those that become whole there counted as
    boxes, hold what the walk of every point holds."""
    cut = {"first": 0, "last": 0}
    trimmed = occupancy._trimmed

    def counted(a, b, *rest):
        got = trimmed(a, b, *rest)
        cut["first"] += int((got[1] < b).any(axis=1).sum())
        cut["last"] += int((got[0] > a).any(axis=1).sum())
        return got
    monkeypatch.setattr(occupancy, "_trimmed", counted)
    rng = np.random.default_rng(23)
    for case in range(400):
        n = int(rng.integers(2, 4))
        p = [int(rng.integers(2, 10)) for _ in range(n)]
        t = [int(rng.integers(1, 4)) for _ in range(n)]
        ranges = []
        for q, tl in zip(p, t, strict=True):
            a = rng.integers(0, 2, size=tl)
            ranges.append(np.stack([a, a + rng.integers(q - 3, q, size=tl)], axis=1))
        order = rng.permutation(n).tolist()
        lam = np.zeros(n, dtype=np.int64)
        step = 1
        for l in order:
            lam[l] = step * int(rng.choice([1, -1]))
            step *= p[l] + int(rng.integers(0, 2))
        coupled = [_one_sign(rng, n, p, order[-1]) for _ in range(int(rng.integers(1, 3)))]
        top = int(abs(lam[order[-1]])) * 2 if case % 4 else int(np.abs(lam) @ np.asarray(p))
        wait = int(rng.integers(1, top + 2))
        occupancy._walked.cache_clear()
        got = _coupled_tiles(ranges, coupled, lam, p, wait)
        want = _walked(ranges, coupled, lam, p, wait)
        assert np.array_equal(got[0], want[0]) and got[1] == want[1], (
            case, ranges, lam, coupled, p, wait, got, want)
    assert min(cut.values()) >= 50, cut


def test_a_point_asks_only_its_deepest_tile(monkeypatch) -> None:
    """With each tile's point given, tiles a counted one beats are left out: per point the
    deepest equals the deepest of its tiles each counted; a tile too large to count is
    UNCOUNTED unless a counted tile of its point holds what its box could."""
    rng = np.random.default_rng(29)
    decided = lost = 0
    for case in range(300):
        n = 2
        tiles = int(rng.integers(2, 7))
        p = [int(rng.integers(2, 9)) for _ in range(n)]
        a = np.zeros((tiles, n), dtype=np.int64)
        b = np.stack([np.full(tiles, q - 1) for q in p], axis=1) - rng.integers(0, 2, (tiles, n))
        vecs = np.asarray([[1, -1]], dtype=np.int64)
        const = rng.integers(-p[1], p[0] + 1, size=(tiles, 1))
        eqs = np.asarray([False])
        lam = np.broadcast_to(np.asarray([1, p[0] + int(rng.integers(0, 2))]), (tiles, n))
        wait = rng.integers(1, 3 * p[0], size=tiles)
        point = np.sort(rng.integers(0, 3, size=tiles))
        monkeypatch.setattr(occupancy, "TILE_POINTS", 2**25)
        each = occupancy.tile_windows(a, b, const, vecs, eqs, lam, wait)[1]
        deep = occupancy.tile_windows(a, b, const, vecs, eqs, lam, wait, point)[1]
        whole = occupancy._classified(a, b, const, vecs, eqs)[1]
        for pt in np.unique(point):
            assert deep[point == pt].max() == each[point == pt].max(), (case, pt)
        monkeypatch.setattr(occupancy, "TILE_POINTS", 1)  # every partial tile too large
        monkeypatch.setattr(occupancy, "LISTED", 0)  # and each bounded by its box
        left = occupancy.tile_windows(a, b, const, vecs, eqs, lam, wait, point)[1]
        monkeypatch.setattr(occupancy, "LISTED", 2**14)
        for pt in np.unique(point):
            mine, truth = left[point == pt], each[point == pt].max()
            if (mine == occupancy.UNCOUNTED).any():  # never a guess: at most the truth
                assert mine.max() <= truth
                lost += 1
            else:  # decided by the counted tiles alone (boxes beat every partial one)
                assert mine.max() == truth, (case, pt)
                decided += int(not whole[point == pt].all())
    assert decided >= 100 and lost >= 50, (decided, lost)


def test_tiles_of_one_row_dim_cut_to_the_rows_holding_their_most(monkeypatch) -> None:
    """2-D tiles scanned row by row (bands, and a triangle's or trapezoid's edge: each row's
    run between lines in the row index, crossing inside the tile), every tile cut to the
    rows at the ends of each piece and around each crossing: tile by tile the depth its
    points walked hold."""
    cuts = {"cut": 0}
    pieces = occupancy._row_pieces

    def counted(*args):
        got = pieces(*args)
        cuts["cut"] += got is not None
        return got
    monkeypatch.setattr(occupancy, "_row_pieces", counted)
    monkeypatch.setattr(occupancy, "PIECES_FROM", 0)
    rng = np.random.default_rng(31)
    for case in range(60):
        tiles, n = 12, 2
        p = [int(rng.integers(20, 60)), int(rng.integers(40, 200))]  # the rows: dim 1
        a = np.zeros((tiles, n), np.int64)
        b = np.tile(np.asarray(p) - 1, (tiles, 1))
        lam = np.tile([int(rng.choice([1, -1])),
                       int(rng.choice([1, -1])) * (p[0] + int(rng.integers(0, 3)))], (tiles, 1))
        vecs = [np.asarray([int(rng.choice([-1, 1])), int(rng.choice([-2, -1, 1, 2]))])]
        vecs.append(-vecs[0] * [1, int(rng.choice([1, 1, 2, 3]))])  # a band, or a wedge
        vecs.append(np.asarray([int(rng.choice([-1, 0, 1])), int(rng.choice([-1, 1]))]))
        vecs = np.stack(vecs)
        const = np.zeros((tiles, 3), np.int64)
        for k in range(tiles):  # through the tile, or the third edge alone (a triangle)
            at = np.asarray([rng.integers(p[0]), rng.integers(p[1])])
            edge = -int(vecs[0] @ at)
            wide = int(rng.integers(0, p[0] // 2)) if k % 3 else 10**6
            const[k] = [edge if k % 3 else 10**6, wide - int(vecs[1] @ at),
                        -int(vecs[2] @ np.asarray([0, rng.integers(p[1])]))]
        eqs = np.zeros(3, bool)
        wait = rng.integers(1, abs(int(lam[0, 1])) * (1 if case % 3 else 6) + 2, size=tiles)
        occupancy._walked.cache_clear()
        has, deep = occupancy.tile_windows(a, b, const, vecs, eqs, lam, wait)
        for k in range(tiles):
            cons = tuple((tuple(v.tolist()), int(c), False) for v, c in zip(vecs, const[k],
                                                                           strict=True))
            want = occupancy.walk_tile(((0, p[0] - 1), (0, p[1] - 1)), cons,
                                       tuple(lam[k].tolist()), int(wait[k]))
            assert (bool(has[k]), int(deep[k])) == want, (case, k, p, lam[k], const[k], wait[k])
    assert cuts["cut"] >= 150, cuts
