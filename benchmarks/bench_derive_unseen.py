"""Derivation time of kernels that are not built in (issue 16: any single-phase kernel of up
to four dims and 20 statements derives in 0.1 s or less on 8x8, as a user sees it).

Run: python benchmarks/bench_derive_unseen.py [--seed 16] [--count 24] [--repeat 2]

A seeded generator writes time-iterated stencils in C, PolyBench-style (one to three space
dims, one or two sweeps, in place or ping-pong, offsets -2..2 per read: the dependence
distances that make the most tile-offset cases), and einsum contractions of three and four
ranks, and ``--bands`` banded nests (matrix-vector products over ``j = i + a .. i + b`` with
a constant width or a width parameter ``W``, trapezoids ``j < i + M``, a third dim). Each
is derived in a fresh process (``derive_seconds`` of ``analyze`` on 8x8, no
formula cache), best of ``--repeat``. gemm is measured the same way in the same run, so the
ratio column reads the same on a busy machine; kernels of more than four dims or 20
statements are listed but not counted against the bar.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

CODE = """
import json, sys
from polyjoule.analysis import analyze
from polyjoule.frontends.resolve import kernel_from
from polyjoule.targets.tcpa.array import default_array
default_array((8, 8))
src = sys.argv[1]
k = kernel_from(None, src[7:], None) if src.startswith("einsum:") else kernel_from(src, None, None)
a = analyze(k, (8, 8))
print(json.dumps({"s": a.derive_seconds, "dims": max(p.n for p in k.phases),
                  "stmts": max(len(p.statements) for p in k.phases),
                  "modes": sorted({ph.mode for ph in a.phases})}))
"""

SPACE = "ijk"


def _read(arr: str, dims: str, rng: random.Random) -> str:
    return arr + "".join(f"[{d}{off:+d}]" if off else f"[{d}]"
                         for d in dims for off in [rng.randint(-2, 2)])


def stencil(rng: random.Random, name: str) -> str:
    """A time loop around one or two sweeps over 1-3 space dims."""
    dims = SPACE[:rng.randint(1, 3)]
    decl = ", ".join(f"double {a}" + "[N]" * len(dims) for a in "AB")
    loops = "".join(f"for ({d} = 2; {d} < N - 2; {d}++) " for d in dims)
    here = "".join(f"[{d}]" for d in dims)
    sweeps = []
    pairs = [("A", "A")] if rng.random() < 0.4 else [("B", "A"), ("A", "B")]
    for dst, src in pairs:
        reads = " + ".join(_read(src, dims, rng) for _ in range(rng.randint(1, 3)))
        sweeps.append(f"    {loops}\n      {dst}{here} = 0.3 * ({reads});")
    body = "\n".join(sweeps)
    return (f"void {name}(int T, int N, {decl}) {{\n  int t, {', '.join(dims)};\n"
            f"  for (t = 0; t < T; t++) {{\n{body}\n  }}\n}}\n")


def einsum(rng: random.Random) -> str:
    ranks = rng.sample("mnpqs", rng.randint(3, 4))
    out = ranks[:2]
    a = [r for r in ranks if r != out[1]]
    b = [r for r in ranks if r != out[0]]
    return f"einsum:C[{','.join(out)}] += A[{','.join(a)}]*B[{','.join(b)}]"


def band(rng: random.Random, name: str) -> str:
    """A banded (or trapezoidal) matrix-vector product, sometimes with a third dim."""
    a = rng.randint(0, 3)
    kind = rng.choice(["width", "param", "trapezoid"])
    if kind == "width":
        lo, hi, params, extra = f"i + {a}" if a else "i", f"i + {a + rng.randint(1, 5)}", "int N", a + 6
    elif kind == "param":
        lo, hi, params, extra = f"i + {a}" if a else "i", f"i + W + {a}" if a else "i + W", "int N, int W", "W + 4"
    else:
        lo, hi, params, extra = "0", "i + M", "int N, int M", "M"
    third = rng.random() < 0.3
    ext = f"N + {extra}"
    if third:
        decl = f"double A[N][{ext}][K], double x[{ext}][K], double y[N][K]"
        body = ("    for (l = 0; l < K; l++) {\n      y[i][l] = 0.0;\n"
                f"      for (j = {lo}; j < {hi}; j++)\n        y[i][l] += A[i][j][l] * x[j][l];\n    }}")
        return (f"void {name}({params}, int K, {decl}) {{\n  int i, j, l;\n"
                f"  for (i = 0; i < N; i++)\n{body}\n}}\n")
    decl = f"double A[N][{ext}], double x[{ext}], double y[N]"
    return (f"void {name}({params}, {decl}) {{\n  int i, j;\n  for (i = 0; i < N; i++) {{\n"
            f"    y[i] = 0.0;\n    for (j = {lo}; j < {hi}; j++)\n      y[i] += A[i][j] * x[j];\n"
            "  }\n}\n")


def measure(src: str, repeat: int) -> dict:
    best = None
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", CODE, src], capture_output=True, text=True)
        if out.returncode:
            return {"error": out.stderr.strip().splitlines()[-1][:120]}
        row = json.loads(out.stdout)
        best = row if best is None or row["s"] < best["s"] else best
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--bands", type=int, default=8)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    base = measure("gemm", args.repeat)["s"]
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for n in range(args.count):
            if n % 4 == 3:
                src = name = einsum(rng)
            else:
                path = Path(d) / f"st{n:02d}.c"
                path.write_text(stencil(rng, f"st{n:02d}"))
                src, name = str(path), path.name
            rows.append((name, measure(src, args.repeat)))
        brng = random.Random(args.seed + 1)  # the stencils and einsums of a seed stay the same
        for n in range(args.bands):
            path = Path(d) / f"band{n:02d}.c"
            path.write_text(band(brng, f"band{n:02d}"))
            rows.append((path.name, measure(str(path), args.repeat)))
    print(f"gemm: {base:.3f} s (the ratio column divides by it)\n")
    print("| kernel | dims | stmts | mode | derive s | / gemm | <= 0.1 s |")
    print("|---|---|---|---|---|---|---|")
    counted, over, worst = 0, 0, 0.0
    for name, r in sorted(rows, key=lambda x: -x[1].get("s", 0)):
        if "error" in r:
            print(f"| {name} | | | refused | {r['error']} | | |")
            continue
        inside = r["dims"] <= 4 and r["stmts"] <= 20
        counted += inside
        over += inside and r["s"] > 0.1
        worst = max(worst, r["s"] if inside else 0.0)
        print(f"| {name} | {r['dims']} | {r['stmts']} | {','.join(r['modes'])} | {r['s']:.3f} "
              f"| {r['s'] / base:.1f} | {'yes' if r['s'] <= 0.1 else 'no'}{'' if inside else ' (not counted)'} |")
    print(f"\n{counted} kernels of <= 4 dims and <= 20 statements: {over} over 0.1 s, slowest "
          f"{worst:.3f} s ({worst / base:.1f}x gemm)")


if __name__ == "__main__":
    main()
