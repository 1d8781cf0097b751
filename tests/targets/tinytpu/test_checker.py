"""Every checker and assembler rule: a program that violates it, and the rule's name (sheet §11,
§7), the same in every command that takes a program."""

import re

import numpy as np
import pytest
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.errors import PolyjouleError
from polyjoule.targets.tinytpu.assembler import (
    AssemblyError,
    ProgramError,
    admit,
    assemble,
    check_program,
    expand,
)
from polyjoule.targets.tinytpu.disasm import disassemble
from polyjoule.targets.tinytpu.isa import Instr, Op, Term
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program, gemm_program_flat
from polyjoule.targets.tinytpu.refmodel import run

CFG = Config(MAXDIM=16)  # WPR 4, spad/vr 64 rows, ar 128 rows

LOAD_A = Instr(Op.DMA_LD, (2, 0, 0, 0), 4)
LOAD_B = Instr(Op.DMA_LD, (1, 0, 0, 0), 4)
MM = Instr(Op.MM, (0, 0, 0, 0), 4)
OUT = Instr(Op.MVOUT, (0, 0, 0, 0), 4)
GOOD = [LOAD_A, LOAD_B, MM, OUT]


def loop(n):
    return Instr(Op.LOOP, nr=n)


END = Instr(Op.ENDLOOP)
NOP = Instr(Op.NOP)


def rule_of(program, cfg=CFG):
    with pytest.raises(ProgramError) as e:
        check_program(program, cfg)
    assert isinstance(e.value, PolyjouleError)
    return e.value.rule


def test_good_program_passes():
    assert len(check_program(GOOD, CFG)) == 4


VIOLATIONS = {
    "prog.empty": [],
    "op.unknown": [LOAD_A, Instr(12)],
    "loop.depth": [loop(1)] * 5 + [NOP] + [END] * 5,
    "loop.trip": [loop(0), NOP, END],
    "loop.unbalanced": [NOP, END],
    "loop.unclosed": [loop(2), NOP],
    "loop.stale_iv": [loop(2), NOP, END, Instr(Op.DMA_LD, (2, 0, 0, 0), 4, (Term(3, 0, 4),))],
    "agu.target": [loop(2), Instr(Op.NOP, terms=(Term(0, 0, 1),)), END],
    "enc.field_range": [loop(2), Instr(Op.DMA_LD, (2, 0, 0, 1), 4, (Term(3, 0, 2047),)), END],
    "enc.zero_rows": [LOAD_A, LOAD_B, Instr(Op.MM, (0, 0, 0, 0), 0)],
    "op.dma_ld_field": [Instr(Op.DMA_LD, (4, 0, 0, 0), 4)],
    "op.mm_acc_field": [LOAD_A, LOAD_B, Instr(Op.MM, (0, 0, 2, 0), 4)],
    "dram.operand_range": [Instr(Op.DMA_LD, (2, 14, 0, 0), 4)],
    "dram.result_range": [LOAD_A, LOAD_B, MM, Instr(Op.MVOUT, (0, 13, 0, 0), 4)],
    "mem.out_of_range": [Instr(Op.DMA_LD, (2, 0, 0, 62), 4)],
    "mem.write_before_read": [LOAD_A, MM],
    "ar.raw_distance": [LOAD_A, LOAD_B, Instr(Op.MM, (0, 0, 0, 0), 2),
                        Instr(Op.MVOUT, (0, 0, 0, 0), 2)],
}


@pytest.mark.parametrize("rule", sorted(VIOLATIONS))
def test_each_rule_is_named(rule):
    assert rule_of(VIOLATIONS[rule]) == rule


def test_dma_st_is_retired():
    assert rule_of([Instr(Op.DMA_ST, (0, 0, 0, 0), 1)]) == "op.unknown"


def test_column_block_past_wpr_is_operand_range():
    assert rule_of([Instr(Op.DMA_LD, (2, 0, 4, 0), 4)]) == "dram.operand_range"
    assert rule_of([LOAD_A, LOAD_B, MM, Instr(Op.MVOUT, (0, 0, 4, 0), 4)]) == "dram.result_range"


