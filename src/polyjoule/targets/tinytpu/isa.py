"""TinyTPU-isa instructions: the opcode table as data, and the two-word encoding.

The opcode table (:data:`OPCODES`) is the one place that says what each opcode's
fields mean, which values are legal, which units it is dispatched to and how
much work it promises each unit; the checker, header, reference model and cycle
model all read it. Encoding facts: tinytpu-isa sheet §1-§3 (newer revision, with
``vaddrelu``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum

from polyjoule.errors import EncodingError, SpecError
from polyjoule.targets.tinytpu.params import (
    FIELD_BITS,
    LEVEL_BITS,
    NR_BITS,
    OP_BITS,
    STRIDE_BITS,
    TARGET_BITS,
    TERM_BITS,
    Config,
    usable_max,
)


class Op(IntEnum):
    """Opcode numbers (6-bit field)."""

    NOP = 0
    DMA_LD = 1
    DMA_ST = 2  # retired: the number is reserved, the checker rejects it
    VLD = 3
    MM = 4
    VADD = 5
    VRELU = 6
    MVOUT = 7
    LOOP = 8
    ENDLOOP = 9
    VADDRELU = 10


NFIELDS = 4
FIELD_SHIFTS = (6, 18, 30, 42)
NR_SHIFT = 54


@dataclass(frozen=True)
class Term:
    """One AGU term: ``f[field] += live_iv[level] * stride`` at dispatch.

    ``field`` is the operand index 0..3 (f0..f3); the encoded target is ``field + 1``.
    """

    field: int
    level: int
    stride: int

    @property
    def target(self) -> int:
        return self.field + 1

    def __str__(self) -> str:
        return f"+f{self.field}:{self.level}*{self.stride}"


@dataclass(frozen=True)
class Instr:
    """One static instruction: opcode, four operand fields, row/trip count, AGU terms.

    ``op`` is an :class:`Op` when the number is in the table, else the raw int (so a
    decoded image with an unknown opcode can reach the checker and be named there).
    """

    op: Op | int
    f: tuple[int, int, int, int] = (0, 0, 0, 0)
    nr: int = 0
    terms: tuple[Term, ...] = ()

    def __post_init__(self) -> None:
        op = int(self.op)
        object.__setattr__(self, "op", Op(op) if op in _OP_VALUES else op)
        f = tuple(int(v) for v in self.f)
        if len(f) != NFIELDS:
            raise SpecError(f"f: an instruction has {NFIELDS} operand fields, got {len(f)}")
        object.__setattr__(self, "f", f)
        object.__setattr__(self, "nr", int(self.nr))
        object.__setattr__(self, "terms", tuple(self.terms))

    @property
    def mnemonic(self) -> str:
        return OPCODES[self.op].mnemonic if self.op in OPCODES else f"op{int(self.op)}"


_OP_VALUES = frozenset(int(o) for o in Op)

Loads = Callable[[int, tuple[int, ...], Config], dict[str, int]]


def _none(nr: int, f: tuple[int, ...], cfg: Config) -> dict[str, int]:
    return {}


def _dma_ld(nr: int, f: tuple[int, ...], cfg: Config) -> dict[str, int]:
    return {"dma_ld": nr, ("vru" if f[0] & 2 else "spm"): nr}


def _vld(nr: int, f: tuple[int, ...], cfg: Config) -> dict[str, int]:
    return {"spm": nr, "vru": nr}


def _mm(nr: int, f: tuple[int, ...], cfg: Config) -> dict[str, int]:
    return {"spm": cfg.T + 1, "vru": nr, "array": nr, "accu": nr}


def _accu1(nr: int, f: tuple[int, ...], cfg: Config) -> dict[str, int]:
    return {"accu": nr}


def _accu2(nr: int, f: tuple[int, ...], cfg: Config) -> dict[str, int]:
    return {"accu": 2 * nr}


def _mvout(nr: int, f: tuple[int, ...], cfg: Config) -> dict[str, int]:
    return {"accu": nr, "dma_st": nr}


@dataclass(frozen=True)
class OpSpec:
    """One row of the opcode table.

    ``fields`` names each operand's role (None = unused); ``legal`` maps a field
    index to its legal values and the checker rule that guards it; ``dispatch``
    lists the units the sequencer sends a copy to, upstream first; ``loads`` gives
    the per-unit work one issue promises (the header's contributions);
    ``accu_steps`` is accu iterations per row (vadd reads its two sources on two
    steps).
    """

    op: Op
    mnemonic: str
    fields: tuple[str | None, str | None, str | None, str | None]
    summary: str
    dispatch: tuple[str, ...] = ()
    loads: Loads = _none
    legal: Mapping[int, tuple[tuple[int, ...], str]] = field(default_factory=dict)
    accu_steps: int = 0
    executable: bool = True
    control: bool = False
    uses_nr: bool = True


OPCODES: dict[Op, OpSpec] = {s.op: s for s in (
    OpSpec(Op.NOP, "nop", (None, None, None, None), "no effect; the sequencer advances",
           uses_nr=False),
    OpSpec(Op.DMA_LD, "dma_ld", ("mode", "dram_row0", "col_block", "dst_row0"),
           "DRAM rows of A or B (mode bit 0) to spad or vr (mode bit 1)",
           dispatch=("dma_ld", "spm|vru"), loads=_dma_ld,
           legal={0: ((0, 1, 2, 3), "op.dma_ld_field")}),
    OpSpec(Op.DMA_ST, "dma_st", (None, None, None, None), "retired; results leave via mvout",
           executable=False),
    OpSpec(Op.VLD, "vld", ("vr0", "spad0", None, None), "copy spad rows to vr rows",
           dispatch=("spm", "vru"), loads=_vld),
    OpSpec(Op.MM, "mm", ("vr_a", "ar0", "acc", "spad_w"),
           "ar[f1+r] (+)= vr[f0+r] @ spad[f3:f3+T]",
           dispatch=("spm", "vru", "accu"), loads=_mm,
           legal={2: ((0, 1), "op.mm_acc_field")}, accu_steps=1),
    OpSpec(Op.VADD, "vadd", ("ar_d", "ar_s1", "ar_s2", None), "ar[f0+r] = ar[f1+r] + ar[f2+r]",
           dispatch=("accu",), loads=_accu2, accu_steps=2),
    OpSpec(Op.VRELU, "vrelu", ("ar_d", "ar_s", None, None), "ar[f0+r] = max(ar[f1+r], 0)",
           dispatch=("accu",), loads=_accu1, accu_steps=1),
    OpSpec(Op.MVOUT, "mvout", ("ar0", "dram_row0", "col_block", None),
           "C rows = saturate_int8(ar rows)",
           dispatch=("accu", "dma_st"), loads=_mvout, accu_steps=1),
    OpSpec(Op.LOOP, "loop", (None, None, None, None), "open a hardware loop of nr trips",
           control=True),
    OpSpec(Op.ENDLOOP, "endloop", (None, None, None, None), "back edge of the innermost loop",
           control=True, uses_nr=False),
    OpSpec(Op.VADDRELU, "vaddrelu", ("ar_d", "ar_s1", "ar_s2", None),
           "ar[f0+r] = max(ar[f1+r] + ar[f2+r], 0)",
           dispatch=("accu",), loads=_accu2, accu_steps=2),
)}

BY_MNEMONIC: dict[str, Op] = {s.mnemonic: s.op for s in OPCODES.values()}

#: Units that hold a header work count, in header-word order.
UNITS = ("dma_ld", "spm", "vru", "array", "accu", "dma_st")


def _check_width(name: str, value: int, bits: int) -> None:
    hi = usable_max(bits)
    if not 0 <= value <= hi:
        raise EncodingError(f"{name}: {value} outside 0..{hi} ({bits}-bit field, top bit spare)",
                            name)


def encode(instr: Instr, cfg: Config) -> tuple[int, int]:
    """The two words of one instruction; raises :class:`EncodingError` on any overflow."""
    op = int(instr.op)
    _check_width("op", op, OP_BITS)
    if instr.nr > cfg.MAXROWS:
        raise EncodingError(f"nr: {instr.nr} > MAXROWS={cfg.MAXROWS}", "nr")
    _check_width("nr", instr.nr, NR_BITS)
    w0 = op
    for i, (v, sh) in enumerate(zip(instr.f, FIELD_SHIFTS, strict=True)):
        _check_width(f"f{i}", v, FIELD_BITS)
        w0 |= v << sh
    w0 |= instr.nr << NR_SHIFT
    if len(instr.terms) > cfg.AGU_TERMS:
        raise EncodingError(f"terms: {len(instr.terms)} AGU terms > AGU_TERMS={cfg.AGU_TERMS}",
                            "terms", rule="agu.terms")
    w1 = 0
    for i, t in enumerate(instr.terms):
        if not 0 <= t.field < NFIELDS:
            raise EncodingError(f"term{i}.field: f{t.field} is not an operand field (f0..f3)",
                                f"term{i}.field")
        if not 0 <= t.level < cfg.LOOP_DEPTH:
            raise EncodingError(f"term{i}.level: {t.level} outside 0..{cfg.LOOP_DEPTH - 1} "
                                f"(LOOP_DEPTH={cfg.LOOP_DEPTH})", f"term{i}.level")
        _check_width(f"term{i}.stride", t.stride, STRIDE_BITS)
        w1 |= (t.target | t.level << TARGET_BITS
               | t.stride << (TARGET_BITS + LEVEL_BITS)) << (TERM_BITS * i)
    return w0, w1


def decode(w0: int, w1: int, cfg: Config) -> Instr:
    """Inverse of :func:`encode` with the hardware's masks; an unknown opcode stays an int.

    A term with target 0 is unused and dropped; a target above 4 is kept as a term on a
    non-existent field (``field = target - 1``) so the checker can name it.
    """
    if w0 < 0 or w0 >> 64 or w1 < 0 or w1 >> cfg.AGU_WORD_BITS:
        raise EncodingError(f"word: ({w0:#x}, {w1:#x}) does not fit the instruction words",
                            "word")
    op = w0 & ((1 << OP_BITS) - 1)
    fmask = (1 << FIELD_BITS) - 1
    f = tuple((w0 >> sh) & fmask for sh in FIELD_SHIFTS)
    nr = (w0 >> NR_SHIFT) & ((1 << NR_BITS) - 1)
    terms = []
    for i in range(cfg.AGU_TERMS):
        t = (w1 >> (TERM_BITS * i)) & ((1 << TERM_BITS) - 1)
        target = t & ((1 << TARGET_BITS) - 1)
        if target == 0:
            continue
        level = (t >> TARGET_BITS) & ((1 << LEVEL_BITS) - 1)
        stride = (t >> (TARGET_BITS + LEVEL_BITS)) & ((1 << STRIDE_BITS) - 1)
        terms.append(Term(target - 1, level, stride))
    return Instr(op, f, nr, tuple(terms))  # type: ignore[arg-type]


def loads(op: Op | int, nr: int, f: tuple[int, ...], cfg: Config) -> dict[str, int]:
    """Per-unit work of one data issue (the header's contributions)."""
    return OPCODES[op].loads(nr, f, cfg) if op in OPCODES else {}
