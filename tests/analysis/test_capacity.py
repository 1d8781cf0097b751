"""Capacity rules at sizes past int64: the causes ``analyze`` and ``map`` name are the ones
an independent computation in Python integers names, never wrapped, never a crash; a FIFO
too large to count is reported as not evaluated, with its closed-form bound."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from polyjoule.analysis import occupancy
from polyjoule.analysis.analyze import analyze
from polyjoule.analysis.capacity import bandwidth_latency, check, io_needs
from polyjoule.analysis.simulator import simulate
from polyjoule.frontends.resolve import kernel_from
from polyjoule.library.kernels import get
from polyjoule.mapping.legality import Causes
from polyjoule.targets.tcpa.array import default_array
from polyjoule.targets.tcpa.pricing import capacity_causes
from polyjoule.targets.tcpa.target import TcpaTarget, evaluate

TRI = """void tri(int N, double A[N][N], double x[N], double y[N]) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j <= i; j++)
      y[i] += A[i][j] * x[j];
}
"""
HUGE = [1_500_000_000, 2_000_000_000, 3_000_000_000]


def test_io_needs_are_exact_past_int64() -> None:
    """Words per tile and DRAM words per cycle against Python's integers and fractions,
    across 2**63 (where numpy reads a count as uint64) and 2**64 (where it cannot)."""
    words = [2**63 - 1, 2**63 + 5, 16 * 10**18, 2**64 + 3, 3 * 10**27, 64]
    pes = [64, 7, 64, 3, 64, 1]
    lat = [10**18, 3, 5 * 10**26, 2**70, 1, 9]
    tile, rate = io_needs(words, words, pes, lat)
    assert [int(x) for x in tile] == [-(-w // p) for w, p in zip(words, pes, strict=True)]
    assert list(rate) == [float(Fraction(w, n)) for w, n in zip(words, lat, strict=True)]
    bw = 16.5
    got = bandwidth_latency(lat, words, bw)
    assert [int(x) for x in got] == [max(n, math.ceil(Fraction(w) / Fraction(bw)))
                                     for w, n in zip(words, lat, strict=True)]
    caps = default_array().capacities("fp32")
    out = Causes({}, {})
    check(out, caps, {"iob-capacity": tile})
    assert out.reasons["iob-capacity"].detail.startswith(f"needs up to {3 * 10**27 // 64:,} ")
    assert out.masks["iob-capacity"].tolist() == [True] * 5 + [False]


def _gemm_expected(n: int) -> dict[str, str]:
    """GEMM's causes at ``N = n`` on 8x8 by hand, in Python integers: every tile a
    ``ceil(N/8)`` square of ``i, j`` (64 PEs); its I/O ``NI NK + NK NJ + 2 NI NJ`` words (A, B
    read, C read and written: the simulator's count at a small size, below); the deepest
    FIFO ``lambda_J . d`` of the scanning order the analysis chose, each ``lambda`` in
    Python integers."""
    k = get("gemm")
    vals = {p: n for p in k.params}
    a = analyze(k, array=(8, 8), values=vals)
    cs = a.schedules()[0].at(vals)
    lam = [int(x) for x in cs.lambda_J]
    depth = max(sum(x * d for x, d in zip(lam, mv.dep, strict=True))
                for mv in occupancy.transports(a.phases[0].pra))
    p = -(-n // 8)
    words = 4 * n * n
    caps = default_array().capacities("fp32")
    out = {}
    if depth > caps.fd_depth_words:
        out["fd-depth"] = f"needs up to {depth:,} words per FIFO, the declaration has 64"
    tile = -(-words // ((-(-n // p)) ** 2))
    if tile > min(caps.iob_capacity_words.values()):
        out["iob-capacity"] = (f"needs up to {tile:,} words per border buffer, the "
                               f"declaration has {min(caps.iob_capacity_words.values()):,}")
    r = a.evaluate(vals)
    if Fraction(r.counts["DR"], r.latency_cycles) > caps.dram_bandwidth_words_per_cycle:
        out["dram-bandwidth"] = "?"
    return out


def test_gemm_io_count_by_hand_is_the_simulators() -> None:
    """The hand count of GEMM's border I/O the test below relies on, against the simulator."""
    vals = {"NI": 16, "NJ": 24, "NK": 40}
    assert simulate(get("gemm"), (8, 8), values=vals).counts["IOb"] == 16 * 40 + 40 * 24 + 2 * 16 * 24


@pytest.mark.parametrize("n", HUGE)
def test_gemm_causes_past_int64_equal_a_count_in_python_integers(n: int) -> None:
    """``analyze``'s causes and ``map``'s (the same mapping priced by the search) at sizes
    whose I/O (1.6e19 words at 2e9) leaves int64: both equal the hand count."""
    k = get("gemm")
    vals = {p: n for p in k.params}
    a = analyze(k, array=(8, 8), values=vals)
    named = {c: w.detail for c, w in capacity_causes(a, vals, a.evaluate(vals)).reasons.items()}
    assert named == _gemm_expected(n)
    assert "iob-capacity" in named
    b = evaluate(TcpaTarget(default_array()), k, (8, 8), None,
                 {p: np.asarray([v]) for p, v in vals.items()})
    assert {c: b.causes.reasons[c].detail for c, m in b.causes.masks.items() if m[0]} == named


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polyjoule", *args, "--wide"],
                          capture_output=True, text=True)


