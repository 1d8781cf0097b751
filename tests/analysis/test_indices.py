"""Counting tile classes in the PRA's indices (analysis/indices.py) against the tile split."""

from __future__ import annotations

import itertools
import random

import pytest

from polyjoule.analysis import counts, indices
from polyjoule.library.kernels import get
from polyjoule.mapping.tiling import Tiling, min_tile


def _values(pra, tiling, vols) -> list[list[int]]:  # type: ignore[no-untyped-def]
    """Every case count at every (p, t, r) with p up to 5 and t up to 3 (other parameters
    at their minimum + 2)."""
    groups = counts.groups_of(pra, tiling)
    need = min_tile(pra)
    lo = dict(pra.param_min)
    ranges = []
    for g in groups:
        ranges.append([(p, t, r) for p in range(max(need[l] for l in g.dims), 6)
                       for t in range(1, 4) for r in range(1, p + 1)])
    out = []
    for choice in itertools.product(*ranges):
        env: dict[str, int] = {q: lo.get(q, 1) + 2 for q in pra.params}
        for g, (p, t, r) in zip(groups, choice, strict=True):
            env |= {g.p: p, g.t: t, g.r: r, g.param: p * (t - 1) + r - g.offset}
        out.append([int(v.formula.evaluate(env)) for v in vols])
    return out


@pytest.mark.parametrize("kernel,array", [
    ("lu", (2, 2)), ("cholesky", (3, 2)), ("ludcmp", (2, 2)), ("symm", (2, 2)),
    ("trisolv", (1, 4)), ("correlation", (2, 2)),
    # classes of one tiled dim (stencils' boundaries at tile positions) are counted there too
    ("jacobi-1d", (1, 4)), ("jacobi-2d", (2, 2)), ("seidel-2d", (3, 2)), ("fdtd-2d", (2, 2)),
    ("gemm", (1, 4)),
])
def test_index_counts_equal_tile_split_counts(kernel, array, monkeypatch):
    """Each case derived with the classes counted in the PRA's indices equals the same case
    derived with Barvinok on the tile split, at every small (p, t, r)."""
    taken = []
    real = counts._index_count.__wrapped__

    def spy(*args):  # type: ignore[no-untyped-def]
        f = real(*args)
        taken.append(f is not None)
        return f

    for pra in get(kernel).phases:
        tiling = Tiling.of(pra, array)
        monkeypatch.setattr(counts, "_index_count", spy)
        fast, _ = counts.derive(pra, tiling)
        monkeypatch.setattr(counts._Counter, "_in_indices", lambda *a: None)
        split, _ = counts.derive(pra, tiling)
        monkeypatch.undo()
        assert _values(pra, tiling, fast) == _values(pra, tiling, split)
    assert any(taken)  # the index count was used, not only the tile split


def _allowed(conds, p: int, j: int) -> bool:  # type: ignore[no-untyped-def]
    return all((s * j + b * p + c == 0) if eq else (s * j + b * p + c >= 0) for s, b, c, eq in conds)


def _at(place, p: int, j: int) -> bool:  # type: ignore[no-untyped-def]
    if place[0] == "all":
        return True
    if place[0] == "r":
        return _allowed(place[1], p, j)
    return j == place[1] * p + place[2]


@pytest.mark.parametrize("seed", range(40))
def test_tile_positions_are_signed_fixed_positions(seed):
    """The signed positions ``_places`` gives for a condition on ``j`` add up to the
    condition, at every ``0 <= j <= p - 1`` for ``p`` up to 9."""
    rng = random.Random(seed)
    conds = tuple((rng.choice([1, -1]), rng.choice([0, 0, 1]), rng.randint(-4, 4), rng.random() < 0.1)
                  for _ in range(rng.randint(1, 2)))
    places = indices._places(conds)
    for p in range(1, 10):
        for j in range(p):
            assert sum(s for s, place in places if _at(place, p, j)) == int(_allowed(conds, p, j)), (conds, p, j)


