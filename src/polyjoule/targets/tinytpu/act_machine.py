"""TinyTPU-isa declared as data for the mapper's scheduler (act-mapper sheet §9).

Every fetch, data or control, costs the sequencer ``SEQUENCER_II`` cycles: its fetch
loop closes at II=5 and the loop stack is that recurrence, so loop/endloop are charged.
Per-unit work per issue is the header's contribution. ``vaddrelu`` is not declared:
the lowering never emits it, and an undeclared opcode is a loud ``MachineError``.
"""

from __future__ import annotations

from collections.abc import Sequence

from polyjoule.analysis.machine import Machine, Opcode, Region, Space, Step
from polyjoule.targets.tinytpu.assembler import Issue, fetches
from polyjoule.targets.tinytpu.isa import Instr, Op
from polyjoule.targets.tinytpu.params import Config

SEQUENCER_II = 5


def machine(cfg: Config) -> Machine:
    """The machine of one build: spad, vr, ar and the seven data opcodes the lowering uses."""
    T = cfg.T

    def dst(f: dict[str, int]) -> str:
        return "vr" if f["f0"] & 2 else "spad"

    def dma_src(f: dict[str, int]) -> Region:
        return Region(f"dram.{'B' if f['f0'] & 1 else 'A'}:{f['f2']}", f["f1"], f["nr"])

    return Machine(
        name="tinytpu-isa",
        spaces=(Space("spad", cfg.SPAD_ROWS), Space("vr", cfg.NVR), Space("ar", cfg.NAR)),
        issue_load=(("sequencer", SEQUENCER_II),),
        opcodes=(
            Opcode(int(Op.DMA_LD), "dma_ld",
                   loads=(("dma_ld", lambda f: f["nr"]),
                          ("spm", lambda f: 0 if f["f0"] & 2 else f["nr"]),
                          ("vru", lambda f: f["nr"] if f["f0"] & 2 else 0)),
                   reads=(dma_src,),
                   writes=(lambda f: Region(dst(f), f["f3"], f["nr"]),)),
            Opcode(int(Op.VLD), "vld",
                   loads=(("spm", lambda f: f["nr"]), ("vru", lambda f: f["nr"])),
                   reads=(lambda f: Region("spad", f["f1"], f["nr"]),),
                   writes=(lambda f: Region("vr", f["f0"], f["nr"]),)),
            Opcode(int(Op.MM), "mm",
                   loads=(("spm", lambda f: T + 1), ("vru", lambda f: f["nr"]),
                          ("accu", lambda f: f["nr"])),
                   reads=(lambda f: Region("vr", f["f0"], f["nr"]),
                          lambda f: Region("spad", f["f3"], T),
                          lambda f: Region("ar", f["f1"], f["nr"]) if f["f2"] else None),
                   writes=(lambda f: Region("ar", f["f1"], f["nr"]),)),
            Opcode(int(Op.VADD), "vadd",
                   loads=(("accu", lambda f: 2 * f["nr"]),),
                   reads=(lambda f: Region("ar", f["f1"], f["nr"]),
                          lambda f: Region("ar", f["f2"], f["nr"])),
                   writes=(lambda f: Region("ar", f["f0"], f["nr"]),)),
            Opcode(int(Op.VRELU), "vrelu",
                   loads=(("accu", lambda f: f["nr"]),),
                   reads=(lambda f: Region("ar", f["f1"], f["nr"]),),
                   writes=(lambda f: Region("ar", f["f0"], f["nr"]),)),
            Opcode(int(Op.MVOUT), "mvout",
                   loads=(("accu", lambda f: f["nr"]), ("dma_st", lambda f: f["nr"])),
                   reads=(lambda f: Region("ar", f["f0"], f["nr"]),),
                   writes=(lambda f: Region(f"dram.C:{f['f2']}", f["f1"], f["nr"]),)),
        ),
    )


def fields_of(issue: Issue) -> dict[str, int]:
    """The resolved fields of one issue as the opcode functions read them: nr, f0..f3."""
    return {"nr": issue.nr, "f0": issue.f0, "f1": issue.f1, "f2": issue.f2, "f3": issue.f3}


def steps_of(program: Sequence[Instr], cfg: Config, mach: Machine | None = None) -> list[Step]:
    """One step per sequencer fetch, in fetch order: control fetches load only the sequencer."""
    mach = mach or machine(cfg)
    out: list[Step] = []
    for i, x in enumerate(fetches(program, cfg)):
        if isinstance(x, Issue):
            out.append(mach.step(i, int(x.op), fields_of(x)))
        else:
            out.append(mach.control_step(i, Op(program[x[1]].op).name.lower()))
    return out
