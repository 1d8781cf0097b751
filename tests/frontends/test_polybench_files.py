"""PolyBench/C 4.2.1 kernel files as distributed (``polybench_c/``: the suite's files unchanged,
with its ``LICENSE.txt``; ``polybench_texts.json`` is an extract of ``shared/data/polybench.json``):
every file is read through its comments, headers and macros to the scop region, and either
localises (its counts then equal the built-in kernel's at MINI on 4x4) or is refused with the
kernel's own reason."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pycparser import c_ast, c_generator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from pra_brute import kernel_counts  # noqa: E402

from polyjoule.errors import CIncludeError, NotUniformError, SpecError  # noqa: E402
from polyjoule.frontends.cnest import _parse, c_kernel  # noqa: E402
from polyjoule.frontends.cpre import preprocess  # noqa: E402
from polyjoule.frontends.cpre import strip_directives as _strip  # noqa: E402
from polyjoule.library import kernels as registry  # noqa: E402

ROOT = Path(__file__).with_name("polybench_c")
UTIL = ROOT / "utilities"
TEXTS = json.loads((ROOT / "polybench_texts.json").read_text())["kernels"]
FILES = {p.stem: p for p in ROOT.glob("*/**/*.c")}

#: The kernels whose distributed file localises; every other one is refused (NotUniformError
#: for an access whose dependence distance is not constant, SpecError for a construct).
LOCALISED = {"2mm", "3mm", "atax", "bicg", "cholesky", "correlation", "covariance", "deriche",
             "doitgen", "floyd-warshall", "gemm", "gemver", "gesummv", "lu", "ludcmp", "mvt",
             "symm", "syr2k", "syrk", "trisolv", "trmm"}
#: The time-iterated stencils (frontends/localize/timesteps.py, stencil.py); the built-in
#: fdtd-2d is their output.
STENCILS = {"fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d"}
LOCALISED |= STENCILS
REFUSED = {
    "durbin": (NotUniformError, r"y\[-i \+ k - 1\] reads y"),
    "gramschmidt": (NotUniformError, r"A\[i\]\[k\] reads A, which A\[i\]\[j\]"),
    "nussinov": (NotUniformError, r"table\[i\]\[k\] reads table"),
    # its prologue (DX = 1.0 / N ...) is an expression of the sizes; the sweeps are not
    # uniform (docs/kernels.md, adi)
    "adi": (NotUniformError, r"p\[i\]\[j - 1\] reads p, which p\[i\]\[0\]"),
}


def _load(name: str, **kw: Any):  # type: ignore[no-untyped-def]
    return c_kernel(FILES[name].read_text(), str(FILES[name]), include_dirs=[UTIL], **kw)


def test_corpus_holds_every_kernel() -> None:
    assert set(FILES) == set(TEXTS) == LOCALISED | set(REFUSED)
    assert len(FILES) == 30 and not LOCALISED & set(REFUSED)


_GEN = c_generator.CGenerator()


def _walk(node: Any, loops: list[str], stmts: list[str]) -> None:
    """Loop headers and statements (assignments) in source order."""
    if isinstance(node, c_ast.For):
        loops.append(_GEN.visit(c_ast.For(node.init, node.cond, node.next, None)))
        _walk(node.stmt, loops, stmts)
        return
    if isinstance(node, c_ast.Assignment):
        stmts.append(_GEN.visit(node))
        return
    for _name, child in node.children():
        _walk(child, loops, stmts)


def _structure(text: str, filename: str) -> tuple[list[str], list[str]]:
    fn = next(x for x in _parse(_strip(text), filename).ext if isinstance(x, c_ast.FuncDef))
    loops: list[str] = []
    stmts: list[str] = []
    scop = False
    for item in fn.body.block_items or []:
        if isinstance(item, c_ast.Pragma):
            scop = item.string.strip() == "scop"
        elif scop:
            _walk(item, loops, stmts)
    return loops, stmts


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_corpus_follows_polybench_json(name: str) -> None:
    """The scop of each file, preprocessed as double, has polybench.json's loops and
    statements in order (both sides parsed and printed by pycparser)."""
    src = preprocess(FILES[name].read_text(), str(FILES[name]), [UTIL], ["DATA_TYPE_IS_DOUBLE"])
    got = _structure(src.text, name)
    want = TEXTS[name]
    macros = ("#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)\n"
              "#define match(b1, b2) (((b1)+(b2)) == 3 ? 1 : 0)\n")
    body = "\n".join(h + " ;" for h in want["loops"]) + "\n" + "\n".join(want["statements"])
    ref = preprocess(macros + "void f(void) {\n#pragma scop\n" + body + "\n#pragma endscop\n}\n",
                     "ref.c")
    ref_loops, _ = _structure(ref.text, "ref.c")
    _, ref_stmts = _structure(ref.text, "ref.c")
    assert got[0] == ref_loops
    assert got[1] == ref_stmts


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_file_is_refused_with_the_kernel_reason(name: str) -> None:
    err, pattern = REFUSED[name]
    with pytest.raises(err, match=pattern) as e:
        _load(name)
    msg = str(e.value)
    assert msg.startswith(f"{FILES[name]}:") and "\n" not in msg


@pytest.mark.parametrize("name", sorted(LOCALISED))
def test_file_localises_with_the_header_datasets_and_type(name: str) -> None:
    k = _load(name)
    sizes = TEXTS[name]["params"]
    assert k.datasets == {ds: {p: sizes[p][ds] for p in sizes} for ds in k.datasets}
    assert set(k.datasets) == {"MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"}
    # double, as the headers default to (deriche.h: float, floyd-warshall.h: int)
    assert {ph.dtype for ph in k.phases} == {{"double": "fp64", "float": "fp32", "int": "int32"}[
        TEXTS[name]["data_type"]]}


def _summary(c: dict) -> tuple:
    return c["classes"], c["ops"], c["kinds"]


#: floyd-warshall: C's dataflow kept, the built-in assumes the pivots unchanged
#: (tests/frontends/test_crotate.py checks the difference).
SAME_COUNTS = LOCALISED & set(registry.names()) - {"floyd-warshall"}


@pytest.mark.parametrize("name", sorted(SAME_COUNTS))
def test_localised_counts_equal_the_builtin(name: str) -> None:
    """Per-class accesses, operations and statement kinds at MINI on a 4x4 array."""
    derived, hand = _load(name), registry.get(name)
    got = kernel_counts(derived, derived.datasets["MINI"], (4, 4))
    want = kernel_counts(hand, hand.datasets["MINI"], (4, 4))
    if name == "syr2k":  # the built-in factors alpha out: one multiplication fewer per point
        points = sum(1 for i in range(30) for _j in range(i + 1)) * 20
        assert got["ops"]["mul"] - want["ops"]["mul"] == points
        got["ops"]["mul"] = want["ops"]["mul"]
    if name == "correlation":
        _correlation_differences(got, want)
        return
    if name == "deriche":
        _deriche_differences(got, want, derived.datasets["MINI"])
        return
    assert _summary(got) == _summary(want)


def _deriche_differences(got: dict, want: dict, v: dict) -> None:
    """The derived filters compute what the C loops compute: every product with a state,
    also at the first points where the state is still 0.0, which the built-in drops (9
    multiplications and 9 additions per row and per column, the built-in's documented
    saving; the derived mul count is PolyBench's less the 11 of the coefficient prologue,
    test_builtin.OP_DELTA). Each of the 7 states of a row (column) filter pair starts as a
    compute of 0.0 at the first point, and the 3 states set from another state (ym2 = ym1,
    xp2 = xp1, yp2 = yp1) travel from the second point on (the built-in from the third)."""
    rows = v["W"] + v["H"]
    assert got["ops"]["mul"] - want["ops"]["mul"] == 9 * rows
    assert got["ops"]["add"] - want["ops"]["add"] == 9 * rows
    assert got["kinds"]["compute"] - want["kinds"]["compute"] == 7 * rows
    assert got["kinds"]["transport"] - want["kinds"]["transport"] == 3 * rows
    for kind in ("input", "output"):
        assert got["kinds"][kind] == want["kinds"][kind]
    for cls in ("DR", "IOb", "ID", "OD"):
        assert got["classes"][cls] == want["classes"][cls]


def _correlation_differences(got: dict, want: dict) -> None:
    """The same operations and DRAM traffic; two layout choices differ. The built-in closes
    the ``corr`` triangle onto its diagonal (``j`` from ``i``) to hold ``corr[i][i] = 1.0``,
    so ``data[k][i]`` enters on the diagonal; the derived nest keeps C's ``j`` from ``i + 1``
    (the diagonal is a store at ``j == i + 1, k == 0``, localize/stores.py), so it enters one
    step later: N * (M - 1) transports fewer. The derived stddev phase computes the product
    ``(d - m) * (d - m)`` once per point as a value of its own and ``sqrt(acc / N)`` in two
    steps: N * M + M computes more, no operation more. Validated against the C program at
    other sizes (test_float_n_follows_the_size)."""
    n, m = 32, 28
    assert got["ops"] == want["ops"]
    for kind in ("input", "output"):
        assert got["kinds"][kind] == want["kinds"][kind]
    assert want["kinds"]["transport"] - got["kinds"]["transport"] == n * (m - 1)
    assert got["kinds"]["compute"] - want["kinds"]["compute"] == n * m + m
    for cls in ("DR", "IOb"):  # DRAM reads and writes
        assert got["classes"][cls] == want["classes"][cls]


def test_covariance_computes_the_reference() -> None:
    """float_n is the size N (the harness sets it so, cpre.harness_sizes): a parameter in the
    computations of the derived PRA and of the built-in alike; the outputs equal the
    built-in's at MINI and at a size of its own."""
    from pra_brute import execute, random_inputs

    derived, hand = _load("covariance"), registry.get("covariance")
    assert not hand.phases[2].scalars and not derived.phases[2].scalars
    assert [s.expr.text for s in derived.phases[2].statements if s.kind == "compute"][-1] \
        == "cov_acc / (N - 1.0)"
    for values in (dict(hand.datasets["MINI"]), {"M": 5, "N": 7}):
        inputs = random_inputs(hand, values, seed=5)
        got, want = execute(derived, values, inputs), execute(hand, values, inputs)
        np.testing.assert_allclose(got["cov"], want["cov"], rtol=1e-12)


