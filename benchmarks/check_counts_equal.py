"""Every case formula of every built-in kernel evaluated at fixed points, for comparing two
versions of the derivation (issue 16: a faster count must give the same formulas).

Run: python benchmarks/check_counts_equal.py --out before.json   (on the old code)
     python benchmarks/check_counts_equal.py --out after.json --against before.json

Per kernel, array (8x8, 2x2, 1x4, 3x2, 4x4, 2x8) and phase: 40 points ``(p, t, r, params)``
drawn with a fixed seed (tile sizes from the least legal one to 6, 1-4 tiles, every ``r``;
a tiled dim's extent parameter takes the value ``p*(t-1) + r - offset``, other parameters
their minimum to minimum + 8), and the value of every case formula there.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import zlib

from polyjoule.analysis import analyze
from polyjoule.library.kernels import get, names
from polyjoule.mapping.tiling import min_tile

ARRAYS = [(8, 8), (2, 2), (1, 4), (3, 2), (4, 4), (2, 8)]


def points(pra, groups, n: int, seed: int) -> list[dict[str, int]]:  # type: ignore[no-untyped-def]
    """``n`` evaluation points of one phase (fixed seed)."""
    rng = random.Random(seed)
    need = min_tile(pra)
    lo = dict(pra.param_min)
    out = []
    for _ in range(n):
        env: dict[str, int] = {}
        for g in groups:
            p = rng.randint(max(need[l] for l in g.dims), 6)
            t, r = rng.randint(1, 4), rng.randint(1, p)
            env[g.p], env[g.t], env[g.r] = p, t, r
            env[g.param] = p * (t - 1) + r - g.offset
        for q in pra.params:
            env.setdefault(q, rng.randint(lo.get(q, 1), lo.get(q, 1) + 8))
        out.append(env)
    return out


def values(kernels: list[str]) -> dict[str, list[list[int]]]:
    """Kernel/array/phase -> per case, its values at the points."""
    out = {}
    for k in kernels:
        for shape in ARRAYS:
            a = analyze(get(k), shape)
            for ph in a.phases:
                if ph.volumes is None:
                    out[f"{k}/{shape}/{ph.pra.name}"] = [["fixed"]]
                    continue
                pts = points(ph.pra, ph.groups, 40, zlib.crc32(f'{k}{shape}{ph.pra.name}'.encode()))
                out[f"{k}/{shape}/{ph.pra.name}"] = [
                    [v.case.statement.id, v.case.name, *(int(v.formula.evaluate(e)) for e in pts)]
                    for v in ph.volumes]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--out", required=True)
    ap.add_argument("--against")
    args = ap.parse_args()
    t0 = time.perf_counter()
    got = values(args.kernels or list(names()))
    with open(args.out, "w") as f:
        json.dump(got, f)
    n = sum(len(c) for c in got.values())
    print(f"{len(got)} phases, {n} case formulas, {time.perf_counter() - t0:.1f} s")
    if args.against:
        with open(args.against) as f:
            ref = json.load(f)
        bad = [k for k in ref if ref[k] != got.get(k)]
        print("identical" if not bad and ref.keys() == got.keys() else f"DIFFERENT: {bad[:10]}")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
