"""Derivation time of every built-in kernel as a user sees it (issue 16: <= 0.1 s on 8x8).

Run: python benchmarks/bench_derive.py [--array 8x8] [--repeat 3] [--breakdown] [KERNEL ...]

Per kernel, best of ``--repeat``:

* **cold**: ``derive_seconds`` of a fresh ``polyjoule analyze KERNEL --json --no-cache``
  process (nothing derived before in that process, no formula cache);
* **cold+cache**: the same in a fresh process whose formula cache holds the kernel (a
  temporary ``POLYJOULE_CACHE_DIR``, filled by one run first);
* **warm**: ``analyze()`` again inside one process that derived every kernel once already
  (the per-process class memo of ``analysis.counts`` is hot, no formula cache).

``--breakdown`` adds, per kernel, the CPU seconds of a cold derivation (``cpu``, best of
``--repeat`` fresh processes: what a quiet machine's wall clock would show; like ``derive_seconds`` it leaves out reading the
kernel and the array declaration) and where it spends its time (a profiled cold
derivation in a fresh process; profiling inflates every part): Barvinok counts (``isl card``: on
the tile split, or in the PRA's indices and summed over tile positions), merging pieces (``merge``, isl proofs and sympy),
domain simplification (``domains``), products of class counts (``product``), and the
schedule the first evaluation builds (``schedule``, not part of ``derive_seconds``).
A PolyJoule without ``--no-cache`` (before issue 16) is measured without it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from polyjoule.library.kernels import names

#: part -> the functions it is spent in (``fibre_card``/``summed``: classes counted in the PRA's
#: indices, since the fourth pass; ``card``/``intersect``: before issue 16;
#: ``merge_pieces``/``simplify_domains``: before the third pass, now ``merge_groups``/``merged``)
PARTS = {"isl card": ["card_of", "card", "intersect", "fibre_card", "summed"], "merge": ["merge_pieces", "merge_groups"],
         "domains": ["simplify_domains", "merged"], "product": ["times"]}


def _run(kernel: str, array: str, env: dict[str, str], no_cache: bool) -> float:
    """``derive_seconds`` of one fresh ``polyjoule analyze`` process."""
    cmd = [sys.executable, "-m", "polyjoule", "analyze", kernel, "--array", array,
           "--dataset", "MINI", "--json"]
    out = subprocess.run(cmd + (["--no-cache"] if no_cache else []), env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode == 2 and "--no-cache" in out.stderr:  # before issue 16: never cached
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{kernel}: {out.stderr.strip()[-300:]}")
    return float(json.loads(out.stdout)["derive_seconds"])


def cold(kernel: str, array: str, repeat: int) -> tuple[float, float]:
    """(cold without cache, cold with the kernel in the formula cache), best of ``repeat``."""
    env = dict(os.environ)
    bare = min(_run(kernel, array, env, True) for _ in range(repeat))
    with tempfile.TemporaryDirectory() as d:
        env["POLYJOULE_CACHE_DIR"] = d
        _run(kernel, array, env, False)  # fills the cache
        cached = min(_run(kernel, array, env, False) for _ in range(repeat))
    return bare, cached


def warm(kernels: list[str], shape: tuple[int, int], repeat: int) -> dict[str, tuple[float, str]]:
    """Per kernel: (best in-process derivation after every kernel was derived once, modes)."""
    from polyjoule.analysis import analyze

    for k in kernels:
        analyze(k, shape)
    out = {}
    for k in kernels:
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            a = analyze(k, shape)
            best = min(best, time.perf_counter() - t0)
        out[k] = (best, ",".join(sorted({ph.mode for ph in a.phases})))
    return out


BREAKDOWN = """
import cProfile, json, pstats, sys, time
from polyjoule.analysis import analyze
from polyjoule.library.kernels import get
k = get(sys.argv[1]); shape = tuple(int(x) for x in sys.argv[2].split("x"))
from polyjoule.targets.tcpa.array import default_array
default_array(shape)  # read before analyze's clock starts, as derive_seconds does
c0 = time.process_time(); a = analyze(k, shape); cpu = time.process_time() - c0
import importlib
mods = []
for name in ("counts", "_isl", "indices"):  # indices: since the fourth pass
    try:
        mods.append(importlib.import_module("polyjoule.analysis." + name))
    except ImportError:
        pass
for mod in mods:  # the profiled run derives afresh too
    for f in vars(mod).values():
        if hasattr(f, "cache_clear") and getattr(f, "__module__", "") == mod.__name__:
            f.cache_clear()
prof = cProfile.Profile(); prof.enable(); analyze(k, shape); prof.disable()
t0 = time.perf_counter(); a.schedules(); sched = time.perf_counter() - t0
st = pstats.Stats(prof).stats
total = sum(v[2] for v in st.values())
def cum(names):
    return sum(v[3] for (f, l, fn), v in st.items() if fn in names and "polyjoule" in f)
parts = json.loads(sys.argv[3])
print(json.dumps({"cpu": cpu, **{p: cum(fn) for p, fn in parts.items()},
                  "schedule": sched}))
"""


def breakdown(kernel: str, array: str, repeat: int) -> dict[str, float]:
    """Seconds per part of one profiled cold derivation (profiling inflates all parts), and
    the best ``cpu`` of ``repeat`` fresh processes."""
    runs = [json.loads(subprocess.run([sys.executable, "-c", BREAKDOWN, kernel, array, json.dumps(PARTS)],
                                      capture_output=True, text=True, check=True).stdout)
            for _ in range(repeat)]
    return {**runs[0], "cpu": min(r["cpu"] for r in runs)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--array", default="8x8")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--breakdown", action="store_true")
    args = ap.parse_args()
    kernels = args.kernels or names()
    shape = tuple(int(x) for x in args.array.split("x"))
    hot = warm(kernels, (shape[0], shape[1]), args.repeat)
    head = "| kernel | mode | cold s | cold+cache s | warm s | <= 0.1 s cold |"
    if args.breakdown:
        head += " " + " | ".join(f"{p} s" for p in ["cpu", *PARTS, "schedule"]) + " |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for k in kernels:
        bare, cached = cold(k, args.array, args.repeat)
        w, mode = hot[k]
        row = f"| {k} | {mode} | {bare:.3f} | {cached:.3f} | {w:.3f} | {'yes' if bare <= 0.1 else 'no'} |"
        if args.breakdown:
            b = breakdown(k, args.array, args.repeat)
            row += " " + " | ".join(f"{b[p]:.3f}" for p in ["cpu", *PARTS, "schedule"]) + " |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
