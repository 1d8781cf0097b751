"""Symbolic volumes against brute-force enumeration of the tiled iteration space."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from polyjoule.analysis import analyze
from polyjoule.cli import app
from polyjoule.errors import InfeasibleMapping, ParameterRangeError
from polyjoule.library.kernels import get, names
from polyjoule.mapping.tiling import Tiling


def symbolic_counts(kernel: str, array, values, tile=None) -> dict[tuple[str, str], int]:
    r = analyze(kernel, array=array, tile=tile).evaluate(values)
    out: dict[tuple[str, str], int] = {}
    for v in r.volumes:
        if v.value:
            out[(v.statement, v.case)] = out.get((v.statement, v.case), 0) + v.value
    return out


def test_worked_example_through_cli_json():
    res = CliRunner().invoke(app, ["analyze", "gesummv", "--array", "2x2", "--tile", "2,3",
                                   "--set", "N0=4,N1=5", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    s7 = {v["case"]: v for v in data["volumes"] if v["statement"] == "S7"}
    assert s7["intra"]["class"] == "FD" and s7["intra"]["value"] == 12
    assert s7["inter(i1)"]["class"] == "ID" and s7["inter(i1)"]["value"] == 4
    assert s7["intra"]["formula"] == "N0*(N1 - t1)"
    assert s7["inter(i1)"]["formula"] == "N0*(t1 - 1)"
    assert set(data["counts"]) >= {"RD", "FD", "ID", "OD", "IOb", "DR", "ops"}
    assert set(data["energy_pj"]) >= {"total", "by_class", "by_op"}
    assert data["derive_seconds"] > 0


@pytest.mark.parametrize("kernel,array,values", [
    ("gesummv", (2, 2), {"N0": 4, "N1": 5}),
    ("gesummv", (4, 4), {"N0": 13, "N1": 7}),
    ("gesummv", (1, 4), {"N0": 5, "N1": 9}),
    ("gemm", (2, 2), {"NI": 5, "NJ": 3, "NK": 4}),
    ("gemm", (4, 4), {"NI": 9, "NJ": 14, "NK": 3}),
])
def test_symbolic_equals_enumeration(kernel, array, values, brute_counts):
    pra = get(kernel).phases[0]
    assert symbolic_counts(kernel, array, values) == brute_counts(pra, array, values)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n0=st.integers(1, 20), n1=st.integers(1, 20), rows=st.sampled_from([1, 2, 3, 4]),
       cols=st.sampled_from([1, 2, 4, 8]))
def test_property_gesummv_random_sizes(n0, n1, rows, cols, brute_counts):
    values = {"N0": n0, "N1": n1}
    pra = get("gesummv").phases[0]
    tiling = Tiling.of(pra, (rows, cols))
    try:
        tiling.sizes(pra, values)
    except InfeasibleMapping:
        return
    assert symbolic_counts("gesummv", (rows, cols), values) == brute_counts(pra, (rows, cols), values)


def test_vectorised_equals_scalar():
    a = analyze("gemm", array=(4, 4))
    n = np.array([4, 7, 16, 33])
    many = a.evaluate_many({"NI": n, "NJ": n + 1, "NK": n + 2})
    for i, x in enumerate(n):
        r = a.evaluate({"NI": int(x), "NJ": int(x) + 1, "NK": int(x) + 2})
        for c in ("RD", "FD", "ID", "OD", "IOb", "DR"):
            assert many[c][i] == r.counts[c]
        assert many["energy_pj"][i] == pytest.approx(r.energy_pj["dynamic"])


def test_out_of_range_is_an_error_not_zero():
    a = analyze("gesummv", array=(2, 2))
    with pytest.raises(ParameterRangeError):
        a.evaluate({"N0": 0, "N1": 5})
    with pytest.raises(InfeasibleMapping):
        analyze("gesummv", array=(2, 2), tile=(1, 1)).evaluate({"N0": 9, "N1": 9})


def test_energy_breakdown_adds_up():
    r = analyze("gemm", array=(8, 8)).evaluate({"NI": 64, "NJ": 64, "NK": 64})
    e = r.energy_pj
    assert e["dynamic"] == pytest.approx(sum(e["by_class"].values()) + sum(e["by_op"].values()))
    assert e["total"] == pytest.approx(e["dynamic"] + e["static"]) and e["static"] > 0
    assert r.counts["ops"]["mul"] == 2 * 64**3 + 64 * 64  # a*b and alpha*p everywhere, beta*c at k=0


TRIANGLE = """
version: 1
name: tri
params: {N: 1}
dims:
  - {name: i, lower: 0, upper: N - 1}
  - {name: j, lower: 0, upper: i, extent: N}
