"""Start-up time of the real console script: ``polyjoule --version``, ``--help``, ``list``,
``show gemm`` against the targets of issue 13 (0.3, 0.3, 0.5, 0.5 s).

Runs the ``polyjoule`` found on PATH (falling back to ``python -m polyjoule``) as a fresh
process, best of N after one warm-up run (which writes the bytecode caches). Next to the
wall-clock time it prints the process's CPU time (user + system), which a loaded machine
does not inflate, and the bare interpreter's start (``python -c pass``) as the floor.
Exit 1 when a command's wall-clock time misses its target.

    python benchmarks/bench_startup.py [--repeat N]

From a worktree, ``PYTHONPATH=src`` makes the installed script import the worktree's code.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
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


def best_time(argv: list[str], repeat: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds of the fastest of ``repeat`` runs (after a warm-up run)."""
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
    return min(runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per command (best kept)")
    args = ap.parse_args()
    script = console_script()
    print(f"console script: {' '.join(script)}")
    floor, floor_cpu = best_time([sys.executable, "-c", "pass"], args.repeat)
    print(f"interpreter floor (python -c pass): {floor:.3f} s wall, {floor_cpu:.3f} s CPU")
    print(f"{'command':<22} {'wall s':>7} {'CPU s':>6} {'target s':>9} {'ratio':>6}")
    missed = 0
    for cmd, target in TARGETS.items():
        best, cpu = best_time([*script, *cmd], args.repeat)
        ratio = best / target
        missed += ratio > 1
        print(f"{'polyjoule ' + ' '.join(cmd):<22} {best:7.3f} {cpu:6.3f} {target:9.1f} "
              f"{ratio:6.2f}{'  MISSED' if ratio > 1 else ''}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
