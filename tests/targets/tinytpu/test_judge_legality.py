"""The judge's legal tier: one hand-broken program per rule, rejected with its layer and rule."""

import pytest

from polyjoule.targets.tinytpu import builds, corpus
from polyjoule.targets.tinytpu.asmfile import parse_tasm
from polyjoule.targets.tinytpu.assembler import assemble
from polyjoule.targets.tinytpu.judge import judge
from polyjoule.targets.tinytpu.legality import (
    JUDGE_RULES,
    RULES,
    Rejection,
    encoding_layer,
    legal,
)

CFG = builds.load().cfg  # the default build: T=4, MAXDIM=16
LOADS = "dma_ld f0=2 nr=4\ndma_ld f0=1 nr=4\n"  # A rows 0..3 -> vr 0..3, B rows 0..3 -> spad
GEMM4 = LOADS + "mm nr=4\nmvout nr=4\n"  # a legal, correct 4x4x4 GEMM
GEMM4_SPEC = corpus.load("gemm_4x4x4")

#: rule -> (layer, the hand-broken program); each breaks exactly that rule first
BROKEN = {
    "prog.empty": ("isa", ""),
    "op.unknown": ("isa", "op20 nr=1\n"),
    "loop.depth": ("isa", "loop nr=1\n" * 5 + "nop\n" + "endloop\n" * 5),
    "loop.trip": ("isa", "loop nr=0\nnop\nendloop\n"),
    "loop.unbalanced": ("isa", "nop\nendloop\n"),
    "loop.unclosed": ("isa", "loop nr=2\nnop\n"),
    "loop.stale_iv": ("isa", "loop nr=2\nnop\nendloop\ndma_ld f0=2 nr=4  f3 += iv0*4\n"),
    "enc.field_range": ("isa", "dma_ld f0=2 f3=3000 nr=4\n"),
    "enc.zero_rows": ("isa", "dma_ld f0=2 nr=0\n"),
    "op.dma_ld_field": ("isa", "dma_ld f0=5 nr=4\n"),
    "op.mm_acc_field": ("isa", LOADS + "mm f2=2 nr=4\n"),
    "dram.operand_range": ("isa", "dma_ld f0=2 f1=14 nr=4\n"),
    "dram.result_range": ("isa", LOADS + "mm nr=4\nmvout f2=4 nr=4\n"),
    "mem.out_of_range": ("isa", "dma_ld f0=2 f3=62 nr=4\n"),
    "mem.write_before_read": ("isa", "dma_ld f0=1 nr=4\nmm nr=4\n"),
    "ar.raw_distance": ("isa", LOADS + "mm nr=2\nmm f2=1 nr=2\nmvout nr=2\n"),
    "agu.target": ("isa", "loop nr=2\nnop  f0 += iv0*1\nendloop\n"),
    "agu.terms": ("encoding", "loop nr=2\ndma_ld f0=2 nr=4  f3 += iv0*4, f3 += iv0*4, "
                  "f3 += iv0*4, f3 += iv0*4\nendloop\n"),
    "imem.overflow": ("encoding", "dma_ld f0=2 nr=4\n" * 25),
    "hdr.array_overflow": ("encoding", LOADS + "loop nr=127\nloop nr=127\nmm nr=4\nendloop\n"
                           "endloop\nmvout nr=4\n"),
    "hdr.count_overflow": ("encoding", "loop nr=127\nloop nr=127\ndma_ld f0=2 nr=4\n"
                           "endloop\nendloop\n"),
    "prog.too_long": ("encoding", "loop nr=127\n" * 4 + "nop\n" + "endloop\n" * 4),
    "spec.write_window": ("spec", GEMM4 + "mvout f2=1 nr=4\n"),
    "spec.output_incomplete": ("spec", LOADS + "mm nr=4\nmvout nr=2\n"),
}


def test_the_table_names_the_23_judge_rules():
    layers = {}
    for name in JUDGE_RULES:
        rule = RULES[name]
        layers.setdefault(rule.layer, set()).add(name)
    assert {k: len(v) for k, v in layers.items()} == {"isa": 16, "encoding": 4,
                                                      "protocol": 1, "spec": 2}
    assert len(JUDGE_RULES) == 23 and set(RULES) - set(JUDGE_RULES) == {
        "agu.target", "agu.terms", "prog.too_long"}