def test_term_on_a_level_that_closed_is_stale():
    prog = [loop(2), loop(2), NOP, END, Instr(Op.NOP), END]
    check_program(prog, CFG)
    bad = [loop(2), loop(2), NOP, END, Instr(Op.DMA_LD, (2, 0, 0, 0), 4, (Term(3, 1, 4),)), END]
    assert rule_of(bad) == "loop.stale_iv"


def test_vld_copies_the_unwritten_status():
    ok = [LOAD_B, Instr(Op.VLD, (0, 0, 0, 0), 4), MM, OUT]
    check_program(ok, CFG)
    bad = [LOAD_B, Instr(Op.VLD, (0, 8, 0, 0), 4), MM]
    assert rule_of(bad) == "mem.write_before_read"


def test_ar_distance_boundary_is_exactly_four():
    """nr=4 reads each row 4 iterations after its write (legal); nr=3 reads at 3."""
    check_program(GOOD, CFG)
    short = [LOAD_A, LOAD_B, Instr(Op.MM, (0, 0, 0, 0), 3), Instr(Op.MVOUT, (0, 0, 0, 0), 3)]
    with pytest.raises(ProgramError, match="read 3 accu iteration"):
        check_program(short, CFG)


@pytest.mark.parametrize("op", [Op.VADD, Op.VADDRELU])
def test_vaddrelu_is_checked_like_vadd(op):
    # the first writes ar 8..11 at steps 5, 7, 9, 11 (two steps per row); the second
    # starts at step 12, so ar 10 is read 3 steps after its write, ar 8 seven
    prog = [LOAD_A, LOAD_B, MM, Instr(op, (8, 0, 0, 0), 4), Instr(op, (16, 10, 10, 0), 2)]
    with pytest.raises(ProgramError) as e:
        check_program(prog, CFG)
    assert e.value.rule == "ar.raw_distance" and "ar row 10 read 3" in str(e.value)
    ok = [LOAD_A, LOAD_B, MM, Instr(op, (8, 0, 0, 0), 4), Instr(op, (16, 8, 8, 0), 2), OUT]
    check_program(ok, CFG)


def test_shifted_overlap_is_checked_row_by_row():
    """vrelu writing row r+1 from row r: row r+1 is read one step after it was written."""
    prog = [LOAD_A, LOAD_B, Instr(Op.MM, (0, 0, 0, 0), 8), Instr(Op.VRELU, (1, 0, 0, 0), 4)]
    with pytest.raises(ProgramError, match="ar row 1 read 1 accu"):
        check_program([LOAD_A, Instr(Op.DMA_LD, (2, 4, 0, 4), 4), *prog[1:]], CFG)


def test_acc_from_agu_probe():
    """Published probe: an AGU term on mm's acc field is legal for 1 and 2 k-tiles, not 3."""
    def prog(kt):
        mm = Instr(Op.MM, (0, 0, 0, 0), 4, (Term(2, 0, 1),))
        return [LOAD_A, LOAD_B, NOP, NOP, loop(kt), mm, END, OUT]

    for kt, values in ((1, [0]), (2, [0, 1])):
        assert [x.f2 for x in check_program(prog(kt), CFG) if x.op == Op.MM] == values
    with pytest.raises(ProgramError) as e:
        check_program(prog(3), CFG)
    assert e.value.rule == "op.mm_acc_field"
    assert "instruction 5 (mm, loop ivs [2]): f2=2" in str(e.value)


@pytest.mark.parametrize("maxdim", [16, 32])
def test_generated_gemms_pass(maxdim):
    cfg = Config(MAXDIM=maxdim)
    for m in range(4, maxdim + 1, 4):
        for relu in (False, True):
            check_program(gemm_program(m, maxdim, m, relu, cfg), cfg)
            check_program(gemm_program_flat(m, 4, maxdim, relu, cfg), cfg)


