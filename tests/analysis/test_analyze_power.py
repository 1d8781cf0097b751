"""The analysis prices a run with the array declaration: access energies of the kernel's
word width, static energy = leakage x latency, power, throughput, energy per op; the API and
``analyze --json`` carry the same values."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources

import numpy as np
import pytest
import yaml

from polyjoule import analyze
from polyjoule.frontends.pra_yaml import load_kernel_file
from polyjoule.targets.tcpa.array import array_of, load_array

from ..targets.tcpa.test_declaration import V2

GEMM = {"NI": 8, "NJ": 9, "NK": 10}
CLASSES = ("RD", "FD", "ID", "OD", "IOb", "DR")


def _cli_json(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-m", "polyjoule", "analyze", *args, "--json"],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _gemm_as(dtype: str, tmp_path) -> object:
    """gemm with its data type changed (the shipped kernel file, edited as text)."""
    text = resources.files("polyjoule.library").joinpath("data", "kernels", "gemm.yaml").read_text()
    assert "dtype: fp32" in text
    p = tmp_path / f"gemm-{dtype}.yaml"
    p.write_text(text.replace("dtype: fp32", f"dtype: {dtype}"))
    return p


def _energy_yaml() -> dict:
    return yaml.safe_load(resources.files("polyjoule.library").joinpath(
        "data", "energy_45nm.yaml").read_text())


def test_api_result_equals_cli_json():
    cli = _cli_json("gemm", "--array", "4x4", "--set", "NI=8,NJ=9,NK=10")
    api = analyze("gemm", array=array_of("4x4")).evaluate(GEMM).to_json()
    assert cli["kernel"] == "gemm" and cli["array"] == [4, 4]
    for k in ("kernel", "array", "energy_table", "derive_seconds", "capacity"):
        cli.pop(k)
    assert cli == json.loads(json.dumps(api))
    for k in ("latency_cycles", "latency_seconds", "static_pj", "static_pj_by_component",
              "dynamic_pj", "total_pj", "power_mw", "throughput_ips", "energy_per_op_pj",
              "utilisation", "iterations"):
        assert k in cli


def test_static_energy_by_hand_from_the_declaration(tmp_path):
    p = tmp_path / "tiny.yaml"
    p.write_text(V2)
    r = analyze("gemm", array=load_array(p)).evaluate(GEMM)
    # V2: 2x4 PEs at 100 MHz (10 ns per cycle). Leakage in uW:
    #   pe 8 x 10 = 80; register words 8 x (4 + 2 + 2) x 1 = 64;
    #   FIFO words 8 x 2 x 8 x 0.5 = 64; I/O buffer words (100 + 100) x 0.01 = 2.
    # uW x ns = 1e-15 J = 1e-3 pJ, so per cycle: 0.8, 0.64, 0.64, 0.02 pJ.
    lat = r.latency_cycles
    want = {"pe": 0.8 * lat, "register_file": 0.64 * lat, "fifo": 0.64 * lat, "io_buffer": 0.02 * lat}
    assert r.power.static_pj_by_component == pytest.approx(want, rel=1e-12)
    assert r.power.static_pj == pytest.approx(2.1 * lat, rel=1e-12)
    assert r.power.dynamic_pj == r.energy_pj["dynamic"]
    assert r.power.total_pj == pytest.approx(r.energy_pj["dynamic"] + 2.1 * lat, rel=1e-12)
    seconds = lat * 10e-9
    assert r.power.seconds == pytest.approx(seconds, rel=1e-12)
    assert r.power.power_mw == pytest.approx(r.power.total_pj * 1e-12 / seconds * 1e3, rel=1e-12)
    iterations = 8 * 9 * 10  # one multiply-accumulate per (i, j, k)
    assert r.iterations == iterations
    assert r.power.throughput_ips == pytest.approx(iterations / seconds, rel=1e-12)
    assert r.utilisation == pytest.approx(iterations / (8 * lat), rel=1e-12)
    assert 0 < r.utilisation <= 1
    ops = sum(r.counts["ops"].values())
    assert r.power.energy_per_op_pj == pytest.approx(r.power.total_pj / ops, rel=1e-12)


@pytest.mark.parametrize("dtype,bits", [("fp64", 64), ("int8", 8), ("fp16", 16)])
def test_width_specific_access_and_op_energies(dtype, bits, tmp_path):
    table = _energy_yaml()
    access = {c: table["access_pj_by_bits"][c][bits]["value"] for c in CLASSES}
    op = {o: e["value"] for o, e in table["op_pj"][dtype].items()}
    k = load_kernel_file(_gemm_as(dtype, tmp_path))
    r = analyze(k, array=(4, 4)).evaluate(GEMM)
    ref = analyze("gemm", array=(4, 4)).evaluate(GEMM)
    assert {c: r.counts[c] for c in CLASSES} == {c: ref.counts[c] for c in CLASSES}
    by_class = {c: r.counts[c] * access[c] for c in CLASSES}
    assert r.energy_pj["by_class"] == pytest.approx(by_class, rel=1e-12)
    by_op = {o: n * op[o] for o, n in r.counts["ops"].items()}
    assert r.energy_pj["by_op"] == pytest.approx(by_op, rel=1e-12)
    assert r.energy_pj["dynamic"] == pytest.approx(sum(by_class.values()) + sum(by_op.values()), rel=1e-12)
    assert r.energy_pj["dynamic"] != pytest.approx(ref.energy_pj["dynamic"])
    many = analyze(k, array=(4, 4)).evaluate_many({p: np.asarray([v]) for p, v in GEMM.items()})
    assert many["energy_pj"][0] == pytest.approx(r.energy_pj["dynamic"], rel=1e-12)
    assert many["energy.DR"][0] == pytest.approx(r.counts["DR"] * access["DR"], rel=1e-12)


def test_fp64_kernel_through_the_cli(tmp_path):
    table = _energy_yaml()
    d = _cli_json(str(_gemm_as("fp64", tmp_path)), "--array", "4x4", "--set", "NI=8,NJ=9,NK=10")
    for c in CLASSES:
        assert d["energy_pj"]["by_class"][c] == pytest.approx(
            d["counts"][c] * table["access_pj_by_bits"][c][64]["value"], rel=1e-12)
    assert d["dynamic_pj"] == d["energy_pj"]["dynamic"]


def test_evaluate_many_equals_evaluate_at_every_point():
    a = analyze("gemm", array=(4, 4))
    pts = {"NI": np.asarray([8, 13, 40]), "NJ": np.asarray([8, 21, 7]), "NK": np.asarray([9, 5, 33])}
    many = a.evaluate_many(pts)
    for i in range(3):
        r = a.evaluate({p: int(v[i]) for p, v in pts.items()})
        assert many["latency_cycles"][i] == r.latency_cycles
        assert many["work"][i] == r.iterations
        for col, want in (("static_pj", r.power.static_pj), ("total_pj", r.power.total_pj),
                          ("power_mw", r.power.power_mw), ("throughput_ips", r.power.throughput_ips),
                          ("energy_per_op_pj", r.power.energy_per_op_pj),
                          ("utilisation", r.utilisation), ("latency_seconds", r.power.seconds)):
            assert many[col][i] == pytest.approx(want, rel=1e-12), col
        for c, v in r.power.static_pj_by_component.items():
            assert many[f"static.{c}"][i] == pytest.approx(v, rel=1e-12)


def test_validate_prices_the_simulated_counts_at_the_kernel_width(tmp_path):
    """``polyjoule validate`` on an int8 kernel: symbolic and simulated energies agree (both
    at 8-bit access energies), so the check passes."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-m", "polyjoule", "validate", str(_gemm_as("int8", tmp_path)),
                          "--array", "2x2", "--sizes", "NI=4,NJ=5,NK=3", "--json"],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    d = json.loads(res.stdout)
    row = {r["what"]: r for r in d["rows"]}
    assert d["ok"] and row["dynamic energy (pJ)"]["match"] is True
    dr = _energy_yaml()["access_pj_by_bits"]["DR"][8]["value"]
    assert row["energy DR (pJ)"]["simulated"] == pytest.approx(dr * row["DR accesses"]["simulated"])
