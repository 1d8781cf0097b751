"""C front end: derived PRAs equal the hand-written ones; non-uniform kernels are refused."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from polybench_c import CLASS_D  # noqa: E402
from pra_brute import execute, kernel_counts, random_inputs  # noqa: E402

from polyjoule.errors import NotAffineError, NotUniformError, SpecError  # noqa: E402
from polyjoule.frontends.cnest import c_kernel  # noqa: E402
from polyjoule.library import kernels as registry  # noqa: E402

GEMM = """
void kernel_gemm(int NI, int NJ, int NK, double alpha, double beta,
                 double C[NI][NJ], double A[NI][NK], double B[NK][NJ])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++) {
      C[i][j] *= beta;
      for (k = 0; k < _PB_NK; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}
"""

GESUMMV = """
void kernel_gesummv(int N0, int N1, double alpha, double beta,
                    double A[N0][N1], double B[N0][N1], double X[N1], double Y[N0])
{
  double tmp[N0];
  int i0, i1;
  for (i0 = 0; i0 < N0; i0++) {
    tmp[i0] = 0.0;
    Y[i0] = 0.0;
    for (i1 = 0; i1 < N1; i1++) {
      tmp[i0] = A[i0][i1] * X[i1] + tmp[i0];
      Y[i0] = B[i0][i1] * X[i1] + Y[i0];
    }
    Y[i0] = alpha * tmp[i0] + beta * Y[i0];
  }
}
"""

BICG = """
for (i = 0; i < _PB_M; i++)
  s[i] = 0;
for (i = 0; i < _PB_N; i++) {
  q[i] = SCALAR_VAL(0.0);
  for (j = 0; j < _PB_M; j++) {
    s[j] = s[j] + r[i] * A[i][j];
    q[i] = q[i] + A[i][j] * p[j];
  }
}
"""

TWO_MM = """
for (i = 0; i < NI; i++)
  for (j = 0; j < NJ; j++) {
    tmp[i][j] = 0.0;
    for (k = 0; k < NK; ++k)
      tmp[i][j] += alpha * A[i][k] * B[k][j];
  }
for (i = 0; i < NI; i++)
  for (j = 0; j < NL; j++) {
    D[i][j] *= beta;
    for (k = 0; k < NJ; ++k)
      D[i][j] += tmp[i][k] * C[k][j];
  }
"""

ATAX = """
for (i = 0; i < N; i++)
  y[i] = 0;
for (i = 0; i < M; i++) {
  tmp[i] = 0.0;
  for (j = 0; j < N; j++)
    tmp[i] = tmp[i] + A[i][j] * x[j];
}
for (i = 0; i < M; i++)
  for (j = 0; j < N; j++)
    y[j] = y[j] + A[i][j] * tmp[i];
"""

MVT = """
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    x1[i] = x1[i] + A[i][j] * y_1[j];
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    x2[i] = x2[i] + A[j][i] * y_2[j];
"""

THREE_MM = """
for (i = 0; i < _PB_NI; i++)
  for (j = 0; j < _PB_NJ; j++) {
    E[i][j] = SCALAR_VAL(0.0);
    for (k = 0; k < _PB_NK; ++k)
      E[i][j] += A[i][k] * B[k][j];
  }
for (i = 0; i < _PB_NJ; i++)
  for (j = 0; j < _PB_NL; j++) {
    F[i][j] = SCALAR_VAL(0.0);
    for (k = 0; k < _PB_NM; ++k)
      F[i][j] += C[i][k] * D[k][j];
  }
for (i = 0; i < _PB_NI; i++)
  for (j = 0; j < _PB_NL; j++) {
    G[i][j] = SCALAR_VAL(0.0);
    for (k = 0; k < _PB_NJ; ++k)
      G[i][j] += E[i][k] * F[k][j];
  }
"""

GEMVER = """
for (i = 0; i < _PB_N; i++)
  for (j = 0; j < _PB_N; j++)
    A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
for (i = 0; i < _PB_N; i++) {
  for (j = 0; j < _PB_N; j++)
    x[i] = x[i] + beta * A[j][i] * y[j];
  x[i] = x[i] + z[i];
}
for (i = 0; i < _PB_N; i++)
  for (j = 0; j < _PB_N; j++)
    w[i] = w[i] +  alpha * A[i][j] * x[j];
"""

DOITGEN = """
for (r = 0; r < _PB_NR; r++)
  for (q = 0; q < _PB_NQ; q++)
    for (p = 0; p < _PB_NP; p++) {
      sum[r][q][p] = SCALAR_VAL(0.0);
      for (s = 0; s < _PB_NP; s++)
        sum[r][q][p] += A[r][q][s] * C4[s][p];
    }
for (r = 0; r < _PB_NR; r++)
  for (q = 0; q < _PB_NQ; q++)
    for (p = 0; p < _PB_NP; p++)
      A[r][q][p] = sum[r][q][p];
"""

SYRK = """
void kernel_syrk(int N, int M, double alpha, double beta, double C[N][N], double A[N][M])
{
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j <= i; j++) {
      C[i][j] *= beta;
      for (k = 0; k < _PB_M; k++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
}
"""

SYR2K = """
for (i = 0; i < N; i++)
  for (j = 0; j <= i; j++) {
    C[i][j] *= beta;
    for (k = 0; k < M; k++)
      C[i][j] += alpha * (A[j][k] * B[i][k] + B[j][k] * A[i][k]);
  }
"""

SOURCES = {"syrk": SYRK, "syr2k": SYR2K, "gemm": GEMM, "gesummv": GESUMMV, "bicg": BICG, "2mm": TWO_MM, "atax": ATAX,
           "mvt": MVT, "3mm": THREE_MM, "gemver": GEMVER, "doitgen": DOITGEN}
ARRAYS = [(1, 1), (4, 4), (2, 3), (1, 8)]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_c_equals_hand_written_in_counts(name: str) -> None:
    hand = registry.get(name)
    derived = c_kernel(SOURCES[name], f"{name}.c")
    assert len(derived.phases) == len(hand.phases)
    for ph_d, ph_h in zip(derived.phases, hand.phases, strict=True):
        assert ph_d.dim_names == ph_h.dim_names
        assert len(ph_d.statements) == len(ph_h.statements)
    values = dict(hand.datasets["MINI"])
    for array in ARRAYS:
        assert _summary(kernel_counts(derived, values, array)) == \
            _summary(kernel_counts(hand, values, array)), array


def _summary(c: dict) -> tuple:
    """Per-class accesses, ops, per-kind instances and the multiset of per-case volumes."""
    per_phase = sorted((k[0], v) for k, v in c["cases"].items())
    return c["classes"], c["ops"], c["kinds"], per_phase


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_c_derived_pra_computes_reference(name: str) -> None:
    hand = registry.get(name)
    derived = c_kernel(SOURCES[name], f"{name}.c")
    values = {p: v + (i % 3) for i, (p, v) in enumerate(hand.datasets["MINI"].items())}
    values = {p: max(2, v // 3) for p, v in values.items()}
    inputs = random_inputs(hand, values, seed=3)
    want = execute(hand, values, inputs)
    got = execute(derived, values, inputs)
    for t in {x.name for ph in hand.phases for x in ph.tensors if x.kind != "input"}:
        np.testing.assert_allclose(got[t], want[t], rtol=1e-12, err_msg=t)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_generated_yaml_round_trips(name: str) -> None:
    """The derived objects, written as YAML and read back, are the same objects."""
    import yaml

    from polyjoule.frontends.pra_dump import kernel_data
    from polyjoule.frontends.pra_yaml import load_kernel_data

    k = c_kernel(SOURCES[name], f"{name}.c")
    text = yaml.safe_dump(kernel_data(k), sort_keys=False)
    assert load_kernel_data(yaml.safe_load(text), name) == k


#: Reordered into pivot steps (tests/frontends/test_creorder.py; floyd-warshall on rotated
#: indices, tests/frontends/test_crotate.py); ludcmp's substitutions then keep their sums in
#: a scalar.
IN_STEPS = {"lu", "cholesky", "ludcmp", "floyd-warshall"}


@pytest.mark.parametrize("name", sorted(set(CLASS_D) - IN_STEPS))
def test_class_d_kernels_are_refused_with_the_access(name: str) -> None:
    with pytest.raises(NotUniformError) as e:
        c_kernel(CLASS_D[name], f"{name}.c")
    msg = str(e.value)
    assert msg.startswith(f"{name}.c:") and "reads" in msg and "distance" in msg
    assert "\n" not in msg


@pytest.mark.parametrize("src, err, pattern", [
    ("for (i = 0; i < N; i++)\n  A[i] = B[i] +;\n", SpecError, r"^x.c(:2:\d+)?: C does not parse"),
    ("for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    C[i] += A[i*j];\n",
     NotAffineError, r"x.c:3:\d+: subscript of A: 'i \* j' is not affine"),
    ("for (i = 0; i < N; i++)\n  for (j = 0; j < len[i]; j++)\n    C[i] += A[i][j];\n",
     NotAffineError, r"x.c:2:\d+: upper bound of j 'len\[i\]' depends on data"),
    ("for (i = 0; i < N; i++)\n  C[idx[i]] = A[i];\n", NotAffineError,
     r"x.c:2:\d+: subscript of C 'idx\[i\]' depends on data"),
    ("for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    for (k = 0; k < N; k++)\n"
     "      C[i] += A[i+j];\n", NotUniformError,
     r"x.c:4:\d+: A\[i \+ j\].*not a loop axis and along loop axes"),
    ("for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    for (k = 0; k < N; k++)\n"
     "      C[i] += A[i+j+k];\n", NotUniformError,
     r"x.c:4:\d+: A\[i \+ j \+ k\].*in several such directions"),
    ("for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    for (k = 0; k <= j; k++)\n"
     "      C[i] += A[i][j][k];\n", NotUniformError, r"reduced over 2 loops \(j, k\) whose bounds "
     r"are coupled"),
    ("for (i = N; i > 0; i -= 2)\n  C[i] = A[i];\n", SpecError, r"x.c:1:\d+: for loop over i"),
    ("for (i = 0; i < N; i++)\n  for (j = i - 1; j < N; j++)\n    C[i][j] = A[i][j];\n",
     SpecError, r"x.c:2:\d+: loop j: lower bound i - 1 can be negative"),
])
def test_bad_input_names_the_place(src: str, err: type, pattern: str) -> None:
    with pytest.raises(err, match=pattern) as e:
        c_kernel(src, "x.c")
    assert "\n" not in str(e.value)


def test_parse_error_has_line() -> None:
    with pytest.raises(SpecError, match=r"^x.c:2:21: C does not parse"):
        c_kernel("for (i = 0; i < N; i++)\n  for (j = 0; j < N j++)\n    C[i] += A[i];\n", "x.c")


@pytest.mark.parametrize("name", ["gemm", "gesummv", "bicg", "2mm", "syrk"])
def test_c_equals_hand_written_in_symbolic_energy(name: str) -> None:
    """Through the symbolic analysis: identical counts and energy on two arrays (the
    built-ins compute in fp32; the C source declares double, so fp32 is asked for)."""
    from polyjoule.analysis import analyze

    hand = registry.get(name)
    derived = c_kernel(SOURCES[name], f"{name}.c", dtype="fp32")
    values = dict(hand.datasets["SMALL"])
    for array in ((2, 2), (1, 4)):
        rh = analyze(hand, array=array).evaluate(values)
        rd = analyze(derived, array=array).evaluate(values)
        assert rd.counts == rh.counts
        assert rd.energy_pj["dynamic"] == pytest.approx(rh.energy_pj["dynamic"], rel=1e-12)


CONV1D = """
void conv1d(int N, int K, double x[N + K - 1], double w[K], double y[N]) {
  int i, k;
  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    for (k = 0; k < K; k++)
      y[i] += w[k] * x[i + k];
  }
}
"""


@pytest.mark.parametrize("n, k", [(7, 3), (1, 1), (4, 5), (9, 2)])
def test_1d_convolution_travels_along_the_diagonal(n: int, k: int) -> None:
    """``x[i + k]`` is read from DRAM once per element and passed along (1, -1)."""
    kern = c_kernel(CONV1D, "conv1d.c")
    deps = {s.dep for s in kern.phases[0].statements if s.kind == "transport"}
    assert (1, -1) in deps
    values = {"N": n, "K": k}
    inputs = random_inputs(kern, values, seed=n)
    got = execute(kern, values, inputs)["y"]
    x, w = inputs["x"], inputs["w"]
    np.testing.assert_allclose(got, np.convolve(x, w[::-1], mode="valid")[:n], rtol=1e-12)
    reads = kernel_counts(kern, values, (1, 1))["classes"]["DR"]
    assert reads == (n + k - 1) + k + n  # every x, every w once; y written once


@pytest.mark.parametrize("array", [(1, 4), (2, 2)])
def test_1d_convolution_symbolic_equals_simulated(array: tuple[int, int]) -> None:
    from polyjoule.analysis import analyze
    from polyjoule.analysis import simulator as sim

    kern = c_kernel(CONV1D, "conv1d.c")
    values = {"N": 9, "K": 3}
    s = sim.simulate(kern, array, values=values)
    assert s.ok, (s.checks, s.violations)
    assert analyze(kern, array=array, values=values).evaluate(values).counts == s.counts


def test_declared_double_computes_in_fp64() -> None:
    """``double`` arrays keep their type: fp64 op energies (and 64-bit accesses), same counts."""
    from polyjoule.analysis import analyze

    k64 = c_kernel(GEMM, "gemm.c")
    k32 = c_kernel(GEMM, "gemm.c", dtype="fp32")
    assert {ph.dtype for ph in k64.phases} == {"fp64"}
    values = {"NI": 5, "NJ": 6, "NK": 7}
    r64 = analyze(k64, array=(2, 2)).evaluate(values)
    r32 = analyze(k32, array=(2, 2)).evaluate(values)
    assert r64.counts == r32.counts
    ops = sum(r64.energy_pj["by_op"].values()) - sum(r32.energy_pj["by_op"].values())
    # 2 mul + 1 add per (i, j, k) point and 1 mul per (i, j): fp64 - fp32 per op
    want = 5 * 6 * 7 * (2 * (18.0 - 3.7) + (2.0 - 0.9)) + 5 * 6 * (18.0 - 3.7)
    assert ops == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("ctype, dtype", [("float", "fp32"), ("int", "int32"),
                                          ("short", "int16"), ("char", "int8")])
def test_declared_element_type_is_the_dtype(ctype: str, dtype: str) -> None:
    src = GEMM.replace("double C", f"{ctype} C").replace("double A", f"{ctype} A") \
        .replace("double B", f"{ctype} B")
    assert c_kernel(src, "gemm.c").phases[0].dtype == dtype


TRIANGULAR = {
    # upper-triangular product: C += triu(A) B (k from i: every (i, j) keeps a point)
    "triu": ("""
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++)
    for (k = i; k < N; k++)
      C[i][j] += A[i][k] * B[k][j];
