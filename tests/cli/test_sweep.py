"""``polyjoule sweep`` and ``polyjoule plot`` end to end, including bad input (exit 2, no files)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def _run(*args):
    return runner.invoke(app, list(args))


def test_sweep_writes_csv_json_and_validates(tmp_path, cache_dir):
    csv_p, json_p = tmp_path / "s.csv", tmp_path / "s.json"
    r = _run("sweep", "gemm", "-s", "N=8:24:8", "--arrays", "4x4,8x8", "--csv", str(csv_p),
             "--json", str(json_p), "--validate", "2", "--validate-max", "20000",
             "--cache-dir", str(cache_dir))
    assert r.exit_code == 0, r.output
    assert "6 design points" in r.output and "2 agree exactly, 0 differ" in r.output
    data = json.loads(json_p.read_text())
    assert len(data["points"]) == 6 and data["validation"]["mismatches"] == 0
    assert data["validation"]["method"].startswith("simulator")
    lines = csv_p.read_text().splitlines()
    assert len(lines) == 7 and "energy_pj" in lines[0] and "pareto" in lines[0]
    # second run: warm cache, nothing derived
    r2 = _run("sweep", "gemm", "-s", "N=8:24:8", "--arrays", "4x4,8x8", "--json", str(json_p),
              "--cache-dir", str(cache_dir))
    assert r2.exit_code == 0, r2.output
    meta = json.loads(json_p.read_text())
    cache = meta.get("meta", meta)["cache"]
    assert cache["misses"] == 0 and cache["hits"] > 0  # (the printed line may wrap)
    out = tmp_path / "b.svg"
    r3 = _run("plot", str(csv_p), "--kind", "breakdown", "--where", "array=8x8", "-o", str(out))
    assert r3.exit_code == 0, r3.output
    assert out.read_text().lstrip().startswith("<?xml")
    r4 = _run("plot", str(json_p), "--kind", "pareto", "-o", str(tmp_path / "p.png"))
    assert r4.exit_code == 0 and (tmp_path / "p.png").stat().st_size > 1000


@pytest.mark.parametrize(("args", "msg"), [
    (["-s", "N=64:8"], "empty range"),
    (["-s", "N=16", "--arrays", "8x8", "--tile", "1,1,1"], "more than 8 tiles"),
    (["-s", "N=16", "--scheduler", "tcp://127.0.0.1:9", "--scheduler-timeout", "1"],
     "cannot reach a Dask scheduler"),
    (["-s", "NX=4"], "no parameter"),
    (["-s", "N=16", "--tile", "1,2,x"], "not a list of integers"),
])
def test_bad_input_is_one_line_exit_2_and_no_files(tmp_path, cache_dir, args, msg):
    csv_p, json_p = tmp_path / "s.csv", tmp_path / "s.json"
    r = _run("sweep", "gemm", *args, "--csv", str(csv_p), "--json", str(json_p),
             "--cache-dir", str(cache_dir))
    assert r.exit_code == 2, r.output
    err = [line for line in r.output.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("polyjoule: error:") and msg in err[0], r.output
    assert not list(tmp_path.iterdir())


def test_existing_outputs_are_untouched_on_error(tmp_path, cache_dir):
    csv_p = tmp_path / "s.csv"
    csv_p.write_text("previous\n")
    r = _run("sweep", "gemm", "-s", "N=16", "--arrays", "8x8", "--tile", "1,1,1", "--csv", str(csv_p),
             "--cache-dir", str(cache_dir))
    assert r.exit_code == 2
    assert csv_p.read_text() == "previous\n"


def test_plot_bad_kind(tmp_path):
    r = _run("plot", str(tmp_path / "none.csv"), "--kind", "pie", "-o", str(tmp_path / "x.png"))
    assert r.exit_code == 2 and "--kind" in r.output


def test_datasets_and_energy_tables(tmp_path, cache_dir):
    t = tmp_path / "cheap.yaml"
    t.write_text("name: cheap dram\naccess_pj: {DR: 64.0}\n")
    t2 = tmp_path / "dear.yaml"
    t2.write_text("name: dear dram\naccess_pj: {DR: 1280.0}\n")
    j = tmp_path / "s.json"
    r = _run("sweep", "gesummv", "--dataset", "MINI", "--arrays", "2x2", "--energy-table", str(t),
             "--energy-table", str(t2), "--json", str(j), "--cache-dir", str(cache_dir),
             "--validate", "1")
    assert r.exit_code == 0, r.output
    pts = json.loads(j.read_text())["points"]
    assert len(pts) == 2 and {p["dataset"] for p in pts} == {"MINI"}
    assert pts[0]["DR"] == pts[1]["DR"] and pts[0]["energy.DR"] != pts[1]["energy.DR"]


@pytest.mark.dask
def test_scheduler_address_end_to_end(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        j = tmp_path / "s.json"
        r = _run("sweep", "gesummv", "-s", "N=6:9:3", "--arrays", "2x3", "--scheduler",
                 cluster.scheduler_address, "--validate", "2", "--json", str(j),
                 "--cache-dir", str(tmp_path / "cache"))
        assert r.exit_code == 0, r.output
        data = json.loads(j.read_text())
        assert data["scheduler"] == cluster.scheduler_address
        assert data["validation"]["mismatches"] == 0 and data["validation"]["checked"] == 2


def test_missing_dask_extra(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)
    r = _run("sweep", "gemm", "-s", "N=16", "--scheduler", "tcp://127.0.0.1:9", "--json",
             str(tmp_path / "s.json"), "--cache-dir", str(tmp_path / "c"))
    assert r.exit_code == 2 and "pip install 'polyjoule[dask]'" in r.output
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize("dest, msg", [("missing/s.json", "no such folder"),
                                       ("afile/s.json", "is a file, not a folder"),
                                       ("adir", "is a directory")])
def test_bad_output_destination_is_one_line_exit_2(tmp_path, cache_dir, dest, msg):
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("keep\n")
    r = _run("sweep", "gemm", "-s", "N=8", "--arrays", "4x4", "--csv", str(tmp_path / "s.csv"),
             "--json", str(tmp_path / dest), "--cache-dir", str(cache_dir))
    assert r.exit_code == 2, r.output
    err = [line for line in r.output.splitlines() if line.strip()]
    assert len(err) == 1 and msg in err[0] and str(tmp_path / dest) in err[0], r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "afile"]  # no csv, no temp


def test_plot_into_missing_folder_exit_2(tmp_path, cache_dir):
    csv_p = tmp_path / "s.csv"
    assert _run("sweep", "gemm", "-s", "N=8", "--arrays", "4x4", "--csv", str(csv_p),
                "--cache-dir", str(cache_dir)).exit_code == 0
    r = _run("plot", str(csv_p), "--kind", "pareto", "-o", str(tmp_path / "no" / "p.png"))
    assert r.exit_code == 2 and "no such folder" in r.output, r.output


def test_huge_numbers_are_never_split_mid_group_at_80_columns(tmp_path):
    """At N = 2^62 the latency has 74 characters: in the layout of one block per design
    point it goes under its name, whole; every line fits 80 columns (the number was broken
    mid-digits at the indent of the other values)."""
    from polyjoule.reports.tables import count

    args = ["sweep", "gemm", "--size", f"N={2**62}", "--arrays", "2x2"]
    r = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    assert all(len(ln) <= 80 for ln in r.stdout.splitlines()), r.stdout
    assert runner.invoke(app, [*args, "--json", str(tmp_path / "s.json")]).exit_code == 0
    cycles = count(int(json.loads((tmp_path / "s.json").read_text())["points"][0]
                       ["latency_cycles"]))
    assert len(cycles) > 70 and f"\n    {cycles}\n" in r.stdout, r.stdout


def test_whole_groups_breaks_after_separators_only():
    from polyjoule.reports.tables import whole_groups

    n = "24,519,928,653,854,221,739,050"
    assert whole_groups(n, 40) == [n]
    parts = whole_groups(n, 12)
    assert "".join(parts) == n and all(len(p) <= 12 for p in parts)
    assert all(p.endswith(",") for p in parts[:-1]) and parts == ["24,519,928,", "653,854,221,",
                                                                 "739,050"]


def test_unreachable_scheduler_is_one_line_without_destructor_noise(tmp_path):
    """The failed client is closed quietly: no ``Exception ignored in: Client.__del__``."""
    pytest.importorskip("distributed")
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "polyjoule", "sweep", "gemm", "-s", "N=8",
                        "--scheduler", "notaurl", "--scheduler-timeout", "1", "--cache-dir",
                        str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    err = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(err) == 1 and "cannot reach a Dask scheduler at notaurl" in err[0], p.stderr


def test_two_outputs_naming_one_file_are_refused(tmp_path, cache_dir):
    same = tmp_path / "same.csv"
    r = _run("sweep", "gemm", "-s", "N=8", "--arrays", "4x4", "--csv", str(same), "--json",
             str(same), "--cache-dir", str(cache_dir))
    assert r.exit_code == 2, r.output
    err = [line for line in r.output.splitlines() if line.strip()]
    assert len(err) == 1 and "--csv and --json both write" in err[0], r.output
    assert not same.exists()


def test_energies_are_named_as_analyze_names_them(tmp_path, cache_dir):
    """``dynamic_pj``, ``static_pj`` and ``total_pj`` (= dynamic + static) mean what they
    mean in ``analyze --json``; the table's energy is the total and says so."""
    j = tmp_path / "s.json"
    r = _run("sweep", "gesummv", "-s", "N=6", "--arrays", "2x2", "--json", str(j),
             "--cache-dir", str(cache_dir))
    assert r.exit_code == 0, r.output
    (pt,) = json.loads(j.read_text())["points"]
    a = json.loads(_run("analyze", "gesummv", "--array", "2x2", "--set", "N=6", "--json").stdout)
    assert pt["dynamic_pj"] == pt["energy_pj"] == pytest.approx(a["energy_pj"]["dynamic"])
    assert pt["total_pj"] == pytest.approx(pt["dynamic_pj"] + pt["static_pj"])
    assert pt["total_pj"] == pytest.approx(a["energy_pj"]["total"])
    assert "energy = dynamic + static" in " ".join(r.output.split())


def test_energy_tables_are_short_labels_in_the_table_named_below(tmp_path, cache_dir):
    """A long table name folded in its column made each row five lines."""
    names = []
    for n in (1, 2):
        t = tmp_path / f"t{n}.yaml"
        t.write_text(f"access_pj: {{DR: {64 * n}.0}}\n")
        names += ["--energy-table", str(t)]
    r = runner.invoke(app, ["sweep", "gesummv", "-s", "N=6", "--arrays", "2x2", *names,
                            "--tile", "auto", "--tile", "3,6", "--cache-dir", str(cache_dir)],
                      env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    rows = [line for line in r.output.splitlines() if line.startswith("2x2")]
    assert len(rows) == 4 and all(re.search(r" T[12] ", row) for row in rows), r.output
    text = " ".join(r.output.split())
    assert re.search(r"T1: energy table .* \+ t1\.yaml T2: energy table .* \+ t2\.yaml", text)
