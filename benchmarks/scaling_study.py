"""The paper's scaling study: GEMM on an 8x8 array, N = NI = NJ = NK from 8 to 1024.

    python benchmarks/scaling_study.py [--out benchmarks/out] [--validate-max 64]

Writes the energy-breakdown plot (PNG and SVG) and the sweep as CSV, and prints the Markdown
table used in docs/dse.md (the images in docs/ are made by docs/plots/regen.py). Points up to
``--validate-max`` are checked against the simulator (exact counts and latency).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from polyjoule.dse import space
from polyjoule.dse.cache import FormulaCache
from polyjoule.dse.sweep import SweepSpec, run_sweep
from polyjoule.dse.validate import validate
from polyjoule.library.kernels import get
from polyjoule.reports import plots
from polyjoule.reports.output import write_outputs
from polyjoule.targets.tcpa.locations import CLASSES


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/out")  # docs/img is docs/plots/regen.py's
    ap.add_argument("--csv", default="benchmarks/out/scaling_gemm_8x8.csv")
    ap.add_argument("--validate-max", type=int, default=64)
    args = ap.parse_args()
    k = get("gemm")
    with tempfile.TemporaryDirectory() as d:
        store = FormulaCache(d)
        t = time.perf_counter()
        spec = SweepSpec(k, space.size_grid(k, ["N=8:1024:8"]), space.mappings([(8, 8)], [None], [None]))
        r = run_sweep(spec, store=store)
        took = time.perf_counter() - t
        n_max = args.validate_max
        rep = validate(r, spec, k=10**6, max_instances=n_max**3)
    c = r.columns
    out = Path(args.out)
    for folder in (out, Path(args.csv).parent):
        folder.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "svg"):
        plots.breakdown(c, out / f"scaling_gemm_8x8.{ext}",
                        title="GEMM on an 8x8 array: energy share per location class vs N")
    write_outputs(r, args.csv, None)
    print(f"sweep of {len(r)} sizes in {took:.2f} s (derive {r.meta['seconds']['derive']:.2f} s, "
          f"schedule {r.meta['seconds']['schedule']:.2f} s, evaluate {r.meta['seconds']['evaluate']:.4f} s)")
    print(f"simulator check, every N <= {n_max}: {rep['checked']} points, {rep['agree']} agree exactly, "
          f"{rep['mismatches']} differ")
    print()
    heads = ["N", "energy (uJ)", *(f"{x} %" for x in CLASSES), "compute %", "latency (cycles)",
             "utilisation", "EDP (pJ*cycles)"]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for n in (8, 16, 32, 64, 128, 256, 512, 1024):
        i = int(np.flatnonzero(c["NI"] == n)[0])
        e = float(c["energy_pj"][i])
        cells = [str(n), f"{e / 1e6:,.3f}"]
        cells += [f"{100 * float(c[f'energy.{x}'][i]) / e:.1f}" for x in CLASSES]
        cells += [f"{100 * float(c['energy.compute'][i]) / e:.1f}", f"{int(c['latency_cycles'][i]):,}",
                  f"{float(c['utilisation'][i]):.3f}", f"{float(c['edp'][i]):.3e}"]
        print("| " + " | ".join(cells) + " |")
    i = int(np.flatnonzero(c["NI"] == 1024)[0])
    print()
    print("counts at N=1024: " + ", ".join(f"{x}={int(c[x][i]):,}" for x in (*CLASSES, "ops.mul", "ops.add")))
    # Pareto across array shapes and scanning orders, same 64 to 1024 PEs budget family
    with tempfile.TemporaryDirectory() as d:
        spec = SweepSpec(k, space.size_grid(k, ["N=32,256"]),
                         space.mappings([(2, 2), (4, 4), (8, 8), (16, 16), (1, 64), (4, 16), (32, 32)],
                                        [None], space.parse_orders(k, "all")), skip_infeasible=True)
        r2 = run_sweep(spec, store=FormulaCache(d))
        rep2 = validate(r2, spec, k=4, max_instances=32**3)
    for ext in ("png", "svg"):
        plots.pareto(r2.columns, out / f"pareto_gemm.{ext}",
                     title="GEMM N=32 and N=256: energy vs latency, array shapes x scanning orders")
    c2 = r2.columns
    print(f"\npareto sweep: {len(r2)} design points; front at N=256:")
    for j in np.flatnonzero(c2["pareto"] & (c2["NI"] == 256)):
        print(f"  {c2['array'][j]:>6} order {c2['order'][j]:<6} energy {float(c2['energy_pj'][j]) / 1e6:8.2f} uJ "
              f"latency {int(c2['latency_cycles'][j]):>10,} cycles  util {float(c2['utilisation'][j]):.3f}")
    print(f"(validation of that sweep: {rep2['agree']}/{rep2['checked']} sampled points agree)")


if __name__ == "__main__":
    main()
