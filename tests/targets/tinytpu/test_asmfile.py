"""Program files: .tasm text and .thex images round-trip; bad files name file, line, field."""

import pytest

from polyjoule.targets.tinytpu.asmfile import (
    ProgramFileError,
    dump_program,
    gemm_tag,
    load_program,
    parse_tasm,
    parse_thex,
    save_program,
)
from polyjoule.targets.tinytpu.disasm import disassemble
from polyjoule.targets.tinytpu.isa import Instr, Op, Term
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.programs import gemm_program, gemm_program_flat, vadd_program

CFG = Config(MAXDIM=16)


@pytest.mark.parametrize("prog", [gemm_program(16, 16, 16, True, CFG),
                                  gemm_program_flat(8, 8, 8, False, CFG), vadd_program(CFG)])
def test_tasm_and_thex_round_trip(prog):
    assert parse_tasm(dump_program(prog, CFG, "tasm")) == prog
    assert parse_thex(dump_program(prog, CFG, "thex"), CFG) == prog
    assert parse_tasm(disassemble(prog)) == prog  # a listing is valid .tasm


def test_listing_indents_loops_and_shows_terms():
    text = disassemble(gemm_program(16, 16, 16, cfg=CFG))
    lines = text.splitlines()
    assert lines[9] == " 9:     mm f0=16 f1=0 f2=1 f3=4 nr=16  f0 += iv1*16, f3 += iv0*16, f3 += iv1*4"
    assert lines[8] == " 8:   loop nr=3"
    assert lines[12] == "12: endloop"


def test_both_term_spellings_parse():
    a = parse_tasm("mm f0=1 nr=4 f3 += iv0*64  +f0:1*8  # comment")
    assert a == [Instr(Op.MM, (1, 0, 0, 0), 4, (Term(3, 0, 64), Term(0, 1, 8)))]


@pytest.mark.parametrize("text, match", [
    ("frob nr=4", r"x\.tasm:1: op: unknown mnemonic"),
    ("\n\nmm nr=four", r"x\.tasm:3: 'nr=four' is not"),
    ("mm f5=1", r"x\.tasm:1: 'f5=1' is not"),
    ("mm f7 += iv0*1", r"x\.tasm:1: term"),
])
def test_bad_tasm_names_file_and_line(text, match):
    with pytest.raises(ProgramFileError, match=match):
        parse_tasm(text, "x.tasm")


def test_raw_opcode_reaches_the_checker():
    assert parse_tasm("op12 nr=1")[0].op == 12


def test_truncated_and_overlong_images():
    text = dump_program(gemm_program(8, 8, 8, cfg=CFG), CFG, "thex")
    words = [w for w in text.splitlines()]
    with pytest.raises(ProgramFileError, match="n_instr: truncated image"):
        parse_thex("\n".join(words[:-1]), CFG, "p.thex")
    with pytest.raises(ProgramFileError, match="header: truncated"):
        parse_thex("\n".join(words[:3]), CFG, "p.thex")
    with pytest.raises(ProgramFileError, match="words after"):
        parse_thex(text + "0\n", CFG, "p.thex")
    with pytest.raises(ProgramFileError, match="p.thex:2: word"):
        parse_thex("0\nzz\n", CFG, "p.thex")


def test_save_is_atomic_and_tagged(tmp_path):
    p = tmp_path / "g.tasm"
    prog = gemm_program(8, 8, 8, cfg=CFG)
    save_program(p, prog, CFG, tag=(8, 8, 8, False))
    assert load_program(p, CFG) == prog and gemm_tag(p.read_text()) == (8, 8, 8, False)
    bad = tmp_path / "flat.thex"
    with pytest.raises(Exception, match="imem.overflow"):
        save_program(bad, gemm_program_flat(16, 16, 16, True, CFG), CFG)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["g.tasm"]  # nothing half-written


def test_unknown_suffix_and_missing_file(tmp_path):
    with pytest.raises(ProgramFileError, match="suffix '.bin' is not one of"):
        load_program(tmp_path / "p.bin", CFG)
    with pytest.raises(ProgramFileError, match="cannot read"):
        load_program(tmp_path / "p.tasm", CFG)


# --- issue 14: tampered headers, flagged fields ------------------------------------------


def _image(tmp_path):
    from typer.testing import CliRunner

    from polyjoule.cli import app

    p = tmp_path / "g.thex"
    assert CliRunner().invoke(app, ["tinytpu", "gen", "gemm", "8x8x8", "-o", str(p)]).exit_code == 0
    return p


@pytest.mark.parametrize("cmd", ["check", "run", "cycles"])
def test_tampered_header_count_is_refused_on_load(tmp_path, cmd):
    from typer.testing import CliRunner

    from polyjoule.cli import app

    p = _image(tmp_path)
    lines = p.read_text().splitlines()
    n = next(i for i, ln in enumerate(lines) if ln.endswith("# dma_ld_rows"))
    lines[n] = f"{int(lines[n].split()[0], 16) + 1:016x}  # dma_ld_rows"
    p.write_text("\n".join(lines) + "\n")
    r = CliRunner().invoke(app, ["tinytpu", cmd, str(p)])
    assert r.exit_code == 2 and "header dma_ld_rows" in r.stderr and "tampered" in r.stderr


def test_disasm_flags_out_of_range_fields():
    from polyjoule.targets.tinytpu.disasm import disassemble, flags
    from polyjoule.targets.tinytpu.isa import Instr, Op
    from polyjoule.targets.tinytpu.params import Config

    cfg = Config()
    good = Instr(Op.MM, (0, 0, 0, 0), 4)
    bad = Instr(Op.MM, (0, 0, 7, 0), 4)  # acc field legal values are 0 and 1
    assert flags(good, cfg) == []
    assert any("f2: 7" in f for f in flags(bad, cfg))
    listing = disassemble([good, bad], cfg=cfg)
    assert listing.count("OUT OF RANGE") == 1 and "OUT OF RANGE" in listing.splitlines()[1]
