"""TCPA search speed: mappings evaluated per second after derivation, and a whole
``map --target tcpa gemm --census`` search including derivation (issue 12 targets:
>= 1,000,000 mappings/s; whole search < 1 s)."""

from __future__ import annotations

import time

import numpy as np

from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.target import TcpaTarget, search

TARGET_RATE = 1_000_000


def main() -> None:
    k = get("gemm")
    t0 = time.perf_counter()
    whole = search(TcpaTarget(), k, {p: np.asarray([128]) for p in k.params})
    t_whole = time.perf_counter() - t0
    n = np.arange(8, 4097)
    res = search(TcpaTarget(), k, {p: n for p in k.params})
    rate = res.considered / res.eval_seconds
    print(f"gemm N=128 whole search: {whole.considered} mappings, {t_whole:.2f} s "
          f"(derive {whole.derive_seconds:.2f} s)")
    print(f"gemm N=8..4096: {res.considered:,} mappings evaluated in {res.eval_seconds:.3f} s: "
          f"{rate:,.0f} mappings/s, {rate / TARGET_RATE:.2f}x the target of {TARGET_RATE:,}")


if __name__ == "__main__":
    main()
