"""Layers larger than MAXDIM: host blocks, each one program, run in sequence.

A GEMM whose extents exceed the build's MAXDIM x MAXDIM images is split by the host
into ``mb x nb`` output blocks; every block runs the same program over its own images
and the cycles are summed. K is never split across programs: mvout saturates to int8,
so a partial sum could not leave one program and enter the next exactly. Instead the
host *folds* K into the images (``F = K / MAXDIM`` folds):

* A block (mb x K): element (m, k) at row ``(k // MAXDIM) * mb + m``, column ``k % MAXDIM``;
* B block (K x nb): element (k, n) at row ``k % MAXDIM``, column ``(k // MAXDIM) * nb + n``;
* C block (mb x nb) at the origin.

The block program is the shipped GEMM nest (n-tiles outer, the k=0 tile peeled) with
activation k-tiles ``mb`` vr rows apart and weight n-tiles ``K`` spad rows apart, the
folds unrolled in the staging loops.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from polyjoule.errors import Refused
from polyjoule.targets.tinytpu.isa import Instr, Op, Term
from polyjoule.targets.tinytpu.params import ABI, Config


@dataclass(frozen=True)
class Block:
    """One host block: rows ``mb``, the whole reduce ``K``, columns ``nb``."""

    mb: int
    K: int
    nb: int

    def folds(self, cfg: Config) -> int:
        return max(1, self.K // cfg.MAXDIM)

    def misfit(self, cfg: Config) -> str | None:
        """Why this block's images or on-chip buffers do not fit ``cfg`` (None: they do)."""
        return next((why for ok, why in self.checks(cfg) if not ok), None)

    def passed(self, cfg: Config) -> int:
        """How many of the checks, in order, this block passes before its first misfit."""
        return next((i for i, (ok, _) in enumerate(self.checks(cfg)) if not ok),
                    len(self.checks(cfg)))

    def checks(self, cfg: Config) -> tuple[tuple[bool, str], ...]:
        """(holds, why not) of every rule a block must meet, in the order they are asked."""
        T, md, F = cfg.T, cfg.MAXDIM, self.folds(cfg)
        return (
            (self.K % T == 0 and self.nb % T == 0, f"K and nb must be multiples of T={T}"),
            (self.K <= md or self.K % md == 0, f"K={self.K} folds only in whole MAXDIM={md}"),
            (cfg.AR_RAW_DIST <= self.mb <= min(md, cfg.MAXROWS),
             f"mb={self.mb} outside AR_RAW_DIST..MAXROWS"),
            (F * self.mb <= md, f"{F} folds of {self.mb} A rows > MAXDIM={md}"),
            (F * self.nb <= md, f"{F} folds of {self.nb} B columns > MAXDIM={md}"),
            (self.K // T * self.mb <= cfg.NVR, f"activations need more than NVR={cfg.NVR}"),
            (self.nb // T * self.K <= cfg.SPAD_ROWS, f"weights need more than "
                                                     f"SPAD_ROWS={cfg.SPAD_ROWS}"),
        )


def program(b: Block, relu: bool, cfg: Config) -> list[Instr]:
    """The block program over the folded images (see the module docstring)."""
    T, md, F = cfg.T, cfg.MAXDIM, b.folds(cfg)
    C, Kt, Nt = min(b.K, md) // T, b.K // T, b.nb // T
    A_VR, B_SP, AR_C = ABI.A_VR, ABI.B_SP, ABI.AR_C
    p: list[Instr] = []
    for f in range(F):
        p += [Instr(Op.LOOP, nr=C),
              Instr(Op.DMA_LD, (2, f * b.mb, 0, A_VR + f * C * b.mb), b.mb,
                    (Term(2, 0, 1), Term(3, 0, b.mb))),
              Instr(Op.ENDLOOP)]
    for f in range(F):
        p += [Instr(Op.LOOP, nr=Nt),
              Instr(Op.DMA_LD, (1, 0, f * Nt, B_SP + f * md), min(b.K, md),
                    (Term(2, 0, 1), Term(3, 0, b.K))),
              Instr(Op.ENDLOOP)]
    p += [Instr(Op.LOOP, nr=Nt), Instr(Op.MM, (A_VR, AR_C, 0, B_SP), b.mb, (Term(3, 0, b.K),))]
    if Kt > 1:
        p += [Instr(Op.LOOP, nr=Kt - 1),
              Instr(Op.MM, (A_VR + b.mb, AR_C, 1, B_SP + T), b.mb,
                    (Term(0, 1, b.mb), Term(3, 0, b.K), Term(3, 1, T))),
              Instr(Op.ENDLOOP)]
    if relu:
        p.append(Instr(Op.VRELU, (AR_C, AR_C, 0, 0), b.mb))
    p += [Instr(Op.MVOUT, (AR_C, 0, 0, 0), b.mb, (Term(2, 0, 1),)), Instr(Op.ENDLOOP)]
    return p


def blocks(extents: Mapping[str, int], roles: tuple[str, str, str], cfg: Config
           ) -> list[Block]:
    """Every block shape that fits ``cfg`` and tiles the layer, largest first."""
    row, red, col = roles
    M, K, N = extents[row], extents[red], extents[col]
    cap = cfg.MAXDIM  # mb and nb past MAXDIM never fit an image: the walk is extent-free
    out = [Block(mb, K, nb) for mb in range(min(M, cap), 0, -1) if M % mb == 0
           for nb in range(min(N, cap), 0, -1) if N % nb == 0]
    return [b for b in out if b.misfit(cfg) is None]


def none_fits(extents: Mapping[str, int], roles: tuple[str, str, str], cfg: Config) -> str:
    """Why :func:`blocks` is empty: the candidate block that meets the most rules (the
    largest of those) and the first rule it misses."""
    row, red, col = roles
    M, K, N = extents[row], extents[red], extents[col]
    cands = [Block(mb, K, nb) for mb in range(min(M, cfg.MAXDIM), 0, -1) if M % mb == 0
             for nb in range(min(N, cfg.MAXDIM), 0, -1) if N % nb == 0]
    b = max(cands, key=lambda b: (b.passed(cfg), b.mb * b.nb))
    return (f"no host block fits (blocks {row}b x {red} x {col}b, {red} never split); the "
            f"nearest, {b.mb}x{b.K}x{b.nb}: {b.misfit(cfg)}")


def pack(b: Block, A: np.ndarray, B: np.ndarray, i: int, j: int, cfg: Config
         ) -> tuple[np.ndarray, np.ndarray]:
    """The folded A and B images of output block (i, j) of the layer A @ B."""
    md, F = cfg.MAXDIM, b.folds(cfg)
    w = min(b.K, md)
    Ai = np.zeros((md, md), np.int8)
    Bj = np.zeros((md, md), np.int8)
    for f in range(F):
        ks = slice(f * w, (f + 1) * w)
        Ai[f * b.mb:(f + 1) * b.mb, :w] = A[i * b.mb:(i + 1) * b.mb, ks]
        Bj[:w, f * b.nb:(f + 1) * b.nb] = B[ks, j * b.nb:(j + 1) * b.nb]
    return Ai, Bj


def check_band(tile: Mapping[str, int], roles: tuple[str, str, str],
               extents: Mapping[str, int], cfg: Config) -> Block:
    """The block a nest's intrinsic band names, or ``Refused`` (capacity) with why."""
    row, red, col = roles
    b = Block(tile.get(row, 1), tile.get(red, 1), tile.get(col, 1))
    if b.K != extents[red]:
        raise Refused("intrinsic", f"a host block must carry the whole {red}: mvout "
                      "saturates, so partial sums cannot pass between programs")
    why = b.misfit(cfg)
    if why:
        raise Refused("capacity", f"block {b.mb}x{b.K}x{b.nb}: {why}")
    return b
