"""The C kernel's meaning (``frontends/crun.py``): C semantics, checked against numpy written
by hand here; and as the simulator's reference, it accepts the localised PolyBench kernels
and rejects a localised kernel whose compute statement was altered."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from polyjoule.analysis.simulator import simulate
from polyjoule.errors import CRunError
from polyjoule.frontends.crun import CReference, c_program
from polyjoule.frontends.resolve import kernel_from
from polyjoule.model.expr import parse_expr

SUITE = Path(__file__).parent / "polybench_c"


def test_integer_division_and_remainder_truncate_toward_zero() -> None:
    prog = c_program("void f(int n, double A[4]) { int i; for (i = 0; i < 4; i++)"
                     " A[i] = (i - 2 * n) / 2 + (i - 2 * n) % 2 * 10; }")
    got = prog.run({"A": np.zeros(4)}, {"n": 2})["A"]
    want = [int((i - 4) / 2) + int(np.fmod(i - 4, 2)) * 10 for i in range(4)]  # C, not floor
    assert list(got) == want == [-2, -11, -1, -10]


CALLS = """
void f(int n, double x[n], double y[n]) {
  int i;
  double t = 0.25;
  for (i = n - 1; i >= 0; i--) {
    y[i] = sqrt(x[i]) + fabs(-t) + fmax(x[i], 1.0) + fmin(x[i], 1.0) + exp(x[i])
           + pow(x[i], 3.0);
    y[i] *= x[i] > 1.0 ? 2.0 : -1.0;
    if (i % 2 == 0)
      y[i] -= 1.0;
    else
      y[i] /= 4.0;
  }
}
"""


def test_math_calls_ternaries_guards_and_downward_loops() -> None:
    x = np.random.default_rng(1).uniform(0.5, 1.5, 7)
    got = c_program(CALLS).run({"x": x}, {"n": 7})["y"]
    want = (np.sqrt(x) + 0.25 + np.maximum(x, 1.0) + np.minimum(x, 1.0) + np.exp(x) + x**3)
    want *= np.where(x > 1.0, 2.0, -1.0)
    want = np.where(np.arange(7) % 2 == 0, want - 1.0, want / 4.0)
    np.testing.assert_array_equal(got, want)


SCALE = """
void f(int n, float A[n], float B[n]) {
  int i;
  float s = 0.1f;
  for (i = 0; i < n; i++)
    s = s * A[i] + 1.0f / 3.0f;
  for (i = 0; i < n; i++)
    B[i] = A[i] * s;
}
"""


def test_float_arithmetic_is_float32_and_widen_is_float64() -> None:
    a = np.random.default_rng(2).uniform(0.5, 1.5, 9)
    s32, s64 = np.float32(0.1), 0.1
    for v in a:
        s32 = s32 * np.float32(v) + np.float32(1) / np.float32(3)
        s64 = s64 * v + 1.0 / 3.0
    narrow = c_program(SCALE).run({"A": a}, {"n": 9})["B"]
    assert narrow.dtype == np.float32
    np.testing.assert_array_equal(narrow, a.astype(np.float32) * s32)
    wide = c_program(SCALE, widen=True).run({"A": a}, {"n": 9})["B"]
    assert wide.dtype == np.float64
    np.testing.assert_array_equal(wide, a * s64)
    assert not np.array_equal(wide, narrow.astype(np.float64))  # the rounding shows


def test_local_arrays_are_temporaries_and_unset_elements_stay_nan() -> None:
    prog = c_program("void f(int n, double x[n], double y[n]) { int i; double t[n];"
                     " for (i = 1; i < n; i++) t[i] = 2.0 * x[i];"
                     " for (i = 0; i < n; i++) y[i] = t[i]; }")
    out = prog.run({"x": np.ones(4)}, {"n": 4})
    assert np.isnan(out["y"][0]) and list(out["y"][1:]) == [2.0, 2.0, 2.0]
    assert "t" in out and prog.arrays["t"].local


def test_unsupported_constructs_are_named() -> None:
    with pytest.raises(CRunError, match="printf"):
        c_program("void f(int n, double x[n]) { int i; for (i = 0; i < n; i++) printf(x[i]); }")
    with pytest.raises(CRunError, match="needs a value for 'alpha'"):
        c_program("void f(int n, double alpha, double x[n]) { int i;"
                  " for (i = 0; i < n; i++) x[i] = alpha; }").run({}, {"n": 2})


def test_polybench_trisolv_solves_the_triangular_system() -> None:
    f = SUITE / "linear-algebra/solvers/trisolv/trisolv.c"
    prog = c_program(f.read_text(), str(f))
    rng = np.random.default_rng(3)
    low = np.tril(rng.uniform(0.5, 1.5, (6, 6))) + 6 * np.eye(6)
    b = rng.uniform(0.5, 1.5, 6)
    x = prog.run({"L": low, "b": b}, {"N": 6})["x"]
    np.testing.assert_allclose(low @ x, b, rtol=1e-12)


FILES = ["linear-algebra/solvers/trisolv/trisolv.c", "linear-algebra/blas/gesummv/gesummv.c",
         "stencils/jacobi-1d/jacobi-1d.c", "linear-algebra/solvers/lu/lu.c"]


@pytest.mark.parametrize("path", FILES)
def test_localised_polybench_files_compute_what_their_c_computes(path: str) -> None:
    k = kernel_from(str(SUITE / path))
    assert isinstance(k.reference, CReference)
    r = simulate(k, (2, 2), values=k.datasets["MINI"])
    assert r.ok and r.checks["outputs_match_reference"], r.violations
    for name, want in r.reference.items():  # the comparison had numbers to compare
        assert np.isfinite(want).all() and want.size > 0, name


def test_an_altered_compute_statement_fails_against_the_c() -> None:
    """trisolv's accumulation with its operands swapped (``x_p - x_in``): the same operations
    and counts, other values; the C reference must notice."""
    k = kernel_from(str(SUITE / "linear-algebra/solvers/trisolv/trisolv.c"))
    ph = k.phases[0]
    target = next(s for s in ph.statements if s.kind == "compute" and s.expr.text == "x_in - x_p")
    wrong = parse_expr("x_p - x_in", ["x_in", "x_p"], [], "test")
    stmts = tuple(replace(s, expr=wrong) if s is target else s for s in ph.statements)
    bad = replace(k, phases=(replace(ph, statements=stmts),))
    r = simulate(bad, (2, 2), values={"N": 8})
    assert r.checks["causality"] and r.checks["outputs_written"]
    assert not r.checks["outputs_match_reference"]
    assert any("differ" in v for v in r.violations), r.violations
    assert simulate(k, (2, 2), values={"N": 8}).checks["outputs_match_reference"]


def test_a_construct_it_does_not_run_leaves_the_check_not_applicable() -> None:
    """No reference rather than one that could pass without comparing: ``n/a``, never ok."""
    from polyjoule.frontends.cnest import c_kernel
    from polyjoule.frontends.crun import with_c_reference

    fine = ("void f(int n, double x[n], double y[n]) { int i;"
            " for (i = 0; i < n; i++) y[i] = relu(x[i] - 1.0); }")
    k = c_kernel(fine, "u.c")
    assert with_c_reference(k, fine, "u.c").reference is not None
    text = "void f(int n, double y[n]) { int i; for (i = 0; i < n; i++) y[i] = g(i); }"
    assert with_c_reference(k, text, "u.c").reference is None
    other = "void f(int n, double z[n]) { int i; for (i = 0; i < n; i++) z[i] = 1.0; }"
    assert with_c_reference(k, other, "u.c").reference is None  # nothing to compare


REFUSED = {  # PolyBench files the front end refuses, against the built-in numpy references
    "medley/floyd-warshall/floyd-warshall.c": ("floyd-warshall", {"N": 9}, ["path"]),
    "linear-algebra/solvers/ludcmp/ludcmp.c": ("ludcmp", {"N": 8}, ["A", "b"]),
    "datamining/correlation/correlation.c": ("correlation", {"N": 9, "M": 7, "float_n": 9.0},
                                             ["data"]),
}


@pytest.mark.parametrize("path", sorted(REFUSED))
def test_richer_c_matches_the_textbook_references(path: str) -> None:
    """Downward loops, ternaries, scalars assigned in loops, statements outside loops: the
    interpreter agrees with the built-in references written from the textbook."""
    from polyjoule.library.references import REFERENCES

    name, env, inputs = REFUSED[path]
    f = SUITE / path
    prog = c_program(f.read_text(), str(f))
    rng = np.random.default_rng(4)
    shapes = {"path": (9, 9), "A": (8, 8), "b": (8,), "data": (9, 7)}
    given = {n: rng.uniform(0.5, 1.5, shapes[n]) + (8 * np.eye(8) if n == "A" else 0)
             for n in inputs}
    if "path" in given:  # DATA_TYPE int: integer distances, as the C holds them
        given["path"] = rng.integers(1, 20, shapes["path"]).astype(np.float64)
    got = prog.run(given, env)
    want = REFERENCES[name]({k: v.copy() for k, v in given.items()}, {**env, "eps": 0.1})
    for out, w in want.items():
        np.testing.assert_allclose(got[out], w, rtol=1e-10, err_msg=out)


def test_int_arrays_truncate_unless_widened() -> None:
    text = "void f(int n, int A[n]) { int i; for (i = 0; i < n; i++) A[i] = A[i] / 2; }"
    a = np.array([3.7, -3.7, 5.0])
    assert list(c_program(text).run({"A": a}, {"n": 3})["A"]) == [1, -1, 2]  # C: 3/2, -3/2
    assert list(c_program(text, widen=True).run({"A": a}, {"n": 3})["A"]) == [1.85, -1.85, 2.5]


def test_the_reference_pickles_to_sweep_workers() -> None:
    import pickle

    k = kernel_from(str(SUITE / "linear-algebra/blas/gesummv/gesummv.c"))
    ref = pickle.loads(pickle.dumps(k.reference))
    rng = np.random.default_rng(5)
    t = {"A": rng.uniform(size=(4, 4)), "B": rng.uniform(size=(4, 4)), "x": rng.uniform(size=4)}
    env = {"N": 4, "alpha": 1.5, "beta": 1.2}
    want = 1.5 * t["A"] @ t["x"] + 1.2 * t["B"] @ t["x"]
    np.testing.assert_allclose(ref(t, env)["y"], want, rtol=1e-12)
    assert ref(t, env).keys() == {"y"}  # tmp is scratch (print_array dumps y only)


BARE = """
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    for (k = i; k < N; k++)
      C[i][j] += A[i][k] * B[k][j];
"""
PROLOGUE = (SUITE.parent / "c_fixtures" / "scaled.c").read_text()  # test_cprologue.py's


@pytest.mark.parametrize("text", [BARE, PROLOGUE], ids=["bare", "prologue"])
def test_bare_statements_and_a_folded_prologue_are_checked(text: str) -> None:
    """Arrays nobody declared take the kernel's shapes; ``alpha``, folded into constants by
    the front end, takes PolyBench's value; ``s = t = e`` assigns both."""
    from polyjoule.frontends.cnest import c_kernel
    from polyjoule.frontends.crun import with_c_reference

    k = with_c_reference(c_kernel(text, "t.c"), text, "t.c")
    assert isinstance(k.reference, CReference)
    r = simulate(k, (2, 2), values=dict.fromkeys(k.params, 6))
    assert r.ok and r.checks["outputs_match_reference"], r.violations
