"""FIFO occupancy of a transport whose condition couples dims (a banded nest): the point walk
against the count by rows (session 7), and the ``map`` command it dominated.

Run: python benchmarks/bench_occupancy.py [--sizes 256,1024,2048] [--map-sizes 1024,2048]
[--no-map]

* **depth**: per band size ``N`` (``W = 8``) and array (8x8, 1x8), the deepest FIFO of every
  coupled transport of the band at its scan schedule, counted by walking every point of every
  tile (``walk``: :func:`~polyjoule.analysis.occupancy._coupled_tiles` with each tile walked,
  what it did before) and by rows (``rows``: as it is now, its tile memo emptied first);
  seconds (best of ``--repeat``), their ratio, and whether the two depths agree;
* **map**: wall seconds of ``polyjoule map band.c --target tcpa --set N=.. --set W=8`` run by
  the unchanged main (``--before``, default ``/work/main/src``) and by this tree (``src``),
  each in a fresh process with an empty formula cache; whether their reports agree (less the
  line of times).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from polyjoule.analysis import occupancy
from polyjoule.analysis.schedule import kernel_schedules
from polyjoule.frontends.resolve import kernel_from

BAND = """void band(int N, int W, double A[N][N + W - 1], double x[N + W - 1], double y[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    for (j = i; j < i + W; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""
ROOT = Path(__file__).resolve().parents[1]


def _best(f, repeat: int) -> tuple[float, int]:
    """(least seconds of ``repeat`` calls of ``f``, its result)."""
    best, got = float("inf"), 0
    for _ in range(repeat):
        occupancy.tile_window.cache_clear()
        t0 = time.perf_counter()
        got = f()
        best = min(best, time.perf_counter() - t0)
    return best, got


def depths(path: Path, sizes: list[int], repeat: int) -> None:
    """The walk against the rows, per size and array."""
    kernel = kernel_from(str(path), None, None)
    pra = kernel.phases[0]
    moves = [mv for mv in occupancy.transports(pra) if mv.coupled]
    print("| N | array | p | lambda_J | walk s | rows s | walk/rows | depths agree |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        values = {"N": n, "W": 8}
        for arr in [(8, 8), (1, 8)]:
            cs = kernel_schedules(kernel, arr)[0].at(values)
            lam, p = [int(x) for x in cs.lambda_J], [int(x) for x in cs.p]

            def rows(lam=lam, p=p, values=values) -> tuple[int, ...]:
                return tuple(occupancy.coupled_depth(pra, mv, lam, p, values) for mv in moves)

            def walk(rows=rows) -> tuple[int, ...]:
                counted = occupancy.tile_window
                occupancy.tile_window = occupancy.walk_tile  # every tile walked, no memo
                try:
                    return rows()
                finally:
                    occupancy.tile_window = counted

            t_walk, d_walk = _best(walk, repeat)
            t_rows, d_rows = _best(rows, repeat)
            print(f"| {n} | {arr[0]}x{arr[1]} | {tuple(p)} | {tuple(lam)} | {t_walk:.4f} | "
                  f"{t_rows:.5f} | {t_walk / t_rows:.0f} | {d_walk == d_rows} {d_rows} |")


def _map(path: Path, n: int, src: Path) -> tuple[float, list[str]]:
    """(wall seconds, report lines less the times) of one ``map`` run with ``src`` first."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(src)
    with tempfile.TemporaryDirectory() as cache:
        env["POLYJOULE_CACHE_DIR"] = cache
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "polyjoule", "map", str(path), "--target",
                              "tcpa", "--set", f"N={n}", "--set", "W=8"], env=env,
                             capture_output=True, text=True, check=True, cwd=path.parent)
        wall = time.perf_counter() - t0
    return wall, [x for x in out.stdout.splitlines() if "evaluated in" not in x]


def maps(path: Path, sizes: list[int], before: Path) -> None:
    """The ``map`` command's wall time, main against this tree."""
    print("\n| map N | before s | after s | before/after | reports agree |")
    print("|---|---|---|---|---|")
    for n in sizes:
        t_before, r_before = _map(path, n, before)
        t_after, r_after = _map(path, n, ROOT / "src")
        print(f"| {n} | {t_before:.1f} | {t_after:.1f} | {t_before / t_after:.1f} | "
              f"{r_before == r_after} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="256,1024,2048")
    ap.add_argument("--map-sizes", default="1024,2048")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", default="/work/main/src", type=Path)
    ap.add_argument("--no-map", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "band.c"
        path.write_text(BAND)
        print(f"load {os.getloadavg()[0]:.2f}, numpy {np.__version__}")
        depths(path, [int(x) for x in args.sizes.split(",")], args.repeat)
        if not args.no_map:
            maps(path, [int(x) for x in args.map_sizes.split(",")], args.before)


if __name__ == "__main__":
    main()