tensors: {X: {shape: [N, N], kind: input}, Y: {shape: [N], kind: output}}
statements:
  - {id: S1, var: x, input: "X[i, j]"}
  - {id: S2, var: s, compute: "x", when: "j == 0"}
  - {id: S3, var: sp, from: s, dep: [0, 1], when: "j >= 1"}
  - {id: S4, var: s, compute: "sp + x", when: "j >= 1"}
  - {id: S5, var: s, output: "Y[i]", when: "j == i"}
"""


@pytest.mark.parametrize("array,tile,mode", [((2, 2), None, "symbolic"), ((2, 4), (3, 2), "symbolic"),
                                             ((4, 1), None, "symbolic")])
@pytest.mark.parametrize("n", [1, 5, 8, 11])
def test_triangle_symbolic_or_fixed(tmp_path, brute_counts, array, tile, mode, n):
    from polyjoule.frontends.pra_yaml import load_kernel_file

    p = tmp_path / "tri.yaml"
    p.write_text(TRIANGLE)
    k = load_kernel_file(p)
    try:
        Tiling.of(k.phases[0], array, tile).sizes(k.phases[0], {"N": n})
    except InfeasibleMapping:
        return
    a = analyze(k, array=array, tile=tile)
    r = a.evaluate({"N": n})
    assert r.modes["tri"] == mode
    got: dict = {}
    for v in r.volumes:
        if v.value:
            got[(v.statement, v.case)] = got.get((v.statement, v.case), 0) + v.value
    assert got == brute_counts(k.phases[0], array, {"N": n}, tile)


def test_worked_schedule_example_through_cli_json():
    res = CliRunner().invoke(app, ["analyze", "gesummv", "--array", "2x2", "--set", "N0=4,N1=6",
                                   "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    (s,) = data["schedule"]
    assert s["lambda_J_symbolic"] == ["1", "p0"]
    assert s["lambda_K_symbolic"] == ["p0", "p0*p1 - p0 + 1"]
    assert s["lambda_J"] == [1, 2] and s["lambda_K"] == [2, 5] and s["L_c"] == 4
    assert data["latency_cycles"] == 16


# A diagonal dependence crossing two coupled dims of different tile sizes: no symbolic
# split serves both dims at once, so tile sizes are fixed per design point.
DIAGONAL = """
version: 1
name: diag
params: {N: 1}
dims:
  - {name: i, lower: 0, upper: N - 1}
  - {name: j, lower: 0, upper: i, extent: N}
tensors: {X: {shape: [N, N], kind: input}, Y: {shape: [N, N], kind: output}}
statements:
  - {id: S1, var: x, input: "X[i, j]", when: "j == 0"}
  - {id: S2, var: x, from: x, dep: [1, 1], when: "j >= 1"}
  - {id: S3, var: x, output: "Y[i, j]"}
