"""Why a kernel has no uniform localisation, computed rather than asserted.

A uniform localisation places every statement instance at a point of an index space and
runs it under a linear schedule ``theta(p) = lambda . p`` (independent of the sizes) with
``lambda . d >= 1`` for every dependence vector ``d`` (one cycle per step; values at one
point are ordered within it), from a fixed set of vectors. Along any path of dependences the
times add up, so if instance ``b`` depends, directly or through other instances, on ``a`` at
a different point, ``lambda . (b - a)`` is at least the number of dependence vectors it takes
to get from ``a`` to ``b``, however the path was localised.

:class:`Trace` runs a kernel's C loops in Python on small sizes and records the value-based
flow dependences (each read on the last write of its element). Instances that have a natural
point (``anchor``: step ``k``'s work on row ``i`` at ``(k, i)``) are related through any path,
and :func:`smallest_schedule` finds the smallest ``max |lambda_d|`` that satisfies every
resulting displacement, by enumeration. When it grows with the size, no schedule independent
of the size exists: no uniform localisation in that index space.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np

Point = tuple[int, ...]
Instance = tuple[str, Point]


class Trace:
    """Flow dependences of one run: ``op`` records the reads and writes of an instance."""

    def __init__(self) -> None:
        self.last: dict[tuple[str, Point], Instance] = {}
        self.preds: dict[Instance, set[Instance]] = defaultdict(set)
        self.anchored: dict[Instance, Point] = {}
        self.count = 0

    def op(self, reads: list[tuple[str, Point]], writes: list[tuple[str, Point]],
           anchor: Point | None = None) -> None:
        """One statement instance; ``anchor`` is its point (None: placed freely)."""
        self.count += 1
        me: Instance = ("s", (self.count,))
        for r in reads:
            if r in self.last:
                self.preds[me].add(self.last[r])
        for w in writes:
            self.last[w] = me
        if anchor is not None:
            self.anchored[me] = anchor

    def displacements(self) -> set[Point]:
        """``b - a`` for every anchored ``b`` depending on an anchored ``a`` elsewhere."""
        reach: dict[Instance, frozenset[Instance]] = {}  # anchored instances each one needs
        out: set[Point] = set()
        for n in range(1, self.count + 1):  # instances in execution order: preds come first
            me: Instance = ("s", (n,))
            found: set[Instance] = set()
            for p in self.preds.get(me, ()):
                found |= reach[p]
                if p in self.anchored:
                    found.add(p)
            reach[me] = frozenset(found)
            if me in self.anchored:
                b = self.anchored[me]
                for a in found:
                    d = tuple(x - y for x, y in zip(b, self.anchored[a], strict=True))
                    if any(d):
                        out.add(d)
        return out


def smallest_schedule(deps: set[Point], step: int = 1, bound: int = 12) -> int | None:
    """The smallest ``max |lambda_d|`` of an integer schedule that gives every displacement
    ``d`` the time its path needs, or None when none has ``max |lambda_d| <= bound``.

    A uniform localisation has a fixed set of dependence vectors, none longer than ``step``
    along any axis, so a value displaced by ``d`` takes at least ``ceil(max|d_x| / step)``
    dependences, each at least one cycle: ``lambda . d >= max(1, ceil(max|d_x| / step))``.
    """
    mat = np.array(sorted(deps)).T
    need = np.maximum(1, -(-np.abs(mat).max(axis=0) // step))
    for b in range(bound + 1):
        cands = np.array(list(itertools.product(range(-b, b + 1), repeat=mat.shape[0])))
        if (cands @ mat >= need).all(axis=1).any():
            return b
    return None