@pytest.mark.parametrize("n", HUGE)
def test_analyze_json_names_the_border_buffers_past_int64(n: int) -> None:
    out = _cli("analyze", "gemm", "--array", "8x8", "--set", f"N={n}", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [c["cause"] for c in doc["capacity"]] == ["fd-depth", "iob-capacity"]
    assert doc["capacity"][1]["detail"] == _gemm_expected(n)["iob-capacity"]
    assert "iob-capacity" in out.stderr


def test_a_triangle_past_any_listing_keeps_its_numbers(tmp_path: Path) -> None:
    """A triangular nest at N = 4e9 (tiles of 5e8 rows): ``analyze`` prints its counts and
    the deepest FIFO ``N/8`` (a tile's row: the simulator's measure at small N, where the
    count agrees), as ``map`` prices the same mapping."""
    src = tmp_path / "tri.c"
    src.write_text(TRI)
    k = kernel_from(str(src), None, None)
    caps = default_array().capacities(k.phases[0].dtype)
    for n in (64, 520):
        run = simulate(k, (8, 8), values={"N": n}, capacities=caps, enforce=False)
        assert run.usage["fd-depth"] == n // 8
    n = 4_000_000_000
    a = analyze(k, array=(8, 8), values={"N": n})
    r = a.evaluate({"N": n})
    named = {c: w.detail for c, w in capacity_causes(a, {"N": n}, r).reasons.items()}
    assert named["fd-depth"] == f"needs up to {n // 8:,} words per FIFO, the declaration has 64"
    assert named["iob-capacity"].startswith(f"needs up to {-(-r.counts['IOb'] // 64):,} ")
    b = evaluate(TcpaTarget(default_array()), k, (8, 8), None, {"N": np.asarray([n])})
    assert {c: b.causes.reasons[c].detail for c, m in b.causes.masks.items() if m[0]} == named
    out = _cli("analyze", str(src), "--set", f"N={n}", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["iterations"] == n * (n + 1) // 2


def test_a_fifo_out_of_the_counts_reach_is_not_evaluated(monkeypatch) -> None:
    """Where a tile is too large to count, the depth is the closed form's bound, marked so:
    at least the exact count, and ``fd-depth`` says it was not evaluated."""
    k = get("cholesky")
    vals = {"N": 200}
    a = analyze(k, array=(4, 4), values=vals)
    r = a.evaluate(vals)
    exact = capacity_causes(a, vals, r).reasons["fd-depth"].detail
    assert exact.startswith("needs up to ")
    monkeypatch.setattr(occupancy, "TILE_POINTS", 1)
    guess = capacity_causes(a, vals, r).reasons["fd-depth"].detail
    assert guess.startswith("not evaluated: ") and "the access counts and latency are exact" in guess
    bound = int(guess.split("bounds it by ")[1].split()[0].replace(",", ""))
    assert bound >= int(exact.split()[3].replace(",", ""))


def test_analyze_reports_what_it_could_not_count_and_exits_zero() -> None:
    out = _cli("analyze", "cholesky", "--set", "N=1000000", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["iterations"] > 0
    depth = next(c for c in doc["capacity"] if c["cause"] == "fd-depth")
    assert depth["detail"].startswith("not evaluated: ")
    assert "fd-depth (not evaluated: " in out.stderr
