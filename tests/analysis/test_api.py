"""The Python API: the CLI's inputs, named errors, results with schedule, latency,
utilisation, and tables for notebooks (pandas, the ``pandas`` extra)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import polyjoule
from polyjoule.analysis.simulator import simulate
from polyjoule.dse import space
from polyjoule.dse.sweep import SweepSpec, run_sweep
from polyjoule.errors import MissingExtraError, ParameterRangeError, UnknownNameError
from polyjoule.frontends.pra_dump import kernel_data
from polyjoule.library import kernels as registry

MV_C = """
void mv(int N, int M, float A[N][M], float x[M], float y[N]) {
  for (int i = 0; i < N; i++) {
    y[i] = 0;
    for (int j = 0; j < M; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""
GEMM = {"NI": 4, "NJ": 6, "NK": 5}


@pytest.fixture(scope="module")
def gemm() -> polyjoule.analysis.Analysis:
    return polyjoule.analyze("gemm", array=(2, 2))


def test_api_reads_yaml_c_and_einsum_as_the_cli(tmp_path: Path) -> None:
    """``polyjoule.analyze("mv.yaml")`` reads the file (it was an unknown-kernel error)."""
    import yaml

    c = tmp_path / "mv.c"
    c.write_text(MV_C)
    yml = tmp_path / "mv.yaml"
    yml.write_text(yaml.safe_dump(kernel_data(polyjoule.analyze(str(c)).kernel)))
    vals = {"N": 5, "M": 7}
    from_c = polyjoule.analyze(str(c), array=(2, 2)).evaluate(vals)
    from_yaml = polyjoule.analyze(str(yml), array=(2, 2)).evaluate(vals)
    from_path = polyjoule.analyze(yml, array=(2, 2)).evaluate(vals)
    assert from_c.counts == from_yaml.counts == from_path.counts
    a = polyjoule.analyze(einsum="y[i] += A[i,j]*x[j]", extents={"i": 5, "j": 7}, array=(2, 2))
    r = a.evaluate(a.kernel.datasets["default"])
    assert r.values == {"I": 5, "J": 7}
    assert r.counts["ops"] == from_c.counts["ops"]  # same product, same multiply-adds


@pytest.mark.parametrize("values, error, pattern", [
    ({"NI": 4}, ParameterRangeError, r"gemm: NJ, NK not set \(parameters: NI, NJ, NK\)"),
    ({**GEMM, "NX": 3}, UnknownNameError, r"gemm has no parameter NX \(parameters: NI, NJ, NK\)"),
])
def test_parameter_errors_are_named(gemm: polyjoule.analysis.Analysis, values: dict[str, int],
                                    error: type[Exception], pattern: str) -> None:
    """Missing or unknown parameters: named errors from every entry point, never a KeyError."""
    arrays = {k: np.asarray([v, v + 1]) for k, v in values.items()}
    for call in (lambda: gemm.evaluate(values), lambda: gemm.counts(values),
                 lambda: gemm.evaluate_many(arrays), lambda: gemm.counts_many(arrays),
                 lambda: gemm.verdict(values),
                 lambda: polyjoule.analyze("symm", array=(2, 2), values={"M": 4, "Q": 1})):
        with pytest.raises((ParameterRangeError, UnknownNameError)) as e:
            call()
        assert not isinstance(e.value, KeyError)
    with pytest.raises(error, match=pattern):
        gemm.evaluate(values)
    with pytest.raises(error, match=pattern):
        gemm.evaluate_many(arrays)


def test_unknown_kernel_suggests() -> None:
    with pytest.raises(UnknownNameError, match="did you mean gemm"):
        polyjoule.analyze("gemn")


def test_result_latency_is_the_simulated_makespan(gemm: polyjoule.analysis.Analysis) -> None:
    """Latency from the symbolic schedule vs the simulator's makespan (independent)."""
    r = gemm.evaluate(GEMM)
    sim = simulate(registry.get("gemm"), (2, 2), None, GEMM)
    assert r.latency_cycles == sim.makespan
    (ph,) = r.schedule
    (sp,) = sim.phases
    assert (ph["order"], ph["lambda_J"], ph["lambda_K"]) == (
        [sp.dims[x] for x in sp.schedule.order], list(sp.schedule.lambda_J),
        list(sp.schedule.lambda_K))
    assert r.to_json()["latency_cycles"] == r.latency_cycles


def test_result_matches_a_one_point_sweep(gemm: polyjoule.analysis.Analysis) -> None:
    """Scalar evaluation vs the sweep's compiled, vectorised one: the same point, the same
    counts, energy, latency and utilisation (and the totals row has the sweep's columns)."""
    k = registry.get("gemm")
    spec = SweepSpec(k, space.size_grid(k, [f"{p}={v}" for p, v in GEMM.items()]),
                     space.mappings([(2, 2)], [None], [None]))
    sweep = run_sweep(spec)
    row = sweep.row(0)
    r = gemm.evaluate(GEMM)
    totals = r.to_pandas("totals").iloc[0].to_dict()
    for col, v in totals.items():
        assert row[col] == pytest.approx(v, rel=1e-12), col
    assert r.utilisation == pytest.approx(row["utilisation"], rel=1e-12)
    assert 0 < r.utilisation <= 1


def test_to_pandas_equals_the_json(gemm: polyjoule.analysis.Analysis) -> None:
    r = gemm.evaluate(GEMM)
    df = r.to_pandas()
    assert df.to_dict("records") == json.loads(json.dumps(r.to_json()))["volumes"]
    assert list(df.columns) == ["phase", "statement", "text", "case", "class", "formula",
                                "value", "energy_pj"]
    with pytest.raises(Exception, match="not volumes or totals"):
        r.to_pandas("nope")


def test_sweep_to_pandas_equals_its_columns(tmp_path: Path) -> None:
    from polyjoule.reports.output import write_outputs

    k = registry.get("gesummv")
    spec = SweepSpec(k, space.size_grid(k, ["N=4:12:4"]),
                     space.mappings([(2, 2), (1, 4)], [None], [None]))
    result = run_sweep(spec)
    df = result.to_pandas()
    assert list(df.columns) == list(result.columns)
    assert len(df) == len(result) == 6
    write_outputs(result, json_path=tmp_path / "s.json")
    points = json.loads((tmp_path / "s.json").read_text())["points"]
    assert df.to_dict("records") == points
    assert df.attrs["kernel"] == "gesummv"


def test_to_pandas_without_pandas_names_the_extra(gemm: polyjoule.analysis.Analysis,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    r = gemm.evaluate(GEMM)
    with pytest.raises(MissingExtraError, match=r"pip install 'polyjoule\[pandas\]'"):
        r.to_pandas()
    with pytest.raises(MissingExtraError):
        run_sweep(SweepSpec(registry.get("gemm"),
                            space.size_grid(registry.get("gemm"), ["N=4"]),
                            space.mappings([(2, 2)], [None], [None]))).to_pandas()


def test_a_size_that_is_not_whole_is_refused_not_truncated(tmp_path: Path) -> None:
    """``evaluate({"N": 2.5})`` returned the counts of N=2 (``int()`` truncated it)."""
    src = tmp_path / "mv.c"
    src.write_text(MV_C)
    a = polyjoule.analyze(str(src), array=(2, 2))
    both = {"N": 3, "M": 4}
    for bad, shown in ((2.5, "2.5"), (np.float64(3.7), "3.7"), (float("nan"), "nan")):
        for call in (lambda: a.evaluate({**both, "M": bad}), lambda: a.counts({**both, "M": bad}),
                     lambda: a.evaluate_many({"N": np.array([3, 4]), "M": np.array([4.0, bad])}),
                     lambda: a.counts_many({"N": np.array([3, 4]), "M": np.array([4.0, bad])})):
            with pytest.raises(ParameterRangeError, match=rf"parameters: M={shown} is not an integer"):
                call()
    # a whole float is the integer it names
    assert a.evaluate({"N": 3.0, "M": 4.0}).counts == a.evaluate(both).counts


COPY_C = {
    "transp.c": ("void tr(int N, float A[N][N], float B[N][N]) {\n"
                 "  for (int i = 0; i < N; i++)\n    for (int j = 0; j < N; j++)\n"
                 "      B[i][j] = A[j][i];\n}\n", lambda n: [(i, j) for i in range(n) for j in range(n)]),
    "lower.c": ("void lo(int N, float A[N][N], float B[N][N]) {\n"
                "  for (int i = 0; i < N; i++)\n    for (int j = 0; j <= i; j++)\n"
                "      B[i][j] = A[j][i];\n}\n", lambda n: [(i, j) for i in range(n) for j in range(i + 1)]),
}


@pytest.mark.parametrize("name", sorted(COPY_C))
def test_a_copy_nest_counts_its_body_as_work(tmp_path: Path, name: str) -> None:
    """A nest without arithmetic (``B[i][j] = A[j][i]``) reported 0 iterations and 0%
    utilisation: only compute statements counted. Its body's runs, by brute force over the
    C loops, are the iterations of ``evaluate``, ``counts`` and ``evaluate_many``."""
    text, points = COPY_C[name]
    src = tmp_path / name
    src.write_text(text)
    for array in ((2, 2), (1, 3)):
        a = polyjoule.analyze(str(src), array=array)
        sizes = [2, 3, 4, 7]
        many = a.evaluate_many({"N": np.array(sizes)})
        for n, work in zip(sizes, many["work"], strict=True):
            r = a.evaluate({"N": n})
            assert r.iterations == a.counts({"N": n})["work"] == work == len(points(n))
            assert r.utilisation == pytest.approx(len(points(n)) / (array[0] * array[1] * r.latency_cycles))
