"""TCPA search speed: mappings evaluated per second after derivation, and a whole
``map --target tcpa gemm --census`` search including derivation (issue 12 targets:
>= 1,000,000 mappings/s; whole search < 1 s)."""

from __future__ import annotations

import tempfile
import time

import numpy as np

from polyjoule.dse.cache import FormulaCache
from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.target import TcpaTarget, clear_memos, search

TARGET_RATE = 1_000_000


def _whole(k: object, store: object) -> tuple[object, float]:
    t0 = time.perf_counter()
    res = search(TcpaTarget(store=store), k, {p: np.asarray([128]) for p in k.params})
    return res, time.perf_counter() - t0


def main() -> None:
    k = get("gemm")
    with tempfile.TemporaryDirectory() as d:
        store = FormulaCache(d)
        whole, t_whole = _whole(k, None)
        _, t_cold = _whole(k, store)
        clear_memos()
        _, t_warm = _whole(k, store)
    axes = np.meshgrid(*(np.arange(8, 513, 8),) * 3, indexing="ij")
    res = search(TcpaTarget(), k, {p: a.reshape(-1) for p, a in zip(k.params, axes, strict=True)})
    rate = res.considered / res.eval_seconds
    print(f"gemm N=128 whole search: {whole.considered} mappings, {t_whole:.2f} s "
          f"(derive {whole.derive_seconds:.2f} s); with the formula cache: cold {t_cold:.2f} s, "
          f"warm (new process state, cache on disk) {t_warm:.2f} s")
    print(f"gemm NI, NJ, NK each 8:512:8: {res.considered:,} mappings evaluated in {res.eval_seconds:.3f} s: "
          f"{rate:,.0f} mappings/s, {rate / TARGET_RATE:.2f}x the target of {TARGET_RATE:,}")


if __name__ == "__main__":
    main()
