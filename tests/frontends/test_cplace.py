"""Statements with no place of their own in a chain of loops (frontends/cplace.py,
frontends/localize/stores.py): a store before the inner loop that nothing else in the nest
meets lives where the inner loop starts; a statement outside any loop joins the nest
before it, at its last point. Checked against the C program (crun) through the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from polyjoule.analysis.simulator import simulate
from polyjoule.errors import SpecError
from polyjoule.frontends.cnest import c_kernel
from polyjoule.frontends.crun import CReference, c_program, with_c_reference

SCALE = """
void scale(int N, int M, double A[N][M], double r[N], double B[N][M], double t[N],
           double u[2]) {
  int i, j;
  for (i = 0; i < N; i++) {
    t[i] = r[i] * 2.0;
    for (j = 0; j < M; j++)
      B[i][j] = A[i][j] * r[i];
  }
  u[1] = 3.0;
}
"""


def test_a_store_and_a_zero_dim_statement_find_places() -> None:
    k = c_kernel(SCALE, "scale.c")
    assert len(k.phases) == 1
    pra = k.phases[0]
    outs = {s.tensor: [str(c) for c in s.when] for s in pra.statements if s.kind == "output"}
    assert outs["t"] == ["j == 0"]  # where the inner loop starts
    assert sorted(outs["u"]) == ["-M + j + 1 == 0", "-N + i + 1 == 0"]  # the last point
    assert next(s for s in pra.statements if s.kind == "output" and s.tensor == "u").index[0] \
        .const == 1


@pytest.mark.parametrize("array, sizes", [((2, 2), {"N": 3, "M": 5}), ((1, 4), {"N": 4, "M": 2})])
def test_stores_compute_what_the_c_program_does(array: tuple[int, int],
                                                sizes: dict[str, int]) -> None:
    k = with_c_reference(c_kernel(SCALE, "scale.c"), SCALE, "scale.c")
    assert isinstance(k.reference, CReference)
    r = simulate(k, array, values=sizes)
    assert r.ok and r.checks["outputs_match_reference"], r.violations
    rng = np.random.default_rng(2)
    n, m = sizes["N"], sizes["M"]
    got = c_program(SCALE, "scale.c").run({"A": rng.random((n, m)), "r": rng.random(n)},
                                          {"N": n, "M": m}, {"u": (2,)})
    assert got["u"][1] == 3.0  # (the C reference itself runs the 0-dim statement)


def test_a_zero_dim_statement_before_every_loop_is_refused() -> None:
    text = SCALE.replace("  int i, j;\n", "  int i, j;\n  u[1] = 3.0;\n", 1)
    with pytest.raises(SpecError, match=r"scale.c:5:\d+: statement outside any loop: 'u\[1\]"):
        c_kernel(text, "scale.c")


def test_a_zero_dim_statement_the_nest_reads_is_not_a_store() -> None:
    """B[0][0] is the element the nest writes at (0, 0): the store rule does not apply and
    the nest is refused with the localiser's reason, never localised out of order."""
    text = SCALE.replace("u[1] = 3.0;", "B[0][0] = 3.0;")
    with pytest.raises(SpecError, match=r"scale.c:\d+:\d+: "):
        c_kernel(text, "scale.c")


def test_a_nest_empty_below_a_size_raises_its_minimum() -> None:
    """``i < N - 1`` has no point at ``N == 1``: the PRA's minimum of N is 2."""
    k = c_kernel(SCALE.replace("i < N;", "i < N - 1;").replace("u[1] = 3.0;\n", ""), "s.c")
    assert dict(k.phases[0].param_min) == {"N": 2, "M": 1}
