"""``polyjoule simulate`` and ``polyjoule validate``: output and exact exit codes."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()


def _err_line(result) -> str:
    text = (result.stderr if hasattr(result, "stderr") else result.output).strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert len(lines) == 1, text
    return lines[0]


def test_simulate_worked_example() -> None:
    r = runner.invoke(app, ["simulate", "gesummv", "--array", "2x2", "--set", "N0=4,N1=6"])
    assert r.exit_code == 0, r.output
    assert "makespan" in r.output and "16" in r.output and "causality ok" in r.output


def test_simulate_json_and_file(tmp_path: Path) -> None:
    src = resources.files("polyjoule.library").joinpath("data", "kernels", "gesummv.yaml").read_text()
    f = tmp_path / "mine.yaml"
    f.write_text(src)
    r = runner.invoke(app, ["simulate", str(f), "--array", "2x2", "--set", "N0=4,N1=6", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["makespan_cycles"] == 16
    assert out["phases"][0]["schedule"]["lambda_K"] == [2, 5]
    assert out["counts"]["FD"] > 0
    # a PRA file has no numpy reference: its outputs were compared with nothing
    assert out["checks"] == {"causality": True, "outputs_written": True,
                             "outputs_match_reference": None}


def test_validate_agrees() -> None:
    r = runner.invoke(app, ["validate", "gesummv", "--array", "2x2", "--sizes", "N0=5,N1=7"])
    assert r.exit_code == 0, r.output
    assert "DIFFERS" not in r.output and "latency" in r.output
    r = runner.invoke(app, ["validate", "gemm", "--array", "1x4", "--dataset", "MINI", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["ok"] and all(row["match"] for row in out["rows"])


def test_validate_reports_a_difference_with_exit_1(monkeypatch) -> None:
    import polyjoule.analysis.schedule as sched

    real = sched.kernel_latency
    monkeypatch.setattr(sched, "kernel_latency", lambda s, v: real(s, v) + 1)
    r = runner.invoke(app, ["validate", "gesummv", "--array", "2x2", "--sizes", "N0=5,N1=7"])
    assert r.exit_code == 1
    assert "DIFFERS" in r.output
    assert "latency" in _err_line_from(r)


def _err_line_from(result) -> str:
    text = result.stderr if hasattr(result, "stderr") else result.output
    return [ln for ln in text.splitlines() if ln.startswith("polyjoule: error")][0]


def test_bad_input_is_one_line_exit_2() -> None:
    cases = [
        (["simulate", "gesummv", "--set", "N0=100000,N1=100000"], "limit"),
        (["simulate", "gemm", "--array", "2x2", "--set", "N=10000000000"], "limit of 2.0 GiB"),
        (["validate", "gemm", "--array", "2x2", "--set", "N=10000000000"], "limit of 2.0 GiB"),
        (["validate", "gemm", "--array", "2x2", "--set", "N=3000"], "limit of 2.0 GiB"),
        (["simulate", "gesummv", "--array", "2x2", "--set", "N0=4,N1=6", "--pi", "0"], "pi"),
        (["simulate", "jacobi-1d", "--array", "1x4", "--order", "t,i"], "violates"),
        (["simulate", "gesummv", "--order", "i0,q"], "no dim"),
        (["simulate", "nosuchkernel"], "unknown kernel"),
        (["simulate", "gesummv", "--set", "N0=x"], "not an integer"),
        (["validate", "gesummv", "--sizes", "N0=4"], "N1"),
        (["simulate", "gesummv", "--array", "0x2"], "--array"),
        (["simulate", "gesummv", "--memory-limit", "0.000001"], "limit"),
        (["simulate", "gesummv", "--set", "N0=0,N1=3"], "minimum"),
        (["simulate", "gesummv", "--set", "Q=3"], "no parameter"),
        (["simulate", "gesummv", "--array", "2x2", "--set", "N0=4,N1=6", "--w", "-1"], "--w -1: the operation latency"),
    ]
    for args, needle in cases:
        r = runner.invoke(app, args)
        assert r.exit_code == 2, (args, r.output)
        assert needle in _err_line(r), (args, r.output)


WRONG = """
version: 1
name: scale
params: {N: 1}
dims: [{name: i, lower: 0, upper: N - 1}]
tensors: {X: {shape: [N], kind: input}, Y: {shape: [N], kind: output}}
scalars: {alpha: 2.0}
statements:
  - {id: S1, var: x, input: "X[i]"}
  - {id: S2, var: y, compute: "x + x + x"}
  - {id: S3, var: y, output: "Y[i]"}
"""


def test_validate_without_reference_says_na(tmp_path: Path) -> None:
    """A PRA file (no numpy reference) that computes 3x instead of 2x: never ``ok``."""
    f = tmp_path / "wrong.yaml"
    f.write_text(WRONG)
    r = runner.invoke(app, ["validate", str(f), "--array", "1x4", "--set", "N=10"])
    assert r.exit_code == 0, r.output
    line = [x for x in r.output.splitlines() if "outputs_match_reference" in x]
    assert len(line) == 1 and "n/a" in line[0] and " ok " not in line[0], line
    r = runner.invoke(app, ["validate", str(f), "--array", "1x4", "--set", "N=10", "--json"])
    rows = {row["what"]: row for row in json.loads(r.stdout)["rows"]}
    ref = rows["check outputs_match_reference"]
    assert ref["match"] is None and ref["simulated"] == "n/a"
    assert rows["check causality"]["match"] is True
    r = runner.invoke(app, ["simulate", "gesummv", "--array", "2x2", "--set", "N0=4,N1=6"])
    assert "outputs_match_reference ok" in r.output  # a built-in has a reference


SQRT_NEG = """#include <math.h>
void s(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++)
    B[i] = sqrtf(A[i] - 100.0f);
}
"""


def test_nan_outputs_match_the_reference_without_numpy_warnings(tmp_path: Path, recwarn) -> None:
    """``sqrtf`` of a negative is NaN in the C reference and in the simulation alike: the
    run agrees, and numpy's floating warnings about the kernel's own arithmetic stay quiet."""
    for body, name in ((SQRT_NEG, "sqrtneg.c"),
                       (SQRT_NEG.replace("sqrtf(A[i] - 100.0f)", "1.0f / (A[i] - A[i])"), "divz.c")):
        src = tmp_path / name
        src.write_text(body)
        for command in ("validate", "simulate"):
            r = runner.invoke(app, [command, str(src), "--array", "1x3", "--set", "N=5"])
            assert r.exit_code == 0, r.output
    assert [str(w.message) for w in recwarn if issubclass(w.category, RuntimeWarning)] == []


def test_a_differing_element_is_named_as_a_plain_number(tmp_path: Path) -> None:
    import numpy as np

    from polyjoule.cli.simulate import first_difference

    class Run:
        reference = {"B": np.array([np.nan, 2.0])}
        outputs = {"B": np.array([np.nan, np.inf])}

    assert first_difference(Run()) == "B[1]: simulated inf, reference 2.0 (1 of 2 elements differ)"
