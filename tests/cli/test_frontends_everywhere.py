"""Every front end through every command: a built-in name, a PRA YAML file, a C file and an
einsum give the same counts, energy, schedule and latency as their equivalent.

Two families: PolyBench GEMM (built-in name, its YAML file, its C source: the C front end
derives the PRA independently of the hand-written YAML) and the plain matrix product (einsum
text, a C file, and the YAML that ``localize --einsum`` writes).
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()

# float: the built-in gemm computes in fp32 (a C file keeps its declared type)
GEMM_C = """
void kernel_gemm(int NI, int NJ, int NK, float alpha, float beta,
                 float C[NI][NJ], float A[NI][NK], float B[NK][NJ])
{
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < NK; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
"""

MM_C = """
void mm(int M, int N, int K, float C[M][N], float A[M][K], float B[K][N]) {
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      C[m][n] = 0;
      for (int k = 0; k < K; k++)
        C[m][n] += A[m][k] * B[k][n];
    }
}
"""

EINSUM = "C[m,n] += A[m,k]*B[k,n]"


def _run(*args: str) -> str:
    r = runner.invoke(app, list(args), catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.fixture(scope="module")
def gemm_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """GEMM as a name, as the built-in's YAML file and as C source."""
    d = tmp_path_factory.mktemp("gemm")
    yml = d / "gemm.yaml"
    yml.write_text(resources.files("polyjoule.library").joinpath("data", "kernels",
                                                                 "gemm.yaml").read_text())
    c = d / "gemm.c"
    c.write_text(GEMM_C)
    return {"name": ["gemm"], "yaml": [str(yml)], "c": [str(c)]}


@pytest.fixture(scope="module")
def mm_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """The matrix product as einsum text, as C source, and as the YAML localize writes."""
    d = tmp_path_factory.mktemp("mm")
    c = d / "mm.c"
    c.write_text(MM_C)
    yml = d / "mm.yaml"
    _run("localize", "--einsum", EINSUM, "-o", str(yml))
    return {"einsum": ["--einsum", EINSUM], "c": [str(c)], "yaml": [str(yml)]}


GEMM_SET = ["--set", "NI=4,NJ=6,NK=5"]
MM_SET = ["--set", "M=4,N=6,K=5"]


def _analyze(src: list[str], values: list[str]) -> dict[str, Any]:
    d = json.loads(_run("analyze", *src, "--array", "2x2", *values, "--json"))
    return {"counts": d["counts"], "energy": d["energy_pj"]["total"],
            "latency": d["latency_cycles"], "utilisation": d["utilisation"],
            "schedule": [(s["order"], s["lambda_J"], s["lambda_K"]) for s in d["schedule"]],
            "values": d["values"]}


def _simulate(src: list[str], values: list[str]) -> dict[str, Any]:
    d = json.loads(_run("simulate", *src, "--array", "2x2", *values, "--json"))
    return {"counts": d["counts"], "makespan": d["makespan_cycles"]}


def _validate(src: list[str], values: list[str]) -> list[tuple[Any, ...]]:
    d = json.loads(_run("validate", *src, "--array", "2x2", *values, "--json"))
    assert d["ok"]
    # the reference check differs by design: a YAML or C file carries no numpy reference
    return [(r["what"], r["symbolic"], r["simulated"]) for r in d["rows"]
            if not r["what"].startswith("check")]


def _sweep(src: list[str], sizes: list[str], out: Path) -> list[dict[str, Any]]:
    _run("sweep", *src, *sizes, "--arrays", "2x2,1x4", "--no-cache", "--json", str(out))
    return json.loads(out.read_text())["points"]


@pytest.mark.parametrize("family", ["gemm", "mm"])
def test_analyze_simulate_validate_agree(family: str, gemm_inputs: dict[str, list[str]],
                                         mm_inputs: dict[str, list[str]]) -> None:
    inputs, values = (gemm_inputs, GEMM_SET) if family == "gemm" else (mm_inputs, MM_SET)
    results = {kind: (_analyze(src, values), _simulate(src, values), _validate(src, values))
               for kind, src in inputs.items()}
    first = next(iter(results.values()))
    for kind, got in results.items():
        assert got == first, kind
    symbolic, simulated, _ = first
    assert symbolic["counts"] == simulated["counts"]  # two computations, one answer
    assert symbolic["latency"] == simulated["makespan"]


@pytest.mark.parametrize("family", ["gemm", "mm"])
def test_sweep_agrees(family: str, gemm_inputs: dict[str, list[str]],
                      mm_inputs: dict[str, list[str]], tmp_path: Path) -> None:
    inputs = gemm_inputs if family == "gemm" else mm_inputs
    p = ("NI", "NJ", "NK") if family == "gemm" else ("M", "N", "K")
    sizes = ["--size", f"{p[0]}=4,8", "--size", f"{p[1]}=6", "--size", f"{p[2]}=5"]
    points = {kind: _sweep(src, sizes, tmp_path / f"{kind}.json") for kind, src in inputs.items()}
    first = next(iter(points.values()))
    assert len(first) == 4
    for kind, got in points.items():
        assert got == first, kind


