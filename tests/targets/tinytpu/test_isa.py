"""Encoding: bit positions, spare-bit rule, round trip (sheet §1)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyjoule.targets.tinytpu.isa import OPCODES, EncodingError, Instr, Op, Term, decode, encode
from polyjoule.targets.tinytpu.params import DEFAULT, Config


def test_opcode_numbers_and_table():
    assert [int(o) for o in Op] == list(range(11))
    assert OPCODES[Op.VADDRELU].accu_steps == 2 == OPCODES[Op.VADD].accu_steps
    assert not OPCODES[Op.DMA_ST].executable
    assert OPCODES[Op.MM].legal[2][0] == (0, 1)


def test_bit_positions_by_hand():
    ins = Instr(Op.MM, (1, 2, 1, 3), 16, (Term(0, 1, 64), Term(3, 0, 4)))
    w0, w1 = encode(ins, DEFAULT)
    assert w0 == 4 | 1 << 6 | 2 << 18 | 1 << 30 | 3 << 42 | 16 << 54
    term0 = 1 | 1 << 4 | 64 << 7
    term1 = 4 | 0 << 4 | 4 << 7
    assert w1 == term0 | term1 << 19
    assert encode(Instr(Op.ENDLOOP), DEFAULT) == (9, 0)


@pytest.mark.parametrize("ins, field", [
    (Instr(Op.MM, (2048, 0, 0, 0), 4), "f0"),
    (Instr(Op.MM, (0, 0, 0, 4096), 4), "f3"),
    (Instr(Op.MM, (0, 0, 0, 0), 128), "nr"),
    (Instr(Op.MM, (0, 0, 0, 0), -1), "nr"),
    (Instr(32, (0, 0, 0, 0), 1), "op"),
    (Instr(Op.MM, (0, 0, 0, 0), 4, (Term(0, 0, 2048),)), "term0.stride"),
    (Instr(Op.MM, (0, 0, 0, 0), 4, (Term(0, 4, 1),)), "term0.level"),
    (Instr(Op.MM, (0, 0, 0, 0), 4, (Term(4, 0, 1),)), "term0.field"),
    (Instr(Op.MM, (0, 0, 0, 0), 4, (Term(0, 0, 1),) * 4), "terms"),
])
def test_overflowing_fields_raise_naming_the_field(ins, field):
    with pytest.raises(EncodingError) as e:
        encode(ins, DEFAULT)
    assert e.value.field_name == field
    assert str(e.value).startswith(field)


def test_decode_keeps_unknown_opcode_as_int():
    ins = decode(12, 0, DEFAULT)
    assert ins.op == 12 and not isinstance(ins.op, Op) and ins.mnemonic == "op12"


terms = st.builds(Term, st.integers(0, 3), st.integers(0, 3), st.integers(0, 2047))
instrs = st.builds(Instr, st.sampled_from(list(Op)),
                   st.tuples(*[st.integers(0, 2047)] * 4), st.integers(0, 127),
                   st.lists(terms, max_size=3).map(tuple))


@given(instrs)
def test_encode_decode_round_trip(ins):
    w0, w1 = encode(ins, DEFAULT)
    assert 0 <= w0 < 1 << 62 and 0 <= w1 < 1 << 57  # spare bits stay clear
    assert decode(w0, w1, DEFAULT) == ins


@given(st.lists(terms, min_size=4, max_size=4).map(tuple))
def test_four_term_build_round_trips(ts):
    cfg = Config(AGU_TERMS=4)
    ins = Instr(Op.MM, (1, 2, 0, 3), 8, ts)
    assert decode(*encode(ins, cfg), cfg) == ins