""", lambda t: {"C": t["C"] + np.triu(t["A"]) @ t["B"]}),
    # covariance's triangular phase with a statement after the chain
    "cov": ("""
void cov(int M, int N, double d[N][M], double c[M][M]) {
  for (i = 0; i < M; i++)
    for (j = i; j < M; j++) {
      c[i][j] = 0.0;
      for (k = 0; k < N; k++)
        c[i][j] += d[k][i] * d[k][j];
      c[i][j] /= 3.0;
    }
}
""", lambda t: {"c": np.where(np.triu(np.ones_like(t["c"], dtype=bool)),
                              t["d"].T @ t["d"] / 3.0, t["c"])}),
}


@pytest.mark.parametrize("name", sorted(TRIANGULAR))
def test_triangular_c_nests_compute_their_semantics(name: str) -> None:
    src, ref = TRIANGULAR[name]
    k = c_kernel(src, f"{name}.c")
    dims = set(k.phases[0].dim_names)
    assert any((d.lower.names() | d.upper.names()) & dims for d in k.phases[0].dims)
    values = {p: 5 + i for i, p in enumerate(k.params)}
    rng = np.random.default_rng(7)
    inputs = {}
    for t, decl in k.tensors().items():
        inputs[t] = rng.uniform(0.5, 1.5, size=tuple(a.evaluate(values) for a in decl.shape))
    out = execute(k, values, inputs)
    for t, want in ref(inputs).items():
        np.testing.assert_allclose(out[t], want, rtol=1e-12, err_msg=t)


def test_statement_after_a_possibly_empty_loop_closes_the_triangle() -> None:
    """k = i+1..N-1 is empty at i = N-1: k runs from i, where the chain starts
    (frontends/localize/closed.py), and the result is the C loops'."""
    src = """
for (i = 0; i < N; i++)
  for (j = 0; j < N; j++) {
    for (k = i + 1; k < N; k++)
      C[i][j] += A[i][k] * B[k][j];
    C[i][j] = 2.0 * C[i][j];
  }
"""
    k = c_kernel(src, "x.c")
    assert str(k.phases[0].dims[2].lower) == "i"
    values = {"N": 5}
    rng = np.random.default_rng(3)
    inputs = {t: rng.uniform(0.5, 1.5, size=(5, 5)) for t in ("A", "B", "C")}
    want = 2.0 * (inputs["C"] + np.triu(inputs["A"], 1) @ inputs["B"])
    np.testing.assert_allclose(execute(k, values, inputs)["C"], want, rtol=1e-12)