def test_report_takes_every_front_end(mm_inputs: dict[str, list[str]], tmp_path: Path) -> None:
    texts = {}
    for kind, src in mm_inputs.items():
        out = tmp_path / f"{kind}.html"
        _run("report", *src, "--array", "2x2", *MM_SET, "-o", str(out))
        texts[kind] = out.read_text()
    totals = _analyze(mm_inputs["c"], MM_SET)["counts"]
    for kind, html in texts.items():
        assert f"{totals['RD']:,}" in html, kind


def test_einsum_extents_are_the_default_dataset() -> None:
    """docs/kernels.md: ``--extents`` become the ``default`` dataset every command uses."""
    d = json.loads(_run("analyze", "--einsum", EINSUM, "--extents", "m=4,n=6,k=5",
                        "--array", "2x2", "--json"))
    assert d["values"] == {"M": 4, "N": 6, "K": 5}
    assert d["counts"] == _analyze(["--einsum", EINSUM], MM_SET)["counts"]
    sim = json.loads(_run("simulate", "--einsum", EINSUM, "--extents", "m=4,n=6,k=5",
                          "--array", "2x2", "--json"))
    assert sim["values"] == {"M": 4, "N": 6, "K": 5}


@pytest.mark.parametrize("command", ["analyze", "simulate", "validate", "sweep", "report",
                                     "show", "localize"])
def test_help_example_of_einsum_is_accepted(command: str, tmp_path: Path) -> None:
    """The einsum example each command's help gives runs as given."""
    text = " ".join(_run(command, "--help").split())
    m = re.search(r"--einsum TEXT Einsum instead of KERNEL, e\.g\. '([^']+)'", text) \
        or re.search(r"e\.g\. '([^']+)'", text)
    assert m is not None, text
    example = m.group(1)
    ranks = sorted(set(re.findall(r"\b([a-z])\b", example)))
    extents = ",".join(f"{r}=2" for r in ranks)
    _run("localize", "--einsum", example, "--extents", extents, "-o", str(tmp_path / "e.yaml"))
    d = json.loads(_run("analyze", "--einsum", example, "--extents", extents, "--array", "1x2",
                        "--json"))
    assert d["counts"]["DR"] > 0


@pytest.mark.parametrize("args, pattern", [
    (["analyze", "gem"], r"unknown kernel 'gem' \(did you mean gemm"),
    (["simulate", "nope.c"], r"nope\.c: cannot read"),
    (["sweep", "missing.yaml", "--size", "N=4"], r"missing\.yaml: cannot read"),
    (["validate", "gemm", "--einsum", EINSUM], r"not both"),
    (["report", "-o", "r.html"], r"give either a kernel"),
    (["analyze", "gemm", "--extents", "m=2"], r"--extents: only for an einsum"),
    (["analyze", "--einsum", EINSUM, "--extents", "m=2,n=2,k=x"], r"k: 'x' is not an integer"),
])
def test_bad_kernel_input_is_one_line_exit_2(args: list[str], pattern: str) -> None:
    r = runner.invoke(app, args, catch_exceptions=False)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and re.search(pattern, lines[0]), r.stderr


def test_analyze_csv_and_output_file(tmp_path: Path) -> None:
    """``--csv`` is the JSON's per-case table; ``-o FILE`` writes what stdout would show."""
    import csv
    import io

    args = ["analyze", "gemm", "--array", "2x2", *GEMM_SET]
    d = json.loads(_run(*args, "--json"))
    rows = list(csv.DictReader(io.StringIO(_run(*args, "--csv"))))
    assert [r["statement"] for r in rows] == [v["statement"] for v in d["volumes"]]
    assert [int(r["value"]) for r in rows] == [v["value"] for v in d["volumes"]]
    assert [float(r["energy_pj"]) for r in rows] == [v["energy_pj"] for v in d["volumes"]]
    assert [r["formula"] for r in rows] == [v["formula"] for v in d["volumes"]]
    _run(*args, "--csv", "-o", str(tmp_path / "a.csv"))
    assert (tmp_path / "a.csv").read_text() == _run(*args, "--csv")
    _run(*args, "-o", str(tmp_path / "a.json"))  # format from the suffix
    got = json.loads((tmp_path / "a.json").read_text())
    assert got["counts"] == d["counts"] and got["volumes"] == d["volumes"]
    for bad, pattern in ((["-o", str(tmp_path / "a.txt")], r"give --json or --csv"),
                         (["--json", "--csv"], r"give one of them"),
                         (["--json", "-o", str(tmp_path / "no" / "a.json")], r"no such folder")):
        r = runner.invoke(app, [*args, *bad], catch_exceptions=False)
        assert r.exit_code == 2 and re.search(pattern, r.stderr), r.stderr
