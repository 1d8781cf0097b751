"""Array expansion of scratch arrays (``frontends/cexpand.py``): DOITGEN's ``sum[p]``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from pra_brute import execute, random_inputs  # noqa: E402

from polyjoule.errors import NotUniformError  # noqa: E402
from polyjoule.frontends.cnest import c_kernel  # noqa: E402
from polyjoule.library import kernels as registry  # noqa: E402

LOCAL = """
void k(int NR, int NQ, int NP, double A[NR][NQ][NP], double C4[NP][NP]) {
  double sum[NP];
  for (int r = 0; r < NR; r++)
    for (int q = 0; q < NQ; q++) {
      for (int p = 0; p < NP; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < NP; p++)
        A[r][q][p] = sum[p];
    }
}
"""


def test_local_scratch_is_expanded_and_computes_doitgen() -> None:
    k = c_kernel(LOCAL, "dg.c")
    assert [ph.dim_names for ph in k.phases] == [("r", "q", "p", "s"), ("r", "q", "p")]
    assert [str(x) for x in k.phases[0].tensor("sum").shape] == ["NR", "NQ", "NP"]
    hand = registry.get("doitgen")
    values = dict(hand.datasets["MINI"])
    inputs = random_inputs(hand, values, seed=4)
    got = execute(k, values, {n: inputs[n] for n in ("A", "C4")})
    np.testing.assert_allclose(got["A"], execute(hand, values, inputs)["A"], rtol=1e-12)


@pytest.mark.parametrize("change", [
    ("double sum[NP];\n", "", "double C4[NP][NP]", "double C4[NP][NP], double sum[NP]"),
    ("sum[p] = 0.0;", "sum[p] += 0.0;", "", ""),
    ("A[r][q][p] = sum[p];", "A[r][q][p] = sum[p] + sum[0];", "", ""),
])
def test_not_expanded_unless_each_iteration_owns_its_copy(change: tuple[str, ...]) -> None:
    """A caller-visible array, a first access that reads, an access at another subscript:
    the nest stays as written and is refused for its in-place read of A."""
    text = LOCAL.replace(change[0], change[1])
    if change[2]:
        text = text.replace(change[2], change[3])
    with pytest.raises(NotUniformError, match=r"A\[r\]\[q\]\[s\] reads A"):
        c_kernel(text, "dg.c")
