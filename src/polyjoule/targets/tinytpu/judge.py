"""The judge: a program graded against a workload spec in three tiers (act-mapper sheet §14).

*legal* is :mod:`legality` (four layers, 23 rules). *correct* runs the program on
the reference model over images the spec lays out (inputs drawn from four
distributions, undeclared operand bytes per ``operand_pad``, C prefilled with
random bytes) and compares the output bytes with the spec's own gold, and every
byte outside the write window with its prefilled value. *fast* puts the event
model's cycles next to the published cheap estimate and, where published, the
reference submission's estimate and co-simulation figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from polyjoule.targets.tinytpu import measured, refmodel
from polyjoule.targets.tinytpu.assembler import header_of
from polyjoule.targets.tinytpu.cycles import simulate
from polyjoule.targets.tinytpu.isa import Instr
from polyjoule.targets.tinytpu.legality import Rejection, legal
from polyjoule.targets.tinytpu.measured import Measurement
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program
from polyjoule.targets.tinytpu.spec import WorkloadSpec

DISTRIBUTIONS = ("small", "mid", "full", "corner")
_CORNER = np.array([-128, -127, -1, 0, 1, 126, 127])

#: the cheap estimate (sheet §14): cycles = a + b * max header work over the five units
ESTIMATE = (173.2, 1.621)
ESTIMATE_UNITS = ("dma_ld", "spm", "vru", "accu", "dma_st")
#: the reference submission on T=4, MAXDIM=16 (QD=8 era): critical unit, work, its
#: estimate and its cosim cycles (None: never completed in cosim)
REFERENCE: dict[str, tuple[str, int, int, int | None]] = {
    "gemm_4x4x4": ("spm", 9, 188, 172), "gemm_8x8x8": ("vru", 48, 251, 262),
    "gemm_12x12x12": ("vru", 144, 407, 418), "gemm_16x16x8": ("vru", 192, 484, 484),
    "gemm_16x16x16": ("vru", 320, 692, 686),
    "gemm_relu_16x16x16": ("accu", 384, 796, 750),
    "gemm_reuse_m_16x16x4": ("vru", 128, 381, 383),
    "gemm_reuse_n_4x4x16": ("spm", 36, 232, 269),
    "gemm_reuse_k_4x16x4": ("spm", 36, 232, 256),
    "batched_matmul_2x4x4x4": ("spm", 18, 202, 209),
    "row_reduce_16x16": ("vru", 128, 381, 371), "relu_16x16": ("accu", 192, 484, None),
}
FAST_MARGIN = 1.10  # fast: within 10% of the reference submission's estimate


def draw(dist: str, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Operand values of one distribution (int8 range)."""
    if dist == "corner":
        return rng.choice(_CORNER, size=shape)
    lo, hi = {"small": (-8, 9), "mid": (-64, 64), "full": (-128, 128)}[dist]
    return rng.integers(lo, hi, size=shape)


