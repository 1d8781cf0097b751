"""The TinyTPU-isa build as data: parameters, derived constants, cross-parameter rules.

One frozen :class:`Config` is threaded through every tool (encoder, checker,
reference model, cycle model), so another build (T=8, MAXDIM=16, AGU_TERMS=4)
is a new value, never new code. Values and rules: tinytpu-isa sheet §9.
"""

from __future__ import annotations

from dataclasses import dataclass

from polyjoule.errors import SpecError

#: Fixed ISA constants (sheet §1, §7, §9).
NHDR = 8  # header words at the start of imem
IWORDS = 2  # imem words per instruction
OP_BITS = 6
FIELD_BITS = 12
NR_BITS = 8
TERM_BITS = 19  # one AGU term: target 4 + level 3 + stride 12
TARGET_BITS = 4
LEVEL_BITS = 3
STRIDE_BITS = 12
COUNT_BITS = 16  # header count slice
TEST_WINDOW = 64
BUS_BYTES = 64  # gmem0 is 512 bits wide: the prefetch moves 8 imem words per cycle
PREFETCH_WORDS = 8


def usable_max(bits: int) -> int:
    """Largest value an ``bits``-wide field may hold under the spare-bit rule (top bit spare)."""
    return (1 << (bits - 1)) - 1


