"""Values carried from one iteration of a loop to the next (frontends/ccarry.py,
frontends/localize/carried.py): a filter state becomes a transport of distance 1 along the
loop, starting from the value set before it. Checked on small filters outside PolyBench
against the C program (crun) through the simulator."""

from __future__ import annotations

import pytest

from polyjoule.analysis.simulator import simulate
from polyjoule.errors import SpecError
from polyjoule.frontends.cnest import c_kernel
from polyjoule.frontends.crun import CReference, with_c_reference

#: a second-order recursive filter along j (two states chained, one input state) and a
#: first-order one running backwards (a downward loop, mirrored)
IIR = """
void iir(int W, int H, double x[W][H], double y[W][H], double z[W][H]) {
  int i, j;
  double s1, s2, px, q;
  for (i = 0; i < W; i++) {
    s1 = 0.5;
    s2 = 0.0;
    px = 1.0;
    for (j = 0; j < H; j++) {
      y[i][j] = 0.25 * x[i][j] - 0.5 * px + 0.75 * s1 - 0.125 * s2;
      px = x[i][j];
      s2 = s1;
      s1 = y[i][j];
    }
  }
  for (i = 0; i < W; i++) {
    q = 2.0;
    for (j = H - 1; j >= 0; j--) {
      z[i][j] = x[i][j] + 0.5 * q;
      q = z[i][j];
    }
  }
}
"""


def test_states_become_transports_from_their_start_values() -> None:
    k = c_kernel(IIR, "iir.c")
    assert len(k.phases) == 2
    first = k.phases[0]
    starts = sorted(s.text.split(" = ")[1] for s in first.statements
                    if s.kind == "compute" and [str(c) for c in s.when] == ["j == 0"])
    assert starts == ["0.0", "0.5", "1.0"]  # the values set before the loop
    deps = {s.var: s.dep for s in first.statements if s.kind == "transport"}
    assert set(deps.values()) == {(0, 1)}  # every state one step along j
    assert not any(t.name.endswith("__prev") or t.name in ("s1", "s2", "px")
                   for t in first.tensors)  # states never touch DRAM


@pytest.mark.parametrize("array, sizes", [((2, 2), {"W": 3, "H": 5}),
                                          ((1, 4), {"W": 2, "H": 6}),
                                          ((3, 2), {"W": 5, "H": 2})])
def test_filters_compute_what_the_c_program_does(array: tuple[int, int],
                                                 sizes: dict[str, int]) -> None:
    k = with_c_reference(c_kernel(IIR, "iir.c"), IIR, "iir.c")
    assert isinstance(k.reference, CReference)
    r = simulate(k, array, values=sizes)
    assert r.ok and r.checks["outputs_match_reference"], r.violations


def test_a_state_read_after_its_loop_is_not_carried() -> None:
    """The state's last value leaves the loop (``last[i] = q``): it is left as written and
    refused with the localiser's reason."""
    text = IIR.replace("      q = z[i][j];\n    }\n", "      q = z[i][j];\n    }\n    last[i] = q;\n")
    text = text.replace("double z[W][H])", "double z[W][H], double last[W])")
    with pytest.raises(SpecError, match=r"q\[i\] is read before it is written"):
        c_kernel(text, "iir.c")


def test_a_state_updated_in_place_is_not_carried() -> None:
    """``s1 += ...`` reads and writes the state in one statement: left as written."""
    text = IIR.replace("s1 = y[i][j];", "s1 += y[i][j];")
    with pytest.raises(SpecError, match=r"s1\[i\] is read before it is written"):
        c_kernel(text, "iir.c")
