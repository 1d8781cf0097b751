"""Static energy = leakage x time, power = energy / time, against hand arithmetic."""

from __future__ import annotations

import json
from importlib import resources

import pytest
import yaml
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.errors import ParameterRangeError
from polyjoule.targets.tcpa.array import load_array
from polyjoule.targets.tcpa.power import area_um2, power_summary, static_pj

from .test_declaration import V2


def test_static_energy_is_leakage_times_latency_by_hand(tmp_path):
    p = tmp_path / "tiny.yaml"
    p.write_text(V2)
    a = load_array(p)
    # 2x4 = 8 PEs at 100 MHz; 1000 cycles = 10 us.
    #   pe:            8 PEs                      x 10 uW   = 80 uW
    #   register_file: 8 x (4 RD + 2 ID + 2 OD)   x 1 uW    = 64 uW
    #   fifo:          8 x 2 FIFOs x 8 words      x 0.5 uW  = 64 uW
    #   io_buffer:     (100 + 100) words          x 0.01 uW =  2 uW
    # uW x us = pJ: 80 x 10 = 800, 64 x 10 = 640, 640, 2 x 10 = 20
    s = static_pj(a, 1000)
    assert s == pytest.approx({"pe": 800.0, "register_file": 640.0, "fifo": 640.0, "io_buffer": 20.0})
    assert area_um2(a) == pytest.approx({"pe": 8000.0, "register_file": 6400.0,
                                         "fifo": 6400.0, "io_buffer": 2000.0})
    r = power_summary(a, 1000, dynamic_pj=7900.0, operations=500, iterations=250)
    assert r.static_pj == pytest.approx(2100.0) and r.total_pj == pytest.approx(10000.0)
    # 10000 pJ in 10 us = 1 mW; 250 iterations in 10 us = 2.5e7 per second; 20 pJ per op
    assert r.power_mw == pytest.approx(1.0)
    assert r.throughput_ips == pytest.approx(2.5e7)
    assert r.energy_per_op_pj == pytest.approx(20.0)
    with pytest.raises(ParameterRangeError):
        static_pj(a, 0)


def test_analyze_json_static_and_power_from_the_declaration():
    res = CliRunner().invoke(app, ["analyze", "gemm", "--array", "4x4", "--set", "NI=8,NJ=8,NK=8", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    decl = yaml.safe_load(resources.files("polyjoule.library").joinpath(
        "data", "arch", "tcpa-45nm.yaml").read_text())
    v = {k: x["value"] for k, x in decl["pe"].items()}
    c = {k: x["leakage_uw"]["value"] for k, x in decl["components"].items()}
    words = sum(b["capacity_words"]["value"] for b in decl["io_buffers"].values())
    leak_uw = 16 * (c["pe"] + (v["rd_registers"] + v["id_ports"] + v["od_ports"]) * c["register_file"]
                    + v["fd_fifos"] * v["fd_depth"] * c["fifo"]) + words * c["io_buffer"]
    t_s = d["latency_cycles"] / (decl["clock_mhz"]["value"] * 1e6)
    assert d["clock_mhz"] == decl["clock_mhz"]["value"]
    assert d["static_pj"] == pytest.approx(leak_uw * 1e-6 * t_s * 1e12)
    assert d["dynamic_pj"] == pytest.approx(d["energy_pj"]["dynamic"])
    assert d["total_pj"] == pytest.approx(d["energy_pj"]["total"])
    assert d["total_pj"] == pytest.approx(d["static_pj"] + d["dynamic_pj"])
    assert d["power_mw"] == pytest.approx(d["total_pj"] * 1e-12 / t_s * 1e3)
    assert d["throughput_ips"] == pytest.approx(8 * 8 * 8 / t_s)  # one MAC iteration per point
    assert d["energy_per_op_pj"] == pytest.approx(d["total_pj"] / sum(d["counts"]["ops"].values()))


def test_power_columns_equal_power_summary_per_run(tmp_path):
    import numpy as np

    from polyjoule.targets.tcpa.power import power_columns

    p = tmp_path / "tiny.yaml"
    p.write_text(V2)
    a = load_array(p)
    lat, dyn, ops, its = [1000, 7, 123456789], [7900.0, 1.5, 3e9], [500, 0, 10**12], [250, 3, 10**11]
    cols = power_columns(a, np.asarray(lat), np.asarray(dyn), np.asarray(ops), np.asarray(its))
    for i in range(3):
        s = power_summary(a, lat[i], dyn[i], ops[i], its[i])
        assert cols["static_pj"][i] == s.static_pj and cols["total_pj"][i] == s.total_pj
        assert cols["power_mw"][i] == s.power_mw and cols["throughput_ips"][i] == s.throughput_ips
        for c, v in s.static_pj_by_component.items():
            assert cols[f"static.{c}"][i] == v
    assert cols["energy_per_op_pj"][0] == 20.0 and np.isnan(cols["energy_per_op_pj"][1])
    with pytest.raises(ParameterRangeError):
        power_columns(a, np.asarray([5, 0]), np.zeros(2), np.ones(2), np.ones(2))