@pytest.mark.parametrize("name", ["covariance", "correlation", "deriche"])
def test_float_n_follows_the_size(name: str) -> None:
    """At sizes other than MINI's, the simulated outputs equal the C program's (crun), which
    sets float_n = N as PolyBench's init_array does (deriche: its carried filter states)."""
    from polyjoule.analysis.simulator import simulate
    from polyjoule.frontends.crun import with_c_reference

    text = FILES[name].read_text()
    k = with_c_reference(_load(name), text, str(FILES[name]), [UTIL])
    sizes = [{"W": 5, "H": 6}, {"W": 4, "H": 3}] if name == "deriche" else \
        [{"N": 7, "M": 5}, {"N": 5, "M": 6}]
    for values in sizes:
        r = simulate(k, (2, 2), values=values)
        assert r.ok and r.checks["outputs_match_reference"], (values, r.violations)


@pytest.mark.parametrize("name", ["correlation", "covariance", "deriche"])
def test_localised_pra_reads_back_from_its_yaml(name: str) -> None:
    """``polyjoule localize -o`` output loads back: a parameter in a computation parses, and
    a nest empty below a size (correlation's ``i <= M - 2``) raises that size's minimum."""
    from polyjoule.frontends.pra_dump import kernel_data
    from polyjoule.frontends.pra_yaml import load_kernel_data

    k = _load(name)
    back = load_kernel_data(kernel_data(k), f"{name}.yaml")
    values = dict(k.datasets["MINI"])
    assert kernel_counts(back, values, (4, 4)) == kernel_counts(k, values, (4, 4))
    if name == "correlation":
        assert dict(back.phases[-1].param_min) == {"N": 1, "M": 2}