@pytest.mark.parametrize("conds", [
    ((1, 0, -1, False),),                      # j >= 1: the tile less its first position
    ((-1, 0, 0, False),),                      # j <= 0: the first position
    ((-1, 1, -2, False),),                     # j <= p - 2: the tile less its last position
    ((1, 0, -1, False), (-1, 1, -2, False)),   # 1 <= j <= p - 2: summed over (k, j)
    ((1, -1, 2, False),),                      # j >= p - 2: the last two positions
    ((1, 0, -2, False), (-1, 0, 3, False)),    # 2 <= j <= 3
])
def test_index_count_equals_enumeration(conds):
    """A two-index class (``0 <= x0 < x1 < E``, ``E = p*(t-1) + r`` the extent) with
    a tile-position condition on ``x0``, counted in the PRA's indices, equals a walk."""
    params = ("q0", "q1", "q2")
    context = ("q0 >= 1", "q1 >= 1", "q2 >= 1", "q2 <= q0")
    constraints = ("x0 >= 0", "x1 - x0 - 1 >= 0", "-x1 + E0 - 1 >= 0")
    pw = indices.count(params, context, 2, constraints, (("E0", "q0", "q1", "q2"),),
                       ((0, 0, conds),), ((0, 0), (1, 0)))
    assert pw is not None
    f = counts._as_formula(pw, list(params), context)
    for p in range(1, 7):
        for t in range(1, 5):
            for r in range(1, p + 1):
                e = p * (t - 1) + r
                walk = sum(1 for x0 in range(e) for x1 in range(x0 + 1, e) if _allowed(conds, p, x0 % p))
                assert f.evaluate({"q0": p, "q1": t, "q2": r}) == walk, (conds, p, t, r)


def test_index_count_declines_what_it_cannot_show():
    """``None`` (the caller counts the tile split) when the constraints do not keep a tiled
    index below its extent, or the count is infinite."""
    params = ("q0", "q1", "q2")
    context = ("q0 >= 1", "q1 >= 1", "q2 >= 1", "q2 <= q0")
    extents = (("E0", "q0", "q1", "q2"),)
    assert indices.count(params, context, 2, ("x0 >= 0", "x1 >= 0", "x1 - x0 >= 0"), extents,
                         (), ((1, 0),)) is None  # x1 unbounded above
    assert indices.count(params, context, 2, ("x1 - x0 >= 0", "-x1 + E0 - 1 >= 0"), extents,
                         (), ((1, 0),)) is None  # x0 unbounded below: infinitely many points


def test_offsets_with_a_least_tile_size_hold_and_are_tight():
    """``indices.offsets(g, r, pmin)``: at every p >= pmin (to 12), j in 0..p-1 and r in
    1..p, ``g + hi*p >= 0`` and ``g + (lo-1)*p < 0``; a larger least tile size needs
    fewer alternatives (a stencil of distance 4 on tiles of at least 4), never a wrong one."""
    from polyjoule.model.affine import Affine

    rng = random.Random(7)
    for _ in range(400):
        coeffs = {n: rng.randint(-2, 2) for n in ("j0", "j1", "r")}
        g = Affine.of(coeffs, rng.randint(-9, 9))
        pmin = rng.randint(1, 6)
        lo, hi = indices.offsets(g, "r", pmin)
        assert indices.offsets(g, "r", 1)[1] >= hi  # never more alternatives than at p >= 1
        for p in range(pmin, 13):
            for j0, j1, r in itertools.product(range(p), range(p) if coeffs["j1"] else [0],
                                               range(1, p + 1)):
                v = g.evaluate({"j0": j0, "j1": j1, "r": r})
                assert v + hi * p >= 0 and v + (lo - 1) * p < 0, (g, pmin, p)
    distance4 = Affine.of({"j0": -1, "r": 1}, -5)  # x <= E - 5 in a tile of at least 4
    assert indices.offsets(distance4, "r", 4)[1] < indices.offsets(distance4, "r", 1)[1]


