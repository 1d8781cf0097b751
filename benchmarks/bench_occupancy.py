"""FIFO occupancy of a transport whose condition couples dims (a banded nest): the point walk
against the count by rows (session 7), and the ``map`` command it dominated.

Run: python benchmarks/bench_occupancy.py [--sizes 256,1024,2048] [--map-sizes 1024,2048]
[--no-map] [--no-3d]

* **depth**: per band size ``N`` (``W = 8``) and array (8x8, 1x8), the deepest FIFO of every
  coupled transport of the band at its scan schedule, counted by walking every point of every
  tile (``walk``: each tile walked, what session 7 started from), tile by tile by rows
  (``tiles``: ``tile_windows`` asked of one tile at a time, session 7's first
  count) and every tile at once (``rows``: as it is now, its memos emptied first); seconds
  (best of ``--repeat``), the walk's ratio to ``rows``, and whether the depths agree;
* **map**: wall seconds of ``polyjoule map band.c --target tcpa --set N=.. --set W=8`` run by
  an older tree (``--before OLD/src``, e.g. a worktree of the last stop; without it the
  map runs are left out) and by this tree (``src``),
  each in a fresh process with an empty formula cache; whether their reports agree (less the
  line of times);
* **3-D**: the same for a 3-D band (``band3d``: a dot product along ``k`` per band point,
  ``N=64 W=8 K=16``), whose ``map`` evaluates about 3000 (mapping, point) pairs.
"""

from __future__ import annotations

import argparse
import itertools
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
BAND3D = """void band3d(int N, int W, int K, double A[N][N + W + 4][K], double B[K],
            double C[N][N + W + 4]) {
  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = i + 2; j < i + W + 2; j++) {
      C[i][j] = 0.0;
      for (k = 0; k < K; k++)
        C[i][j] += A[i][j][k] * B[k];
    }
}
"""
ROOT = Path(__file__).resolve().parents[1]


def _one_tile(box, cons, lam, wait) -> tuple[bool, int]:  # type: ignore[no-untyped-def]
    """``occupancy.tile_windows`` asked of one tile at a time (the per-tile column)."""
    n = len(box)
    has, deep = occupancy.tile_windows(
        np.asarray([[x for x, _ in box]], dtype=np.int64), np.asarray([[y for _, y in box]], dtype=np.int64),
        np.asarray([[c for _, c, _ in cons]], dtype=np.int64).reshape(1, -1),
        np.asarray([v for v, _, _ in cons], dtype=np.int64).reshape(-1, n),
        np.asarray([e for _, _, e in cons], dtype=bool), np.asarray([lam], dtype=np.int64),
        np.asarray([wait]))
    return bool(has[0]), int(deep[0])


def _coupled_depth(pra, mv, lam: list[int], p: list[int], values: dict[str, int]) -> int:  # type: ignore[no-untyped-def]
    """``occupancy.coupled_depths`` at one point."""
    return int(occupancy.coupled_depths(pra, mv, [np.asarray([x]) for x in lam],
                                        [np.asarray([x]) for x in p],
                                        {k: np.asarray([v]) for k, v in values.items()})[0])


def _best(f, repeat: int) -> tuple[float, int]:
    """(least seconds of ``repeat`` calls of ``f``, its result)."""
    best, got = float("inf"), 0
    for _ in range(repeat):
        occupancy._walked.cache_clear()
        t0 = time.perf_counter()
        got = f()
        best = min(best, time.perf_counter() - t0)
    return best, got