def test_builtin_datasets_equal_the_headers() -> None:
    for name in sorted(LOCALISED & set(registry.names()) - {"gesummv"}):
        assert _load(name).datasets == registry.get(name).datasets, name


@pytest.mark.parametrize("define, dtype", [((), "fp64"), (("DATA_TYPE_IS_FLOAT",), "fp32"),
                                           (("DATA_TYPE_IS_INT",), "int32")])
def test_data_type_macro_selects_the_dtype(define: tuple[str, ...], dtype: str) -> None:
    assert {ph.dtype for ph in _load("gemm", defines=define).phases} == {dtype}


def test_sizes_the_user_defines_stay_fixed() -> None:
    k = _load("gemm", defines=("NI=6", "NJ=5", "NK=4"))
    assert k.params == () and not k.datasets
    assert [(str(d.lower), str(d.upper)) for d in k.phases[0].dims] == [("0", "5"), ("0", "4"),
                                                                         ("0", "3")]


def test_polybench_h_outside_the_suite_needs_an_include_folder(tmp_path: Path) -> None:
    for f in ("gemm.c", "gemm.h"):
        shutil.copy(FILES["gemm"].with_name(f), tmp_path / f)
    src = tmp_path / "gemm.c"
    with pytest.raises(CIncludeError, match=r"gemm.c:\d+: #include 'polybench.h' not found.*-I"):
        c_kernel(src.read_text(), str(src))
    k = c_kernel(src.read_text(), str(src), include_dirs=[UTIL])
    assert k.params == ("NI", "NJ", "NK")


