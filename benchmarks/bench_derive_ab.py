"""Cold derivation CPU of every built-in kernel, this checkout against a baseline, interleaved.

Run: python benchmarks/bench_derive_ab.py --baseline /tmp/base/src [--repeat 3] [KERNEL ...]
(``git archive COMMIT src | tar -x -C /tmp/base`` makes a baseline.)

Per kernel, ``--repeat`` rounds of one fresh process per side (baseline, then this
checkout), each timing the CPU seconds of ``analyze(kernel, (8, 8))`` after reading the
array declaration (as ``derive_seconds``); the best of each side is printed. Alternating
the two sides exposes both to the same load, which on a shared machine moves one side's
figures more than most changes do.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from polyjoule.library.kernels import names

CODE = """
import sys, time
from polyjoule.analysis import analyze
from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.array import default_array
k = get(sys.argv[1]); default_array((8, 8))
c0 = time.process_time(); analyze(k, (8, 8)); print(time.process_time() - c0)
"""


def cpu(kernel: str, src: str) -> float:
    """CPU seconds of one cold derivation in a fresh process importing ``src``."""
    env = dict(os.environ, PYTHONPATH=src)
    out = subprocess.run([sys.executable, "-c", CODE, kernel], env=env, capture_output=True,
                         text=True, check=True)
    return float(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--baseline", required=True, help="the baseline's src directory")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parents[1] / "src")
    print(f"| kernel | cpu s baseline (best of {args.repeat}) | cpu s this checkout |")
    print("|---|---|---|")
    for k in args.kernels or names():
        runs: dict[str, list[float]] = {"base": [], "here": []}
        for _ in range(args.repeat):
            runs["base"].append(cpu(k, args.baseline))
            runs["here"].append(cpu(k, here))
        print(f"| {k} | {min(runs['base']):.3f} | {min(runs['here']):.3f} |", flush=True)


if __name__ == "__main__":
    main()
