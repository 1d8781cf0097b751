"""Readable listings of TinyTPU-isa programs: loops indented, AGU terms as ``f3 += iv0*64``.

The listing is also valid ``.tasm`` text (the ``NN:`` pc labels are accepted and
ignored by the parser), so a disassembly can be edited and reassembled.
"""

from __future__ import annotations

from collections.abc import Sequence

from polyjoule.errors import EncodingError
from polyjoule.targets.tinytpu.isa import OPCODES, Instr, Op, Term, encode
from polyjoule.targets.tinytpu.params import Config


def term_text(t: Term) -> str:
    return f"f{t.field} += iv{t.level}*{t.stride}"


def instr_text(ins: Instr) -> str:
    """One instruction in ``.tasm`` syntax (fields the opcode does not use are omitted)."""
    spec = OPCODES.get(ins.op)  # type: ignore[call-overload]
    parts = [ins.mnemonic]
    if spec is None or not spec.control and ins.op != Op.NOP:
        roles = spec.fields if spec is not None else ("f0", "f1", "f2", "f3")
        parts += [f"f{i}={v}" for i, (v, role) in enumerate(zip(ins.f, roles, strict=True))
                  if role is not None or v != 0]
        parts.append(f"nr={ins.nr}")
    else:
        parts += [f"f{i}={v}" for i, v in enumerate(ins.f) if v != 0]
        if ins.op == Op.LOOP or ins.nr != 0:
            parts.append(f"nr={ins.nr}")
    text = " ".join(parts)
    if ins.terms:
        text += "  " + ", ".join(term_text(t) for t in ins.terms)
    return text


def flags(ins: Instr, cfg: Config) -> list[str]:
    """Why ``ins`` is out of range on ``cfg``: an unknown opcode, a field past its encoding
    or its legal values, a term on no field or an absent loop level (empty: none)."""
    spec = OPCODES.get(ins.op)  # type: ignore[call-overload]
    out = [] if spec is not None else [f"op: unknown opcode {int(ins.op)}"]
    try:
        encode(ins, cfg)
    except EncodingError as e:
        out.append(str(e))
    for i, (legal, rule) in (spec.legal.items() if spec is not None else ()):
        if ins.f[i] not in legal:
            out.append(f"f{i}: {ins.f[i]} not one of {list(legal)} ({rule})")
    return out


def disassemble(program: Sequence[Instr], pcs: bool = True, cfg: Config | None = None) -> str:
    """A listing with pc labels; each open loop indents its body by two spaces.

    With ``cfg``, an instruction out of range on that build is flagged by a trailing
    ``# OUT OF RANGE: ...`` comment (the listing stays valid ``.tasm``).
    """
    lines = []
    depth = 0
    width = len(str(max(len(program) - 1, 0)))
    for pc, ins in enumerate(program):
        if ins.op == Op.ENDLOOP:
            depth = max(depth - 1, 0)
        label = f"{pc:>{width}}: " if pcs else ""
        bad = flags(ins, cfg) if cfg is not None else []
        note = f"  # OUT OF RANGE: {'; '.join(bad)}" if bad else ""
        lines.append(f"{label}{'  ' * depth}{instr_text(ins)}{note}")
        if ins.op == Op.LOOP:
            depth += 1
    return "\n".join(lines) + ("\n" if lines else "")
