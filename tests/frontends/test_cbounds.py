"""C front end refusals before localisation: int64 constants, pointer parameters, subscripts
outside their arrays. Each is one line naming file:line:col, and exit 2 through the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from polyjoule.errors import SpecError
from polyjoule.frontends.cnest import c_kernel

POLYBENCH = Path(__file__).resolve().parent / "polybench_c"


def _one_line_exit_2(tmp_path: Path, text: str) -> str:
    f = tmp_path / "k.c"
    f.write_text(text)
    r = subprocess.run([sys.executable, "-m", "polyjoule", "localize", str(f)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].count(str(f)) == 1
    return lines[0]


def _kernel(body: str, params: str = "int N, double A[N], double B[N]") -> str:
    return f"void k({params}) {{\n  int i;\n  for (i = 0; i < N; i++)\n    {body}\n}}\n"


def test_huge_subscript_constant_is_refused(tmp_path: Path) -> None:
    line = _one_line_exit_2(tmp_path, _kernel("B[i] = A[i + 99999999999999999999999];"))
    assert "k.c:4:12:" in line and "subscript of A" in line and "int64" in line


def test_huge_value_constant_is_refused() -> None:
    with pytest.raises(SpecError, match=r"k.c:4:\d+: the constant 99999999999999999999 .*int64"):
        c_kernel(_kernel("B[i] = A[i] * 99999999999999999999;"), "k.c")


def test_largest_int64_coefficient_is_accepted_in_a_bound() -> None:
    text = _kernel("B[i] = A[i];").replace("i < N", "i < N + 0 * 9223372036854775807")
    assert c_kernel(text, "k.c").tensors()["B"].kind == "output"


def test_pointer_parameter_is_refused_naming_the_declaration(tmp_path: Path) -> None:
    line = _one_line_exit_2(tmp_path, _kernel("B[i] = A[i] * 2.0;", "int N, double *A, double *B"))
    assert "k.c:1:" in line and "'double *A'" in line and "'double A[N]'" in line


def test_pointee_type_gives_the_dtype_of_an_unused_pointer() -> None:
    text = _kernel("B[i] = A[i];", "int N, double *unused")  # A, B undeclared: no type
    assert c_kernel(text, "k.c").phases[0].dtype == "fp64"


@pytest.mark.parametrize("sub, bad", [("i + 5", "i + 5"), ("i - 1", "i - 1")])
def test_subscript_outside_the_extent_is_refused(tmp_path: Path, sub: str, bad: str) -> None:
    line = _one_line_exit_2(tmp_path, _kernel(f"B[i] = A[{sub}];"))
    assert f"k.c:4:12: subscript '{bad}' of A[{bad}] leaves the array A (extent N" in line


def test_written_subscript_outside_the_extent_is_refused() -> None:
    with pytest.raises(SpecError, match=r"k.c:4:5: subscript 'i \+ 1' of B\[i \+ 1\]"):
        c_kernel(_kernel("B[i + 1] = A[i];"), "k.c")


def test_shifted_reads_inside_a_shrunk_loop_are_accepted() -> None:
    text = _kernel("B[i] = A[i - 1] + A[i + 1];").replace("i = 0; i < N", "i = 1; i < N - 1")
    assert c_kernel(text, "k.c").tensors()["A"].kind == "input"


def test_triangular_bounds_are_checked_symbolically() -> None:
    ok = """void k(int N, double A[N][N], double x[N]) { int i, j;
  for (i = 0; i < N; i++) for (j = 0; j <= i; j++) x[i] += A[i][j]; }"""
    c_kernel(ok, "k.c")
    with pytest.raises(SpecError, match=r"subscript 'j \+ 1' of A\[i\]\[j \+ 1\]"):
        c_kernel(ok.replace("A[i][j]", "A[i][j + 1]"), "k.c")


def test_top_level_while_is_refused_in_one_line(tmp_path: Path) -> None:
    text = "void k(int N, double A[N], double B[N]) {\n  int i;\n  i = 0;\n" \
           "  while (i < N) { B[i] = A[i]; i++; }\n}\n"
    line = _one_line_exit_2(tmp_path, text)
    assert line.endswith("k.c:4:3: while loops are not supported (only for loops with affine "
                         "bounds)")


def test_two_functions_are_refused_naming_both(tmp_path: Path) -> None:
    one = _kernel("B[i] = A[i];")
    line = _one_line_exit_2(tmp_path, one + one.replace("void k(", "void g("))
    assert "2 function definitions, k (line 1) and g (line 6)" in line


def test_two_functions_one_scop_reads_the_scop_one() -> None:
    one = _kernel("B[i] = A[i];")
    scop = one.replace("void k(", "void g(").replace("  for", "#pragma scop\n  for")
    scop = scop.replace("A[i];\n", "A[i];\n#pragma endscop\n")
    assert c_kernel(one + scop, "k.c").name == "g"


def test_refusal_names_the_file_path_once() -> None:
    path = POLYBENCH / "linear-algebra" / "solvers" / "durbin" / "durbin.c"
    with pytest.raises(SpecError) as err:
        c_kernel(path.read_text(), str(path), include_dirs=[POLYBENCH / "utilities"])
    assert str(err.value).count(str(path)) == 1 and "(line 89:6)" in str(err.value)
