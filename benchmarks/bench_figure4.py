"""Figure 4 of Nirmala et al.: analysis time, symbolic vs cycle-level simulation.

GESUMMV on an 8x8 array for N0 = N1 = N from 64 to 4096. The symbolic side derives once
(counts, energy, schedule) and then evaluates per N; the simulator runs every statement
instance. At every N the two must agree exactly (counts, energy, latency).

    /work/venv/bin/python benchmarks/bench_figure4.py [--max-n 4096] [--memory-gib 8]

Writes benchmarks/out/figure4.png and benchmarks/out/figure4.md (the table).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from polyjoule.analysis import analyze  # noqa: E402
from polyjoule.analysis.schedule import kernel_latency, kernel_schedules  # noqa: E402
from polyjoule.analysis.simulator import simulate  # noqa: E402
from polyjoule.library.kernels import get  # noqa: E402
from polyjoule.targets.tcpa.energy import default_table  # noqa: E402

OUT = Path(__file__).parent / "out"
ARRAY = (8, 8)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=4096)
    ap.add_argument("--memory-gib", type=float, default=8.0,
                    help="simulator memory bound (N=4096 needs about 4 GiB)")
    args = ap.parse_args()
    sizes = [n for n in (64, 128, 256, 512, 1024, 2048, 4096, 8192) if n <= args.max_n]
    kernel = get("gesummv")
    table = default_table()

    t0 = time.perf_counter()
    a = analyze(kernel, array=ARRAY, energy_table=table)
    scheds = kernel_schedules(kernel, ARRAY)
    derive = time.perf_counter() - t0

    rows = []
    for n in sizes:
        values = {"N0": n, "N1": n}
        t1 = time.perf_counter()
        sym = a.evaluate(values)
        latency = kernel_latency(scheds, values)
        evaluate = time.perf_counter() - t1
        r = simulate(kernel, ARRAY, values=values, memory_limit=int(args.memory_gib * 2**30))
        e_sim = r.energy_pj(table)["total"]
        agree = (sym.counts == r.counts and latency == r.makespan and r.ok
                 and abs(sym.energy_pj["dynamic"] - e_sim) <= 1e-9 * e_sim)
        rows.append((n, r.seconds, derive + evaluate, evaluate, latency, sym.energy_pj["dynamic"], agree))
        print(f"N={n:5d}  simulate {r.seconds:8.3f} s   symbolic {derive + evaluate:.4f} s "
              f"(evaluate {evaluate * 1e3:.2f} ms)   latency {latency:,}   agree {agree}", flush=True)
        if not agree:
            raise SystemExit(f"symbolic and simulated results differ at N={n}")

    OUT.mkdir(exist_ok=True)
    lines = [
        f"GESUMMV on an {ARRAY[0]}x{ARRAY[1]} array, N0 = N1 = N. Symbolic = derive once "
        f"({derive:.3f} s: counts, energy, schedule) + evaluate at N.",
        "",
        "| N | iterations | simulation (s) | symbolic (s) | of which evaluate (ms) | sim / symbolic "
        "| latency (cycles) | energy (uJ) | exact agreement |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    for n, ts, tsym, tev, lat, e, ok in rows:
        lines.append(f"| {n} | {n * n:,} | {ts:.3f} | {tsym:.3f} | {tev * 1e3:.2f} | "
                     f"{ts / tsym:,.1f}x | {lat:,} | {e / 1e6:,.1f} | {'yes' if ok else 'NO'} |")
    (OUT / "figure4.md").write_text("\n".join(lines) + "\n")

    fig, ax = plt.subplots(figsize=(6, 4))
    ns = [r[0] for r in rows]
    ax.loglog(ns, [r[1] for r in rows], "o-", label="cycle-level simulation")
    ax.loglog(ns, [r[2] for r in rows], "s-", label="symbolic (derive + evaluate)")
    ax.axhline(0.5, color="grey", ls=":", lw=1, label="0.5 s")
    ax.set_xlabel("N (GESUMMV, N0 = N1 = N)")
    ax.set_ylabel("analysis time (s)")
    ax.set_title(f"GESUMMV on an {ARRAY[0]}x{ARRAY[1]} array")
    ax.set_xticks(ns)
    ax.set_xticklabels([str(n) for n in ns])
    ax.legend()
    fig.tight_layout()
    fig.savefig(OUT / "figure4.png", dpi=120)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
