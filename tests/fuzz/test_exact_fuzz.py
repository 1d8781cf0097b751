"""Fuzzed huge sweeps: random sizes up to 2**63 - 1, random arrays and kernels; every column
of the vectorised sweep equals the scalar ``analyze`` (tests/dse/test_exact.py's check),
and nothing wraps (no negative latency, no negative count)."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from polyjoule.library.kernels import get

SEED = 1463
_spec = importlib.util.spec_from_file_location(
    "_exact_checks", Path(__file__).resolve().parents[1] / "dse" / "test_exact.py")
assert _spec is not None and _spec.loader is not None
exact_checks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(exact_checks)


def _cases(n: int) -> list[tuple[str, list[str], str]]:
    rng = random.Random(SEED)
    out = []
    for _ in range(n):
        kernel = rng.choice(["gemm", "gemm", "atax", "gesummv"])
        params = get(kernel).params
        specs = []
        for p in params:
            vals = sorted({min(int(2 ** rng.uniform(10, 63)), 2**63 - 1)
                           for _ in range(rng.randint(1, 2))})
            specs.append(f"{p}={','.join(map(str, vals))}")
        arrays = rng.choice(["2x2", "4x4", "8x8", "4x16", "16x16"])
        out.append((kernel, specs, arrays))
    return out


@pytest.mark.parametrize("kernel,sizes,arrays", _cases(8))
def test_huge_sweep_equals_analyze(kernel: str, sizes: list[str], arrays: str) -> None:
    r = exact_checks._sweep(kernel, sizes, arrays)
    shape = tuple(int(x) for x in arrays.split("x"))
    for i in range(len(r)):
        row = exact_checks.assert_row_equals_analyze(r, i, kernel, shape)
        assert row["latency_cycles"] >= 1 and min(int(r.columns[c][i]) for c in ("RD", "DR")) >= 0
