"""Einsum front end: text and Workload -> PRA; equal to hand-written and C-derived PRAs."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from pra_brute import execute, kernel_counts  # noqa: E402

from polyjoule.errors import SpecError, UnknownNameError  # noqa: E402
from polyjoule.frontends.cnest import c_kernel  # noqa: E402
from polyjoule.frontends.einsum import einsum_kernel, parse_einsum  # noqa: E402
from polyjoule.library import kernels as registry  # noqa: E402
from polyjoule.library import workloads as workloads  # noqa: E402

ARRAYS = [(1, 1), (4, 4), (2, 3)]


def _summary(c: dict) -> tuple:
    return c["classes"], c["ops"], c["kinds"], sorted(c["cases"].values())


def test_text_parses_to_the_registered_workload() -> None:
    w = parse_einsum("C[M,N] += A[M,K]*B[K,N]", {"M": 4, "N": 5, "K": 6}, name="gemm")
    ref = workloads.get("gemm")
    assert (w.result, w.operands, w.contractions, set(w.ranks), w.reduce) == (
        ref.result, ref.operands, ref.contractions, set(ref.ranks), ref.reduce)
    r = parse_einsum("C[M,N] = relu(A[M,K]*B[K,N] + A[M,K]*B2[K,N])")
    assert r.epilogue == ("relu",) and r.contractions == (("A", "B"), ("A", "B2"))


def test_matvec_equals_hand_written_atax_phase() -> None:
    """tmp = A x as an einsum is exactly atax's first hand-written phase."""
    derived = einsum_kernel("tmp[i] += A[i,j]*x[j]")
    atax = registry.get("atax")
    hand = replace(atax, phases=atax.phases[:1])
    values = {"I": 38, "J": 42}
    hvals = {"M": 38, "N": 42}
    for array in ARRAYS:
        assert _summary(kernel_counts(derived, values, array)) == \
            _summary(kernel_counts(hand, hvals, array))


def test_gemm_einsum_equals_c_nest() -> None:
    """The einsum and the C front end derive the same PRA for the same computation."""
    src = """
for (m = 0; m < M; m++)
  for (n = 0; n < N; n++) {
    C[m][n] = 0;
    for (k = 0; k < K; k++)
      C[m][n] += A[m][k] * B[k][n];
  }
"""
    from_c = c_kernel(src, "mm.c")
    from_e = einsum_kernel(workloads.get("gemm"))
    values = {"M": 12, "N": 10, "K": 9}
    for array in ARRAYS:
        assert _summary(kernel_counts(from_c, values, array)) == \
            _summary(kernel_counts(from_e, values, array))
    assert from_c.phases[0].statements == from_e.phases[0].statements


@pytest.mark.parametrize("name", workloads.names())
def test_registered_workloads_compute_their_einsum(name: str) -> None:
    w = workloads.get(name)
    k = einsum_kernel(w)
    ext = {r: {"M": 5, "N": 4, "K": 6}.get(r, 3) for r in w.ranks}
    rng = np.random.default_rng(0)
    inputs = {t.name: rng.integers(-4, 5, size=t.extent(ext)) for t in w.operands}
    out = execute(k, ext, inputs)
    np.testing.assert_array_equal(out[w.result.name], w.evaluate(inputs))


def test_extents_become_the_default_dataset() -> None:
    k = einsum_kernel("C[m,n] += A[m,k]*B[k,n]", {"m": 4, "n": 5, "k": 6})
    assert k.datasets == {"default": {"M": 4, "N": 5, "K": 6}}
    kinds = [s.kind for s in k.phases[0].statements]
    assert kinds.count("transport") == 3 and kinds.count("output") == 1


@pytest.mark.parametrize("text, extents, err, pattern", [
    ("C[m,n] += A[m,q]*B[q,n]", {"m": 2, "n": 2, "k": 2}, UnknownNameError,
     r"rank 'q' of A\[m,q\] has no extent"),
    ("C[m,n] += A[m,k]*B[k,n]", {"m": 2, "n": 2, "k": 2, "z": 3}, UnknownNameError,
     r"--extents: 'z' is not a rank"),
    ("C[m,n] = gelu(A[m,k]*B[k,n])", None, UnknownNameError, r"unknown pointwise epilogue 'gelu'"),
    ("C[m,n] += A[m,k]*", None, SpecError, r"cannot parse"),
    ("C[m,n] += A[m,k]*B[k,n]*D[n]", None, SpecError, r"not a tensor"),
    ("C[m,n] += A[m,k]*B[k,m]", None, SpecError, r"covers ranks"),
])
def test_bad_einsum(text: str, extents: dict | None, err: type, pattern: str) -> None:
    with pytest.raises(err, match=pattern):
        einsum_kernel(text, extents)


