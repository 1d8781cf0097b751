"""Wavefront sizes and the widest wavefront: exact on small boxes, never an allocation that
grows with the problem (a size of 1e10 is refused by the memory plan, not by numpy)."""

from __future__ import annotations

import itertools
import tracemalloc

import numpy as np
import pytest

from polyjoule.analysis import sim_order
from polyjoule.analysis.sim_order import wavefront_sizes, widest_wavefront
from polyjoule.analysis.simulator import Plan, plan
from polyjoule.errors import ResourceLimitError
from polyjoule.library import kernels as registry

SIGMAS = [(1, 1, 1), (1, 0, 2), (-1, 1, 0), (2, -3, 1), (0, 0, 0), (3, 1, -2)]
EXTENTS = [(1, 1, 1), (4, 3, 5), (7, 1, 2), (2, 9, 6)]


def _convolved(sig, ext):  # type: ignore[no-untyped-def]
    """The former implementation (np.convolve with a strided step), the reference."""
    sizes, first = np.ones(1, dtype=np.int64), 0
    for s, e in zip(sig, ext, strict=True):
        step = np.zeros(abs(s) * (e - 1) + 1, dtype=np.int64)
        step[::max(abs(s), 1)] = 1
        if s == 0:
            step = np.array([e], dtype=np.int64)
        elif s < 0:
            first += s * (e - 1)
        sizes = np.convolve(sizes, step)
    return first, sizes


def _enumerated(sig, ext):  # type: ignore[no-untyped-def]
    """Every point of the box, keyed and counted."""
    keys = np.array([np.dot(sig, p) for p in itertools.product(*map(range, ext))])
    first = int(keys.min())
    return first, np.bincount(keys - first)


@pytest.mark.parametrize("sig", SIGMAS)
@pytest.mark.parametrize("ext", EXTENTS)
def test_sizes_equal_enumeration_and_former_convolution(sig, ext) -> None:
    first, sizes = wavefront_sizes(np.array(sig), ext)
    old_first, old = _convolved(sig, ext)
    assert (first, sizes.tolist()) == (old_first, old.tolist())
    e_first, counted = _enumerated(sig, ext)
    # the enumeration ends at the last occupied key; the sizes may carry empty keys after it
    assert first == e_first and sizes[:counted.size].tolist() == counted.tolist()
    assert not sizes[counted.size:].any()
    assert widest_wavefront(np.array(sig), ext) == int(counted.max())


@pytest.mark.parametrize("sig", SIGMAS)
@pytest.mark.parametrize("ext", EXTENTS)
def test_bound_beyond_the_key_limit_is_never_below_the_exact_width(sig, ext, monkeypatch) -> None:
    exact = widest_wavefront(np.array(sig), ext)
    monkeypatch.setattr(sim_order, "WAVEFRONT_KEYS_MAX", 0)
    bound = widest_wavefront(np.array(sig), ext)
    assert exact <= bound <= int(np.prod(ext))


def test_huge_box_allocates_nothing_proportional() -> None:
    tracemalloc.start()
    try:
        widest = widest_wavefront(np.array([1, 1, 1]), [10**10] * 3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert widest == 10**20  # box / largest extent: exact within 4/3 (3/4 N^2 at the centre)
    assert peak < 2**20


def test_plan_at_small_sizes_is_unchanged() -> None:
    """Plans recorded with the former convolution (memory limit 1 TiB)."""
    want = {("gemm", 10): Plan(1000, 371700), ("jacobi-2d", 40): Plan(64000, 85184000),
            ("seidel-2d", 40): Plan(64000, 74184800), ("jacobi-1d", 200): Plan(40000, 29513904),
            ("2mm", 200): Plan(1048576, 361378624)}
    for (name, n), p in want.items():
        k = registry.get(name)
        assert plan(k, {q: n for q in k.params}, memory_limit=2**40) == p, name


def test_plan_refuses_a_size_of_1e10_by_its_limit() -> None:
    k = registry.get("gemm")
    with pytest.raises(ResourceLimitError, match="over the simulator's limit of 2.0 GiB"):
        plan(k, {q: 10**10 for q in k.params}, memory_limit=2 * 2**30)
