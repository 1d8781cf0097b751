"""The judge's correct and fast tiers, the mapper's pick per spec, and the CLI."""

import numpy as np
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.targets.tinytpu import builds, corpus
from polyjoule.targets.tinytpu.asmfile import parse_tasm
from polyjoule.targets.tinytpu.judge import DISTRIBUTIONS, images, judge, judge_best, run_case

CFG = builds.load().cfg
runner = CliRunner()
GEMM4 = "dma_ld f0=2 nr=4\ndma_ld f0=1 nr=4\nmm nr=4\nmvout nr=4\n"


def test_images_follow_the_spec_layout_pad_and_prefill():
    s = corpus.load("row_reduce_16x16")
    img, values = images(s, CFG, "full", np.random.default_rng(0))
    assert (img["A"][:16, :16] == values["X"]).all()
    assert (img["B"][:16, 0] == 1).all() and (img["B"][:, 1:] != 0).all()  # garbage pad
    z = corpus.load("gemm_reduce_8x6x8_zeropad")
    img, _ = images(z, CFG, "small", np.random.default_rng(0))
    assert (img["A"][:, 6:] == 0).all() and (img["B"][6:, :] == 0).all()
    assert (img["C"] != 0).mean() > 0.9  # C prefilled with random bytes


def test_a_correct_program_in_all_four_distributions():
    v = judge(corpus.load("gemm_4x4x4"), parse_tasm(GEMM4), CFG)
    assert v.status == "CORRECT" and [c.dist for c in v.cases] == list(DISTRIBUTIONS)
    assert all(c.total == 16 for c in v.cases)


def test_a_legal_program_computing_the_wrong_thing_is_wrong():
    # the plain GEMM against the relu spec: negative sums differ from the gold
    v = judge(corpus.load("gemm_relu_16x16x16"), corpus.map_spec(
        corpus.load("gemm_16x16x16"), CFG).program, CFG)
    assert v.status == "WRONG" and all(c.wrong > 0 for c in v.cases)
    assert all(c.clobbered == 0 for c in v.cases)


def test_bytes_changed_outside_the_window_are_counted():
    # run_case alone (the spec layer would refuse this mvout before the correct tier)
    prog = parse_tasm(GEMM4 + "mvout f2=1 nr=4\n")
    case = run_case(corpus.load("gemm_4x4x4"), prog, CFG, "full", 3)
    assert case.wrong == 0 and case.clobbered > 0


def test_zero_pad_makes_an_extra_k_tile_exact_and_arbitrary_pad_is_the_known_gap():
    prog = corpus.map_spec(corpus.load("gemm_8x8x8"), CFG).program  # reads K=8
    assert judge(corpus.load("gemm_reduce_8x6x8_zeropad"), prog, CFG).status == "CORRECT"
    v = judge(corpus.load("gemm_reduce_8x6x8"), prog, CFG)
    assert v.status == "KNOWN GAP" and not v.failed and all(c.wrong > 0 for c in v.cases)


def test_mapper_best_maps_every_class_and_reports_the_known_gap():
    assert judge_best(corpus.load("gemm_relu_16x16x16"), CFG).status == "CORRECT"
    for name in ("batched_matmul_2x4x4x4", "relu_16x16", "row_reduce_16x16",
                 "gemm_cols_8x8x6", "gemm_narrow_2x8x4", "gemm_reduce_8x6x8_zeropad"):
        assert judge_best(corpus.load(name), CFG).status == "CORRECT", name
    v = judge_best(corpus.load("gemm_reduce_8x6x8"), CFG)
    assert v.status == "KNOWN GAP" and "zeroes a row" in v.detail
    assert judge_best(corpus.load("gemm_steady_64x64x64"), CFG).status == "SKIPPED"


def test_fast_tier_estimate_matches_the_published_reference_work():
    """Header work of the mapper's pick = the reference submission's critical work (§14)."""
    v = judge_best(corpus.load("gemm_16x16x16"), CFG)
    s = v.speed
    assert (s.unit, s.work, round(s.estimate)) == ("vru", 320, 692) == s.reference[:3]
    assert s.fast and abs(s.model - 686) / 686 < 0.05


def invoke(*args):
    return runner.invoke(app, ["judge", *map(str, args)])


def test_cli_list_spec_program_and_corpus(tmp_path):
    r = invoke("--list")
    assert r.exit_code == 0 and len(r.output.splitlines()) == 22
    r = invoke("gemm_16x16x8")
    assert r.exit_code == 0 and "VERDICT gemm_16x16x8 CORRECT" in r.output
    assert r.output.startswith("# build maxdim16")
    p = tmp_path / "bad.tasm"
    p.write_text("dma_ld f0=1 nr=4\nmm nr=4\n")
    r = invoke("gemm_4x4x4", p)
    assert r.exit_code == 1 and "REJECTED [isa / mem.write_before_read]" in r.output
    assert "VERDICT gemm_4x4x4 REJECTED isa/mem.write_before_read" in r.output
    r = invoke("--corpus")
    assert r.exit_code == 0
    verdict = [ln for ln in r.output.splitlines() if ln.startswith("JUDGE ")]
    assert verdict == ["JUDGE corpus build=maxdim16 specs=22",
                       "JUDGE corpus CORRECT=16 KNOWN_GAP=1 WRONG=0 REJECTED=0 NOT_MAPPED=0 "
                       "SKIPPED=5"]
    assert max(map(len, verdict)) <= 80


