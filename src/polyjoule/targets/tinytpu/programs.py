"""Reference programs: the shipped tiled GEMM (sheet §12, word for word) and its unrolled twin.

They are the regression anchors for the encoder, checker, header, reference model
and cycle model: static/dynamic counts and header formulas are known in closed form.
"""

from __future__ import annotations

from polyjoule.errors import ParameterRangeError
from polyjoule.targets.tinytpu.isa import Instr, Op, Term
from polyjoule.targets.tinytpu.params import ABI, DEFAULT, Config


def _check_shape(M: int, K: int, N: int, cfg: Config) -> None:
    for name, v in (("M", M), ("K", K), ("N", N)):
        if v < cfg.T or v % cfg.T or v > cfg.MAXDIM:
            raise ParameterRangeError(f"{name}={v}: the shipped GEMM needs a positive multiple "
                                      f"of T={cfg.T} no larger than MAXDIM={cfg.MAXDIM}")
    for name, v in (("M", M), ("K", K)):
        if v > cfg.MAXROWS:
            raise ParameterRangeError(f"{name}={v} > MAXROWS={cfg.MAXROWS}: one instruction "
                                      "moves at most MAXROWS rows")


def gemm_program(M: int, K: int, N: int, relu: bool = False,
                 cfg: Config = DEFAULT) -> list[Instr]:
    """C[:M,:N] = sat8(A[:M,:K] @ B[:K,:N]) (optionally relu'd) as the shipped loop nest.

    Layout: A k-block kb row m at vr ``A_VR + kb*MAXDIM + m``; B n-block nb row k at
    spad ``B_SP + nb*MAXDIM + k``; the output tile accumulates in ar ``AR_C``. The
    first k-tile is peeled (overwrite) because ``acc`` has no iv predicate.
    """
    _check_shape(M, K, N, cfg)
    T, st = cfg.T, cfg.MAXDIM
    Kt, Nt = K // T, N // T
    A_VR, B_SP, AR_C = ABI.A_VR, ABI.B_SP, ABI.AR_C
    p = [
        Instr(Op.LOOP, nr=Kt),
        Instr(Op.DMA_LD, (2, 0, 0, A_VR), M, (Term(2, 0, 1), Term(3, 0, st))),
        Instr(Op.ENDLOOP),
        Instr(Op.LOOP, nr=Nt),
        Instr(Op.DMA_LD, (1, 0, 0, B_SP), K, (Term(2, 0, 1), Term(3, 0, st))),
        Instr(Op.ENDLOOP),
        Instr(Op.LOOP, nr=Nt),
        Instr(Op.MM, (A_VR, AR_C, 0, B_SP), M, (Term(3, 0, st),)),
    ]
    if Kt > 1:
        p += [
            Instr(Op.LOOP, nr=Kt - 1),
            Instr(Op.MM, (A_VR + st, AR_C, 1, B_SP + T), M,
                  (Term(0, 1, st), Term(3, 0, st), Term(3, 1, T))),
            Instr(Op.ENDLOOP),
        ]
    if relu:
        p.append(Instr(Op.VRELU, (AR_C, AR_C, 0, 0), M))
    p += [
        Instr(Op.MVOUT, (AR_C, 0, 0, 0), M, (Term(2, 0, 1),)),
        Instr(Op.ENDLOOP),
    ]
    return p


def gemm_program_flat(M: int, K: int, N: int, relu: bool = False,
                      cfg: Config = DEFAULT) -> list[Instr]:
    """The same GEMM fully unrolled with absolute addresses: identical dynamic stream."""
    _check_shape(M, K, N, cfg)
    T, st = cfg.T, cfg.MAXDIM
    Kt, Nt = K // T, N // T
    A_VR, B_SP, AR_C = ABI.A_VR, ABI.B_SP, ABI.AR_C
    p = [Instr(Op.DMA_LD, (2, 0, kb, A_VR + kb * st), M) for kb in range(Kt)]
    p += [Instr(Op.DMA_LD, (1, 0, nb, B_SP + nb * st), K) for nb in range(Nt)]
    for nb in range(Nt):
        p.append(Instr(Op.MM, (A_VR, AR_C, 0, B_SP + nb * st), M))
        for kb in range(1, Kt):
            p.append(Instr(Op.MM, (A_VR + kb * st, AR_C, 1, B_SP + nb * st + kb * T), M))
        if relu:
            p.append(Instr(Op.VRELU, (AR_C, AR_C, 0, 0), M))
        p.append(Instr(Op.MVOUT, (AR_C, 0, nb, 0), M))
    return p


def vadd_program(cfg: Config = DEFAULT) -> list[Instr]:
    """relu(2*(A@B)) on the first T x T output tile: two mm, vaddrelu-free vadd + vrelu, mvout.

    Exercises vadd and vrelu on separate ar regions (AR_C and AR_P).
    """
    T = cfg.T
    AR_P = ABI.AR_P(cfg)
    return [
        Instr(Op.DMA_LD, (2, 0, 0, ABI.A_VR), T),
        Instr(Op.DMA_LD, (1, 0, 0, ABI.B_SP), T),
        Instr(Op.MM, (ABI.A_VR, ABI.AR_C, 0, ABI.B_SP), T),
        Instr(Op.MM, (ABI.A_VR, AR_P, 0, ABI.B_SP), T),
        Instr(Op.VADD, (ABI.AR_C, ABI.AR_C, AR_P, 0), T),
        Instr(Op.VRELU, (ABI.AR_C, ABI.AR_C, 0, 0), T),
        Instr(Op.MVOUT, (ABI.AR_C, 0, 0, 0), T),
    ]
