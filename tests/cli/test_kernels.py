"""``polyjoule list``, ``show`` and ``localize`` through the CLI: output and exact exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.frontends.pra_yaml import load_kernel_file
from polyjoule.library import kernels as registry

runner = CliRunner()

MM = """void mm(int NI, int NJ, int NK, double C[NI][NJ], double A[NI][NK], double B[NK][NJ]) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      for (int k = 0; k < NK; k++)
        C[i][j] += A[i][k] * B[k][j];
}
"""


def _err_line(result) -> str:
    text = (result.stderr if hasattr(result, "stderr") else result.output).strip()
    lines = [ln for ln in text.replace("\n  ", " ").splitlines() if ln.strip()]  # unfolded
    assert len(lines) == 1, text
    assert lines[0].startswith("polyjoule: error: "), text
    return lines[0]


def test_list_table_and_json() -> None:
    r = runner.invoke(app, ["list"])
    assert r.exit_code == 0, r.output
    for n in registry.names():
        assert n in r.output
    r = runner.invoke(app, ["list", "--json"])
    assert r.exit_code == 0
    rows = {k["name"]: k for k in json.loads(r.stdout)["kernels"]}
    assert rows["2mm"]["phases"] == 2 and rows["gemm"]["statements"] == [10]
    assert rows["syrk"]["datasets"][0] == "MINI"


def test_show_builtin_yaml_and_c(tmp_path: Path) -> None:
    r = runner.invoke(app, ["show", "gemm"])
    assert r.exit_code == 0, r.output
    assert "beta * c + alpha * p" in r.output and "S10" in r.output
    r = runner.invoke(app, ["show", "gesummv", "--yaml"])
    assert r.exit_code == 0 and "S7" in r.stdout
    c = tmp_path / "mm.c"
    c.write_text(MM)
    r = runner.invoke(app, ["show", str(c)])
    assert r.exit_code == 0, r.output
    assert "c_in + c_p" in r.output


def test_localize_c_to_stdout_and_file(tmp_path: Path) -> None:
    c = tmp_path / "mm.c"
    c.write_text(MM)
    r = runner.invoke(app, ["localize", str(c)])
    assert r.exit_code == 0, r.output
    data = yaml.safe_load(r.stdout)
    assert data["name"] == "mm" and len(data["phases"][0]["statements"]) == 10
    out = tmp_path / "mm.yaml"
    r = runner.invoke(app, ["localize", str(c), "-o", str(out)])
    assert r.exit_code == 0 and r.stdout == ""
    k = load_kernel_file(out)
    assert k.phases[0].dim_names == ("i", "j", "k")


def test_localize_einsum(tmp_path: Path) -> None:
    out = tmp_path / "e.yaml"
    r = runner.invoke(app, ["localize", "--einsum", "C[m,n] = relu(A[m,k]*B[k,n])",
                            "--extents", "m=4,n=5,k=6", "-o", str(out), "--name", "mm"])
    assert r.exit_code == 0, r.output
    k = load_kernel_file(out)
    assert k.name == "mm" and k.datasets == {"default": {"M": 4, "N": 5, "K": 6}}
    assert any(s.text.endswith("relu(c_acc)") for s in k.phases[0].statements)


@pytest.mark.parametrize("args, src, pattern", [
    (["localize"], "for (i = 0; i < N; i++)\n  A[i] = B[i] +;\n", r"x\.c(:2:\d+)?: C does not parse"),
    (["localize"], "for (i = 0; i < N; i++)\n  for (j = 0; j < N; j++)\n    C[i] += A[i*j];\n",
     r"x\.c:3:\d+: subscript of A: 'i \* j' is not affine"),
    (["localize"], "for (i = 0; i < N; i++)\n  for (j = 0; j < n[i]; j++)\n    C[i] += A[i][j];\n",
     r"x\.c:2:\d+: upper bound of j 'n\[i\]' depends on data"),
    (["localize"], "for (k = 0; k < N; k++)\n for (i = k; i < N; i++)\n  for (j = 0; j < N; j++)\n"
     "   P[i][j] = P[i][k] + P[k][j];\n", r"x\.c:4:\d+: P\[i\]\[k\] reads P.*not uniform"),
    (["show"], "for (i = 0; i < N; i++)\n  A[i] = B[i] +;\n", r"x\.c(:2:\d+)?: C does not parse"),
])
def test_bad_c_is_one_line_exit_2(tmp_path: Path, args: list[str], src: str, pattern: str) -> None:
    import re

    c = tmp_path / "x.c"
    c.write_text(src)
    out = tmp_path / "out.yaml"
    out.write_text("keep me\n")
    extra = ["-o", str(out)] if args == ["localize"] else []
    r = runner.invoke(app, [*args, str(c), *extra], catch_exceptions=False)
    assert r.exit_code == 2
    line = _err_line(r)
    assert re.search(pattern, line.replace(str(tmp_path) + "/", "")), line
    assert out.read_text() == "keep me\n"  # nothing half-written
    assert {p.name for p in tmp_path.iterdir()} == {"x.c", "out.yaml"}  # no temporary left


@pytest.mark.parametrize("args, pattern", [
    (["localize", "--einsum", "C[m,n] += A[m,q]*B[q,n]", "--extents", "m=2,n=2,k=2"],
     r"rank 'q' of A\[m,q\] has no extent"),
    (["localize", "--einsum", "C[m,n] += A[m,k]*B[k,n]", "--extents", "m=2,n=2,k=x"],
     r"--extents: k: 'x' is not an integer"),
    (["localize"], r"give either a kernel .* or --einsum"),
    (["localize", "nope.c"], r"nope\.c: cannot read"),
    (["show", "no-such-kernel"], r"unknown kernel 'no-such-kernel'"),
    (["show", "missing.yaml"], r"missing\.yaml: cannot read"),
])
def test_bad_arguments_exit_2(args: list[str], pattern: str) -> None:
    import re

    r = runner.invoke(app, args, catch_exceptions=False)
    assert r.exit_code == 2, r.output
    assert re.search(pattern, _err_line(r))


@pytest.mark.parametrize("name", registry.names())
def test_dump_yaml_round_trips_every_builtin(name: str) -> None:
    """The YAML writer used by ``localize`` keeps every statement of every built-in kernel."""
    from importlib import resources

    from polyjoule.cli.kernels import dump_yaml
    from polyjoule.frontends.pra_yaml import load_kernel_data

    data = yaml.safe_load(resources.files("polyjoule.library").joinpath(
        "data", "kernels", f"{name}.yaml").read_text())
    again = load_kernel_data(yaml.safe_load(dump_yaml(data)), name)
    assert again.phases == registry.get(name).phases
    assert again.datasets == registry.get(name).datasets


def test_localize_into_a_directory_is_named(tmp_path: Path) -> None:
    c = tmp_path / "mm.c"
    c.write_text(MM)
    r = runner.invoke(app, ["localize", str(c), "-o", str(tmp_path)])
    assert r.exit_code == 2
    assert "is a directory" in _err_line(r) and str(tmp_path) in _err_line(r)
    assert [p.name for p in tmp_path.iterdir()] == ["mm.c"]


GEMM_C = Path(__file__).parents[1] / "frontends/polybench_c/linear-algebra/blas/gemm/gemm.c"


@pytest.mark.parametrize("define, loop", [("NI=0", "i"), ("NJ=0", "j"), ("NI=-3", "i")])
def test_a_define_that_empties_a_loop_names_the_macro(define: str, loop: str) -> None:
    """``-D NI=0`` makes a loop run no iteration: said so, with the macro that did it (was
    'unknown name' in a statement the empty loop left without its operands)."""
    r = runner.invoke(app, ["localize", str(GEMM_C), "-D", define], catch_exceptions=False)
    assert r.exit_code == 2
    line = _err_line(r)
    assert "gemm.c:" in line and f"the loop over {loop} is empty" in line, line
    assert f"(-D {define})" in line and "unknown name" not in line, line


def test_an_empty_loop_without_a_define_is_named(tmp_path: Path) -> None:
    c = tmp_path / "x.c"
    c.write_text("void f(double A[8]) {\n  for (int i = 0; i < 0; i++)\n    A[i] = 1.0;\n}\n")
    line = _err_line(runner.invoke(app, ["localize", str(c)], catch_exceptions=False))
    assert line.endswith("x.c:2:3: the loop over i is empty (0 <= i <= -1): a size is zero "
                         "or negative"), line
