"""Program files: ``.tasm`` text assembly and ``.thex`` imem images (format: docs/tinytpu.md).

``.tasm``: one instruction per line, ``mnemonic [fN=V ...] [nr=V] [terms]``; a term
is ``fN += ivL*S`` (or the compact ``+fN:L*S``); ``#`` starts a comment;
indentation and ``NN:`` pc labels are ignored. ``.thex``: one imem word per line
in hex, the 8 header words first, then two words per instruction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from polyjoule.errors import EncodingError, ProgramFileError, SpecError
from polyjoule.frontends.specfile import read_text
from polyjoule.reports.files import write_atomic
from polyjoule.targets.tinytpu.assembler import assemble
from polyjoule.targets.tinytpu.disasm import disassemble
from polyjoule.targets.tinytpu.isa import BY_MNEMONIC, Instr, Term, decode
from polyjoule.targets.tinytpu.params import (
    FIELD_BITS,
    LEVEL_BITS,
    NHDR,
    NR_BITS,
    OP_BITS,
    STRIDE_BITS,
    Config,
)

_TERM = re.compile(r"f(\d+)\s*\+=\s*iv(\d+)\s*\*\s*(\d+)|\+f(\d+):(\d+)\*(\d+)")
_ASSIGN = re.compile(r"(f[0-3]|nr)=(-?\d+)$")
_LABEL = re.compile(r"^\s*\d+:")
_RAW_OP = re.compile(r"op(\d+)$")

SUFFIXES = (".tasm", ".thex")


def _held(where: str, what: str, text: str, bits: int) -> int:
    """The value of ``text`` if a ``bits``-wide field of the instruction words can hold it.

    A value past the raw width (negative, or ``nr=300``) is no instruction: no image could
    carry it, so the file is malformed, as a ``.thex`` could not say it. A value the field
    holds but the spare-bit rule forbids (``f3=3000``, ``nr=200``) is a program the
    checker names (``enc.field_range``).
    """
    digits = text.lstrip("-")
    value = int(text) if len(digits) <= 24 else -1 if text.startswith("-") else 1 << 80
    if not 0 <= value < 1 << bits:
        shown = text if len(digits) <= 24 else f"{text[:12]}... ({len(digits)} digits)"
        raise ProgramFileError(f"{where}: {what}: {shown} does not fit its {bits}-bit field "
                               f"(0..{(1 << bits) - 1}): no instruction word holds it")
    return value


#: the UTF-8 byte-order mark some editors write first, decoded
BOM = "\ufeff"


def parse_tasm(text: str, name: str = "<tasm>") -> list[Instr]:
    """Instructions of a ``.tasm`` text; errors name ``file:line`` and the field.

    Every value must fit its field's raw width (what a ``.thex`` word can hold); the
    spare-bit and legality rules are the checker's.
    """
    program = []
    text = text.removeprefix(BOM)  # an editor's byte-order mark is no mnemonic
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = _LABEL.sub("", raw.split("#", 1)[0]).strip()
        if not line:
            continue
        where = f"{name}:{lineno}"
        terms = []
        for m in _TERM.finditer(line):
            fld, lvl, stride = m.groups()[0:3] if m.group(1) is not None else m.groups()[3:6]
            if len(fld) > 24 or int(fld) > 3:
                raise ProgramFileError(f"{where}: term: {m.group(0)[:40]!r} names no field "
                                       "f0..f3")
            term = f"term f{fld}"
            terms.append(Term(int(fld), _held(where, f"{term}: level", lvl, LEVEL_BITS),
                              _held(where, f"{term}: stride", stride, STRIDE_BITS)))
        rest = _TERM.sub(" ", line).replace(",", " ").split()
        if not rest:
            raise ProgramFileError(f"{where}: op: a term with no mnemonic before it (a term "
                                   "follows its instruction on the same line)")
        mnemonic, tokens = rest[0].lower(), rest[1:]
        if mnemonic in BY_MNEMONIC:
            op: int = BY_MNEMONIC[mnemonic]
        elif (raw_op := _RAW_OP.match(mnemonic)) is not None:
            op = _held(where, "op", raw_op.group(1), OP_BITS)
        else:
            raise ProgramFileError(f"{where}: op: unknown mnemonic {rest[0]!r}")
        f = [0, 0, 0, 0]
        nr = 0
        for tok in tokens:
            m = _ASSIGN.match(tok)
            if m is None:
                raise ProgramFileError(f"{where}: {tok[:40]!r} is not fN=VALUE, nr=VALUE or a term "
                                       "'fN += ivL*S'")
            key = m.group(1)
            value = _held(where, key, m.group(2), NR_BITS if key == "nr" else FIELD_BITS)
            if key == "nr":
                nr = value
            else:
                f[int(key[1])] = value
        program.append(Instr(op, tuple(f), nr, tuple(terms)))  # type: ignore[arg-type]
    return program


def parse_thex(text: str, cfg: Config, name: str = "<thex>",
               check_header: bool = True) -> list[Instr]:
    """Instructions of an imem image; the header's n_instr says how many words must follow.

    ``check_header`` recomputes the header's counts and refuses a mismatch; the judge turns
    it off because it grades the header itself (a protocol verdict, not a reading error).
    """
    words = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            words.append(int(line, 16))
        except ValueError:
            raise ProgramFileError(f"{name}:{lineno}: word: {line!r} is not hex") from None
    if len(words) < NHDR:
        raise ProgramFileError(f"{name}: header: truncated image, {len(words)} words < "
                               f"{NHDR} header words")
    n = words[0] & 0xFFFF
    need = NHDR + 2 * n
    if len(words) < need:
        raise ProgramFileError(f"{name}: n_instr: truncated image, header promises {n} "
                               f"instructions ({need} words), file has {len(words)}")
    if len(words) > need:
        raise ProgramFileError(f"{name}: n_instr: {len(words) - need} words after the "
                               f"{n} instructions the header promises")
    program = []
    for pc in range(n):
        try:
            program.append(decode(words[NHDR + 2 * pc], words[NHDR + 2 * pc + 1], cfg))
        except EncodingError as e:
            raise ProgramFileError(f"{name}: instruction {pc}: {e}") from None
    if check_header:
        _check_header(words[:NHDR], program, cfg, name)
    return program


HEADER_WORDS = ("n_instr", "dma_ld_rows", "spm_rows", "vru_words", "mm_count|mm_rows<<16",
                "accu_iterations", "dma_st_rows", "a_span|b_span<<16")


def _check_header(words: Sequence[int], program: Sequence[Instr], cfg: Config,
                  name: str) -> None:
    """The header's counts recomputed from the instructions: a tampered count is refused.

    A program the expansion refuses (a loop the checker rejects) keeps its header
    unchecked here; ``check`` reports that program with its own rule.
    """
    from polyjoule.errors import AssemblyError, PolyjouleError
    from polyjoule.targets.tinytpu.assembler import header

    try:
        want = header(program, cfg).words()
    except (PolyjouleError, AssemblyError):
        return
    for field, got, exp in zip(HEADER_WORDS, words, want, strict=True):
        if got != exp:
            raise ProgramFileError(f"{name}: header {field}: {got:#x} in the file, the "
                                   f"instructions give {exp:#x} (a tampered image)")


def format_thex(words: Sequence[int], cfg: Config) -> str:
    """One word per line, zero-padded hex; header words are commented."""
    digits = (cfg.AGU_WORD_BITS + 3) // 4
    names = HEADER_WORDS
    lines = []
    for i, w in enumerate(words):
        note = f"  # {names[i]}" if i < NHDR else (f"  # pc {(i - NHDR) // 2}"
                                                   if (i - NHDR) % 2 == 0 else "")
        lines.append(f"{w:0{digits}x}{note}")
    return "\n".join(lines) + "\n"


def load_program(path: str | Path, cfg: Config, check_header: bool = True) -> list[Instr]:
    """Read a ``.tasm`` or ``.thex`` file."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise ProgramFileError(f"{path}: suffix {path.suffix!r} is not one of "
                               f"{', '.join(SUFFIXES)}")
    try:
        text = read_text(path)
    except SpecError as e:
        raise ProgramFileError(f"{e} (.tasm or .thex)") from None
    if path.suffix == ".thex":
        return parse_thex(text.removeprefix(BOM), cfg, str(path), check_header)
    return parse_tasm(text, str(path))


