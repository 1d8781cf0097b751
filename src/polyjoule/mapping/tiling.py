"""LSGP tiling of a PRA onto a processor array, and the cases of every dependence.

Per dimension ``l``: ``i_l = j_l + p_l * k_l`` with ``0 <= j_l < p_l`` (intra-tile index)
and ``0 <= k_l < t_l`` (tile index = PE coordinate). Array axes of size 1 are dropped and the
remaining axes are assigned to dims 0, 1, ... in order; other dims are sequential (``t = 1``).
Default tile size ``p_l = ceil(E_l / t_l)``; the effective tile count is ``ceil(E_l / p_l)``.

A transport ``x[i] = y[i - d]`` splits into cases per dimension with ``d_l != 0``: *intra*
(``j - d`` stays in the tile) or *inter* (it crosses into the neighbour tile: ``d_k = sign(d)``,
``d_j = d - sign(d) * p``). Tile sizes must be at least ``|d_l|`` so one neighbour suffices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import TypeVar

import numpy as np

from polyjoule.errors import InfeasibleMapping, SpecError
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.pra import PRA, Statement

#: one entry per dim of a kernel-wide option (tile sizes, dim names)
S = TypeVar("S", bound=Sequence)

#: Accesses one execution of a case makes, per class (see docs/model.md).
PATHS: dict[str, dict[str, int]] = {
    "input": {"DR": 1, "IOb": 1, "ID": 1},  # DR -> IOb -> ID of the PE that needs it
    "output": {"OD": 1, "IOb": 1, "DR": 1},  # OD -> IOb -> DR
    "zero": {"RD": 1},  # copy inside one iteration
    "intra": {"FD": 1},  # feedback register of the same PE
    "inter": {"OD": 1, "ID": 1},  # producer's output port -> consumer's input port
}


@dataclass(frozen=True)
class Tiling:
    """Tile counts per dim (``t``, from the array) and optional explicit tile sizes."""

    array: tuple[int, int]
    t: tuple[int, ...]
    p: tuple[int, ...] | None = None
    #: ``p`` is a user's (``--tile``, ``tile=``; :meth:`of`): a size beyond its dim takes
    #: effect as one tile of the extent (:meth:`sizes_many`)
    given: bool = False

    @staticmethod
    def of(pra: PRA, array: tuple[int, ...], tile: tuple[int, ...] | None = None) -> Tiling:
        if len(array) == 1:
            array = (1, array[0])
        if len(array) != 2 or any(a < 1 for a in array):
            raise SpecError(f"--array: {array} is not ROWSxCOLS with positive sizes")
        axes = [a for a in array if a != 1]
        if len(axes) > pra.n:
            raise InfeasibleMapping(
                f"--array: {array[0]}x{array[1]} has {len(axes)} axes but {pra.name} has "
                f"{pra.n} dim{'s' * (pra.n != 1)} (a 1-D array: --array 1x{max(axes)})"
            )
        t = tuple(axes[l] if l < len(axes) else 1 for l in range(pra.n))
        if tile is not None:
            if len(tile) != pra.n:
                raise SpecError(f"--tile: {len(tile)} sizes given, {pra.name} has {pra.n} dims")
            if any(x < 1 for x in tile):
                raise SpecError(f"--tile: tile sizes must be positive, got {tile}")
        return Tiling((array[0], array[1]), t, tile, tile is not None)

    def tiled(self, l: int) -> bool:
        """Is dim ``l`` spread over PEs (its tile count may exceed 1)?"""
        return self.t[l] > 1

    def dropped(self, pra: PRA, values: Mapping[str, int]) -> list[tuple[int, int, int]]:
        """``(dim, size given, extent)`` of every given tile size that does not take effect:
        a dim off the array is one tile, its extent, whatever smaller size was asked for it
        (a size at least the extent is that one tile, as on a tiled dim: :meth:`sizes_many`)."""
        if self.p is None:
            return []
        out = []
        for l, d in enumerate(pra.dims):
            e = int(d.extent.evaluate(values))
            if not self.tiled(l) and self.p[l] < e:
                out.append((l, self.p[l], e))
        return out

    def sizes(self, pra: PRA, values: Mapping[str, int]) -> tuple[int, ...]:
        """Concrete tile sizes ``p`` for parameter values, refused when the tiling rules of
        :mod:`polyjoule.mapping.legality` do not hold there."""
        from polyjoule.mapping.legality import phase_reason, refusal

        why = phase_reason(pra, self, values)
        if why is not None:
            raise refusal(why, [(pra, self)], values)
        return tuple(int(p) for p in self.sizes_many(pra, values))

    def sizes_many(self, pra: PRA, values: Mapping[str, object]) -> list:
        """Tile sizes per dim for arrays of parameter values (vectorised, unchecked).

        A user's size beyond its dim's extent takes effect as the extent: one tile spans
        the dim either way, and the larger tile only added empty rows to the schedule
        (``--tile 1000,1000`` at N=10 ran 9,012 cycles, ``10,10`` 102). Dims given one
        size keep sharing it (their counts share one ``p``): it is cut to the largest of
        their extents, and never below a dependence distance along them."""
        out = []
        cut = self._cut(pra, values) if self.given else None
        for l, d in enumerate(pra.dims):
            e = np.asarray(d.extent.evaluate(values))
            if self.tiled(l) and self.p is not None:
                p = np.full_like(e, self.p[l])
                out.append(p if cut is None else np.minimum(p, cut[int(self.p[l])]))
            elif self.tiled(l):
                out.append(-(-e // self.t[l]))
            else:
                out.append(e)
        return out

    def _cut(self, pra: PRA, values: Mapping[str, object]) -> dict[int, np.ndarray]:
        """Per given size of the tiled dims: the largest size that takes effect (the
        largest extent among the dims given it, at least their dependence distances)."""
        assert self.p is not None
        need = min_tile(pra)
        out: dict[int, np.ndarray] = {}
        for l, d in enumerate(pra.dims):
            if self.tiled(l):
                top = np.maximum(np.asarray(d.extent.evaluate(values)), need[l])
                q = int(self.p[l])
                out[q] = top if q not in out else np.maximum(out[q], top)
        return out


@dataclass(frozen=True)
class Case:
    """One case of a statement after tiling: where its value lives and how many accesses."""

    statement: Statement
    name: str  # input, output, compute, zero, intra, inter(...)
    cls: str  # location class of the case
    crossing: tuple[int, ...]  # per dim: 0 intra, else d_k (+1/-1) for transports

    @property
    def accesses(self) -> dict[str, int]:
        s = self.statement
        if s.kind == "compute":
            assert s.expr is not None
            return {"RD": len(s.expr.operands) + 1}
        if s.kind in ("input", "output"):
            return PATHS[s.kind]
        return PATHS["inter" if any(self.crossing) else ("intra" if any(s.dep or ()) else "zero")]

    def conditions(self, dims: tuple[str, ...], p: Mapping[int, Affine]) -> list[Constraint]:
        """Constraints on the intra-tile indices ``j`` selecting this case.

        ``p[l]`` is the tile size of dim ``l`` as an affine term (a symbol or a number).
        """
        out: list[Constraint] = []
        dep = self.statement.dep
        if dep is None:
            return out
        for l, (d, c) in enumerate(zip(dep, self.crossing, strict=True)):
            if d == 0 or l not in p:
                continue
            j = Affine.of({f"j_{dims[l]}": 1})
            if d > 0:
                # intra: j >= d ; inter: j <= d - 1
                out.append(Constraint(j.shift(-d)) if c == 0 else Constraint(-j.shift(-(d - 1))))
            else:
                # intra: j - d <= p - 1 ; inter: j - d >= p
                if c == 0:
                    out.append(Constraint(p[l] - j.shift(-d).shift(1)))
                else:
                    out.append(Constraint(j.shift(-d) - p[l]))
        return out


def cases(pra: PRA, tiling: Tiling) -> list[Case]:
    """Every statement case of ``pra`` under ``tiling``, in statement order."""
    out: list[Case] = []
    for s in pra.statements:
        if s.kind in ("input", "output"):
            cls = "DR"
            out.append(Case(s, s.kind, cls, ()))
        elif s.kind == "compute":
            out.append(Case(s, "compute", "RD", ()))
        else:
            assert s.dep is not None
            if not any(s.dep):
                out.append(Case(s, "zero", "RD", tuple(0 for _ in s.dep)))
                continue
            choices = [
                (0,) if d == 0 else ((0, 1 if d > 0 else -1) if tiling.tiled(l) else (0,))
                for l, d in enumerate(s.dep)
            ]
            for crossing in product(*choices):
                if any(crossing):
                    dims = [pra.dims[l].name for l, c in enumerate(crossing) if c]
                    out.append(Case(s, f"inter({','.join(dims)})", "ID", crossing))
                else:
                    out.append(Case(s, "intra", "FD", crossing))
    return out


def per_phase(pra: PRA, given: S | None) -> S | None:
    """A kernel's option of one entry per dim (``--tile``, ``--order``) as one phase takes it:
    phases with as many dims take it, the others keep their default (what the schedules and
    the simulator tile and scan by)."""
    return given if given is not None and len(given) == pra.n else None


def min_tile(pra: PRA) -> tuple[int, ...]:
    """Smallest legal tile size per dim: at least every dependence distance along it."""
    need = [1] * pra.n
    for s in pra.statements:
        for l, d in enumerate(s.dep or ()):
            need[l] = max(need[l], abs(d))
    return tuple(need)