def test_partial_zero_initialisation_is_refused() -> None:
    src = """
for (i = 1; i < M; i++)
  s[i] = 0;
for (i = 0; i < N; i++)
  for (j = 0; j < M; j++)
    s[j] = s[j] + A[i][j];
"""
    with pytest.raises(SpecError, match=r"x.c:6:\d+: s\[j\] accumulates over \[0, M - 1\] but "
                                        r"the loop zeroing s covers \[1, M - 1\]"):
        c_kernel(src, "x.c")


def test_local_array_shared_by_phases_goes_through_dram() -> None:
    src = """
void f(int N, double A[N][N], double y[N]) {
  double t[N];
  for (i = 0; i < N; i++) { t[i] = 0; for (j = 0; j < N; j++) t[i] += A[i][j]; }
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) y[j] += A[i][j] * t[i];
}
"""
    k = c_kernel(src, "f.c")
    assert [t.name for t in k.phases[0].tensors if t.kind == "output"] == ["t"]
    rng = np.random.default_rng(0)
    a, y = rng.uniform(size=(4, 4)), rng.uniform(size=4)
    out = execute(k, {"N": 4}, {"A": a, "y": y})
    np.testing.assert_allclose(out["y"], y + a.T @ a.sum(axis=1), rtol=1e-12)


