"""Plots from a sweep's CSV and JSON: PNG and SVG, atomic writes, bad inputs."""

from __future__ import annotations

import pytest

from polyjoule.dse import space
from polyjoule.dse.sweep import SweepSpec, run_sweep
from polyjoule.errors import SpecError
from polyjoule.library.kernels import get
from polyjoule.reports import plots
from polyjoule.reports.output import write_outputs


@pytest.fixture(scope="module")
def outputs(tmp_path_factory, cache_dir, assert_validated):
    from polyjoule.dse.cache import FormulaCache

    k = get("gemm")
    spec = SweepSpec(k, space.size_grid(k, ["N=8:32:8"]), space.mappings([(4, 4), (8, 8)], [None], [None]))
    r = run_sweep(spec, store=FormulaCache(cache_dir))
    assert_validated(r, spec, 2)
    d = tmp_path_factory.mktemp("out")
    write_outputs(r, d / "s.csv", d / "s.json")
    return d, r


def test_csv_and_json_roundtrip(outputs):
    d, r = outputs
    for name in ("s.csv", "s.json"):
        cols, _ = plots.load(d / name)
        assert len(cols["energy_pj"]) == len(r)
        assert cols["pareto"].tolist() == r.columns["pareto"].tolist()
        assert cols["latency_cycles"].tolist() == r.columns["latency_cycles"].tolist()


@pytest.mark.parametrize("ext", ["png", "svg"])
def test_breakdown_and_pareto(outputs, ext):
    d, _ = outputs
    cols, _ = plots.load(d / "s.json")
    b = plots.breakdown(cols, d / f"b.{ext}", where={"array": "8x8"})
    p = plots.pareto(cols, d / f"p.{ext}")
    for f in (b, p):
        assert f.stat().st_size > 1000
    assert not [x for x in d.iterdir() if x.name.startswith(".")]  # no temp files left


def test_bad_plot_inputs(outputs, tmp_path):
    d, _ = outputs
    cols, _ = plots.load(d / "s.csv")
    with pytest.raises(SpecError, match="unsupported format"):
        plots.pareto(cols, tmp_path / "x.gif")
    with pytest.raises(SpecError, match="no design point"):
        plots.breakdown(cols, tmp_path / "x.png", where={"array": "3x3"})
    (tmp_path / "junk.csv").write_text("a,b\n1,2\n")
    with pytest.raises(SpecError, match="not a polyjoule sweep"):
        plots.load(tmp_path / "junk.csv")


# --- issue 14: malformed sweep input is refused, NaN energies are never drawn -------------


@pytest.mark.parametrize("name,text,needle", [
    ("s.json", '{"points":[1]}', r"points\[0\]: not a record"),
    ("s.json", '{"points":[]}', "not a non-empty list"),
    ("s.json", '{"points":[{"array":"2x2","energy_pj":1,"latency_cycles":2},'
               '{"array":"2x2","energy_pj":1}]}', "ragged"),
    ("s.json", '{"points":[{"array":"2x2","energy_pj":NaN,"latency_cycles":2}]}',
     r"energy_pj: nan is not a finite number"),
    ("s.csv", "array,energy_pj,latency_cycles\n2x2,lots,5\n", "'lots' is not a number"),
    ("s.csv", "array,energy_pj,latency_cycles\n2x2,1,5\n2x2,1\n", "not a record"),
    ("s.json", "[" * 5000, "nested too deeply"),
])
def test_malformed_sweep_input_is_refused(tmp_path, name, text, needle):
    from polyjoule.errors import SpecError
    from polyjoule.reports.plots import load

    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(SpecError, match=needle):
        load(p)
