"""Sweep speed: points/s after derivation, and a cold vs warm formula cache.

    /work/venv/bin/python benchmarks/bench_sweep.py [--points 1000000]

Measures, for GEMM on an 8x8 array over random sizes NI, NJ, NK in [8, 1024]:
* ``Analysis.evaluate_many`` (the interpreter over formulas; the baseline);
* the compiled evaluator of ``polyjoule.analysis.compiled`` (same keys, exact);
* the full sweep pipeline after derivation (counts, energies, latency, EDP, utilisation,
  Pareto front);
* a sweep run with a cold formula cache (derives volumes and schedules) and a second run
  with the warm cache (derives nothing).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from polyjoule.analysis.analyze import analyze
from polyjoule.analysis.compiled import CompiledAnalysis
from polyjoule.dse import space
from polyjoule.dse.cache import FormulaCache
from polyjoule.dse.sweep import SweepSpec, run_sweep
from polyjoule.library.kernels import get


def best(fn, repeat: int = 3) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1_000_000)
    args = ap.parse_args()
    n = args.points
    k = get("gemm")
    rng = np.random.default_rng(0)
    vals = {p: rng.integers(8, 1025, n) for p in k.params}

    with tempfile.TemporaryDirectory() as d:
        # cold vs warm: the same sweep twice on a fresh cache
        spec = SweepSpec(k, space.size_grid(k, ["N=8:1024:8"]), space.mappings([(8, 8)], [None], [None]))
        c1 = FormulaCache(d)
        t = time.perf_counter()
        run_sweep(spec, store=c1)
        cold = time.perf_counter() - t
        c1.close()
        c2 = FormulaCache(d)
        t = time.perf_counter()
        r = run_sweep(spec, store=c2)
        warm = time.perf_counter() - t
        print(f"sweep gemm 8x8, {len(r)} sizes (volumes + schedule, auto order):")
        print(f"  cold cache: {cold:.3f} s  (misses {c1.stats.misses}, derive {r.meta['seconds']['derive']:.3f} s warm)")
        print(f"  warm cache: {warm:.3f} s  (hits {c2.stats.hits}, misses {c2.stats.misses}: "
              f"{'nothing re-derived' if c2.stats.misses == 0 else 'RE-DERIVED'})")
        a = analyze(k, (8, 8), store=c2)

    t_base = best(lambda: a.evaluate_many(vals), 2)
    ca = CompiledAnalysis(a)
    t_comp = best(lambda: ca.evaluate_many(vals))
    # full pipeline on the same points (sizes as a grid-like SizeGrid)
    grid = space.SizeGrid(k.params, vals, np.full(n, "", dtype=object))
    spec = SweepSpec(k, grid, space.mappings([(8, 8)], [None], [None]))
    with tempfile.TemporaryDirectory() as d:
        store = FormulaCache(d)
        run_sweep(SweepSpec(k, space.size_grid(k, ["N=8"]), spec.mappings), store=store)  # derive once
        res = {}

        def full() -> None:
            res["r"] = run_sweep(spec, store=store)

        t_full = best(full, 2)
        ev = res["r"].meta["seconds"]["evaluate"]
    print(f"\nevaluation, GEMM 8x8, {n:,} random sizes in [8, 1024]^3 (best of runs):")
    print(f"  Analysis.evaluate_many (baseline):      {n / t_base:>12,.0f} points/s")
    print(f"  compiled evaluate_many (dse.compiled):  {n / t_comp:>12,.0f} points/s")
    print(f"  sweep: counts + latency (evaluate step): {n / ev:>12,.0f} points/s")
    print(f"  sweep end to end after derivation (+ energies, EDP, utilisation, Pareto): "
          f"{n / t_full:,.0f} points/s")


if __name__ == "__main__":
    main()