def test_the_base_program_is_legal_and_correct():
    v = judge(GEMM4_SPEC, parse_tasm(GEMM4), CFG)
    assert v.status == "CORRECT", v


@pytest.mark.parametrize("rule", sorted(BROKEN))
def test_each_rule_rejects_its_hand_broken_program(rule):
    layer, text = BROKEN[rule]
    prog = parse_tasm(text)
    v = judge(GEMM4_SPEC, prog, CFG)
    assert v.status == "REJECTED", v
    assert (v.rejection.layer, v.rejection.rule) == (layer, rule), v.rejection
    shown = v.rejection.render(prog)
    assert shown.startswith(f"REJECTED [{layer} / {rule}]")
    assert "what happened:" in shown and "rule:" in shown and "change:" in shown


def test_rejection_shows_the_offending_instruction_with_its_two_neighbours():
    prog = parse_tasm(BROKEN["ar.raw_distance"][1])
    v = judge(GEMM4_SPEC, prog, CFG)
    shown = v.rejection.render(prog)
    assert v.rejection.pc == 3
    assert ">   3: mm f0=0 f1=0 f2=1 f3=0 nr=2" in shown
    assert "    2: mm f0=0 f1=0 f2=0 f3=0 nr=2" in shown and "    4: mvout" in shown


def test_dma_span_is_an_encoding_rule_the_isa_layer_always_preempts():
    # rows 14..17 of a 16-row image: the isa layer's operand range fires first (as
    # published: dma.span is unreached); the encoding layer alone names dma.span
    prog = parse_tasm("dma_ld f0=2 f1=14 nr=4\n")
    got = legal(prog, CFG)
    assert isinstance(got, Rejection) and got.rule == "dram.operand_range"
    alone = encoding_layer(prog, CFG)
    assert isinstance(alone, Rejection) and (alone.layer, alone.rule) == ("encoding",
                                                                            "dma.span")


@pytest.mark.parametrize("word, name", [(1, "dma_ld"), (5, "accu"), (0, "n_instr")])
def test_kpn_protocol_a_header_promising_other_work_than_dispatched(word, name):
    prog = parse_tasm(GEMM4)
    image = assemble(prog, CFG)
    assert legal(prog, CFG, GEMM4_SPEC, image) == legal(prog, CFG, GEMM4_SPEC)
    image[word] += 1
    got = legal(prog, CFG, GEMM4_SPEC, image)
    assert isinstance(got, Rejection)
    assert (got.layer, got.rule) == ("protocol", "kpn.protocol") and name in got.message


def test_each_broken_program_is_a_judge_rule_or_one_of_ours():
    assert set(BROKEN) == set(RULES) - {"dma.span", "kpn.protocol"}  # those two: below


def test_four_terms_are_legal_on_the_agu4_build():
    prog = parse_tasm(BROKEN["agu.terms"][1])
    assert not isinstance(legal(prog, builds.load("agu4").cfg), Rejection)


def test_a_program_too_long_to_expand_is_its_own_rule_not_a_field_range():
    """127**4 nops: every field encodes, so enc.field_range was the wrong cause; the
    judge names our expansion bound, and the mapper's gate calls it resources (express)."""
    from polyjoule.errors import Kind, Refused
    from polyjoule.targets.tinytpu.target import CAUSE_KIND, admitted

    prog = parse_tasm(BROKEN["prog.too_long"][1])
    got = legal(prog, CFG)
    assert isinstance(got, Rejection) and (got.layer, got.rule) == ("encoding",
                                                                    "prog.too_long")
    assert "524,418,561 sequencer fetches (limit 2,097,152)" in got.message
    assert not got.message.startswith("prog.too_long")  # the render names the rule once
    with pytest.raises(Refused) as r:
        admitted(prog, CFG)
    assert r.value.cause == "resources" and CAUSE_KIND["resources"] is Kind.EXPRESS
    assert "prog.too_long" in r.value.detail