def dump_program(program: Sequence[Instr], cfg: Config, fmt: str = "tasm") -> str:
    """The text of a program file; ``thex`` assembles (and so checks) the program first."""
    if fmt == "thex":
        return format_thex(assemble(program, cfg), cfg)
    if fmt == "tasm":
        return disassemble(program, pcs=False)
    raise ProgramFileError(f"format: {fmt!r} is not tasm or thex")


_TAG = re.compile(r"^#\s*polyjoule:\s*gemm\s+(\d+)x(\d+)x(\d+)(\s+relu)?\s*$", re.M)

GemmTag = tuple[int, int, int, bool]


def gemm_tag(text: str) -> GemmTag | None:
    """The ``# polyjoule: gemm MxKxN [relu]`` line a generated file carries, if any."""
    m = _TAG.search(text)
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4) is not None


def save_program(path: str | Path, program: Sequence[Instr], cfg: Config,
                 tag: GemmTag | None = None, record: str | None = None) -> None:
    """Write atomically (temp file then rename), so a failure leaves nothing half-written.

    ``tag`` records what a generated GEMM computes, so ``run`` can check it against numpy;
    ``record`` is the build record line (``builds.record``) of the build it was made for.
    """
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise ProgramFileError(f"{path}: suffix {path.suffix!r} is not one of "
                               f"{', '.join(SUFFIXES)}")
    text = dump_program(program, cfg, path.suffix[1:])
    if tag is not None:
        M, K, N, relu = tag
        text = f"# polyjoule: gemm {M}x{K}x{N}{' relu' if relu else ''}\n" + text
    if record is not None:
        text = record + "\n" + text
    write_atomic(path, text)