def test_the_least_value_a_context_states():
    assert indices.least_value(("q0 >= 4", "q1 >= 1", "q0 >= 2", "q2 <= q0"), "q0") == 4
    assert indices.least_value(("q10 >= 7",), "q1") == 1


BAND = """void band(int N, int W, double A[N][N + W + 8], double x[N + W + 8], double y[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    for (j = i + %d; j < i + %s; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""


def _band_volumes(path, arrays, sizes) -> list[dict]:  # type: ignore[no-untyped-def]
    from polyjoule.analysis import analyze
    from polyjoule.frontends.resolve import kernel_from

    kernel = kernel_from(str(path), None, None)
    out = []
    for array in arrays:
        an = analyze(kernel, array=array)
        for values in sizes:
            out.append({(v.statement, v.case): v.value for v in an.evaluate(values).volumes})
    return out


@pytest.mark.parametrize("edge,upper", [(3, "W + 3"), (2, "7"), (0, "W")])
def test_band_shortcuts_equal_plain_fibre_sums(edge, upper, tmp_path, monkeypatch):
    """A band's classes counted with its shortcuts (the two edges as a difference, a window's
    fixed tile size as one Barvinok count, positions in a tile of known size) equal the
    plain fibre sums of the same classes, at tile sizes inside and above the windows."""
    path = tmp_path / "band.c"
    path.write_text(BAND % (edge, upper))
    arrays = [(1, 4), (2, 2), (4, 4)]
    sizes = [{"N": n, "W": w} for n in (3, 7, 12, 21) for w in (1, 2, 5, 9)]
    used = {"slabs": 0, "whole": 0}
    real_slabs, real_whole = indices._slabs, indices.whole

    def slabs(*a):  # type: ignore[no-untyped-def]
        out = real_slabs(*a)
        used["slabs"] += bool(out)
        return out

    def whole(*a):  # type: ignore[no-untyped-def]
        out = real_whole(*a)
        used["whole"] += out is not None
        return out

    monkeypatch.setattr(indices, "_slabs", slabs)
    monkeypatch.setattr(indices, "whole", whole)
    _fresh()
    fast = _band_volumes(path, arrays, sizes)
    assert used["slabs"] and (used["whole"] or edge < 2)
    monkeypatch.setattr(indices, "_slabs", lambda *a: [])
    monkeypatch.setattr(indices, "whole", lambda *a: None)
    monkeypatch.setattr(indices, "_sized", lambda places, size: places)
    _fresh()
    plain = _band_volumes(path, arrays, sizes)
    _fresh()  # (later tests count with the real functions again)
    assert fast == plain


def _fresh() -> None:
    """Forget every class counted in this process (earlier tests count the same classes)."""
    counts._index_count.cache_clear()
    counts._class_count.cache_clear()
    indices._fibre_sum.cache_clear()
    counts._SUMS.clear()


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_positions_in_a_tile_of_known_size(size):
    """``_sized`` keeps exactly the positions ``_places`` allows in a tile of ``size``."""
    for conds in [((1, 0, -1, False),), ((-1, 0, 0, False),), ((-1, 1, -2, False),),
                  ((1, 0, -1, False), (-1, 1, -2, False)), ((1, 0, -2, False),)]:
        want = [j for j in range(size) if all(s * j + b * size + c >= 0 for s, b, c, _ in conds)]
        got = [0] * size
        for sign, place in indices._sized(indices._places(conds), size):
            js = range(size) if place == ("all",) else (
                [place[1] * size + place[2]] if place[0] == "v" else
                [j for j in range(size) if all(s * j + b * size + c >= 0 for s, b, c, _ in place[1])])
            for j in js:
                got[j] += sign
        assert [j for j in range(size) if got[j]] == want and set(got) <= {0, 1}
