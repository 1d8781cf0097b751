"""Capacity and bandwidth rules of a declared array, as formulas in the tile sizes.

A mapping the schedule accepts may still not fit the PEs it runs on. Each rule is a named
cause (``docs/arch.md``, "Capacity rules"):

* ``fd-depth``: an intra-tile dependence ``d`` keeps a value in the PE's feedback FIFO from
  its producer's start to its consumer's, ``lambda_J . d`` cycles: ``ceil(lambda_J . d / pi)``
  values are in flight (GESUMMV, ``lambda_J = (1, p0)``: the propagation along ``i1`` needs
  ``p0``). Counted only where the intra-tile case has points.
* ``fd-count``: one FIFO per transport statement whose intra-tile case has points.
* ``rd-count``: one RD register per value an iteration keeps in the PE (compute results and
  copies); assumes an iteration's values die before the PE's next iteration writes them.
* ``iob-capacity``: I/O buffer words per tile (IOb accesses / PEs used, rounded up): a
  tile's inputs and outputs staged in a border buffer, against the smallest border.
* ``dram-bandwidth``: DRAM words / latency against the declared words per cycle; with
  ``bandwidth_bound`` the latency is stretched to ``ceil(words / bandwidth)`` instead.

Derived once per (phase, scanning order) as sympy, compiled to numpy and evaluated for
every point at once; the simulator (:mod:`polyjoule.analysis.simulator`) measures the same
quantities by running the mapping, sharing none of this code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import sympy

from polyjoule.analysis.intprint import compile_exprs
from polyjoule.analysis.scan import ScanSchedule
from polyjoule.mapping.legality import Causes, Illegal
from polyjoule.model.pra import PRA

CAUSES = ("fd-depth", "fd-count", "rd-count", "iob-capacity", "dram-bandwidth")


@dataclass(frozen=True)
class FifoDemand:
    """The FIFO one transport statement needs under one scanning order."""

    statement: str
    depth: sympy.Expr  # lambda_J . d (cycles a value waits), in the tile sizes p0, p1, ...
    case: Any  # the intra-tile Dependence (which points it has)


@dataclass
class FifoRules:
    """``fd-depth`` and ``fd-count`` of one scanning order, compiled once."""

    candidate: ScanSchedule
    pi: int = 1

    @cached_property
    def demands(self) -> tuple[FifoDemand, ...]:
        c, n = self.candidate, self.candidate.pra.n
        return tuple(FifoDemand(d.statement, sympy.expand(sum(
            (c.lambda_J[l] * d.d_j[l] for l in range(n)), sympy.Integer(0))), d)
            for d in c.deps if not any(d.d_k) and any(d.dist))

    @cached_property
    def _fn(self) -> Any:
        n = self.candidate.pra.n
        exprs = [f.depth for f in self.demands] or [sympy.Integer(0)]
        return compile_exprs(exprs, [f"p{l}" for l in range(n)], {}, vector=True)

    def formulas(self) -> dict[str, sympy.Expr]:
        """Per FIFO (transport statement) the cycles its values wait."""
        return {f.statement: f.depth for f in self.demands}

    def needs(self, extents: Sequence[Any], p: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Per point: the deepest FIFO (words) and how many FIFOs hold values."""
        shape = np.broadcast_shapes(*(np.shape(x) for x in (*extents, *p)))
        depth = np.zeros(shape, dtype=np.int64)
        per: dict[str, np.ndarray] = {}
        if not self.demands:
            return depth, depth.copy()
        vals = self._fn(*(np.asarray(x) for x in p))
        if len(self.demands) == 1:
            vals = [vals]
        for f, v in zip(self.demands, vals, strict=True):
            has = np.broadcast_to(f.case.nonempty(extents, p), shape)
            words = np.where(has, -(-np.asarray(v, dtype=np.int64) // self.pi), 0)
            depth = np.maximum(depth, words)
            per[f.statement] = per.get(f.statement, np.zeros(shape, bool)) | (has & (words > 0))
        count = np.sum([np.broadcast_to(m, shape) for m in per.values()], axis=0)
        return depth, np.asarray(count, dtype=np.int64)


def rd_need(pra: PRA) -> int:
    """RD registers one iteration uses: one per variable a compute or an in-PE copy writes."""
    return len({s.var for s in pra.statements
                if s.kind == "compute" or (s.kind == "transport" and not any(s.dep or ()))})


def io_needs(iob_words: Any, dr_words: Any, pes: Any, latency: Any
             ) -> tuple[np.ndarray, np.ndarray]:
    """(I/O buffer words per tile, DRAM words per cycle), per point."""
    pes = np.maximum(np.asarray(pes, dtype=np.int64), 1)
    per_tile = -(-np.asarray(iob_words, dtype=np.int64) // pes)
    rate = np.asarray(dr_words, dtype=np.float64) / np.maximum(np.asarray(latency), 1)
    return per_tile, rate


def bandwidth_latency(latency: Any, dr_words: Any, words_per_cycle: float) -> np.ndarray:
    """The latency a DRAM of ``words_per_cycle`` allows: at least ``ceil(words / bw)``."""
    floor = np.ceil(np.asarray(dr_words, dtype=np.float64) / words_per_cycle).astype(np.int64)
    return np.maximum(np.asarray(latency, dtype=np.int64), floor)


def check(out: Causes, caps: Any, needs: dict[str, Any], bandwidth_bound: bool = False) -> None:
    """Add to ``out`` every capacity rule ``needs`` violates against the declared ``caps``
    (a :class:`~polyjoule.targets.tcpa.array.Capacities`). ``needs`` maps a cause of
    :data:`CAUSES` to its demand per point (a missing cause is not checked)."""
    border = min(caps.iob_capacity_words.values(), default=0)
    limits = {"fd-depth": caps.fd_depth_words, "fd-count": caps.fd_count,
              "rd-count": caps.rd_count, "iob-capacity": border,
              "dram-bandwidth": caps.dram_bandwidth_words_per_cycle}
    units = {"fd-depth": "words per FIFO", "fd-count": "FIFOs per PE",
             "rd-count": "RD registers per PE", "iob-capacity": "words per border buffer",
             "dram-bandwidth": "DRAM words per cycle"}
    for cause in CAUSES:
        if cause not in needs or (cause == "dram-bandwidth" and bandwidth_bound):
            continue
        need, limit = np.asarray(needs[cause]), limits[cause]
        bad = need > limit
        if np.any(bad):
            worst = need[bad].max() if need.ndim else need
            out.add(Illegal(cause, f"needs up to {_fmt(worst)} {units[cause]}, the "
                            f"declaration has {_fmt(limit)}"), bad)


def _fmt(x: Any) -> str:
    x = float(x)
    return str(int(x)) if x == int(x) else f"{x:.2f}"
