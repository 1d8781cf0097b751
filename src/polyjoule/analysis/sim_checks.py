"""The simulator's whole-run checks: the pipeline interval per PE, FIFO and register use
against declared capacities, outputs against the kernel's reference (numpy semantics for a
built-in kernel or an einsum, the C program itself for a C file: :func:`reference_label`).

The pipeline interval is checked tile by tile (a PE runs one tile): its memory follows a
tile, not the iteration space. Tiles that lie wholly inside the domain and have the same
shape start their iterations at the same offsets, so each such shape is checked once.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from polyjoule.analysis.schedule import ConcreteSchedule
from polyjoule.analysis.sim_order import box_range, holds
from polyjoule.analysis.sim_statements import FIFO_SLOTS

Events = list[tuple[np.ndarray, np.ndarray, np.ndarray]]


def tile_points(cs: ConcreteSchedule, ext: Sequence[int]) -> int:
    """Points of the largest tile's box: the issue check's working set."""
    return int(np.prod([min(int(p), int(e)) for p, e in zip(cs.p, ext, strict=True)]))


def check_issue_rate(cs: ConcreteSchedule, ext: Sequence[int],
                     domain: Sequence[tuple[np.ndarray, int, bool]], violate: Any,
                     name: str) -> None:
    """A PE starts at most one iteration every ``pi`` cycles."""
    p = [int(x) for x in cs.p]
    lj = np.array(cs.lambda_J, dtype=np.int64)
    ntiles = [-(-int(e) // q) for e, q in zip(ext, p, strict=True)]
    seen: dict[tuple[int, ...], tuple[int, int]] = {}
    worst, bad = None, 0
    for k in itertools.product(*(range(t) for t in ntiles)):
        lo = [kl * q for kl, q in zip(k, p, strict=True)]
        hi = [min(l + q, int(e)) for l, q, e in zip(lo, p, ext, strict=True)]
        shape = tuple(h - l for h, l in zip(hi, lo, strict=True))
        whole = all(_box_holds(vec, const, eq, lo, hi) for vec, const, eq in domain)
        if whole and shape in seen:
            gap, n = seen[shape]
        else:
            j = np.indices(shape, dtype=np.int64).reshape(len(shape), -1)
            if not whole:
                j = j[:, holds(domain, j + np.array(lo)[:, None])]
            gap, n = _gaps(lj @ j, cs.pi)
            if whole:
                seen[shape] = (gap, n)
        if n:
            worst = gap if worst is None else min(worst, gap)
            bad += n
    if bad:
        violate(f"{name}: a PE starts iterations {worst} cycles apart "
                f"(pipeline interval {cs.pi})", bad)


def _box_holds(vec: np.ndarray, const: int, eq: bool, lo: Sequence[int], hi: Sequence[int]
               ) -> bool:
    """Whether a linear constraint holds on every point of the box."""
    a, b = box_range(vec, const, lo, hi)
    return a >= 0 and (not eq or b == 0)


def _gaps(start: np.ndarray, pi: int) -> tuple[int, int]:
    """(smallest gap, gaps under ``pi``) between one PE's sorted start cycles."""
    if start.size < 2:
        return 0, 0
    gaps = np.diff(np.sort(start))
    n = int((gaps < pi).sum())
    return (int(gaps.min()), n) if n else (0, 0)


def fifo_peak(events: Events) -> tuple[int, int]:
    """(most values one FIFO holds at once, most FIFOs one PE uses) from the intervals
    ``[push, pop)`` of every value that stayed in a PE, per (PE, FIFO)."""
    if not events:
        return 0, 0
    owner = np.concatenate([e[0] for e in events])
    push = np.concatenate([e[1] for e in events])
    pop = np.concatenate([e[2] for e in events])
    fifos = np.unique(owner)
    per_pe = np.unique(fifos // FIFO_SLOTS, return_counts=True)[1]
    key = np.concatenate([owner, owner])
    at = np.concatenate([push, pop])
    step = np.concatenate([np.ones_like(push), -np.ones_like(pop)])
    o = np.lexsort((step, at, key))  # a pop before a push at the same cycle
    key, step = key[o], step[o]
    level = np.cumsum(step)
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    base = np.repeat(level[first] - step[first], np.diff(np.r_[first, key.size]))
    return int((level - base).max()), int(per_pe.max())


def usage(fifo: Events, rd_vars: set[str]) -> dict[str, float]:
    """Peak use of the PE capacities in one phase, measured on the run (the I/O buffer and
    DRAM use are over the whole run: ``SimResult.usage``)."""
    depth, nfifo = fifo_peak(fifo)
    return {"fd-depth": depth, "fd-count": nfifo, "rd-count": len(rd_vars)}


def over_capacity(use: Mapping[str, float], caps: Any) -> list[str]:
    """One line per capacity the run exceeded."""
    limits = {"fd-depth": caps.fd_depth_words, "fd-count": caps.fd_count,
              "rd-count": caps.rd_count,
              "iob-capacity": min(caps.iob_capacity_words.values(), default=0),
              "dram-bandwidth": caps.dram_bandwidth_words_per_cycle}
    return [f"{cause} exceeded: uses {use[cause]:g}, declared {lim:g}"
            for cause, lim in limits.items() if use.get(cause, 0) > lim]


def reference_label(reference: Any) -> str:
    """What a kernel's reference is, in a failure's words: a reference says so in its
    ``label`` (the C interpreter's does); any other is numpy semantics."""
    return str(getattr(reference, "label", "the numpy reference"))


def differing(got: Any, want: Any) -> np.ndarray:
    """Which elements of a simulated output differ from the reference's (same shapes).

    NaN equals NaN and an infinity the same infinity (the kernel's arithmetic made them
    alike on both sides); the tolerance scales with the largest finite reference value,
    so an infinity elsewhere does not make every element agree."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    with np.errstate(all="ignore"):
        return ~np.isclose(got, want, rtol=1e-9, atol=1e-9 * scale, equal_nan=True)


def number_text(x: Any) -> str:
    """One element as people read it: ``1.5``, ``nan``, ``-inf`` (no numpy repr)."""
    return repr(float(x))


def matches_reference(ref: Mapping[str, Any], dram: Mapping[str, np.ndarray],
                      violate: Any, label: str = "the numpy reference") -> bool:
    """Whether every output the reference (named ``label``) computes equals the simulated
    one (:func:`differing`)."""
    match = True
    for name, want in ref.items():
        got = dram.get(name)
        want = np.asarray(want, dtype=np.float64)
        if got is None or got.shape != want.shape:
            match = False
            violate(f"output {name}: shape {None if got is None else got.shape} != {want.shape}", 1)
            continue
        bad = int(np.sum(differing(got, want)))
        if bad:
            match = False
            violate(f"output {name}: {bad} elements differ from {label}", 0)
    return match