def garbage(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Non-zero bytes, so a program relying on unwritten zeros is caught."""
    g = rng.integers(1, 128, size=shape) * rng.choice([-1, 1], size=shape)
    return g.astype(np.int8)


@dataclass(frozen=True)
class Trial:
    """One run: the distribution, output bytes off the gold, bytes changed outside the window."""

    dist: str
    wrong: int
    clobbered: int
    total: int

    @property
    def ok(self) -> bool:
        return self.wrong == 0 and self.clobbered == 0


def images(spec: WorkloadSpec, cfg: Config, dist: str, rng: np.random.Generator
           ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The DRAM images A, B, C the judge hands the program, and the input values."""
    shape = (cfg.MAXDIM, cfg.MAXDIM)
    pad = (lambda: garbage(shape, rng)) if spec.operand_pad == "arbitrary" else (
        lambda: np.zeros(shape, np.int8))
    img = {"A": pad(), "B": pad(), "C": rng.integers(-128, 128, size=shape).astype(np.int8)}
    values = {}
    for t in spec.inputs:
        values[t.name] = draw(dist, spec.extent(t), rng)
        img[t.buffer][spec.box(t)] = values[t.name]
    for c in spec.constants:
        img[c.buffer][spec.box(c)] = c.values()
    return img, values


def run_case(spec: WorkloadSpec, program: Sequence[Instr], cfg: Config, dist: str,
             seed: int) -> Trial:
    """Run once on the reference model and compare with the spec's gold."""
    img, values = images(spec, cfg, dist, np.random.default_rng(seed))
    C = refmodel.run(program, img["A"], img["B"], img["C"], cfg)
    box = spec.box(spec.output)
    gold = spec.gold(values)
    outside = np.ones(C.shape, dtype=bool)
    outside[spec.window(cfg.T)] = False
    return Trial(dist, int((C[box] != gold).sum()), int((C != img["C"])[outside].sum()),
                gold.size)


def correct(spec: WorkloadSpec, program: Sequence[Instr], cfg: Config,
            seed: int = 0) -> list[Trial]:
    """The four distributions, each on its own seed."""
    return [run_case(spec, program, cfg, d, seed + i) for i, d in enumerate(DISTRIBUTIONS)]


def exact_cosim(spec: WorkloadSpec, program: Sequence[Instr], cfg: Config
                ) -> Measurement | None:
    """The published cosim figure of exactly this program on exactly this build, if any.

    Published figures are of the shipped ``gemm_program``; the MLP rows are left out
    (their programs are an assumption, see :mod:`measured`).
    """
    from polyjoule.targets.tinytpu.corpus import gemm_shape

    shape = gemm_shape(spec, cfg)
    if shape is None:
        return None
    for m in measured.ALL:
        if (m.M, m.K, m.N, m.relu) == shape and not m.series.startswith("mlp") \
                and m.config().describe() == cfg.describe() \
                and tuple(program) == tuple(gemm_program(m.M, m.K, m.N, m.relu, cfg)):
            return m
    return None


@dataclass(frozen=True)
class Speed:
    """The fast tier: model cycles, the cheap estimate, and the published figures."""

    model: int
    unit: str
    work: int
    estimate: float
    reference: tuple[str, int, int, int | None] | None
    cosim: Measurement | None = None

    @property
    def fast(self) -> bool | None:
        if self.reference is None:
            return None
        return self.estimate <= FAST_MARGIN * self.reference[2]


def speed(spec: WorkloadSpec, program: Sequence[Instr], stream: Sequence, cfg: Config
          ) -> Speed:
    work = header_of(program, stream, cfg).unit_work()
    unit = max(ESTIMATE_UNITS, key=lambda u: work[u])
    ref = REFERENCE.get(spec.name) if (cfg.T, cfg.MAXDIM) == (4, 16) else None
    return Speed(simulate(program, cfg).cycles, unit, work[unit],
                 ESTIMATE[0] + ESTIMATE[1] * work[unit], ref, exact_cosim(spec, program, cfg))


@dataclass
class Grade:
    """A spec's grade: SKIPPED, NOT MAPPED, REJECTED, WRONG, KNOWN GAP or CORRECT."""

    spec: WorkloadSpec
    status: str
    detail: str = ""
    mapping: str = "-"
    rejection: Rejection | None = None
    cases: list[Trial] = field(default_factory=list)
    speed: Speed | None = None

    @property
    def failed(self) -> bool:
        return self.status in ("REJECTED", "WRONG")


def judge(spec: WorkloadSpec, program: Sequence[Instr], cfg: Config,
          image: Sequence[int] | None = None, mapping: str = "-", seed: int = 0) -> Grade:
    """All three tiers of one program; stops at the first tier it fails."""
    why = spec.fits(cfg)
    if why is not None:
        return Grade(spec, "SKIPPED", why, mapping)
    got = legal(program, cfg, spec, image)
    if isinstance(got, Rejection):
        return Grade(spec, "REJECTED", got.rule, mapping, rejection=got)
    stream, _ = got
    cases = correct(spec, program, cfg, seed)
    pace = speed(spec, program, stream, cfg)
    if all(c.ok for c in cases):
        return Grade(spec, "CORRECT", "", mapping, cases=cases, speed=pace)
    status = "KNOWN GAP" if spec.known_gap else "WRONG"
    return Grade(spec, status, spec.known_gap or "", mapping, cases=cases, speed=pace)


def judge_best(spec: WorkloadSpec, cfg: Config, seed: int = 0) -> Grade:
    """Judge the mapper's best program for ``spec`` (NOT MAPPED with the reason if none)."""
    from polyjoule.targets.tinytpu.corpus import map_spec

    why = spec.fits(cfg)
    if why is not None:
        return Grade(spec, "SKIPPED", why)
    m = map_spec(spec, cfg)
    if m.program is None:
        return Grade(spec, "NOT MAPPED", m.reason)
    return judge(spec, m.program, cfg, mapping=m.label, seed=seed)
