"""Emission: the TinyTPU-isa program of a structurally accepted nest (sheet §7).

The reduce loop splits the emitted loops into ``above`` and ``below`` (empty unless
acc-position was relieved). k=0 is peeled (``acc`` has no predicate): per term, one
overwriting pass over the ``below`` tiles, then ``Rt-1`` accumulating passes; then one
output pass. Activations are (re)staged right after the innermost row loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from polyjoule.errors import NestError
from polyjoule.model.workload import Workload
from polyjoule.search.nest import MapNest
from polyjoule.targets.tinytpu.isa import Instr, Op, Term
from polyjoule.targets.tinytpu.nestgen import NestGen
from polyjoule.targets.tinytpu.params import Config

if TYPE_CHECKING:
    from polyjoule.targets.tinytpu.target import Placement, Roles


def emit(workload: Workload, extents: Mapping[str, int], roles: Roles, emitted: MapNest,
         rows: int, pl: Placement, cfg: Config) -> list[Instr]:
    """The program of ``emitted`` (the nest without its intrinsic band) at ``rows``."""
    return Emitter(workload, extents, roles, emitted, rows, pl, cfg).program()


def split_at_reduce(emitted: MapNest, reduce: str) -> tuple[MapNest, int, MapNest]:
    """(loops above the reduce loop, its trip count, loops below it)."""
    at = [i for i, lp in enumerate(emitted) if lp.rank == reduce]
    if len(at) > 1:
        raise NestError(f"{reduce} split over {len(at)} loops: no emission rule for a split "
                        "accumulation")
    if not at:
        return emitted, 1, ()
    return emitted[:at[0]], emitted[at[0]].factor, emitted[at[0] + 1:]


class Emitter:
    """Drives one :class:`NestGen` through staging, the contraction passes and output."""

    def __init__(self, workload: Workload, extents: Mapping[str, int], roles: Roles,
                 emitted: MapNest, rows: int, pl: Placement, cfg: Config) -> None:
        self.wl, self.ext, self.ro, self.rows, self.pl, self.cfg = (
            workload, extents, roles, rows, pl, cfg)
        self.above, self.rt, self.below = split_at_reduce(emitted, roles.reduce)
        tiles = 1
        for lp in self.below:
            tiles *= lp.factor if lp.rank in (roles.row, roles.column) else 1
        if rows * tiles > cfg.MAXDIM:
            raise NestError(f"{tiles} accumulator tiles of {rows} rows exceed one ar region "
                            f"({cfg.MAXDIM} rows)", "capacity")
        row_at = [i for i, lp in enumerate(emitted) if lp.rank == roles.row]
        self.last_row = row_at[-1] if row_at else None
        self.below_at = len(emitted) - len(self.below)
        self.g = NestGen(cfg)
        self.base = 0

    def program(self) -> list[Instr]:
        if self.last_row is None:
            self.stage_activations()
        self.stage_weights()
        self.band(self.above, 0)
        self.base = self.g.depth
        for i, (act, wgt) in enumerate(self.wl.contractions):
            self.contraction(self.pl.acts[act][2], self.pl.wgts[wgt][2], self.pl.ar[i])
        n = self.band(self.below, None)
        self.output()
        self.close(n)
        self.close(len(self.above))
        return self.g.done()

    def stage_weights(self) -> None:
        T, st, g = self.cfg.T, self.cfg.MAXDIM, self.g
        for _act, wgt in self.wl.contractions:
            r0, cb, sp = self.pl.wgts[wgt]
            lv = g.open(self.ext[self.ro.column] // T)
            g.emit(Op.DMA_LD, (1, r0, cb, sp), self.ext[self.ro.reduce],
                   [Term(2, lv, 1), Term(3, lv, st)])
            g.close()

    def stage_activations(self) -> None:
        T, st, g = self.cfg.T, self.cfg.MAXDIM, self.g
        for act, _wgt in self.wl.contractions:
            r0, cb, vr = self.pl.acts[act]
            rterms = g.terms(1, self.ro.row, self.rows)
            lv = g.open(self.ext[self.ro.reduce] // T)
            g.emit(Op.DMA_LD, (2, r0, cb, vr), self.rows,
                   [*rterms, Term(2, lv, 1), Term(3, lv, st)])
            g.close()

    def band(self, loops: MapNest, at: int | None) -> int:
        """Open ``loops`` (``emitted[at:]``); stage activations after the innermost row
        loop when ``at`` is given; return how many were opened."""
        for j, lp in enumerate(loops):
            self.g.open(lp.factor, lp.rank)
            if at is not None and at + j == self.last_row:
                self.stage_activations()
        return len(loops)

    def close(self, n: int) -> None:
        for _ in range(n):
            self.g.close()

    def tile(self, field: int) -> list[Term]:
        """Terms indexing the accumulator tile by the loops below the ``above`` band."""
        return self.g.tile_terms(field, (self.ro.row, self.ro.column), self.rows, self.base)

    def contraction(self, vr: int, sp: int, ar: int) -> None:
        """One term: an overwriting pass, then ``rt - 1`` accumulating passes."""
        T, st, g, col = self.cfg.T, self.cfg.MAXDIM, self.g, self.ro.column
        n = self.band(self.below, self.below_at)
        g.emit(Op.MM, (vr, ar, 0, sp), self.rows, [*self.tile(1), *g.terms(3, col, st)])
        self.close(n)
        if self.rt > 1:
            kl = g.open(self.rt - 1)
            n = self.band(self.below, self.below_at)
            g.emit(Op.MM, (vr + st, ar, 1, sp + T), self.rows,
                   [Term(0, kl, st), *self.tile(1), *g.terms(3, col, st), Term(3, kl, T)])
            self.close(n)
            g.close()

    def output(self) -> None:
        """Sum the terms into the first ar region, apply the epilogue, move out."""
        g, res = self.g, self.pl.ar[0]
        for i in range(1, len(self.wl.contractions)):
            g.emit(Op.VADD, (res, res, self.pl.ar[i], 0), self.rows,
                   [*self.tile(0), *self.tile(1), *self.tile(2)])
        for op in self.wl.epilogue:
            if op != "relu":
                raise NestError(f"epilogue {op!r} has no TinyTPU-isa instruction")
            g.emit(Op.VRELU, (res, res, 0, 0), self.rows, [*self.tile(0), *self.tile(1)])
        g.emit(Op.MVOUT, (res, 0, 0, 0), self.rows,
               [*self.tile(0), *g.terms(1, self.ro.row, self.rows),
                *g.terms(2, self.ro.column, 1)])
