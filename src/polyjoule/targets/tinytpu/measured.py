"""Measured co-simulation cycle counts of the shipped GEMM (tinytpu-isa sheet §14).

Vitis cosim/xsim, ``-m_axi_latency 0``, ap_start to ap_done, no host. Each row is
the shipped tiled GEMM (:func:`polyjoule.targets.tinytpu.programs.gemm_program`) on one
build (for the MLP layers an assumption, see :data:`MLP`); the cycle model is
compared against these, never fitted per row.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyjoule.targets.tinytpu.params import Config


@dataclass(frozen=True)
class Measurement:
    """One published cosim figure: which build, which GEMM, how many cycles."""

    series: str
    M: int
    K: int
    N: int
    cycles: int
    T: int = 4
    MAXDIM: int = 64
    QD: int = 16
    DMA_WORDS: int = 1
    relu: bool = False

    @property
    def shape(self) -> str:
        return f"{self.M}x{self.K}x{self.N}{' relu' if self.relu else ''}"

    def config(self) -> Config:
        return Config(T=self.T, MAXDIM=self.MAXDIM, QD=self.QD, DMA_WORDS=self.DMA_WORDS)


LATENCY_SHAPES = ((4, 4, 4), (8, 8, 8), (12, 12, 12), (16, 16, 8), (16, 16, 16))


def _row(series: str, cycles: tuple[int, ...], shapes=LATENCY_SHAPES, **kw) -> list[Measurement]:
    return [Measurement(series, M, K, N, c, **kw)
            for (M, K, N), c in zip(shapes, cycles, strict=True)]


STEADY_SHAPES = LATENCY_SHAPES + ((32, 32, 32), (48, 48, 48), (64, 64, 64), (64, 32, 64),
                                  (32, 64, 32))

#: The five latency shapes on the current builds (QD=16).
LATENCY_MD16 = _row("latency MAXDIM=16 QD=16", (175, 265, 421, 482, 674), MAXDIM=16)
LATENCY_MD64 = _row("latency MAXDIM=64 QD=16", (222, 361, 567, 676, 868))
#: Earlier builds (QD=8), same program.
LATENCY_MD16_QD8 = _row("latency MAXDIM=16 QD=8", (171, 261, 417, 483, 685), MAXDIM=16, QD=8)
#: Steady-state sweep, T=4, MAXDIM=64, QD=8.
STEADY_T4 = _row("steady T=4 MAXDIM=64 QD=8",
                 (218, 357, 563, 677, 879, 3752, 10289, 22123, 12907, 6824),
                 shapes=STEADY_SHAPES, QD=8)
#: T=8, MAXDIM=64 (same sweep, QD=8 era).
STEADY_T8 = _row("steady T=8 MAXDIM=64 QD=8", (285, 424, 493, 1484, 3537, 7083, 4523),
                 shapes=((8, 8, 8), (16, 16, 8), (16, 16, 16), (32, 32, 32), (48, 48, 48),
                         (64, 64, 64), (64, 32, 64)), T=8, QD=8)
#: Widened operand burst (TPU_DMA_WIDEN=1: DMA_WORDS = 16 at T=4, MAXDIM=64), QD=8 era.
WIDENED = _row("widened burst DMA_WORDS=16 QD=8", (9569, 21163),
               shapes=((48, 48, 48), (64, 64, 64)), QD=8, DMA_WORDS=16)
#: gemm.relu 16x16x16 (shipped mapping), MAXDIM=16, QD=8 era.
RELU = [Measurement("relu MAXDIM=16 QD=8", 16, 16, 16, 750, MAXDIM=16, QD=8, relu=True)]

#: MLP layers (workload_suite), T=4, MAXDIM=64, QD=16. The sheet does not print their
#: programs; we assume the mapper's pick is the shipped GEMM nest (rows = M, N > K).
_MLP_SHAPES = ((4, 16, 16), (4, 16, 16), (4, 16, 12), (4, 12, 8), (8, 32, 32), (8, 32, 16))
_MLP_RELU = (True, False, True, False, True, False)
MLP = [Measurement("mlp layers (assumed shipped)", M, K, N, c, relu=r)
       for (M, K, N), r, c in zip(_MLP_SHAPES, _MLP_RELU, (584, 566, 542, 407, 1636, 1145),
                                  strict=True)]
MLP_WIDENED = [Measurement("mlp layers widened DMA_WORDS=16", M, K, N, c, relu=r, DMA_WORDS=16)
               for (M, K, N), r, c in zip(_MLP_SHAPES, _MLP_RELU,
                                          (443, 420, 378, 270, 1156, 665), strict=True)]

ALL = (LATENCY_MD16 + LATENCY_MD64 + LATENCY_MD16_QD8 + STEADY_T4 + STEADY_T8 + WIDENED + RELU
       + MLP + MLP_WIDENED)