"""


@pytest.mark.parametrize("array,tile,mode", [((2, 4), (3, 2), "fixed"), ((3, 2), None, "fixed"),
                                             ((2, 2), None, "symbolic")])
def test_diagonal_dependence_on_coupled_dims(tmp_path, brute_counts, array, tile, mode):
    from polyjoule.frontends.pra_yaml import load_kernel_file

    p = tmp_path / "diag.yaml"
    p.write_text(DIAGONAL)
    k = load_kernel_file(p)
    a = analyze(k, array=array, tile=tile)
    seen = 0
    for n in range(2, 8):
        try:
            r = a.evaluate({"N": n})
        except InfeasibleMapping:
            continue
        assert r.modes["diag"] == mode
        got: dict = {}
        for v in r.volumes:
            if v.value:
                got[(v.statement, v.case)] = got.get((v.statement, v.case), 0) + v.value
        assert got == brute_counts(k.phases[0], array, {"N": n}, tile)
        seen += 1
    assert seen >= 2
    if mode == "fixed":  # fixed-tile phases vectorise too (point by point)
        n = np.array([4, 5, 6])
        many = a.evaluate_many({"N": n})
        for i, x in enumerate(n):
            r = a.evaluate({"N": int(x)})
            for c in ("RD", "FD", "ID", "OD", "IOb", "DR"):
                assert many[c][i] == r.counts[c]


ARRAYS = [(8, 8), (2, 2), (1, 4), (3, 2), (4, 1)]


@pytest.mark.parametrize("name", names())
def test_no_built_in_kernel_derives_in_fixed_mode(name):
    for array in ARRAYS:
        try:
            a = analyze(name, array=array)
        except InfeasibleMapping:
            continue  # more array axes than dims
        assert {ph.mode for ph in a.phases} == {"symbolic"}, (name, array)


@pytest.mark.parametrize("name", ["trmm", "symm", "syrk", "syr2k", "trisolv", "covariance"])
@pytest.mark.parametrize("array", ARRAYS + [(2, 3)])
def test_coupled_dims_symbolic_equals_enumeration(name, array, brute_counts):
    """trmm, symm (a tiled dim coupled with a sequential one: split virtually), the
    triangular kernels on non-square arrays (coupled dims of different tile sizes: each case
    splits the dims it crosses): every phase at sizes that make tile sizes 1 to 5 occur."""
    k = get(name)
    a = analyze(k, array=array)
    seen = 0
    for n in range(1, 12):
        values = {p: n + (i % 2) * 3 for i, p in enumerate(k.params)}
        try:
            rows = a.evaluate(values).volumes
        except InfeasibleMapping:
            continue
        for ph in k.phases:
            got: dict = {}
            for v in rows:
                if v.phase == ph.name and v.value:
                    got[(v.statement, v.case)] = got.get((v.statement, v.case), 0) + v.value
            assert got == brute_counts(ph, array, {p: values[p] for p in ph.params}), (ph.name, values)
        seen += 1
    assert seen >= 4


@pytest.mark.parametrize("name,tile", [("trmm", (3, 2, 1)), ("symm", (2, 4, 1)), ("trmm", (5, 5, 1))])
def test_symbolic_equals_fixed_mode_with_explicit_tiles(name, tile):
    """The virtual split against the fixed-tile derivation (an independent isl count)."""
    from polyjoule.analysis.counts import derive

    k = get(name)
    pra = k.phases[0]
    tiling = Tiling.of(pra, (2, 2), tile)
    a = analyze(k, array=(2, 2), tile=tile)
    assert a.phases[0].mode == "symbolic"
    fixed = [v.formula for v in derive(pra, tiling, fixed=tile)[0]]
    for m in range(2, 2 * min(tile[:2]) + 1):
        values = {"M": m, "N": m + 1}
        try:
            tiling.sizes(pra, values)
        except InfeasibleMapping:
            continue
        got = [row.value for row in a.evaluate(values).volumes]
        assert got == [int(f.evaluate(values)) for f in fixed], values


def test_analyze_keeps_formulas_in_the_cache_unless_told_not_to(tmp_path, monkeypatch):
    """A second ``analyze`` process reads the formulas the first derived (same volumes);
    ``--no-cache`` neither reads nor writes the cache."""
    from polyjoule.dse.cache import FormulaCache

    monkeypatch.setenv("POLYJOULE_CACHE_DIR", str(tmp_path / "c"))
    args = ["analyze", "jacobi-1d", "--array", "1x4", "--set", "TSTEPS=3,N=9", "--json"]
    fresh = CliRunner().invoke(app, [*args, "--no-cache"])
    assert fresh.exit_code == 0, fresh.output
    assert FormulaCache(tmp_path / "c").entries() == 0
    runs = [CliRunner().invoke(app, args) for _ in range(2)]
    assert all(r.exit_code == 0 for r in runs), runs[0].output
    assert FormulaCache(tmp_path / "c").entries() == 1
    vols = [json.loads(r.output)["volumes"] for r in (fresh, *runs)]
    assert vols[0] == vols[1] == vols[2]


def test_product_of_formulas_is_the_product_of_their_values():
    """``times`` (cases as products of independent classes) against plain multiplication."""
    from polyjoule.analysis.counts import derive, groups_of, symbolic_env, times

    pra = get("jacobi-2d").phases[0]
    tiling = Tiling.of(pra, (2, 2))
    groups = groups_of(pra, tiling)
    fs = [v.formula for v in derive(pra, tiling)[0] if len(v.formula.pieces) > 1][:4]
    assert len(fs) >= 2
    for n in (3, 5, 8, 13):
        values = {"TSTEPS": 4, "N": n}
        try:
            sizes = tiling.sizes(pra, values)
        except InfeasibleMapping:
            continue
        env = symbolic_env(pra, tiling, groups, values, sizes)
        for a in fs:
            for b in fs:
                assert times(a, b).evaluate(env) == a.evaluate(env) * b.evaluate(env)


@pytest.mark.parametrize("name", ["jacobi-1d", "seidel-2d", "lu", "cholesky"])
@pytest.mark.parametrize("array", [(2, 2), (1, 4), (3, 2)])
def test_boundary_kernels_symbolic_equals_enumeration(name, array, brute_counts):
    """Stencils and pivot kernels, whose boundary constraints lose the alternatives outside
    the tile range (``k = -1``) before Barvinok: counts equal a brute-force walk."""
    k = get(name)
    a = analyze(k, array=array)
    seen = 0
    for n in range(2, 9):
        values = {p: n + (i % 2) for i, p in enumerate(k.params)}
        try:
            rows = a.evaluate(values).volumes
        except (InfeasibleMapping, ParameterRangeError):
            continue
        for ph in k.phases:
            got: dict = {}
            for v in rows:
                if v.phase == ph.name and v.value:
                    got[(v.statement, v.case)] = got.get((v.statement, v.case), 0) + v.value
            assert got == brute_counts(ph, array, {p: values[p] for p in ph.params}), (ph.name, values)
        seen += 1
    assert seen >= 3


def test_delta_range_bounds_every_tile():
    """The bounds of ``a*k + b*t + c`` over ``0 <= k <= t - 1`` (``t >= 1``) that pruning
    trusts hold at every tile, and are reached."""
    from polyjoule.analysis.indices import delta_range as _delta_range
    from polyjoule.model.affine import Affine

    bounded = 0
    for a in (-1, 0, 1, 2):
        for b in (-1, 0, 1):
            for c in range(-2, 3):
                lo, hi = _delta_range(Affine.of({"k_i": a, "t1": b}, c), "t1")
                values = [a * k + b * t + c for t in range(1, 9) for k in range(t)]
                assert lo is None or (min(values) == lo), (a, b, c)
                assert hi is None or (max(values) == hi), (a, b, c)
                bounded += lo is not None or hi is not None
    assert bounded == 4 * 5  # k, -k, t - k, k - t: one bound each


def test_implied_bounds_are_implied_and_the_rest_kept():
    """``counts.implied`` drops only constraints the others imply: at every integer point
    where the kept constraints hold the dropped ones hold too (brute force over a box), and
    a constraint alone on its line is kept."""
    import itertools
    import random

    from polyjoule.analysis.counts import implied
    from polyjoule.model.affine import Affine, Constraint

    rng = random.Random(16)
    names = ["i", "N"]
    for _ in range(300):
        cs = []
        for _ in range(rng.randint(1, 6)):
            coeffs = rng.choice([{"i": 1}, {"i": -1, "N": 1}, {"i": 1, "N": -1}, {"N": 1}])
            cs.append(Constraint(Affine.of(coeffs, rng.randint(-3, 3)), rng.random() < 0.25))
        dropped = implied(cs)
        kept = [c for c in cs if c not in dropped]
        assert all(not c.eq for c in dropped)
        for i, n in itertools.product(range(-6, 7), repeat=2):
            env = dict(zip(names, (i, n), strict=True))
            if all(c.holds(env) for c in kept):
                assert all(c.holds(env) for c in dropped), (cs, dropped)
        lines = [c.expr.terms for c in cs] + [(-c.expr).terms for c in cs if c.eq]
        if len(set(lines)) == len(lines):  # no two bounds on one line: nothing to drop
            assert not dropped
    assert implied([Constraint(Affine.of({"N": 1, "i": -1}, -1)),
                    Constraint(Affine.of({"N": 1, "i": -1}, -2))]) == {
        Constraint(Affine.of({"N": 1, "i": -1}, -1))}


def test_upper_bounds_by_chains_hold_at_every_point():
    """``counts._upper_bounds`` (x <= E + c shown by chains of two-term bounds, so isl need
    not prove a class stays in its tiles): every bound it gives holds at every integer point
    of the constraints (brute force), and a plain chain is found."""
    import itertools
    import random

    from polyjoule.analysis.counts import _upper_bounds
    from polyjoule.model.affine import Affine

    rng = random.Random(5)
    names = ["E0", "x0", "x1", "x2"]
    for _ in range(200):
        exprs = []
        for _ in range(rng.randint(1, 5)):
            a, b = rng.sample(names, 2)
            exprs.append((Affine.of({a: 1, b: -1}, rng.randint(-2, 1)), rng.random() < 0.2))
        bounds = _upper_bounds(exprs)
        for point in itertools.product(range(4), repeat=len(names)):
            env = dict(zip(names, point, strict=True))
            if all((e.evaluate(env) == 0) if eq else (e.evaluate(env) >= 0) for e, eq in exprs):
                for (x, ext), c in bounds.items():
                    assert env[x] <= env[ext] + c, (exprs, bounds, env)
    chain = [(Affine.of({"E0": 1, "x0": -1}, -1), False), (Affine.of({"x0": 1, "x1": -1}, -1), False),
             (Affine.of({"x1": 1, "x2": -1}, 0), True)]
    assert _upper_bounds(chain) == {("x0", "E0"): -1, ("x1", "E0"): -2, ("x2", "E0"): -2}


# Banded nests from C: coupled dims whose extents differ (``N`` and ``N + W - 1``; ``N`` and
# ``N + 2``; ``N - 1`` and ``N``). Each coupled dim group gets its own tile size and the band's
# width its own (t, r) in that tile size: symbolic, not re-derived per tile choice.
BANDS = {
    "band": ("void k(int N, int W, double A[N][N + W], double x[N + W], double y[N]) {\n"
             "  int i, j;\n  for (i = 0; i < N; i++) {\n    y[i] = 0.0;\n"
             "    for (j = i; j < i + W; j++)\n      y[i] += A[i][j] * x[j];\n  }\n}\n"),
    "tridiagonal": ("void k(int N, double A[N][N + 2], double x[N + 2], double y[N]) {\n"
                    "  int i, j;\n  for (i = 0; i < N; i++) {\n    y[i] = 0.0;\n"
                    "    for (j = i; j < i + 3; j++)\n      y[i] += A[i][j] * x[j];\n  }\n}\n"),
    "shifted": ("void k(int N, int W, double A[N][N + W + 2], double x[N + W + 2], double y[N]) {\n"
                "  int i, j;\n  for (i = 0; i < N; i++) {\n    y[i] = 0.0;\n"
                "    for (j = i + 2; j < i + W + 2; j++)\n      y[i] += A[i][j] * x[j];\n  }\n}\n"),
    "upper": ("void k(int N, double A[N][N], double x[N], double y[N]) {\n"
              "  int i, j;\n  for (i = 0; i < N - 1; i++) {\n    y[i] = 0.0;\n"
              "    for (j = i + 1; j < N; j++)\n      y[i] += A[i][j] * x[j];\n  }\n}\n"),
}


@pytest.mark.parametrize("name", sorted(BANDS))
@pytest.mark.parametrize("array,tile", [((2, 2), None), ((3, 2), None), ((1, 4), None),
                                        ((2, 3), (3, 4)), ((4, 4), (2, 3))])
def test_banded_nest_symbolic_equals_simulated(name, array, tile):
    """Counts and latency of the symbolic derivation against the cycle-level simulator, at
    sizes where the band is wider and narrower than a tile."""
    from polyjoule.frontends.cnest import c_kernel

    k = c_kernel(BANDS[name], f"{name}.c")
    a = analyze(k, array=array, tile=tile)
    assert [ph.mode for ph in a.phases] == ["symbolic"]
    sizes = [{"N": n, "W": w} if "W" in k.params else {"N": n}
             for n, w in [(5, 1), (6, 3), (4, 5), (8, 2), (3, 6)]]
    assert _agrees_with_simulator(a, k, array, tile, sizes) >= 2


def _agrees_with_simulator(a, k, array, tile, sizes, latency: bool = True) -> int:  # type: ignore[no-untyped-def]
    """Counts (and latency) of analysis ``a`` equal the cycle-level simulator's at every
    size of ``sizes`` the mapping takes; how many it took."""
    from polyjoule.analysis import simulator as sim

    seen = 0
    for values in sizes:
        try:
            r = a.evaluate(values)
        except InfeasibleMapping:
            continue
        s = sim.simulate(k, array, tile=tile, values=values)
        assert s.ok, (s.checks, s.violations)
        assert r.counts == s.counts, values
        assert not latency or r.latency_cycles == s.makespan, values
        seen += 1
    return seen


# A band whose lower edge lies 3 off the diagonal, with a width parameter: tiles of 1-3 are
# counted each in its own window (the tile size a number), tiles of 4 and more in one
# symbolic window; the case's formula is their sum.
SHIFTED3 = ("void k(int N, int W, double A[N][N + W + 4], double x[N + W + 4], double y[N]) {\n"
            "  int i, j;\n  for (i = 0; i < N; i++) {\n    y[i] = 0.0;\n"
            "    for (j = i + 3; j < i + W + 3; j++)\n      y[i] += A[i][j] * x[j];\n  }\n}\n")


def test_band_windows_partition_the_tile_sizes():
    """The rule: the band's groups are counted for p = 1, 2, 3 apart and for p >= 4."""
    from polyjoule.analysis.counts import _splits, _windows, groups_of
    from polyjoule.frontends.cnest import c_kernel
    from polyjoule.mapping.tiling import cases

    pra = c_kernel(SHIFTED3, "shifted3.c").phases[0]
    tiling = Tiling.of(pra, (2, 2))
    groups = groups_of(pra, tiling)
    seen = set()
    for c in cases(pra, tiling):
        split = _splits(pra, groups, c)
        for w in _windows(pra, split):
            seen |= {(least, exact) for least, exact in w.values()}
    assert seen == {(1, True), (2, True), (3, True), (4, False)}