@dataclass(frozen=True)
class Config:
    """One TinyTPU-isa build. Memory depths left ``None`` take the shipped derivations."""

    T: int = 4
    MAXDIM: int = 64
    QD: int = 16
    DMA_WORDS: int = 1
    IMEM_SIZE: int = 56
    LOOP_DEPTH: int = 4
    AGU_TERMS: int = 3
    AR_RAW_DIST: int = 4
    MAXROWS: int = 127
    spad_rows: int | None = None
    nvr: int | None = None
    nar: int | None = None

    def __post_init__(self) -> None:
        for name in ("T", "MAXDIM", "QD", "DMA_WORDS", "IMEM_SIZE", "LOOP_DEPTH",
                     "AGU_TERMS", "AR_RAW_DIST", "MAXROWS", "spad_rows", "nvr", "nar"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
                raise SpecError(f"{name}: {v!r} is not an integer")
        self._require(self.T >= 4, "T", f"T={self.T} < 4: a packed word must hold the two "
                      "16-bit counts sent down wcol")
        self._require(self.MAXDIM >= 4, "MAXDIM", f"MAXDIM={self.MAXDIM} < 4")
        self._require(self.MAXDIM % self.T == 0, "MAXDIM",
                      f"MAXDIM={self.MAXDIM} is not a multiple of T={self.T}")
        self._require(self.OPERAND_ROWS <= 1 << (FIELD_BITS - 1), "MAXDIM",
                      f"OPERAND_ROWS=(MAXDIM//T)*MAXDIM={self.OPERAND_ROWS} > 2048: operand "
                      "rows are not addressable by a 12-bit field")
        self._require(1 <= self.AR_RAW_DIST <= self.T, "AR_RAW_DIST",
                      f"AR_RAW_DIST={self.AR_RAW_DIST} outside 1..T={self.T}")
        self._require(self.IMEM_SIZE % PREFETCH_WORDS == 0, "IMEM_SIZE",
                      f"IMEM_SIZE={self.IMEM_SIZE} is not a multiple of 8")
        self._require(self.IMEM_SIZE >= NHDR + IWORDS, "IMEM_SIZE",
                      f"IMEM_SIZE={self.IMEM_SIZE} < NHDR+IWORDS={NHDR + IWORDS}")
        for name, v in (("SPAD_ROWS", self.SPAD_ROWS), ("NVR", self.NVR), ("NAR", self.NAR)):
            given = getattr(self, name.lower()) is not None
            self._require(1 <= v <= 2048, name if given else "MAXDIM",
                          f"{name}={v} outside 1..2048" if given else
                          f"MAXDIM={self.MAXDIM}{'' if name == 'NAR' else f', T={self.T}'} "
                          f"derive{'s' if name == 'NAR' else ''} {self.derivation(name)}={v}, "
                          f"outside 1..2048: a smaller MAXDIM, or {name} set")
        self._require(self.SPAD_ROWS >= self.OPERAND_ROWS, "SPAD_ROWS",
                      f"SPAD_ROWS={self.SPAD_ROWS} < OPERAND_ROWS={self.OPERAND_ROWS}")
        self._require(self.NVR >= self.OPERAND_ROWS, "NVR",
                      f"NVR={self.NVR} < OPERAND_ROWS={self.OPERAND_ROWS}")
        self._require(self.NAR >= 2 * self.MAXDIM + 2, "NAR",
                      f"NAR={self.NAR} < 2*MAXDIM+2={2 * self.MAXDIM + 2}")
        self._require(self.DMA_WORDS >= 1, "DMA_WORDS", f"DMA_WORDS={self.DMA_WORDS} < 1")
        self._require(self.QD >= 2, "QD", f"QD={self.QD} < 2")
        # levels past 3 use the level field's spare bit (the co-design depth6 builds)
        self._require(1 <= self.LOOP_DEPTH <= 1 << LEVEL_BITS, "LOOP_DEPTH",
                      f"LOOP_DEPTH={self.LOOP_DEPTH} outside 1..8 (3-bit level field)")
        self._require(0 <= self.AGU_TERMS, "AGU_TERMS", f"AGU_TERMS={self.AGU_TERMS} < 0")
        self._require(1 <= self.MAXROWS <= usable_max(NR_BITS), "MAXROWS",
                      f"MAXROWS={self.MAXROWS} outside 1..127 (8-bit nr field)")

    @staticmethod
    def _require(ok: bool, name: str, message: str) -> None:
        if not ok:
            raise SpecError(f"{name}: {message}")

    # --- derived constants (sheet §9) ---
    @property
    def VW(self) -> int:
        """Bits of one packed operand word (T int8 lanes)."""
        return self.T * 8

    @property
    def AW(self) -> int:
        """Bits of one accumulator row (T int32 lanes)."""
        return self.T * 32

    @property
    def WPR(self) -> int:
        """Packed words per DRAM row; legal column blocks are 0..WPR-1."""
        return self.MAXDIM // self.T

    @property
    def OPERAND_ROWS(self) -> int:
        """Rows the shipped layout needs for one operand matrix in vr or spad."""
        return self.WPR * self.MAXDIM

    @property
    def SPAD_ROWS(self) -> int:
        return self.spad_rows if self.spad_rows is not None else max(TEST_WINDOW,
                                                                     self.OPERAND_ROWS)

    @property
    def NVR(self) -> int:
        return self.nvr if self.nvr is not None else max(TEST_WINDOW, self.OPERAND_ROWS)

    @property
    def NAR(self) -> int:
        return self.nar if self.nar is not None else max(128, TEST_WINDOW,
                                                         2 * self.MAXDIM + 8)

    @staticmethod
    def derivation(name: str) -> str:
        """How a memory depth left unset derives from the build's fields (sheet §9)."""
        rows = f"max({TEST_WINDOW}, (MAXDIM/T)*MAXDIM)"
        return {"SPAD_ROWS": f"SPAD_ROWS={rows}", "NVR": f"NVR={rows}",
                "NAR": "NAR=max(128, 2*MAXDIM+8)"}[name]

    @property
    def MAX_STATIC(self) -> int:
        """Most static instructions imem holds beside the header."""
        return (self.IMEM_SIZE - NHDR) // IWORDS

    @property
    def FIELD_MAX(self) -> int:
        """Largest value an operand field (raw or AGU-resolved) may hold: 2047."""
        return usable_max(FIELD_BITS)

    @property
    def COUNT_MAX(self) -> int:
        """Largest per-unit work count a header slice may promise: 32767."""
        return usable_max(COUNT_BITS)

    @property
    def AGU_WORD_BITS(self) -> int:
        """Width of instruction word 1: AGU_TERMS terms, at least one 64-bit word.

        A build with more terms than fit 64 bits widens word 1 (and imem) instead of
        adding a third word, so word counts stay two per instruction.
        """
        return max(64, TERM_BITS * self.AGU_TERMS)

    @property
    def PE_COUNT(self) -> int:
        return self.T * self.T

    @property
    def PROCESSES(self) -> int:
        """Concurrent processes in the dataflow design: 2*T*T + 6."""
        return 2 * self.T * self.T + 6

    def memory_depth(self, space: str) -> int:
        """Rows of an on-chip memory by name (spad, vr, ar)."""
        return {"spad": self.SPAD_ROWS, "vr": self.NVR, "ar": self.NAR}[space]

    def describe(self) -> dict[str, int]:
        """Every parameter and derived constant, for reports and ``--config`` echo."""
        return {
            "T": self.T, "MAXDIM": self.MAXDIM, "QD": self.QD, "DMA_WORDS": self.DMA_WORDS,
            "IMEM_SIZE": self.IMEM_SIZE, "LOOP_DEPTH": self.LOOP_DEPTH,
            "AGU_TERMS": self.AGU_TERMS, "AR_RAW_DIST": self.AR_RAW_DIST,
            "MAXROWS": self.MAXROWS, "SPAD_ROWS": self.SPAD_ROWS, "NVR": self.NVR,
            "NAR": self.NAR, "VW": self.VW, "AW": self.AW, "WPR": self.WPR,
            "OPERAND_ROWS": self.OPERAND_ROWS, "MAX_STATIC": self.MAX_STATIC,
        }


DEFAULT = Config()


@dataclass(frozen=True)
class Memory:
    """One memory of the machine (sheet §8). None of them is cleared at start."""

    name: str
    owner: str
    depth: str  # the Config attribute holding its depth in rows
    lane_bits: int  # bits per lane; a row holds T lanes (DRAM: one int8 per element)
    written_by: tuple[str, ...]
    read_by: tuple[str, ...]

    def rows(self, cfg: Config) -> int:
        """Depth in rows (DRAM images: MAXDIM*MAXDIM elements)."""
        return getattr(cfg, self.depth) if self.depth != "DRAM" else cfg.MAXDIM * cfg.MAXDIM


MEMORIES: tuple[Memory, ...] = (
    Memory("spad", "spm", "SPAD_ROWS", 8, ("dma_ld",), ("vld", "mm")),
    Memory("vr", "vru", "NVR", 8, ("dma_ld", "vld"), ("mm",)),
    Memory("ar", "accu", "NAR", 32, ("mm", "vadd", "vrelu", "vaddrelu"),
           ("mm", "vadd", "vrelu", "vaddrelu", "mvout")),
    Memory("imem", "sequencer", "IMEM_SIZE", 64, ("host",), ("sequencer",)),
    Memory("A", "dma_ld", "DRAM", 8, ("host",), ("dma_ld",)),
    Memory("B", "dma_ld", "DRAM", 8, ("host",), ("dma_ld",)),
    Memory("C", "dma_st", "DRAM", 8, ("mvout",), ("host",)),
)


@dataclass(frozen=True)
class MemoryMap:
    """The program ABI of the shipped programs (sheet §8): where operands and results live."""

    A_VR: int = 0
    B_SP: int = 0
    AR_C: int = 0

    @staticmethod
    def AR_P(cfg: Config) -> int:
        """Second accumulator region (the vadd program's partial product)."""
        return cfg.MAXDIM + 1


ABI = MemoryMap()
