"""Is a design point legal and schedulable? One rule, with a named reason when it is not.

A point is a (kernel phase, tiling, parameter values) with, once derived, the phase's
schedule. It is refused when

* ``empty-dimension``: a dim has no iteration (extent below 1);
* ``too-many-tiles``: explicit tile sizes need more tiles along a dim than the array has PEs;
* ``tile-below-dependence``: a tile is smaller than a dependence distance along its dim (one
  neighbour PE must hold every value a PE reads);
* ``no-schedule``: no scanning order satisfies every dependence case that has points there.

An array larger than the problem is legal: tiles of one iteration, idle PEs beyond the last
tile. ``analyze``, ``validate``/``simulate``, ``sweep`` and the compiled latency all ask
:func:`phase_verdict` (vectorised; :func:`phase_reason` is the same rule at one point).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from polyjoule.errors import InfeasibleMapping, InfeasibleSchedule, PolyjouleError
from polyjoule.mapping.tiling import Tiling, min_tile
from polyjoule.model.pra import PRA

CAUSES = ("empty-dimension", "too-many-tiles", "tile-below-dependence", "no-schedule")


@dataclass(frozen=True)
class Illegal:
    """Why a design point is refused: a cause from :data:`CAUSES` and what it concerns."""

    cause: str
    detail: str

    def __str__(self) -> str:
        return f"{self.detail} ({self.cause})"


@dataclass(frozen=True)
class Verdict:
    """Per point: ``-1`` when legal, else an index into ``reasons``."""

    code: np.ndarray
    reasons: tuple[Illegal, ...]

    @property
    def ok(self) -> np.ndarray:
        return self.code < 0

    def reason(self, i: int | tuple[int, ...] = ()) -> Illegal | None:
        c = int(self.code[i])
        return None if c < 0 else self.reasons[c]

    def first(self) -> Illegal | None:
        """The reason of the first refused point, if any."""
        bad = np.flatnonzero(self.code.reshape(-1) >= 0)
        return None if bad.size == 0 else self.reasons[int(self.code.reshape(-1)[bad[0]])]

    def refuse(self, bad: np.ndarray, why: Illegal) -> Verdict:
        """This verdict with ``why`` for the points in ``bad`` not refused already."""
        new = bad & (self.code < 0)
        if not new.any():
            return self
        reasons = self.reasons if why in self.reasons else (*self.reasons, why)
        return Verdict(np.where(new, reasons.index(why), self.code), reasons)


class Schedulable(Protocol):
    """A derived schedule: which points no scanning order can run, and why."""

    def verdict(self, extents: Sequence[np.ndarray], p: Sequence[np.ndarray]) -> Verdict: ...


def _too_many(extent: Any, p: Any, t: int) -> Any:
    """Does a tile size ``p`` cut a non-empty ``extent`` into more than ``t`` tiles (ints or
    arrays)?"""
    return (extent >= 1) & (-(-extent // np.maximum(p, 1)) > t)


def tile_verdict(pra: PRA, tiling: Tiling, values: Mapping[str, Any]
                 ) -> tuple[Verdict, list[np.ndarray], list[np.ndarray]]:
    """The tiling rules, with the extents and tile sizes per dim (arrays)."""
    extents = [np.asarray(d.extent.evaluate(values), dtype=np.int64) for d in pra.dims]
    shape = np.broadcast_shapes(*(e.shape for e in extents),
                                *(np.shape(values[k]) for k in pra.params))
    extents = [np.broadcast_to(e, shape) for e in extents]
    sizes = [np.broadcast_to(np.asarray(p, dtype=np.int64), shape) for p in tiling.sizes_many(pra, values)]
    v = Verdict(np.full(shape, -1, dtype=np.int64), ())
    need = min_tile(pra)
    for l, d in enumerate(pra.dims):
        e, p = extents[l], sizes[l]
        v = v.refuse(e < 1, Illegal("empty-dimension", f"dim {d.name}: extent {d.extent} below 1"))
        if not tiling.tiled(l):
            continue
        v = v.refuse(_too_many(e, p, tiling.t[l]), Illegal(
            "too-many-tiles", f"dim {d.name}: the tile size needs more than {tiling.t[l]} tiles"))
        v = v.refuse(p < need[l], Illegal(
            "tile-below-dependence", f"dim {d.name}: tile size below the dependence distance "
                                     f"{need[l]} (problem too small for the array, or --tile too small)"))
    return v, extents, sizes


def phase_verdict(pra: PRA, tiling: Tiling, values: Mapping[str, Any],
                  schedule: Schedulable | None = None) -> Verdict:
    """The one rule, vectorised over the points of ``values`` (arrays or ints).

    ``schedule``: the phase's derived schedule, or ``None`` to check the tiling only.
    """
    v, extents, sizes = tile_verdict(pra, tiling, values)
    if schedule is None or not v.ok.any():
        return v
    s = schedule.verdict(extents, [np.maximum(p, 1) for p in sizes])
    for c, why in enumerate(s.reasons):
        v = v.refuse(s.code == c, why)
    return v


def phase_reason(pra: PRA, tiling: Tiling, values: Mapping[str, int],
                 schedule: Schedulable | None = None) -> Illegal | None:
    """:func:`phase_verdict` at one point."""
    return phase_verdict(pra, tiling, {k: int(values[k]) for k in pra.params}, schedule).reason()


def kernel_verdict(phases: Sequence[tuple[PRA, Tiling, Schedulable | None]],
                   values: Mapping[str, Any]) -> Verdict:
    """Every phase must be legal; a point takes the reason of its first refused phase."""
    out: Verdict | None = None
    for pra, tiling, schedule in phases:
        v = phase_verdict(pra, tiling, {k: values[k] for k in pra.params}, schedule)
        if out is None:
            out = v
            continue
        shape = np.broadcast_shapes(out.code.shape, v.code.shape)
        out = Verdict(np.broadcast_to(out.code, shape), out.reasons)
        for c, why in enumerate(v.reasons):
            out = out.refuse(np.broadcast_to(v.code == c, shape), why)
    assert out is not None, "a kernel has at least one phase"
    return out


@dataclass(frozen=True)
class Causes:
    """Every cause a point violates: one boolean mask per cause (the census' "every cause"
    and "independent" definitions), each with one reason naming it."""

    masks: dict[str, np.ndarray]
    reasons: dict[str, Illegal]

    @property
    def ok(self) -> np.ndarray:
        """Points no cause refuses."""
        out = np.asarray(True)
        for m in self.masks.values():
            out = out & ~m
        return out

    def add(self, why: Illegal, bad: np.ndarray) -> None:
        """Count ``why`` at the points of ``bad`` (first detail per cause kept)."""
        if not np.any(bad):
            return
        old = self.masks.get(why.cause)
        self.masks[why.cause] = bad if old is None else (old | bad)
        self.reasons.setdefault(why.cause, why)

    def first(self, order: Sequence[str]) -> np.ndarray:
        """Per point the index in ``order`` of its first cause, ``-1`` when legal."""
        shape = np.broadcast_shapes(*(np.shape(m) for m in self.masks.values()))
        code = np.full(shape, -1, dtype=np.int64)
        for i in range(len(order) - 1, -1, -1):
            m = self.masks.get(order[i])
            if m is not None:
                code = np.where(m, i, code)
        return code


def phase_causes(pra: PRA, tiling: Tiling, values: Mapping[str, Any],
                 schedule: Schedulable | None = None) -> Causes:
    """Every rule of :func:`phase_verdict` asked of every point on its own (not only the
    first that refuses it): per-cause masks, vectorised."""
    out = Causes({}, {})
    v, extents, sizes = tile_verdict(pra, tiling, values)
    # tile rules, each separately: a verdict per rule keeps the rule's own reason
    for c, why in enumerate(v.reasons):
        out.add(why, v.code == c)
    for l, d in enumerate(pra.dims):
        e, p = extents[l], sizes[l]
        if not tiling.tiled(l):
            continue
        need = min_tile(pra)[l]
        out.add(Illegal("tile-below-dependence", f"dim {d.name}: tile size below the dependence "
                        f"distance {need}"), p < need)
        out.add(Illegal("too-many-tiles", f"dim {d.name}: the tile size needs more than "
                        f"{tiling.t[l]} tiles"), _too_many(e, p, tiling.t[l]))
    if schedule is not None:
        s = schedule.verdict(extents, [np.maximum(p, 1) for p in sizes])
        for c, why in enumerate(s.reasons):
            out.add(why, s.code == c)
    return out


def refusal(why: Illegal, phases: Sequence[tuple[PRA, Tiling]] = (),
            values: Mapping[str, Any] | None = None) -> PolyjouleError:
    """The named error for a refused point, carrying its reason as data (``.reason``). At
    one point (``phases`` and scalar ``values`` given) the message also says the numbers
    behind a tile count (the reason stays one text for every point of a sweep)."""
    cls = InfeasibleSchedule if why.cause == "no-schedule" else InfeasibleMapping
    numbers = _tile_numbers(why, phases, values) if values is not None else ""
    err = cls(f"{why.detail}{numbers} ({why.cause})")
    err.reason = why  # type: ignore[attr-defined]
    return err


def _tile_numbers(why: Illegal, phases: Sequence[tuple[PRA, Tiling]],
                  values: Mapping[str, Any]) -> str:
    """`` (extent 74 in tiles of 16 is 5 tiles; tiles of 19 or more fit)`` for a
    too-many-tiles refusal at one point; empty otherwise."""
    if why.cause != "too-many-tiles" or any(np.ndim(v) for v in values.values()):
        return ""
    for pra, tiling in phases:
        vals = {k: int(values[k]) for k in pra.params}
        sizes = tiling.sizes_many(pra, vals)
        for l, d in enumerate(pra.dims):
            e, p = int(d.extent.evaluate(vals)), max(int(sizes[l]), 1)
            if (tiling.tiled(l) and why.detail.startswith(f"dim {d.name}:")
                    and _too_many(e, p, tiling.t[l])):
                return (f" (extent {e} in tiles of {p} is {-(-e // p)} tiles; tiles of "
                        f"{-(-e // tiling.t[l])} or more fit)")
    return ""