@pytest.mark.parametrize("tile", [(1, 1), (2, 2), (3, 3), (4, 5), (2, 3), (5, 1)])
def test_band_windows_equal_simulated(tile):
    """Counts and latency in every window (tiles of 1 to 5) against the simulator, on an
    array large enough for every size below (N <= 9, N + W + 4 <= 19)."""
    from polyjoule.frontends.cnest import c_kernel

    k = c_kernel(SHIFTED3, "shifted3.c")
    array = (-(-9 // tile[0]), -(-19 // tile[1]))
    a = analyze(k, array=array, tile=tile)
    assert [ph.mode for ph in a.phases] == ["symbolic"]
    sizes = [{"N": n, "W": w} for n, w in [(5, 1), (6, 3), (4, 5), (7, 2), (3, 6), (9, 4)]]
    assert _agrees_with_simulator(a, k, array, tile, sizes) == len(sizes)


# A 3-D band crossed by an anti-diagonal condition with a parameter of its own: its fibre
# count has floors, so one class is counted on the tile split, where its unions multiply
# out to 108 conjunctions (Barvinok did not finish in 20 minutes). Such a class is refused
# as not symbolic: tile sizes are fixed per design point.
ANTI_BAND = """version: 1
name: anti3
phases:
- name: anti3
  dtype: fp64
  params: {N: 2, W: 1, K: 1}
  dims:
  - {name: i, lower: 0, upper: N - 2}
  - {name: l, lower: 0, upper: K - 1}
  - {name: j, lower: i + 2, upper: W + i + 3, extent: N + W + 2}
  tensors:
    A: {shape: [N + W + 2, K, N + W + 2], kind: input}
    x: {shape: [N + W + 2, K], kind: input}
    z: {shape: [N + W + 2, K], kind: inout}
  statements:
  - {id: S1, var: a, input: "A[i, l, j]"}
  - {id: S2, var: x, input: "x[i, l]", when: j == i + 2}
  - {id: S3, var: x, from: x, dep: [0, 0, 1], when: j >= i + 3}
  - {id: S4, var: z_p, compute: a * x}
  - {id: S5, var: e0, compute: a + z_p, when: [j + i <= K - 3]}
  - {id: S6, var: z_p, output: "z[j, l]", when: i == N - 2}
"""


@pytest.mark.parametrize("array,tile", [((2, 2), None), ((8, 8), None), ((2, 2), (3, 5, 4))])
def test_hard_class_falls_back_to_fixed_tiles(tmp_path, array, tile):
    """The class is refused by its size (not after minutes), and the fixed-tile counts
    equal the simulator's."""
    from polyjoule.analysis.counts import NotSymbolic, derive
    from polyjoule.frontends.pra_yaml import load_kernel_file

    path = tmp_path / "anti3.yaml"
    path.write_text(ANTI_BAND)
    k = load_kernel_file(path)
    a = analyze(k, array=array, tile=tile)
    assert [ph.mode for ph in a.phases] == ["fixed"]
    with pytest.raises(NotSymbolic, match="108 tile-offset alternatives over 7 parameters"):
        derive(k.phases[0], a.phases[0].tiling)
    sizes = [{"N": 5, "W": 1, "K": 9}, {"N": 4, "W": 2, "K": 2}, {"N": 3, "W": 1, "K": 6}]
    assert _agrees_with_simulator(a, k, array, tile, sizes, latency=False) >= 2