# ----------------------------------------------------------------------------- assemble


def asm_rule(program, cfg=CFG, check=True):
    with pytest.raises(AssemblyError) as e:
        assemble(program, cfg, check)
    assert isinstance(e.value, PolyjouleError)
    return e.value.rule


def test_imem_overflow_of_unrolled_relu_gemm():
    prog = gemm_program_flat(16, 16, 16, relu=True, cfg=CFG)
    assert len(prog) == 32
    assert asm_rule(prog) == "imem.overflow"
    assert len(assemble(prog, Config(MAXDIM=16, IMEM_SIZE=72))) == 72


def test_header_count_overflow():
    prog = [loop(127), loop(127), LOAD_A, END, END]  # dma_ld rows 127*127*4
    assert asm_rule(prog) == "hdr.count_overflow"


def test_array_count_overflow():
    prog = [LOAD_A, LOAD_B, loop(127), loop(127), MM, END, END]  # mm rows 127*127*4
    assert asm_rule(prog) == "hdr.array_overflow"


def test_dma_span_only_without_the_checker():
    prog = [Instr(Op.DMA_LD, (2, 14, 0, 0), 4)]
    assert rule_of(prog) == "dram.operand_range"  # why the judge never reaches dma.span
    assert asm_rule(prog, check=False) == "dma.span"


def test_unencodable_field_in_assemble():
    prog = [Instr(Op.VRELU, (0, 0, 0, 0), 200)]
    assert asm_rule(prog, check=False) == "enc.field_range"


def test_expand_of_nested_loops_resolves_terms_and_ivs():
    prog = [loop(2), loop(3), Instr(Op.NOP, (1, 0, 0, 5), 0, ()),
            Instr(Op.VRELU, (0, 10, 0, 0), 4, (Term(0, 0, 100), Term(1, 1, 1))), END, END]
    s = [x for x in expand(prog, CFG) if x.op == Op.VRELU]
    assert [(x.f0, x.f1, x.ivs) for x in s] == [
        (0, 10, (0, 0)), (0, 11, (0, 1)), (0, 12, (0, 2)),
        (100, 10, (1, 0)), (100, 11, (1, 1)), (100, 12, (1, 2))]

# ------------------------------------------- one gate: every command names the same rule
# ``assembler.admit`` is the checker then the encoding limits; every command that runs,
# prices, writes or grades a program asks it (tester's trial 8: ``loop nr=200`` was
# refused by ``check`` and taken by ``run`` and ``cycles``).

runner = CliRunner()
#: programs each breaking one encoding limit, and the rule (the checker accepts them all)
LIMITS = {
    "enc.field_range": [loop(200), NOP, END],  # nr above MAXROWS: the trial's b.tasm
    "imem.overflow": [NOP] * 25,  # 8 + 2 * 25 = 58 words > IMEM_SIZE=56
    "agu.terms": [loop(2), Instr(Op.DMA_LD, (2, 0, 0, 0), 4, (Term(0, 0, 0),) * 4), END],
    # 127 x 127 dma_ld of 4 rows: 64516 dma_ld rows do not fit 15 header bits
    "hdr.count_overflow": [loop(127), loop(127), LOAD_A, END, END],
    # 127 x 127 mm of 4 rows: 64516 array rows
    "hdr.array_overflow": [LOAD_A, LOAD_B, loop(127), loop(127), MM, END, END],
}
#: every rule a command can reach through a program file (dma.span: the checker's
#: dram.operand_range always fires first, as published)
CASES = {**VIOLATIONS, **LIMITS}
RULE = re.compile(r"^polyjoule: error: \S+: ([a-z_.]+): ")


def _file(tmp_path, rule):
    p = tmp_path / f"{rule}.tasm"
    p.write_text(disassemble(CASES[rule], cfg=CFG) if CASES[rule] else "# nothing\n")
    return p


