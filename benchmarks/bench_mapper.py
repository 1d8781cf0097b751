"""Mapper speed: gemm.relu 16x16x16 search + census, and the 12-problem gate.

Published (host-dependent, act-mapper sheet §4, §11): 1.3 s for the 1,226-nest search
and 1.3 s for the gate. Targets here: <= 0.13 s and <= 0.5 s.

    /work/venv/bin/python benchmarks/bench_mapper.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from polyjoule.library.workloads import get
from polyjoule.search import census, gate, target
from polyjoule.search.search import Problem, search

PUBLISHED_S = 1.3
TARGETS = {"search+census": 0.13, "gate": 0.5}


def search_and_census() -> None:
    """What ``polyjoule map gemm.relu 16x16x16 --census`` computes (no printing)."""
    tgt = target.get("tinytpu-isa")
    p = Problem(get("gemm.relu"), {"M": 16, "K": 16, "N": 16})
    res = search(p, tgt)
    census.independent(p, tgt)
    assert res.considered == 1226 and len(res.candidates) == 5
    assert all(tgt.verify(p.workload, p.extents, c.program) for c in res.candidates)


def run_gate() -> None:
    """What ``polyjoule map --gate`` computes: the target's problem set, every mapping
    verified."""
    tgt = target.get("tinytpu-isa")
    assert gate.run_set(target.problem_set(tgt), tgt).ok


def timed(fn: Callable[[], None], repeat: int) -> tuple[float, float, float]:
    """(first call, best of ``repeat``) wall seconds, and best CPU seconds of this process
    (less sensitive to other work on a shared host)."""
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return wall[0], min(wall), min(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    target.get("tinytpu-isa")  # load the provider (and the analysis package) before timing
    for name, fn in (("search+census", search_and_census), ("gate", run_gate)):
        first, best, cpu = timed(fn, args.repeat)
        ok = "OK" if best <= TARGETS[name] else "SLOW"
        print(f"{name:14s} wall first {first:6.3f} s  best {best:6.3f} s  cpu {cpu:6.3f} s  "
              f"target {TARGETS[name]:.2f} s {ok:4s}  published {PUBLISHED_S} s / best = "
              f"{PUBLISHED_S / best:4.1f}x")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")


if __name__ == "__main__":
    main()
