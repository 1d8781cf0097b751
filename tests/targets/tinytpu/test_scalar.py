"""Vectorised checker and reference model vs a row-by-row scalar re-implementation.

Random accu programs (overlapping ar regions, shifted sources, short row counts) make
the vectorised fast paths and the sequential fallback meet every ordering case.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from polyjoule.targets.tinytpu.assembler import ProgramError, check_program
from polyjoule.targets.tinytpu.isa import Instr, Op
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.refmodel import run

CFG = Config(MAXDIM=16)
D = CFG.AR_RAW_DIST
PROLOGUE = [Instr(Op.DMA_LD, (2, 0, 0, 0), 16), Instr(Op.DMA_LD, (1, 0, 0, 0), 4),
            Instr(Op.MM, (0, 0, 0, 0), 16)]

accu_op = st.sampled_from([Op.MM, Op.VADD, Op.VADDRELU, Op.VRELU, Op.MVOUT])
base = st.integers(0, 12)


def _instr(op, a, b, c, nr, acc):
    if op == Op.MM:  # activations from the 16 loaded vr rows
        return Instr(op, (min(a, 16 - nr), b, acc, 0), nr)
    if op == Op.MVOUT:
        return Instr(op, (a, 0, 0, 0), nr)
    return Instr(op, (a, b, c, 0), nr)


instr = st.builds(_instr, accu_op, base, base, base, st.integers(1, 8), st.integers(0, 1))


def scalar(prog, A, B):
    """The sheet's rules and semantics, one row at a time (no numpy slicing)."""
    written = [False] * CFG.NAR
    at = [-D] * CFG.NAR
    ar = [[0] * 4 for _ in range(CFG.NAR)]
    P = (A[:16, :4].astype(np.int64) @ B[:4, :4]).tolist()  # vr row r @ spad 0..3
    C = np.zeros((16, 16), np.int64)
    step = 0

    def read(row, s):
        if not written[row]:
            raise ProgramError("mem.write_before_read", f"ar row {row}")
        if s - at[row] < D:
            raise ProgramError("ar.raw_distance", f"ar row {row}")
        return ar[row]

    def write(row, s, v):
        written[row] = True
        at[row] = s
        ar[row] = v

    def wrap(v):
        return [((x + 2**31) % 2**32) - 2**31 for x in v]

    for ins in prog[2:]:  # the mm of the prologue is checked here too
        f, nr = ins.f, ins.nr
        for r in range(nr):
            if ins.op == Op.MM:
                prev = read(f[1] + r, step + r) if f[2] == 1 else [0] * 4
                write(f[1] + r, step + r, wrap([p + q for p, q in zip(prev, P[f[0] + r])]))
            elif ins.op == Op.VRELU:
                write(f[0] + r, step + r, [max(x, 0) for x in read(f[1] + r, step + r)])
            elif ins.op in (Op.VADD, Op.VADDRELU):
                a = read(f[1] + r, step + 2 * r)
                b = read(f[2] + r, step + 2 * r + 1)
                v = wrap([x + y for x, y in zip(a, b)])
                if ins.op == Op.VADDRELU:
                    v = [max(x, 0) for x in v]
                write(f[0] + r, step + 2 * r + 1, v)
            elif ins.op == Op.MVOUT:
                C[r, :4] = np.clip(read(f[0] + r, step + r), -128, 127)
        step += nr * (2 if ins.op in (Op.VADD, Op.VADDRELU) else 1)
    return C


@settings(max_examples=300, deadline=None)
@given(st.lists(instr, min_size=1, max_size=6), st.integers(0, 2**16))
def test_vectorised_matches_scalar(body, seed):
    rng = np.random.default_rng(seed)
    A = rng.integers(-128, 128, (16, 16), dtype=np.int8)
    B = rng.integers(-128, 128, (16, 16), dtype=np.int8)
    prog = PROLOGUE + body
    try:
        want = scalar(prog, A, B)
        want_rule = None
    except ProgramError as e:
        want_rule, want_row = e.rule, e.message
    try:
        got = run(prog, A, B, np.zeros((16, 16), np.int8), CFG)
        got_rule = None
    except ProgramError as e:
        got_rule = e.rule
        assert want_rule == got_rule and f"{want_row} read" in e.message, (want_rule, e)
    assert got_rule == want_rule
    if want_rule is None:
        assert np.array_equal(got[:, :4], want[:, :4])
        check_program(prog, CFG)
