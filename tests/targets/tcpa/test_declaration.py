"""Array declarations v2: PE resources, buffers, clock, word widths and costs as data."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import resources

import pytest
import yaml

from polyjoule.errors import SpecError
from polyjoule.targets.tcpa.array import array_of, load_array
from polyjoule.targets.tcpa.energy import default_table

V2 = """
version: 2
name: tiny-lowleak
rows: 2
cols: 4
clock_mhz: 100.0
word_bits: {fp32: 32, int8: {value: 8, source: "datasheet"}}
pe: {rd_registers: 4, fd_fifos: 2, fd_depth: 8, id_ports: 2, od_ports: 2}
io_buffers:
  west: {capacity_words: 100, bandwidth_words_per_cycle: 2}
  east: {capacity_words: 100, bandwidth_words_per_cycle: 2}
dram: {bandwidth_gb_per_s: {value: 3.2, source: "LPDDR4 x16 at 1600 MT/s"}}
components:
  pe: {area_um2: 1000.0, leakage_uw: 10.0}
  register_file: {area_um2: 100.0, leakage_uw: 1.0}
  fifo: {area_um2: 50.0, leakage_uw: 0.5}
  io_buffer: {area_um2: 10.0, leakage_uw: 0.01}
energy: {access_pj: {DR: 100.0}}
"""


def shipped_yaml() -> dict:
    text = resources.files("polyjoule.library").joinpath("data", "arch", "tcpa-45nm.yaml").read_text()
    return yaml.safe_load(text)


def test_v2_file_loads_every_field(tmp_path):
    p = tmp_path / "tiny.yaml"
    p.write_text(V2)
    a = load_array(p)
    assert (a.name, a.shape, a.clock_mhz) == ("tiny-lowleak", (2, 4), 100.0)
    assert (a.pe.rd_registers, a.pe.fd_fifos, a.pe.fd_depth, a.pe.id_ports, a.pe.od_ports) == (4, 2, 8, 2, 2)
    assert [(b.border, b.capacity_words) for b in a.io_buffers] == [("west", 100), ("east", 100)]
    assert a.components["fifo"].leakage_uw == 0.5 and a.word_bits["int8"] == 8
    assert a.sources["dram.bandwidth_gb_per_s"] == "LPDDR4 x16 at 1600 MT/s"
    assert a.sources["word_bits.int8"] == "datasheet" and a.sources["pe.fd_depth"] == str(p)
    # word_bits replace nothing else: fp16 and int32 keep the shipped widths
    assert a.word_bits["fp16"] == 16
    # 3.2 GB/s at 100 MHz is 32 B per cycle: 8 fp32 words, 32 int8 words
    assert a.capacities("fp32").dram_bandwidth_words_per_cycle == pytest.approx(8.0)
    assert a.capacities("int8").dram_bandwidth_words_per_cycle == pytest.approx(32.0)
    assert a.energy.access_pj["DR"] == 100.0 and a.access_pj("DR", "int8") == pytest.approx(25.0)


def test_v1_file_takes_the_shipped_resources(tmp_path):
    p = tmp_path / "v1.yaml"
    p.write_text("version: 1\nname: old\nrows: 3\ncols: 5\n")
    a, d = load_array(p), shipped_yaml()
    assert a.shape == (3, 5) and a.name == "old"
    assert a.pe.fd_depth == d["pe"]["fd_depth"]["value"]
    assert a.clock_mhz == d["clock_mhz"]["value"]
    assert a.sources["pe.fd_depth"] == d["pe"]["fd_depth"]["source"]
    assert len(a.io_buffers) == 4


def _leaves(d: dict, at: str = ""):
    for k, v in d.items():
        path = f"{at}.{k}" if at else k
        if isinstance(v, dict) and "value" not in v:
            yield from _leaves(v, path)
        else:
            yield path, v


def test_default_declaration_values_and_sources():
    d = shipped_yaml()
    a = array_of("8x8")
    assert a.shape == (8, 8)
    for path, leaf in _leaves({k: v for k, v in d.items() if k not in ("version", "name", "rows", "cols")}):
        assert isinstance(leaf, dict) and leaf.get("source"), f"{path} has no source"
        assert a.sources[path] == leaf["source"]
        section, *rest = path.split(".")
        if section == "components":
            got = getattr(a.components[rest[0]], rest[1])
        elif section == "io_buffers":
            got = getattr(next(b for b in a.io_buffers if b.border == rest[0]), rest[1])
        elif section == "pe":
            got = getattr(a.pe, rest[0])
        elif section == "word_bits":
            got = a.word_bits[rest[0]]
        elif section == "dram":
            got = a.dram_bandwidth_gb_per_s
        else:
            got = getattr(a, section)
        assert got == leaf["value"], path
    # a value chosen here says so first; a cited one names its source first
    assumed = [p for p, leaf in _leaves(d) if isinstance(leaf, dict) and leaf["source"].startswith("assumption")]
    assert "pe.fd_depth" in assumed and "dram.bandwidth_gb_per_s" not in assumed


def test_width_specific_access_energies():
    t = default_table()
    assert t.access("IOb", 64) == 10.0 and "Horowitz" in t.sources["access.IOb.64b"]
    assert t.access("DR", 32) == t.access_pj["DR"] == 640.0
    assert t.access("RD", 24) == pytest.approx(0.75)  # no entry: linear from 32 bits
    # overriding the 32-bit value drops the shipped widths of that class ...
    u = t.merged({"access_pj": {"DR": 100.0}}, "u.yaml")
    assert u.access("DR", 64) == pytest.approx(200.0) and u.access("IOb", 64) == 10.0
    # ... unless the file gives them too
    w = t.merged({"access_pj": {"DR": 100.0}, "access_pj_by_bits": {"DR": {64: 150.0}}}, "w.yaml")
    assert w.access("DR", 64) == 150.0
    with pytest.raises(SpecError, match="access_pj_by_bits.DR.12"):
        t.merged({"access_pj_by_bits": {"DR": {12: 1.0}}}, "x.yaml")


BAD = [
    ("pe: {fd_depth: -4}", "pe.fd_depth"),
    ("io_buffers: {west: {capacity_words: 64, bandwidth_words_per_cycle: 0}}",
     "io_buffers.west.bandwidth_words_per_cycle"),
    ("dram: {bandwidth_gb_per_s: 0}", "dram.bandwidth_gb_per_s"),
    ("components: {cache: {area_um2: 1, leakage_uw: 1}}", "unknown component 'cache'"),
    ("word_bits: {fp32: 12}", "word_bits.fp32"),
    ("word_bits: {bf16: 16}", "word_bits.bf16"),
    ("io_buffers: {top: {capacity_words: 1, bandwidth_words_per_cycle: 1}}", "unknown border 'top'"),
    ("clock_mhz: .nan", "clock_mhz"),
    ("components: {pe: {area_um2: -1.0}}", "components.pe.area_um2"),
    ("version: 3", "version"),
    ("io_buffers: {}", "io_buffers"),
    ("pe: {fd_depth: {value: 4, source: x, extra: 1}}", "pe.fd_depth: unknown key 'extra'"),
]


@pytest.mark.parametrize("line,field", BAD)
def test_bad_declaration_is_one_line_naming_file_and_field(tmp_path, line, field):
    p = tmp_path / "bad.yaml"
    p.write_text(f"version: 2\nrows: 2\ncols: 2\n{line}\n")
    with pytest.raises(SpecError, match=field.replace(".", r"\.")):
        load_array(p)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-m", "polyjoule", "analyze", "gesummv", "--array", str(p)],
                         capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and str(p) in lines[0] and field in lines[0], res.stderr


def test_grid_text_limits_name_the_option():
    with pytest.raises(SpecError, match="--array: '5000x2' is outside .* 1..4096"):
        array_of("5000x2")