def test_cli_thex_with_a_tampered_header_is_kpn_protocol(tmp_path):
    p = tmp_path / "g.thex"
    assert runner.invoke(app, ["tinytpu", "gen", "gemm", "4x4x4", "-o", str(p)]).exit_code == 0
    assert invoke("gemm_4x4x4", p).exit_code == 0
    lines = p.read_text().splitlines()
    i = next(i for i, ln in enumerate(lines) if "accu_iterations" in ln)
    word, note = lines[i].split("  #")
    lines[i] = f"{int(word, 16) + 4:016x}  #{note}"
    p.write_text("\n".join(lines) + "\n")
    r = invoke("gemm_4x4x4", p)
    assert r.exit_code == 1 and "REJECTED [protocol / kpn.protocol]" in r.output


def test_cli_bad_input_is_exit_2(tmp_path):
    assert invoke("nosuch_spec").exit_code == 2
    p = tmp_path / "s.json"
    p.write_text('{"name": "x"}')
    r = invoke(p)
    assert r.exit_code == 2 and ("stresses, einsum, dims, inputs, output, accumulator, "
                                 "epilogue, operand_pad: are missing") in r.output
    g = tmp_path / "g.tasm"
    r = runner.invoke(app, ["tinytpu", "gen", "gemm", "4x4x4", "-o", str(g), "--machine",
                            "maxdim64"])
    assert r.exit_code == 0
    r = invoke("gemm_4x4x4", g)  # made for another build: not judged on the default
    assert r.exit_code == 2 and "pass --machine maxdim64" in r.output
    assert invoke("gemm_4x4x4", g, "--machine", "maxdim64").exit_code == 0


def test_fast_tier_shows_the_cosim_of_exactly_this_program_on_this_build():
    from polyjoule.targets.tinytpu.judge import exact_cosim
    from polyjoule.targets.tinytpu.programs import gemm_program

    s16 = corpus.load("gemm_16x16x16")
    shipped = gemm_program(16, 16, 16, False, CFG)
    assert exact_cosim(s16, shipped, CFG).cycles == 674  # sheet §14, MAXDIM=16 QD=16
    assert exact_cosim(s16, shipped, builds.load("agu4").cfg) is None  # another build
    v = judge_best(corpus.load("gemm_4x4x4"), CFG)  # the mapper's 8-instruction program
    assert v.speed.cosim is None and v.speed.reference[3] == 172
    md64 = builds.load("maxdim64").cfg
    v = judge_best(s16, md64)
    assert v.speed.cosim.cycles == 868 and abs(v.speed.model - 868) <= 0.05 * 868


def test_cli_judges_a_spec_file_given_by_path(tmp_path):
    import json

    doc = corpus.load("gemm_8x8x8").model_dump(exclude_none=True)
    doc.update(name="my_gemm", epilogue=["relu", "saturate"])
    p = tmp_path / "my.json"
    p.write_text(json.dumps(doc))
    r = invoke(p)
    assert r.exit_code == 0 and "VERDICT my_gemm CORRECT" in r.output
    assert "program: the mapper's best" in r.output


def test_cli_a_file_no_instruction_word_holds_is_bad_input_a_broken_rule_a_verdict(tmp_path):
    """Malformed (the words cannot hold it): exit 2, one line naming file:line and field.
    Well-formed but refused by the checker: the verdict REJECTED, exit 1."""
    malformed = {
        "dma_ld f0=-1 nr=4": "neg.tasm:1: f0: -1 does not fit its 12-bit field",
        "dma_ld f0=2 nr=300": "big.tasm:1: nr: 300 does not fit its 8-bit field",
        "op99 nr=1": "op.tasm:1: op: 99 does not fit its 6-bit field",
        "dma_ld f0=2 nr=4  f3 += iv9*4": "lvl.tasm:1: term f3: level: 9 does not fit",
        "dma_ld f0=2 nr=4\n  f3 += iv0*4": "term.tasm:2: op: a term with no mnemonic",
        "dma_ld f0=2 nr=" + "9" * 5000: "digits.tasm:1: nr: 999999999999... (5000 digits)",
    }
    for (text, want), name in zip(malformed.items(), ("neg", "big", "op", "lvl", "term",
                                                      "digits"), strict=True):
        p = tmp_path / f"{name}.tasm"
        p.write_text(text + "\n")
        r = invoke("gemm_4x4x4", p)
        errors = [ln for ln in r.output.splitlines() if ln.startswith("polyjoule: error:")]
        assert r.exit_code == 2 and len(errors) == 1 and want in errors[0], r.output
        assert "VERDICT" not in r.output and "Traceback" not in r.output
    p = tmp_path / "spare.tasm"  # 3000 fits the 12 bits, the spare-bit rule forbids it
    p.write_text("dma_ld f0=2 f3=3000 nr=4\n")
    r = invoke("gemm_4x4x4", p)
    assert r.exit_code == 1 and "VERDICT gemm_4x4x4 REJECTED isa/enc.field_range" in r.output


def test_cli_list_and_corpus_take_no_spec_or_program():
    for flag in ("--list", "--corpus"):
        r = invoke(flag, "gemm_4x4x4")
        assert r.exit_code == 2 and f"{flag} takes no SPEC or PROGRAM" in r.output


def test_cli_help_says_which_exit_is_a_verdict_and_which_bad_input():
    r = runner.invoke(app, ["judge", "--help"], env={"COLUMNS": "80"})
    text = " ".join(r.output.split())
    assert "Exit 1: a failing grade, REJECTED or WRONG" in text
    assert "Exit 2: bad input" in text and "f0=-1" in text
    assert max(map(len, r.output.splitlines())) <= 80


def test_list_and_corpus_together_are_refused_naming_both():
    r = runner.invoke(app, ["judge", "--list", "--corpus"])
    assert r.exit_code == 2 and "--list and --corpus" in r.stderr