def test_a_ternary_on_a_comparison_is_a_select() -> None:
    """PolyBench's guards (correlation's ``stddev <= eps ? 1.0 : stddev``) become ``select``."""
    text = """void guard(int N, double x[N], double y[N], double eps) {
  for (int i = 0; i < N; i++)
    y[i] = x[i] <= eps ? 1.0 : x[i] * 2.0;
}"""
    ph = c_kernel(text, "g.c").phases[0]
    (s,) = [s for s in ph.statements if s.kind == "compute"]
    assert dict(s.expr.ops) == {"select": 1, "mul": 1}
    got = s.expr.evaluate({"x": np.array([0.5, 1.0, 3.0])}, {"eps": 1.0})
    np.testing.assert_array_equal(got, [1.0, 1.0, 6.0])


@pytest.mark.parametrize("sqrt_name, abs_name, max_name", [
    ("sqrt", "fabs", "fmax"), ("sqrtf", "fabsf", "fmaxf"), ("sqrtl", "abs", "max")])
def test_c_math_functions_are_the_model_operations(
        sqrt_name: str, abs_name: str, max_name: str) -> None:
    """``fabs``, ``sqrtf``, ``fmax`` (PolyBench's ``SQRT_FUN`` under ``DATA_TYPE_IS_FLOAT``)
    are the model's ``abs``, ``sqrt``, ``max``: one operation each, numpy's semantics."""
    text = f"""void m(int N, int M, double A[N][M], double y[N]) {{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      y[i] += {sqrt_name}({abs_name}(A[i][j])) + {max_name}(A[i][j], 0.25);
}}"""
    k = c_kernel(text, "m.c")
    (s,) = [s for s in k.phases[0].statements if s.kind == "compute" and "abs" in dict(s.expr.ops)]
    assert {"sqrt", "abs", "max"} <= set(dict(s.expr.ops))
    rng = np.random.default_rng(1)
    a, y = rng.uniform(-1.0, 1.0, size=(3, 4)), rng.uniform(size=3)
    out = execute(k, {"N": 3, "M": 4}, {"A": a, "y": y})
    want = y + (np.sqrt(np.abs(a)) + np.maximum(a, 0.25)).sum(axis=1)
    np.testing.assert_allclose(out["y"], want, rtol=1e-12)


def test_an_unknown_c_function_is_named() -> None:
    text = """void m(int N, double x[N], double y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = cbrt(x[i]);
}"""
    with pytest.raises(SpecError, match=r"m\.c:3:.*cbrt.*fabs"):
        c_kernel(text, "m.c")
