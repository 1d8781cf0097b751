"""TCPA search speed (issue 12): mappings evaluated per second after derivation, and a
whole ``polyjoule map gemm --target tcpa --census`` in a fresh process with an empty
formula cache (targets: >= 1,000,000 mappings/s; the whole command < 1 s).

The mapspace is array shapes x placements (dims on the axes) x tile sizes x scanning
orders x the sizes given. ``--baseline SRC`` also runs the command with the code under
``SRC`` (e.g. ``git archive <commit> src | tar -x -C /tmp/old``, then ``/tmp/old/src``),
alternating with this code so both see the same machine load, and prints the ratios.
Wall time on a shared machine varies with its load; CPU time (user + system of the
process) much less, so both are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.target import TcpaTarget, search

TARGET_RATE = 1_000_000
SRC = Path(__file__).resolve().parents[1] / "src"
COMMAND = ["map", "gemm", "--target", "tcpa", "--census", "--no-verify"]


PYC = Path(tempfile.gettempdir()) / "polyjoule-bench-pyc"


def _cold(src: Path, pyc: bool = True) -> tuple[float, float]:
    """(wall, CPU) seconds of the command in a fresh process, formula cache empty. Python's
    bytecode cache is on (in a temporary prefix), as for an installed package, unless
    ``pyc`` is false: then, as in this environment (``PYTHONDONTWRITEBYTECODE``), the
    interpreter reads whatever ``__pycache__`` exists and compiles the rest every start."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTHONPATH": str(src), "POLYJOULE_CACHE_DIR": cache,
               "PYTHONPYCACHEPREFIX": str(PYC / src.parent.name)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if not pyc:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.pop("PYTHONPYCACHEPREFIX")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "polyjoule", *COMMAND], env=env, check=True,
                       capture_output=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def rate() -> None:
    """Mappings per second after derivation on a grid of GEMM sizes: the search's own
    evaluation time (wall), and the CPU time of the whole second search (evaluation,
    census and ranking; the derivation is kept from the first)."""
    k = get("gemm")
    axes = np.meshgrid(*(np.arange(8, 513, 32),) * 3, indexing="ij")
    vals = {p: a.reshape(-1) for p, a in zip(k.params, axes, strict=True)}
    t0 = time.perf_counter()
    search(TcpaTarget(), k, {p: v[:1] for p, v in vals.items()})
    derive = time.perf_counter() - t0
    c0 = time.process_time()
    res = search(TcpaTarget(), k, vals)
    cpu = time.process_time() - c0
    r, rc = res.considered / res.eval_seconds, res.considered / cpu
    print(f"gemm NI, NJ, NK each 8:512:32 ({vals['NI'].size:,} sizes): {res.considered:,} "
          f"mappings (placements x shapes x tile sizes x orders), {res.accepted:,} fit; "
          f"derivation {derive:.2f} s (first search)")
    print(f"  evaluated in {res.eval_seconds:.2f} s wall: {r:,.0f} mappings/s, "
          f"{r / TARGET_RATE:.2f}x the target of {TARGET_RATE:,}")
    print(f"  whole search without derivation {cpu:.2f} s CPU: {rc:,.0f} mappings/s "
          f"({rc / TARGET_RATE:.2f}x)")


def cold(baseline: Path | None, runs: int, pyc: bool = True) -> None:
    """The whole command, cold, best of ``runs`` (alternating with the baseline)."""
    new: list[tuple[float, float]] = []
    old: list[tuple[float, float]] = []
    for src in (SRC, baseline):  # write the bytecode caches first (not timed)
        if src is not None and pyc:
            _cold(src)
    for _ in range(runs):
        if baseline is not None:
            old.append(_cold(baseline, pyc))
        new.append(_cold(SRC, pyc))
    w, c = min(x[0] for x in new), min(x[1] for x in new)
    print(f"`polyjoule {' '.join(COMMAND)}` cold (fresh process, empty formula cache, "
          f"bytecode cache {'on' if pyc else 'off'}), best of {runs}: {w:.2f} s wall, "
          f"{c:.2f} s CPU (target < 1 s)")
    if old:
        ow, oc = min(x[0] for x in old), min(x[1] for x in old)
        print(f"  baseline {baseline}: {ow:.2f} s wall, {oc:.2f} s CPU; this code / baseline: "
              f"{w / ow:.2f}x wall, {c / oc:.2f}x CPU")
    print(f"  load average at the end: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="a src/ directory of the code to compare")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cold-only", action="store_true", help="skip the mappings/s grid")
    ap.add_argument("--no-pyc", action="store_true",
                    help="also time the command with Python's bytecode cache off")
    args = ap.parse_args()
    if not args.cold_only:
        rate()
    cold(args.baseline, args.runs)
    if args.no_pyc:
        cold(args.baseline, args.runs, pyc=False)


if __name__ == "__main__":
    main()