def test_a_missing_kernel_header_is_named(tmp_path: Path) -> None:
    src = tmp_path / "gemm.c"
    shutil.copy(FILES["gemm"], src)
    with pytest.raises(CIncludeError, match=r"gemm.c:\d+: #include 'gemm.h' not found"):
        c_kernel(src.read_text(), str(src), include_dirs=[UTIL])


def test_comments_and_system_headers_in_a_plain_file() -> None:
    text = """/* a kernel */
#include <stdio.h>
#include <math.h>
#define N 64  // the size
void k(double A[N][N], double x[N], double y[N]) {
  int i, j;  /* indices */
  for (i = 0; i < N; i++)      // rows
    for (j = 0; j < N; j++)
      y[i] += A[i][j] * x[j];  /* y = A x */
}
"""
    k = c_kernel(text, "mv.c")
    assert k.phases[0].dim_names == ("i", "j") and k.phases[0].dtype == "fp64"
    with pytest.raises(NotUniformError, match=r"mv2.c:9:\d+: "):
        c_kernel(text.replace("A[i][j] * x[j]", "A[i][j] * y[j - 1]"), "mv2.c")


def test_cli_localize_and_show_read_distributed_files(tmp_path: Path) -> None:
    out = tmp_path / "gemm.yaml"
    src = str(FILES["gemm"])
    r = subprocess.run([sys.executable, "-m", "polyjoule", "localize", "-I", str(UTIL), src,
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "dtype: fp64" in out.read_text() and "MINI: {NI: 20, NJ: 25, NK: 30}" in out.read_text()
    r = subprocess.run([sys.executable, "-m", "polyjoule", "show", str(FILES["durbin"])],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "durbin.c:" in r.stderr and "y[-i + k - 1] reads" in r.stderr


DOC = Path(__file__).resolve().parents[2] / "docs" / "kernels.md"
BEGIN, END = "<!-- polybench-files:begin -->", "<!-- polybench-files:end -->"


def files_table() -> str:
    """The verdict on each distributed file, as docs/kernels.md lists it."""
    rows = ["| file | verdict | phases / reason |", "|---|---|---|"]
    for name in sorted(FILES):
        rel = FILES[name].relative_to(ROOT)
        try:  # named as in its folder, so the messages hold no machine's path
            k = c_kernel(FILES[name].read_text(), f"{name}.c",
                         include_dirs=[UTIL, FILES[name].parent])
        except SpecError as e:
            reason = str(e).replace("|", "\\|")
            built = ", kernel built in" if name in registry.names() else ""
            rows.append(f"| `{rel}` | refused ({type(e).__name__}{built}) | `{reason}` |")
            continue
        same = " (= built-in counts)" if name in registry.names() else ""
        same = " (= built-in counts, 1 mul more per point)" if name == "syr2k" else same
        same = (" (C's exact dataflow: 2N(N-1)^2 transports more than the built-in, which "
                "assumes its pivots unchanged; C's select adds twice)"
                if name == "floyd-warshall" else same)
        same = (" (= built-in operations and DRAM accesses, see correlation in its formulation)"
                if name == "correlation" else same)
        same = (" (= built-in DRAM accesses; C's products with zero states, see deriche in its formulation)"
                if name == "deriche" else same)
        rows.append(f"| `{rel}` | localised{same} | {len(k.phases)} phase"
                    f"{'s' if len(k.phases) > 1 else ''}: "
                    + ", ".join("(" + ", ".join(ph.dim_names) + ")" for ph in k.phases) + " |")
    return "\n".join(rows)


def test_docs_list_every_distributed_file() -> None:
    """Regenerate with ``POLYJOULE_REGEN_DOCS=1 python -m pytest tests/frontends/test_polybench_files.py``."""
    import os

    text = DOC.read_text()
    assert BEGIN in text and END in text, "docs/kernels.md lost its file-table markers"
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    fresh = f"{head}{BEGIN}\n{files_table()}\n{END}{tail}"
    if os.environ.get("POLYJOULE_REGEN_DOCS"):
        DOC.write_text(fresh)
        return
    assert text == fresh, "docs/kernels.md file table is stale: regenerate (see the docstring)"


@pytest.mark.parametrize("define", ["1BAD", "=3", "A-B=2", ""])
def test_a_define_that_is_no_macro_is_refused_by_name(define: str) -> None:
    """``-D 1BAD`` reached the preprocessor, whose complaint named neither -D nor the file."""
    with pytest.raises(SpecError, match=r"^-D .*not NAME or NAME=VALUE"):
        _load("gemm", defines=(define,))

