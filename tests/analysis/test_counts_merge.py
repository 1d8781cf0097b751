"""The shortcuts of a derivation, each against a brute-force walk: tile offsets pruned
before Barvinok, and pieces merged by enumerating their points."""

from __future__ import annotations

import itertools
import random

import pytest

from polyjoule.analysis.formula import Cond, Formula, Piece
from polyjoule.analysis.indices import offsets as _offsets
from polyjoule.analysis.simplify import _bounds, _box_agree, merge_pieces
from polyjoule.model.affine import Affine


@pytest.mark.parametrize("seed", range(6))
def test_tile_offsets_bound_the_alternatives_that_occur(seed):
    """``g + d*p >= 0`` holds somewhere (some ``p``, ``r``, ``j``) exactly when ``d >= lo``,
    and everywhere when ``d >= hi``: the alternatives the rewrite keeps are the ones that
    can hold."""
    rnd = random.Random(seed)
    for _ in range(40):
        terms = {n: rnd.randint(-2, 2) for n in ("j_a", "j_b", "r")}
        g = Affine.of({n: a for n, a in terms.items() if a}, rnd.randint(-4, 4))
        lo, hi = _offsets(g, "r")
        for d in range(lo - 3, hi + 3):
            vals = [g.evaluate({"j_a": ja, "j_b": jb, "r": r}) + d * p
                    for p in range(1, 9) for r in range(1, p + 1)
                    for ja in range(p) for jb in range(p)]
            assert (max(vals) >= 0) == (d >= lo), (g, d, lo)
            if d >= hi:
                assert min(vals) >= 0, (g, d, hi)


def _poly(terms: dict[tuple[int, ...], int], den: int = 1) -> Piece:
    return Piece((), ((),), tuple((c, e) for e, c in terms.items()), den)


def _agree_by_walk(a: Piece, b: Piece, conds: tuple[Cond, ...], n: int) -> bool:
    """Do the two polynomials agree at every point of ``conds`` with coordinates in
    ``[-7, 7]``? (exact rational comparison)"""
    one = ((1, (0,) * n),)
    inside = Formula(tuple(f"x{i}" for i in range(n)), (Piece((), (conds,), one, 1),))
    for pt in itertools.product(range(-7, 8), repeat=n):
        env = {f"x{i}": v for i, v in enumerate(pt)}
        if not inside.evaluate(env):
            continue
        va = sum(c * _mono(e, pt) for c, e in a.terms) * b.den
        vb = sum(c * _mono(e, pt) for c, e in b.terms) * a.den
        if va != vb:
            return False
    return True


def _mono(e: tuple[int, ...], pt: tuple[int, ...]) -> int:
    out = 1
    for x, k in zip(pt, e, strict=True):
        out *= x**k
    return out


def _random_conj(rnd: random.Random, n: int) -> tuple[Cond, ...]:
    """A few conditions over ``n`` variables: bounds, an equality, a coupling."""
    out = []
    for i in range(n):
        if rnd.random() < 0.7:
            out.append(Cond(tuple(1 if k == i else 0 for k in range(n)), (), -rnd.randint(-2, 3), False))
        if rnd.random() < 0.5:
            out.append(Cond(tuple(-1 if k == i else 0 for k in range(n)), (), rnd.randint(0, 5), False))
    if rnd.random() < 0.4:
        i, j = rnd.sample(range(n), 2)
        out.append(Cond(tuple(1 if k == i else (1 if k == j else 0) for k in range(n)), (),
                        -rnd.randint(0, 5), rnd.random() < 0.5))
    return tuple(out)


@pytest.mark.parametrize("seed", range(8))
def test_box_agreement_equals_a_walk(seed):
    """Where :func:`_box_agree` answers, its answer is the walk's; it answers a pair that
    differs only by a polynomial vanishing on the conjunction ``True`` (also in variables
    the conjunction leaves unbounded), and a pair that differs by a constant ``False``."""
    rnd = random.Random(seed)
    n = 3
    vars_ = tuple(f"x{i}" for i in range(n))
    answered = 0
    for _ in range(30):
        conj = _random_conj(rnd, n)
        base = {tuple(rnd.randint(0, 2) for _ in range(n)): rnd.randint(-3, 3) for _ in range(4)}
        a = _poly(base, rnd.choice([1, 2, 6]))
        # b = a + (something zero on conj) or a + 1
        box = _bounds(conj, n)
        fixed = [i for i, (lo, hi) in enumerate(box) if lo == hi]
        extra: dict[tuple[int, ...], int] = {}
        if fixed and rnd.random() < 0.6:
            i = fixed[0]
            v = box[i][0]
            e1 = tuple(1 if k == i else 0 for k in range(n))
            y = tuple(rnd.randint(0, 2) for _ in range(n))
            # (x_i - v) * x^y vanishes where x_i = v
            extra[tuple(a_ + b_ for a_, b_ in zip(e1, y, strict=True))] = a.den
            extra[y] = extra.get(y, 0) - v * a.den
        elif rnd.random() < 0.5:
            extra[(0,) * n] = a.den
        terms = dict(base)
        for e, c in extra.items():
            terms[e] = terms.get(e, 0) + c
        b = _poly(terms, a.den)
        got = _box_agree(vars_, a, b, conj, ())
        if got is not None:
            answered += 1
            assert got == _agree_by_walk(a, b, conj, n), (conj, a, b)
    assert answered >= 10


def test_merging_under_a_context_keeps_every_value_in_it():
    """Pieces merged under ``1 <= r <= p``: the merged formula's value at every point of the
    context is the unmerged one's (outside it nothing is promised)."""
    vars_ = ("p", "t", "r")
    # p*t on t >= 2; on t = 1 the same value written p; on t = 1 and r = p, r
    gen = Piece((), (((Cond((0, 1, 0), (), -2, False),)),), ((1, (1, 1, 0)),), 1)
    t1 = Piece((), ((Cond((0, 1, 0), (), -1, True), Cond((1, 0, -1), (), -1, False)),), ((1, (1, 0, 0)),), 1)
    t1r = Piece((), ((Cond((0, 1, 0), (), -1, True), Cond((1, 0, -1), (), 0, True)),), ((1, (0, 0, 1)),), 1)
    f = Formula(vars_, (gen, t1, t1r))
    ctx = (Cond((1, 0, 0), (), -1, False), Cond((0, 1, 0), (), -1, False),
           Cond((0, 0, 1), (), -1, False), Cond((1, 0, -1), (), 0, False))
    m = merge_pieces(f, None, None, ctx)
    assert len(m.pieces) == 1
    for p in range(1, 7):
        for t in range(1, 6):
            for r in range(1, p + 1):
                env = {"p": p, "t": t, "r": r}
                assert m.evaluate(env) == f.evaluate(env), env
