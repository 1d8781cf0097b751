"""Downward loops whose inner loop accumulates into a scalar (frontends/creverse.py), a
forwarded store of the unchanged value (frontends/cforward.py) and copies folded into their
definition (frontends/localize/copies.py): PolyBench's ludcmp.c as distributed localises as
the built-in ludcmp, and solvers written outside PolyBench in the same forms compute what
their C loops compute (the C interpreter as reference, the simulator running the PRA)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from pra_brute import kernel_counts  # noqa: E402

from polyjoule.analysis import analyze  # noqa: E402
from polyjoule.analysis import simulator as sim  # noqa: E402
from polyjoule.errors import SpecError  # noqa: E402
from polyjoule.frontends.cnest import c_kernel  # noqa: E402
from polyjoule.frontends.crun import with_c_reference  # noqa: E402
from polyjoule.library import kernels as registry  # noqa: E402
from polyjoule.model.pra import PRA, Kernel  # noqa: E402

ROOT = Path(__file__).with_name("polybench_c")
LUDCMP = ROOT / "linear-algebra" / "solvers" / "ludcmp" / "ludcmp.c"


def _ludcmp() -> Kernel:
    return c_kernel(LUDCMP.read_text(), str(LUDCMP), include_dirs=[ROOT / "utilities"])


def _points(pra: PRA, values: dict[str, int]):  # type: ignore[no-untyped-def]
    def rec(k: int, env: dict[str, int]):  # type: ignore[no-untyped-def]
        if k == pra.n:
            yield dict(env)
            return
        d = pra.dims[k]
        for v in range(d.lower.evaluate(env), d.upper.evaluate(env) + 1):
            yield from rec(k + 1, {**env, d.name: v})
    yield from rec(0, dict(values))


def unread(pra: PRA, values: dict[str, int]) -> set[tuple[str, str, tuple[int, ...]]]:
    """(statement, variable, point) of every value a statement defines that none reads."""
    defined: dict[tuple[str, tuple[int, ...]], str] = {}
    read: set[tuple[str, tuple[int, ...]]] = set()
    dims = pra.dim_names
    for env in _points(pra, values):
        pt = tuple(env[d] for d in dims)
        for s in pra.statements:
            if not all(c.holds(env) for c in s.when):
                continue
            if s.kind != "output":
                defined[(s.var, pt)] = s.id
            if s.kind == "transport":
                read.add((str(s.source), tuple(p - d for p, d in zip(pt, s.dep or (), strict=True))))
            elif s.kind in ("compute", "output"):
                read |= {(v, pt) for v in s.reads}
    return {(sid, v, pt) for (v, pt), sid in defined.items() if (v, pt) not in read}


def test_ludcmp_file_localises_in_three_phases() -> None:
    k = _ludcmp()
    assert [ph.dim_names for ph in k.phases] == [("k", "i", "j"), ("i", "j"), ("i", "j")]
    back = k.phases[2]
    assert [str(s.index[0]) for s in back.statements if s.kind == "output"] == ["N - i - 1"]
    # no DRAM tensor for the C scalar w: each phase's expansion is its own temporary
    assert all("w" not in {t.name for t in ph.tensors} for ph in k.phases)


def test_ludcmp_file_defines_no_value_it_does_not_read() -> None:
    k = _ludcmp()
    for ph in k.phases:
        assert unread(ph, {"N": 7}) == set(), ph.name


def test_builtin_ludcmp_defines_no_value_it_does_not_read() -> None:
    """The built-in's forward phase once passed the running difference to the diagonal twice
    (as ``sp`` and as ``yd``), ``sp`` there never read: N - 1 transports, now dropped."""
    for ph in registry.get("ludcmp").phases:
        assert unread(ph, {"N": 7}) == set(), ph.name


def test_ludcmp_file_counts_equal_the_builtin() -> None:
    """At MINI on 4x4 the three phases' counts equal the built-in's."""
    derived, hand = _ludcmp(), registry.get("ludcmp")
    mini = derived.datasets["MINI"]
    assert mini == hand.datasets["MINI"] == {"N": 40}
    got, want = kernel_counts(derived, mini, (4, 4)), kernel_counts(hand, mini, (4, 4))
    for key in ("classes", "ops", "kinds"):
        assert got[key] == want[key], key


@pytest.mark.parametrize("array", [(2, 2), (1, 4), (4, 4)])
def test_ludcmp_file_simulates_to_the_c_program(array: tuple[int, int]) -> None:
    """The C interpreter runs the distributed file as reference; the simulator's counts are
    the closed forms'."""
    k = with_c_reference(_ludcmp(), LUDCMP.read_text(), str(LUDCMP),
                         include_dirs=[ROOT / "utilities"])
    assert k.reference is not None
    values = {"N": 9}
    s = sim.simulate(k, array, values=values)
    assert s.checks["outputs_match_reference"], s.violations
    assert s.ok, (s.checks, s.violations)
    assert analyze(k, array=array, values=values).evaluate(values).counts == s.counts