def _per_tile(pra, mv, lam: list[int], p: list[int], values: dict[str, int], count) -> int:
    """The deepest FIFO of ``mv`` with ``count(box, constraints, lam, wait)`` per tile."""
    ext = [int(d.extent.evaluate(values)) for d in pra.dims]
    t = [max(-(-e // q), 1) for e, q in zip(ext, p, strict=True)]
    ranges = occupancy._consumers(mv, *occupancy._bounds(mv, values, ext), ext, p, t)
    wait = int(np.asarray(lam) @ np.asarray(mv.dep))
    deep = 0
    for k in itertools.product(*(range(len(r)) for r in ranges)):
        box = tuple((int(r[kl, 0]), int(r[kl, 1])) for r, kl in zip(ranges, k, strict=True))
        if any(a > b for a, b in box):
            continue
        cons = tuple((vec, sum(x * kl * q for x, kl, q in zip(vec, k, p, strict=True))
                      + rest.evaluate(values), eq) for vec, rest, eq in mv.coupled)
        deep = max(deep, count(box, cons, tuple(lam), wait)[1])
    return deep


def depths(path: Path, sizes: list[int], repeat: int) -> None:
    """The walk against the rows, per size and array."""
    kernel = kernel_from(str(path), None, None)
    pra = kernel.phases[0]
    moves = [mv for mv in occupancy.transports(pra) if mv.coupled]
    print("| N | array | p | lambda_J | walk s | tiles s | rows s | walk/rows | depths agree |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        values = {"N": n, "W": 8}
        for arr in [(8, 8), (1, 8)]:
            cs = kernel_schedules(kernel, arr)[0].at(values)
            lam, p = [int(x) for x in cs.lambda_J], [int(x) for x in cs.p]

            def rows(lam=lam, p=p, values=values) -> tuple[int, ...]:
                return tuple(_coupled_depth(pra, mv, lam, p, values) for mv in moves)

            def per(count, lam=lam, p=p, values=values) -> tuple[int, ...]:
                return tuple(_per_tile(pra, mv, lam, p, values, count) for mv in moves)

            t_walk, d_walk = _best(lambda per=per: per(occupancy.walk_tile), repeat)
            t_tiles, d_tiles = _best(lambda per=per: per(_one_tile), repeat)
            t_rows, d_rows = _best(rows, repeat)
            print(f"| {n} | {arr[0]}x{arr[1]} | {tuple(p)} | {tuple(lam)} | {t_walk:.4f} | "
                  f"{t_tiles:.5f} | {t_rows:.5f} | {t_walk / t_rows:.0f} | "
                  f"{d_walk == d_tiles == d_rows} {d_rows} |")


def _map(path: Path, sets: list[str], src: Path) -> tuple[float, float, list[str]]:
    """(wall seconds, evaluation seconds, report lines less the times) of one ``map`` run
    with ``src`` first."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(src)
    with tempfile.TemporaryDirectory() as cache:
        env["POLYJOULE_CACHE_DIR"] = cache
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "polyjoule", "map", str(path), "--target",
                              "tcpa", *(x for v in sets for x in ("--set", v))], env=env,
                             capture_output=True, text=True, check=True, cwd=path.parent)
        wall = time.perf_counter() - t0
    lines = out.stdout.splitlines()
    took = [float(x.split("evaluated in ")[1].split()[0]) for x in lines if "evaluated in" in x]
    return wall, sum(took), [x for x in lines if "evaluated in" not in x]


def maps(path: Path, runs: list[list[str]], before: Path) -> None:
    """The ``map`` command's wall and evaluation time, main against this tree."""
    print("\n| map | before s (eval) | after s (eval) | before/after wall | reports agree |")
    print("|---|---|---|---|---|")
    for sets in runs:
        t_before, e_before, r_before = _map(path, sets, before)
        t_after, e_after, r_after = _map(path, sets, ROOT / "src")
        print(f"| {path.stem} {' '.join(sets)} | {t_before:.1f} ({e_before:.2f}) | "
              f"{t_after:.1f} ({e_after:.2f}) | {t_before / t_after:.1f} | {r_before == r_after} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="256,1024,2048")
    ap.add_argument("--map-sizes", default="1024,2048")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", type=Path, help="the src folder of the tree to compare with")
    ap.add_argument("--no-map", action="store_true")
    ap.add_argument("--no-3d", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "band.c"
        path.write_text(BAND)
        print(f"load {os.getloadavg()[0]:.2f}, numpy {np.__version__}")
        depths(path, [int(x) for x in args.sizes.split(",")], args.repeat)
        if args.before is None:
            print("\n(map runs left out: give --before OLD_TREE/src to time them against it)")
            return
        if not args.no_map:
            maps(path, [[f"N={x}", "W=8"] for x in args.map_sizes.split(",")], args.before)
        if not args.no_3d:
            band3d = Path(d) / "band3d.c"
            band3d.write_text(BAND3D)
            maps(band3d, [["N=64", "W=8", "K=16"]], args.before)


if __name__ == "__main__":
    main()
