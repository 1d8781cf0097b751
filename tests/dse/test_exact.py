"""Sweeps beyond int64: every column equals the scalar ``analyze`` of the same point.

Two independent computations: the sweep's generated vectorised code (volumes, CSE'd latency
of every scanning order, object arrays where int64 could overflow) against the scalar
interpreter of ``Analysis.evaluate`` (``Formula.evaluate`` on Python integers, the
schedule's per-order scalar functions).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from polyjoule.analysis.analyze import analyze
from polyjoule.dse import space
from polyjoule.dse.sweep import SweepSpec, pareto_mask, run_sweep
from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.locations import CLASSES

INT64_MAX = 2**63 - 1


def _sweep(name: str, sizes: list[str], arrays: str, orders: str = "auto"):
    k = get(name)
    spec = SweepSpec(k, space.size_grid(k, sizes), space.mappings(
        space.parse_arrays(arrays), space.parse_tiles([]), space.parse_orders(k, orders)))
    return run_sweep(spec)


def expected(res) -> dict:
    """The sweep's columns as the scalar analysis reports them."""
    p = res.power
    out = {**{c: res.counts[c] for c in CLASSES},
           **{f"ops.{o}": n for o, n in res.counts["ops"].items()}, "work": res.iterations,
           **{f"energy.{c}": e for c, e in res.energy_pj["by_class"].items()},
           **{f"energy.op.{o}": e for o, e in res.energy_pj["by_op"].items()},
           "energy_pj": res.energy_pj["dynamic"], "latency_cycles": res.latency_cycles,
           "utilisation": res.utilisation, "latency_seconds": p.seconds,
           **{f"static.{c}": e for c, e in p.static_pj_by_component.items()},
           "static_pj": p.static_pj, "total_pj": p.total_pj, "power_mw": p.power_mw,
           "throughput_ips": p.throughput_ips, "energy_per_op_pj": p.energy_per_op_pj,
           "edp": p.total_pj * float(res.latency_cycles)}
    out["energy.compute"] = sum(res.energy_pj["by_op"].values())
    return out


def assert_row_equals_analyze(r, i: int, name: str, array: tuple[int, int]) -> dict:
    row = r.row(i)
    values = {p: int(row[p]) for p in r.params}
    want = expected(analyze(name, array).evaluate(values))
    diff = {k: (row[k], v) for k, v in want.items() if row[k] != v or type(row[k]) is not type(v)}
    assert not diff, diff
    return row


@pytest.mark.parametrize("n", [10_000_000, 2**62, INT64_MAX])
def test_gemm_beyond_int64_equals_analyze_on_every_column(n: int) -> None:
    r = _sweep("gemm", [f"N={n}"], "8x8")
    row = assert_row_equals_analyze(r, 0, "gemm", (8, 8))
    assert row["latency_cycles"] > INT64_MAX and row["RD"] > INT64_MAX
    assert row["edp"] > 0 and 0 < row["utilisation"] <= 1


def test_known_latency_at_1e7() -> None:
    """The issue's value: analyze's 15625010937500000009 (the sweep once wrapped it negative)."""
    r = _sweep("gemm", ["N=10000000"], "8x8")
    assert r.row(0)["latency_cycles"] == 15625010937500000009


def test_mixed_sizes_orders_and_pareto_are_exact() -> None:
    """Small and huge sizes in one sweep, every order: small points stay int64-fast and equal
    too; the Pareto front matches a brute force on exact integers."""
    r = _sweep("gemm", ["N=24,10000000,4611686018427387904"], "4x4,8x8", orders="auto,ijk,kji")
    c = r.columns
    for i in range(len(r)):
        if c["order"][i] == "auto":
            arr = tuple(int(x) for x in str(c["array"][i]).split("x"))
            assert_row_equals_analyze(r, i, "gemm", arr)
    lat = [int(x) for x in c["latency_cycles"]]
    e = [float(x) for x in c["total_pj"]]
    size = [int(x) for x in c["NI"]]
    brute = [not any(size[j] == size[i] and e[j] <= e[i] and lat[j] <= lat[i]
                     and (e[j] < e[i] or lat[j] < lat[i]) for j in range(len(r)))
             for i in range(len(r))]
    assert c["pareto"].tolist() == brute


def test_pareto_separates_latencies_float_cannot() -> None:
    """Two latencies 1 apart above 2**53 (equal as floats): the smaller one dominates."""
    lat = np.array([2**60 + 1, 2**60], dtype=object)
    from polyjoule.dse.sweep import exact_rank

    assert pareto_mask(np.array([1.0, 1.0]), exact_rank(lat)).tolist() == [False, True]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "polyjoule", *args], capture_output=True,
                          text=True, timeout=300)


def test_cli_sweep_equals_analyze_in_text_json_and_csv(tmp_path) -> None:
    js, cs = tmp_path / "s.json", tmp_path / "s.csv"
    sw = _cli("sweep", "gemm", "-s", "N=10000000", "--arrays", "8x8", "--json", str(js),
              "--csv", str(cs))
    assert sw.returncode == 0, sw.stderr
    an = _cli("analyze", "gemm", "--set", "NI=10000000,NJ=10000000,NK=10000000", "--json")
    assert an.returncode == 0, an.stderr
    a = json.loads(an.stdout)
    point = json.loads(js.read_text())["points"][0]
    head, line = cs.read_text().splitlines()
    csv_row = dict(zip(head.split(","), line.split(","), strict=True))
    assert point["latency_cycles"] == a["latency_cycles"] == 15625010937500000009
    assert csv_row["latency_cycles"] == str(a["latency_cycles"])
    for c in CLASSES:
        assert point[c] == a["counts"][c] and csv_row[c] == str(a["counts"][c])
    for k in ("total_pj", "static_pj", "power_mw", "throughput_ips", "energy_per_op_pj"):
        assert point[k] == a[k] and float(csv_row[k]) == a[k], k
    assert point["energy_pj"] == point["dynamic_pj"] == a["energy_pj"]["dynamic"]
    assert point["total_pj"] == a["energy_pj"]["total"]
    assert "15,625,010,937,500,000,009" in sw.stdout  # the table's cycles, exact


def test_cli_sweep_at_2_63_is_one_line() -> None:
    out = _cli("sweep", "gemm", "-s", "N=9223372036854775808", "--no-cache")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "64-bit" in lines[0] and "Traceback" not in out.stderr


def test_evaluate_many_api_is_exact_beyond_int64() -> None:
    """The library's vectorised ``Analysis.evaluate_many`` (what a notebook calls) too."""
    a = analyze("gemm", (8, 8))
    sizes = [10**7, 100, 2**62]
    many = a.evaluate_many({p: np.array(sizes) for p in ("NI", "NJ", "NK")})
    for i, n in enumerate(sizes):
        want = expected(a.evaluate({"NI": n, "NJ": n, "NK": n}))
        for k in ("latency_cycles", "RD", "work", "energy_pj", "total_pj", "utilisation"):
            assert many[k][i] == want[k], (n, k)
