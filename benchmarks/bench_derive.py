"""Derivation time of every built-in kernel (the paper's bar: under 0.5 s per kernel).

Run: python benchmarks/bench_derive.py [ROWSxCOLS ...]. Prints, per kernel and array, the
derivation mode and seconds (best of 3 in one process, after one warm-up derivation),
then the ratio to the 0.5 s bar.
"""

from __future__ import annotations

import sys
import time

from polyjoule.analysis import analyze
from polyjoule.library.kernels import get, names


def best_of(fn, n: int = 3) -> float:
    out = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def main(arrays: list[tuple[int, int]]) -> None:
    analyze("gemm", (8, 8))  # warm-up: imports, isl context
    print(f"{'kernel':12} {'array':6} {'mode':10} {'derive s':>9} {'/0.5 s':>7}")
    for arr in arrays:
        for name in names():
            k = get(name)
            mini = k.datasets.get("MINI")
            a = analyze(k, arr, values=mini)
            mode = ",".join(sorted({ph.mode for ph in a.phases}))
            s = best_of(lambda k=k, arr=arr, mini=mini: analyze(k, arr, values=mini))
            print(f"{name:12} {arr[0]}x{arr[1]:<4} {mode:10} {s:9.3f} {s / 0.5:7.2f}")


if __name__ == "__main__":
    args = sys.argv[1:] or ["8x8", "2x2"]
    main([tuple(int(x) for x in a.split("x")) for a in args])  # type: ignore[misc]