#: Outside PolyBench: an upper triangular solve with its own names, the scalar carrying the
#: running sum, ``k > -1`` as the downward bound and the sum added (not subtracted).
UPPER = """
void upper(int M, double R[M][M], double c[M], double z[M]) {
  int k, m;
  double acc;
  for (k = M - 1; k > -1; k--) {
    acc = c[k];
    for (m = k + 1; m < M; m++)
      acc += R[k][m] * z[m];
    z[k] = acc / R[k][k];
  }
}
"""

#: A unit lower triangular solve whose result is the scalar's copy (as ludcmp's forward).
UNIT = """
void unit(int M, double L[M][M], double c[M], double z[M]) {
  int k, m;
  double s;
  for (k = 0; k < M; k++) {
    s = c[k];
    for (m = 0; m < k; m++)
      s -= L[k][m] * z[m];
    z[k] = s;
  }
}
"""

#: Both directions, with a unit diagonal backwards: two phases through DRAM.
BOTH = UNIT.replace("}\n}\n", """}
  for (k = M - 1; k >= 0; k--) {
    s = z[k];
    for (m = k + 1; m < M; m++)
      s -= L[m][k] * x[m];
    x[k] = s;
  }
}
""").replace("double z[M])", "double z[M], double x[M])")


@pytest.mark.parametrize("name, text", [("upper", UPPER), ("unit", UNIT), ("both", BOTH)])
@pytest.mark.parametrize("array", [(2, 2), (1, 4)])
def test_solvers_outside_polybench_compute_their_c_loops(name: str, text: str,
                                                         array: tuple[int, int]) -> None:
    k = with_c_reference(c_kernel(text, f"{name}.c"), text, f"{name}.c")
    assert k.reference is not None
    values = {"M": 7}
    s = sim.simulate(k, array, values=values)
    assert s.checks["outputs_match_reference"], s.violations
    assert s.ok, (s.checks, s.violations)
    assert analyze(k, array=array, values=values).evaluate(values).counts == s.counts
    for ph in k.phases:
        assert unread(ph, values) == set(), ph.name


def test_a_downward_solve_is_mirrored_and_its_copy_folded() -> None:
    """``z[k] = s`` is no compute: on the diagonal z takes the running value's transport
    (and ``c[0]`` at the first row), the scalar's array stays a temporary."""
    k = c_kernel(BOTH, "both.c")
    assert len(k.phases) == 2
    for ph in k.phases:
        assert [(str(d.lower), str(d.upper)) for d in ph.dims] == [("0", "M - 1"), ("0", "k")]
        assert all(s.expr is None or s.expr.ops for s in ph.statements), ph.name  # no copy
        assert {t.name for t in ph.tensors} <= {"L", "c", "z", "x"}
    outs = [str(s.index[0]) for s in k.phases[1].statements if s.kind == "output"]
    assert outs == ["M - k - 1"]


def test_a_sum_that_reads_its_scalar_is_not_mirrored() -> None:
    """``acc += acc * R[k][m]`` is no reduction (each term reads the sum): the inner loop
    keeps its order and the downward loop stays refused."""
    text = UPPER.replace("acc += R[k][m] * z[m]", "acc += acc * R[k][m] * z[m]")
    with pytest.raises(SpecError, match=r"step .k--."):
        c_kernel(text, "self.c")


def test_mirrored_points_cover_the_c_iterations() -> None:
    """The mirrored backward phase visits each (row, column) pair of the C loops once."""
    k = c_kernel(UPPER, "upper.c")
    ph = k.phases[0]
    m = 6
    pts = {(p["k"], p["m"]) for p in _points(ph, {"M": m})}
    c_pairs = {(kk, mm) for kk in range(m - 1, -1, -1) for mm in range(kk + 1, m)}
    assert {(m - 1 - a, m - 1 - b) for a, b in pts if b < a} == c_pairs
    assert len(list(itertools.chain(pts))) == m * (m + 1) // 2
