"""``polyjoule plot`` end to end: filters, one-line refusals (exit 2, no file written)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def sweep_csv(tmp_path_factory, cache_dir):
    d = tmp_path_factory.mktemp("sweep")
    r = _run("sweep", "gemm", "-s", "N=8:16:8", "--arrays", "4x4,8x8", "--orders", "all",
             "--csv", d / "s.csv", "--json", d / "s.json", "--cache-dir", cache_dir)
    assert r.exit_code == 0, r.output
    return d / "s.csv"


def _one_error_line(r, needle):
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("polyjoule: error:"), r.output
    assert needle in lines[0], r.output


def test_pareto_of_two_sizes_chosen_by_or(sweep_csv, tmp_path):
    out = tmp_path / "p.svg"
    r = _run("plot", sweep_csv.with_suffix(".json"), "--kind", "pareto", "--where", "NI=8",
             "--where", "NI=16", "--where", "order=i/j/k", "-o", out)
    assert r.exit_code == 0, r.output
    assert f"wrote {out}" in r.output.replace("\n", "")
    assert out.read_text().lstrip().startswith("<?xml")


def test_breakdown_per_array_needs_one_order(sweep_csv, tmp_path):
    out = tmp_path / "b.png"
    _one_error_line(_run("plot", sweep_csv, "--kind", "breakdown", "-o", out),
                    "breakdown: the selection has 6 scanning orders (i/j/k, i/k/j, j/i/k, "
                    "j/k/i, k/i/j, k/j/i); draw one with --where order=i/j/k")
    assert not out.exists()
    r = _run("plot", sweep_csv, "--kind", "breakdown", "--where", "order=j/i/k", "-o", out)
    assert r.exit_code == 0 and out.stat().st_size > 1000, r.output


@pytest.mark.parametrize(("args", "needle"), [
    (["--where", "NI=9"], "--where NI=9: no design point matches; NI takes 8, 16"),
    (["--where", "array=8x8", "--where", "order=auto"],
     "--where order=auto: no design point matches; order takes i/j/k, i/k/j, j/i/k, j/k/i, "
     "k/i/j, k/j/i among the points with array=8x8"),
    (["--where", "NI"], "--where: 'NI' is not COLUMN=VALUE"),
    (["--kind", "pie"], "--kind: 'pie' is not breakdown or pareto"),
])
def test_refusals_are_one_line(sweep_csv, tmp_path, args, needle):
    out = tmp_path / "x.png"
    r = _run("plot", sweep_csv, *(["--kind", "pareto"] if "--kind" not in args else []), *args,
             "-o", out)
    _one_error_line(r, needle)
    assert not list(tmp_path.iterdir())


def test_malformed_input_names_file_and_field(tmp_path):
    bad = tmp_path / "s.csv"
    bad.write_text("array,energy_pj,latency_cycles\n2x2,1.0,5\n2x2,NaN,6\n")
    _one_error_line(_run("plot", bad, "--kind", "pareto", "-o", tmp_path / "p.png"),
                    f"{bad}: points[1].energy_pj: 'NaN' is not a finite number")
    assert not (tmp_path / "p.png").exists()


def test_unsupported_format_is_refused_before_reading(tmp_path):
    _one_error_line(_run("plot", tmp_path / "none.csv", "--kind", "pareto", "-o",
                         tmp_path / "p.gif"), "unsupported format")


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_a_negative_energy_names_its_row(sweep_csv, tmp_path, suffix):
    """A negative energy is refused naming the file, the row and the field (was the column
    alone, 'energy_pj: a negative value')."""
    import csv
    import json

    bad = tmp_path / f"neg{suffix}"
    if suffix == ".json":
        data = json.loads(sweep_csv.with_suffix(".json").read_text())
        data["points"][3]["energy_pj"] = -5.0
        bad.write_text(json.dumps(data))
        shown = "-5.0"
    else:
        rows = list(csv.reader(sweep_csv.open(newline="")))
        rows[4][rows[0].index("energy_pj")] = "-5"
        with bad.open("w", newline="") as f:
            csv.writer(f).writerows(rows)
        shown = "'-5'"
    _one_error_line(_run("plot", bad, "--kind", "pareto", "-o", tmp_path / "p.png"),
                    f"{bad}: points[3].energy_pj: {shown} is negative")
    assert not (tmp_path / "p.png").exists()
