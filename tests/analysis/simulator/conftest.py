"""Shared helpers: cached analyses and the size sets the validation tests use."""

from __future__ import annotations

import os
from functools import cache

from polyjoule.analysis.schedule import kernel_latency, kernel_schedules
from polyjoule.errors import PolyjouleError
from polyjoule.library import kernels as registry

ARRAYS = [(1, 4), (2, 2), (4, 4), (8, 8)]
#: How many of the three sizes also compare counts with the analysis, where the analysis is
#: slow (seconds to derive or evaluate the 2-D/3-D stencils), to keep this suite under a
#: minute. Latency and the
#: simulator's own checks are compared at every size. POLYJOULE_FULL_VALIDATION=1 compares
#: counts everywhere.
ANALYSIS_SIZES: dict[tuple[str, tuple[int, int]], int] = {}
if not os.environ.get("POLYJOULE_FULL_VALIDATION"):
    for _n in ("jacobi-2d", "heat-3d", "seidel-2d", "fdtd-2d"):
        ANALYSIS_SIZES.update({(_n, (1, 4)): 1, (_n, (2, 2)): 0, (_n, (4, 4)): 0, (_n, (8, 8)): 1})

@cache
def analysis(name: str, array: tuple[int, int]):  # type: ignore[no-untyped-def]
    from polyjoule.analysis import analyze

    return analyze(registry.get(name), array=array)


@cache
def schedules(name: str, array: tuple[int, int]):  # type: ignore[no-untyped-def]
    return kernel_schedules(registry.get(name), array)


def sizes_for(name: str, array: tuple[int, int], count: int = 3) -> list[dict[str, int]]:
    """The first ``count`` feasible sizes from a fixed list (most not divisible by the array)."""
    k = registry.get(name)
    params = [(p, lo) for ph in k.phases for p, lo in ph.param_min]
    params = list(dict(params).items())
    out = []
    for base in (5, 7, 10, 13, 17, 21, 26, 33, 41, 50):
        vals = {p: max(lo, base + 2 * n) for n, (p, lo) in enumerate(params)}
        try:
            kernel_latency(schedules(name, array), vals)
        except PolyjouleError:
            continue
        out.append(vals)
        if len(out) == count:
            break
    return out


def walk_counts(name: str, array: tuple[int, int], values: dict[str, int]) -> dict:  # noqa: C901 - one literal walk, the independent witness
    """Class and op counts by walking every point in plain Python (the model's rules)."""
    import itertools

    from polyjoule.mapping.tiling import Tiling

    k = registry.get(name)
    out: dict = dict.fromkeys(("RD", "FD", "ID", "OD", "IOb", "DR"), 0)
    ops: dict[str, int] = {}
    for pra in k.phases:
        tiling = Tiling.of(pra, array)
        p = tiling.sizes(pra, values)
        for s in pra.statements:
            if s.expr is not None:
                for op, _ in s.expr.ops:
                    ops.setdefault(op, 0)
        for point in itertools.product(*(range(d.extent.evaluate(values)) for d in pra.dims)):
            env = {**values, **dict(zip(pra.dim_names, point, strict=True))}
            if not all(c.holds(env) for c in pra.domain()):
                continue
            for s in pra.statements:
                if not all(c.holds(env) for c in s.when):
                    continue
                if s.kind == "input":
                    for c in ("DR", "IOb", "ID"):
                        out[c] += 1
                elif s.kind == "output":
                    for c in ("OD", "IOb", "DR"):
                        out[c] += 1
                elif s.kind == "compute":
                    out["RD"] += len(s.expr.operands) + 1
                    for op, m in s.expr.ops:
                        ops[op] += m
                elif not any(s.dep):
                    out["RD"] += 1
                else:
                    src = [x - d for x, d in zip(point, s.dep, strict=True)]
                    same = all(x // q == y // q for x, y, q in zip(point, src, p, strict=True))
                    if same:
                        out["FD"] += 1
                    else:
                        out["OD"] += 1
                        out["ID"] += 1
    out["ops"] = dict(sorted(ops.items()))
    return out