def test_einsum_equals_hand_written_in_symbolic_energy() -> None:
    from polyjoule.analysis import analyze

    atax = registry.get("atax")
    hand = replace(atax, phases=atax.phases[:1])
    derived = einsum_kernel("tmp[i] += A[i,j]*x[j]")
    for array in ((2, 2), (1, 4)):
        rh = analyze(hand, array=array).evaluate({"M": 116, "N": 124})
        rd = analyze(derived, array=array).evaluate({"I": 116, "J": 124})
        assert rd.counts == rh.counts
        assert rd.energy_pj["dynamic"] == pytest.approx(rh.energy_pj["dynamic"], rel=1e-12)


def test_two_reduced_ranks_nest_partial_sums() -> None:
    """C[m,n] = sum_{k,l} A[m,k,l] B[k,l,n]: a chain along l, finished ones chained along k."""
    text = "C[m,n] += A[m,k,l]*B[k,l,n]"
    w = parse_einsum(text)
    k = einsum_kernel(text)
    ext = {"M": 3, "N": 4, "K": 3, "L": 5}
    rng = np.random.default_rng(1)
    inputs = {"A": rng.integers(-4, 5, size=(3, 3, 5)), "B": rng.integers(-4, 5, size=(3, 5, 4))}
    out = execute(k, ext, inputs)
    np.testing.assert_array_equal(out["C"], w.evaluate(inputs))
    from polyjoule.analysis import analyze

    r = analyze(k, array=(2, 2)).evaluate(ext)
    b = kernel_counts(k, ext, (2, 2))
    assert {c: r.counts[c] for c in b["classes"]} == dict(b["classes"])


def _random_einsum(rng: np.random.Generator) -> str:
    ranks = ["a", "b", "c", "d"][: rng.integers(2, 5)]
    result = [r for r in ranks if rng.random() < 0.5] or [ranks[0]]
    terms = []
    for _ in range(rng.integers(1, 3)):
        left = [r for r in ranks if rng.random() < 0.6] or [ranks[-1]]
        right = [r for r in ranks if r not in left or rng.random() < 0.4] or [ranks[0]]
        rng.shuffle(left)
        n = len(terms)
        terms.append(f"X{n}[{','.join(left)}]*Y{n}[{','.join(right)}]")
    epi = rng.random() < 0.3
    body = " + ".join(terms)
    return f"R[{','.join(result)}] = " + (f"relu({body})" if epi else body)


@pytest.mark.parametrize("seed", range(12))
def test_random_einsums_compute_their_einsum(seed: int) -> None:
    """Localisation of random einsums (free, reduced, broadcast ranks in any order)."""
    rng = np.random.default_rng(seed)
    text = _random_einsum(rng)
    w = parse_einsum(text)
    k = einsum_kernel(w)
    ext = {r: int(rng.integers(1, 4)) for r in w.ranks}
    values = {r.upper(): v for r, v in ext.items()}
    inputs = {t.name: rng.integers(-3, 4, size=t.extent(ext)) for t in w.operands}
    out = execute(k, values, inputs)
    np.testing.assert_array_equal(out[w.result.name], w.evaluate(inputs), err_msg=text)


def test_the_simulator_checks_the_pra_against_the_workloads_einsum() -> None:
    """The reference is live: the right one agrees, the one of another einsum does not."""
    from polyjoule.analysis.simulator import simulate

    relu = einsum_kernel("C[m,n] = relu(A[m,k]*B[k,n] + A[m,k]*B2[k,n])")
    values = {"M": 3, "N": 4, "K": 5}
    assert simulate(relu, (2, 2), None, values).checks["outputs_match_reference"]
    plain = einsum_kernel("C[m,n] = A[m,k]*B[k,n]")  # one term fewer
    wrong = replace(relu, reference=plain.reference)
    assert not simulate(wrong, (2, 2), None, values).checks["outputs_match_reference"]
