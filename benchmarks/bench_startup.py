"""Start-up time of the real console script: ``polyjoule --version``, ``--help``, ``list``,
``show gemm`` against the targets of issue 13 (0.3, 0.3, 0.5, 0.5 s).

Runs the ``polyjoule`` found on PATH (falling back to ``python -m polyjoule``) as a fresh
process, N times after one warm-up run (which writes the bytecode caches), and prints the
median and the best wall-clock time. Next to them it prints the median CPU time (user +
system), which a loaded machine does not inflate, the bare interpreter's start
(``python -c pass``) as the floor, and the load average before and after (on a shared
machine the wall-clock times are only as good as the load lets them be).
Exit 1 when a command's median wall-clock time misses its target.

    python benchmarks/bench_startup.py [--repeat N]

From a worktree, ``PYTHONPATH=src`` makes the installed script import the worktree's code.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

TARGETS: dict[tuple[str, ...], float] = {
    ("--version",): 0.3, ("--help",): 0.3, ("list",): 0.5, ("show", "gemm"): 0.5,
}


def console_script() -> list[str]:
    """The installed ``polyjoule`` script, else this interpreter running the package."""
    found = shutil.which("polyjoule")
    return [found] if found else [sys.executable, "-m", "polyjoule"]


def _cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def times(argv: list[str], repeat: int) -> tuple[float, float, float]:
    """Median wall-clock, best wall-clock and median CPU seconds of ``repeat`` runs (after a
    warm-up run)."""
    env = {**os.environ, "COLUMNS": "100"}
    runs = []
    for k in range(repeat + 1):
        t0, c0 = time.perf_counter(), _cpu()
        r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                           check=False)
        elapsed, cpu = time.perf_counter() - t0, _cpu() - c0
        if r.returncode != 0:
            raise SystemExit(f"{' '.join(argv)}: exit {r.returncode}\n{r.stderr.decode()}")
        if k:
            runs.append((elapsed, cpu))
    wall = [w for w, _ in runs]
    return statistics.median(wall), min(wall), statistics.median(c for _, c in runs)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9, help="timed runs per command")
    args = ap.parse_args()
    script = console_script()
    print(f"console script: {' '.join(script)}")
    print(f"load average before (1, 5, 15 min): {_load()}")
    floor, _, floor_cpu = times([sys.executable, "-c", "pass"], args.repeat)
    print(f"interpreter floor (python -c pass): {floor:.3f} s wall, {floor_cpu:.3f} s CPU")
    print(f"{'command':<22} {'median s':>8} {'best s':>7} {'CPU s':>6} {'target s':>9} "
          f"{'ratio':>6}")
    missed = 0
    for cmd, target in TARGETS.items():
        median, best, cpu = times([*script, *cmd], args.repeat)
        ratio = median / target
        missed += ratio > 1
        print(f"{'polyjoule ' + ' '.join(cmd):<22} {median:8.3f} {best:7.3f} {cpu:6.3f} "
              f"{target:9.1f} {ratio:6.2f}{'  MISSED' if ratio > 1 else ''}")
    print(f"load average after: {_load()}  ({args.repeat} runs per command)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
