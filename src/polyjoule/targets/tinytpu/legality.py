"""The judge's *legal* tier: four layers (isa, encoding, protocol, spec), 23 named rules.

Each rejection names its layer and rule, says what happened, states the rule, what
to change, and shows the offending instruction with its two neighbours
(tinytpu-isa sheet §11, act-mapper sheet §14). The isa layer is ``check_program``,
the encoding layer ``assemble``'s limits, the protocol layer compares the work
counts the image header promises each unit with what the sequencer dispatches, and
the spec layer compares every mvout's footprint with the spec's write window.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from polyjoule.errors import ResourceLimitError
from polyjoule.targets.tinytpu.assembler import (
    MAX_FETCHES,
    TOO_LONG,
    AssemblyError,
    Issue,
    ProgramError,
    check_program,
    expand,
    header_of,
    image_of,
)
from polyjoule.targets.tinytpu.disasm import instr_text
from polyjoule.targets.tinytpu.isa import Instr, Op, loads
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.spec import WorkloadSpec


@dataclass(frozen=True)
class Rule:
    layer: str
    text: str
    change: str


def _r(layer: str, text: str, change: str) -> Rule:
    return Rule(layer, text, change)


#: the 23 judge rules (sheet §11), plus three of ours: ``agu.target`` (a check the sheet
#: names under the stale-iv step but the judge table does not), ``agu.terms`` (more
#: terms than the build's AGU_TERMS: assemble refuses to encode it) and ``prog.too_long``
#: (a program expanding past MAX_FETCHES fetches: no tool walks it)
RULES: dict[str, Rule] = {
    "ar.raw_distance": _r("isa", "an ar row is read at least AR_RAW_DIST accu steps after "
                          "its last write", "make the accumulating mm cover >= AR_RAW_DIST "
                          "rows, or put other accu work between write and read"),
    "mem.write_before_read": _r("isa", "every spad/vr/ar row read was written earlier in the "
                                "same program (memories are not cleared)",
                                "load or compute the row before reading it"),
    "mem.out_of_range": _r("isa", "on-chip rows f..f+nr-1 lie inside spad/vr/ar",
                           "lower the base or nr, or use a build with deeper memories"),
    "dram.operand_range": _r("isa", "dma_ld reads DRAM rows f1..f1+nr-1 < MAXDIM and column "
                             "block f2 < WPR", "keep the operand inside the MAXDIM image"),
    "dram.result_range": _r("isa", "mvout writes C rows f1..f1+nr-1 < MAXDIM and column "
                            "block f2 < WPR", "keep the result inside the MAXDIM image"),
    "enc.field_range": _r("isa", "every field, raw or AGU-resolved, is 0..2047 and nr is "
                          "0..MAXROWS (spare-bit rule)",
                          "shrink the base, the AGU stride or nr (split the rows or the loop)"),
    "enc.zero_rows": _r("isa", "a data instruction moves nr >= 1 rows (nr=0 is not a no-op)",
                        "give nr >= 1 or drop the instruction"),
    "loop.depth": _r("isa", "at most LOOP_DEPTH loops are open at once",
                     "fold a loop into an AGU stride, or use a deeper build"),
    "loop.trip": _r("isa", "a loop runs nr >= 1 times (trip 0 still runs once)",
                    "give the loop nr >= 1 or remove it"),
    "loop.unbalanced": _r("isa", "every endloop closes an open loop", "remove the endloop or "
                          "add its loop"),
    "loop.unclosed": _r("isa", "every loop is closed by an endloop", "add the endloop"),
    "loop.stale_iv": _r("isa", "an AGU term reads a loop level that is open at the instruction",
                        "use a level < the current loop depth"),
    "op.unknown": _r("isa", "only opcodes this machine executes (dma_st is not issued)",
                     "use a listed opcode"),
    "op.mm_acc_field": _r("isa", "mm's accumulate flag f2 is 0 or 1", "set f2 to 0 or 1"),
    "op.dma_ld_field": _r("isa", "dma_ld's selector f0 is 0..3 (bit 0: B, bit 1: into vr)",
                          "set f0 to 0..3"),
    "prog.empty": _r("isa", "a program has at least one instruction", "emit the program"),
    "imem.overflow": _r("encoding", "8 header words + 2 per instruction fit IMEM_SIZE",
                        "use loops instead of unrolling, or a build with a larger imem"),
    "hdr.count_overflow": _r("encoding", "each unit's promised work count fits 15 bits",
                             "split the workload into several programs"),
    "hdr.array_overflow": _r("encoding", "the array's mm count and rows fit 15 bits",
                             "split the workload into several programs"),
    "dma.span": _r("encoding", "the dma_ld row span of A and of B is <= MAXDIM",
                   "keep operand rows inside the image"),
    "kpn.protocol": _r("protocol", "the header promises each unit exactly the work the "
                       "sequencer dispatches to it (else a unit hangs or leaves work)",
                       "regenerate the image header from the instructions"),
    "spec.write_window": _r("spec", "every mvout writes only inside the spec's write window",
                            "narrow the mvout's rows or column block"),
    "spec.output_incomplete": _r("spec", "every output byte is written by some mvout",
                                 "add the mvouts for the missing rows or column blocks"),
    "agu.target": _r("isa", "AGU terms only on data instructions, targets f0..f3",
                     "drop the term or move it to a data instruction"),
    "agu.terms": _r("encoding", "an instruction carries at most AGU_TERMS terms",
                    "fold a term into the base or a loop, or use a build with more terms "
                    "(agu4)"),
    "prog.too_long": _r("encoding", f"the program expands to at most {MAX_FETCHES:,} "
                        "sequencer fetches (our bound on walking the trace; the 15-bit "
                        "header counts keep a working program far below it)",
                        "shorten the loops: fewer trips or fewer nested levels"),
}
#: the rules that are ours, not the judge table's: a check the sheet lists without a rule,
#: an encoding limit of our wider builds, and our bound on expanding a program (the
#: mapper's ``resources``, kind express: the program cannot be carried through)
OURS = ("agu.target", "agu.terms", "prog.too_long")
#: the rules of the judge table (sheet §11)
JUDGE_RULES = tuple(r for r in RULES if r not in OURS)


@dataclass(frozen=True)
class Rejection:
    """Why a program is not legal: the rule broken and where."""

    layer: str
    rule: str
    message: str
    pc: int | None

    def render(self, program: Sequence[Instr]) -> str:
        r = RULES[self.rule]
        lines = [f"REJECTED [{self.layer} / {self.rule}]",
                 f"  what happened: {self.message}",
                 f"  rule: {r.text}",
                 f"  change: {r.change}"]
        if self.pc is not None and 0 <= self.pc < len(program):
            lines.append("  at:")
            for pc in range(max(self.pc - 1, 0), min(self.pc + 2, len(program))):
                mark = ">" if pc == self.pc else " "
                lines.append(f"  {mark} {pc:3d}: {instr_text(program[pc])}")
        return "\n".join(lines)


_PC = re.compile(r"instruction (\d+)")


def _pc(message: str) -> int | None:
    m = _PC.search(message)
    return int(m.group(1)) if m else None


def _from(e: ProgramError | AssemblyError) -> Rejection:
    assert e.rule in RULES, f"rule {e.rule!r} missing from the judge's table"
    return Rejection(RULES[e.rule].layer, e.rule, e.message, _pc(e.message))


def isa_layer(program: Sequence[Instr], cfg: Config) -> list[Issue] | Rejection:
    """``check_program``: the resolved stream, or the first broken rule."""
    try:
        return check_program(program, cfg)
    except ProgramError as e:
        return _from(e)
    except ResourceLimitError as e:  # only the expansion bound: not the isa's rule
        return Rejection(RULES[TOO_LONG].layer, TOO_LONG,
                         str(e).removeprefix(f"{TOO_LONG}: "), None)


def encoding_layer(program: Sequence[Instr], cfg: Config,
                   stream: Sequence[Issue] | None = None) -> list[int] | Rejection:
    """``admit``'s encoding limits (``image_of``) on a program the isa layer accepted
    (``stream``: its resolved issues; without it the program is expanded as written)."""
    try:
        return image_of(program, expand(program, cfg) if stream is None else stream, cfg)
    except AssemblyError as e:
        return _from(e)


def protocol_layer(program: Sequence[Instr], stream: Sequence[Issue], image: Sequence[int],
                   cfg: Config) -> Rejection | None:
    """The image header's promised work per unit vs the sequencer's dispatches."""
    sent = dict.fromkeys(("dma_ld", "spm", "vru", "array", "accu", "dma_st"), 0)
    for x in stream:
        for unit, w in loads(x.op, x.nr, x.f, cfg).items():
            sent[unit] += w
    mm = sum(1 for x in stream if x.op == Op.MM)
    want = header_of(program, stream, cfg).words()
    dispatched = [len(program), sent["dma_ld"], sent["spm"], sent["vru"],
                  mm | sent["array"] << 16, sent["accu"], sent["dma_st"], want[7]]
    names = ("n_instr", "dma_ld", "spm", "vru", "array", "accu", "dma_st", "spans")
    for i, name in enumerate(names):
        promised, needed = image[i], (dispatched[i] if i < 7 else want[i])
        if promised != needed:
            return Rejection("protocol", "kpn.protocol", f"header word {i} ({name}) promises "
                             f"{promised:#x}, the program dispatches {needed:#x}", None)
    return None


def mvout_footprints(stream: Sequence[Issue], T: int) -> list[tuple[int, slice, slice]]:
    """(pc, C rows, C columns) of every dynamic mvout."""
    return [(x.pc, slice(x.f1, x.f1 + x.nr), slice(x.f2 * T, x.f2 * T + T))
            for x in stream if x.op == Op.MVOUT]


def spec_layer(spec: WorkloadSpec, stream: Sequence[Issue], cfg: Config) -> Rejection | None:
    """Every mvout inside the write window; every output byte written."""
    wr, wc = spec.window(cfg.T)
    covered = np.zeros((cfg.MAXDIM, cfg.MAXDIM), dtype=bool)
    for pc, rows, cols in mvout_footprints(stream, cfg.T):
        if rows.start < wr.start or rows.stop > wr.stop or cols.start < wc.start \
                or cols.stop > wc.stop:
            return Rejection("spec", "spec.write_window",
                             f"mvout writes C rows {rows.start}..{rows.stop - 1}, columns "
                             f"{cols.start}..{cols.stop - 1}; the window is rows "
                             f"{wr.start}..{wr.stop - 1}, columns {wc.start}..{wc.stop - 1}",
                             pc)
        covered[rows, cols] = True
    orows, ocols = spec.box(spec.output)
    missing = int((~covered[orows, ocols]).sum())
    if missing:
        return Rejection("spec", "spec.output_incomplete", f"{missing} of "
                         f"{covered[orows, ocols].size} output bytes are written by no mvout",
                         None)
    return None


def legal(program: Sequence[Instr], cfg: Config, spec: WorkloadSpec | None = None,
          image: Sequence[int] | None = None) -> tuple[list[Issue], list[int]] | Rejection:
    """All four layers in order; the stream and image, or the first rejection.

    The isa and encoding layers are ``admit``'s two halves in its order (checker, then
    encoding limits): the gate ``tinytpu check``/``run``/``cycles`` ask, so the judge
    names the same first rule.
    ``image`` is a ``.thex`` file's words (its header is what the units are promised);
    without one the assembled image's header is the promise.
    """
    stream = isa_layer(program, cfg)
    if isinstance(stream, Rejection):
        return stream
    words = encoding_layer(program, cfg, stream)
    if isinstance(words, Rejection):
        return words
    bad = protocol_layer(program, stream, image if image is not None else words, cfg)
    if bad is None and spec is not None:
        bad = spec_layer(spec, stream, cfg)
    return bad if bad is not None else (stream, words)
