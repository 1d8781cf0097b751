"""TinyTPU-isa toolchain benchmark: reference-model speed and the cycle model vs cosim.

Run: ``/work/venv/bin/python benchmarks/bench_tinytpu.py``. Prints (1) wall time of
the checker and the reference model on the shipped 64x64x64 GEMM (MAXDIM=64), best
of several runs, and (2) every published cosim count (sheet §14) next to the event
model's estimate, with the ratio model/measured, all measured in this one run.
"""

from __future__ import annotations

import time

import numpy as np

from polyjoule.targets.tinytpu.assembler import check_program, expand
from polyjoule.targets.tinytpu.cycles import CALIBRATED, compare, estimate
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program
from polyjoule.targets.tinytpu.refmodel import gemm_expected, run


def best_of(fn, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def speed() -> None:
    cfg = Config()
    prog = gemm_program(64, 64, 64, relu=True, cfg=cfg)
    rng = np.random.default_rng(0)
    A = rng.integers(-128, 128, (64, 64), dtype=np.int8)
    B = rng.integers(-128, 128, (64, 64), dtype=np.int8)
    C = np.zeros((64, 64), np.int8)
    assert np.array_equal(run(prog, A, B, C, cfg), gemm_expected(A, B, 64, 64, 64, True))
    n = len(expand(prog, cfg))
    print(f"shipped gemm.relu 64x64x64, MAXDIM=64: {len(prog)} static, {n} dynamic issues")
    for name, fn in (("expand", lambda: expand(prog, cfg)),
                     ("check_program", lambda: check_program(prog, cfg)),
                     ("refmodel.run (checker included)", lambda: run(prog, A, B, C, cfg)),
                     ("cycles.estimate", lambda: estimate(prog, cfg))):
        print(f"  {name:34s} {best_of(fn) * 1e3:8.2f} ms (best of 7)")


def table() -> None:
    print()
    print(f"cycle model vs cosim (timing constants: {CALIBRATED})")
    print(f"{'series':34s} {'shape':15s} {'measured':>8s} {'model':>7s} {'ratio':>6s} {'error':>7s}")
    rows = compare()
    for r in rows:
        print(f"{r.series:34s} {r.shape:15s} {r.measured:8d} {r.model:7d} "
              f"{r.model / r.measured:6.3f} {r.error * 100:+6.1f}%")
    errs = [abs(r.error) for r in rows]
    print(f"{len(rows)} rows: max |error| {max(errs) * 100:.1f}%, "
          f"mean {sum(errs) / len(errs) * 100:.2f}%")


if __name__ == "__main__":
    speed()
    table()