def _error_line(result):
    lines = [x for x in result.output.splitlines() if x.startswith("polyjoule: error:")]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def test_the_limits_pass_the_checker_and_fail_only_the_image():
    """The encoding cases are not checker cases in disguise: check_program accepts each."""
    for rule, prog in LIMITS.items():
        check_program(prog, CFG)
        with pytest.raises(AssemblyError) as e:
            admit(prog, CFG)
        assert e.value.rule == rule


@pytest.mark.parametrize("rule", sorted(CASES))
def test_admit_names_the_rule_assemble_names(rule):
    errors = (ProgramError, AssemblyError)
    with pytest.raises(errors) as a:
        admit(CASES[rule], CFG)
    with pytest.raises(errors) as b:
        assemble(CASES[rule], CFG)
    assert a.value.rule == b.value.rule == rule


@pytest.mark.parametrize("rule", sorted(CASES))
def test_check_run_cycles_and_judge_agree(tmp_path, rule):
    p = _file(tmp_path, rule)
    lines = {}
    for cmd in ("check", "run", "cycles"):
        r = runner.invoke(app, ["tinytpu", cmd, str(p)])
        assert r.exit_code == 2, (cmd, r.output)
        lines[cmd] = _error_line(r)
    assert len(set(lines.values())) == 1, lines  # the same line, word for word
    m = RULE.match(lines["check"])
    assert m and m.group(1) == rule, lines["check"]
    # the judge grades, so a refusal is a verdict (exit 1), naming the same rule
    r = runner.invoke(app, ["judge", "gemm_4x4x4", str(p)])
    assert r.exit_code == 1, r.output
    assert re.search(rf"VERDICT gemm_4x4x4 REJECTED \w+/{re.escape(rule)}$", r.output, re.M)


def test_gen_writes_only_what_check_takes(tmp_path):
    """gen asks the same gate: the flat 16x16x16 is refused imem.overflow, as check would."""
    p = tmp_path / "f.tasm"
    r = runner.invoke(app, ["tinytpu", "gen", "gemm", "16x16x16", "--flat", "-o", str(p)])
    assert r.exit_code == 2 and "imem.overflow" in _error_line(r) and not p.exists()


def test_a_program_too_long_to_expand_is_one_refusal_everywhere(tmp_path):
    """127^4 loop trips: a tool limit, not a machine rule, but the same line in all three."""
    p = tmp_path / "long.tasm"
    p.write_text("loop nr=127\n" * 4 + "nop\n" + "endloop\n" * 4)
    lines = set()
    for cmd in ("check", "run", "cycles"):
        r = runner.invoke(app, ["tinytpu", cmd, str(p)])
        assert r.exit_code == 2, (cmd, r.output)
        lines.add(_error_line(r))
    assert len(lines) == 1 and "prog.too_long: the program expands to 524,418,561" in lines.pop()


def test_the_library_reference_model_still_runs_a_flat_twin_beyond_imem():
    """refmodel.run asks the checker only (sheet §6), so flat twins longer than IMEM_SIZE
    run there; the commands refuse them (above)."""
    cfg = Config(MAXDIM=16)
    flat = gemm_program_flat(16, 16, 16, cfg=cfg)
    with pytest.raises(AssemblyError):
        admit(flat, cfg)
    A = np.ones((16, 16), np.int8)
    C = run(flat, A, A, np.zeros((16, 16), np.int8), cfg)
    assert (C == 16).all()


def test_a_negative_row_count_is_out_of_range_not_a_zero_row_instruction():
    with pytest.raises(ProgramError) as e:
        check_program([LOAD_A, LOAD_B, Instr(Op.MM, (0, 0, 0, 0), -4)], CFG)
    assert e.value.rule == "enc.field_range" and "nr=-4 is negative" in str(e.value)
    assert "zero-row" not in str(e.value)


def test_a_zero_trip_loop_says_the_body_still_runs_once():
    with pytest.raises(ProgramError) as e:
        check_program([loop(0), NOP, END], CFG)
    text = str(e.value)
    assert "nr=0" in text and "runs its body at least once" in text
    assert text.count("trip count 0") == 0  # the old message said it twice
