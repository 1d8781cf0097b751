"""A malformed array declaration is one line naming the file and the field path in a
declaration's words: no pydantic text (``Value error``, ``Input should``, class names)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from polyjoule.errors import SpecError
from polyjoule.targets.tcpa.array import load_array

PYDANTIC = ("Value error", "Input should", "instance of", "_Spec", "Spec", "pydantic",
            "Extra inputs")

MALFORMED = [
    ("pe: {fd_depth: -4}", "pe.fd_depth: must be at least 1 (got -4)"),
    ("io_buffers: {west: {capacity_words: 64, bandwidth_words_per_cycle: 0}}",
     "io_buffers.west.bandwidth_words_per_cycle: must be greater than 0 (got 0)"),
    ("dram: {bandwidth_gb_per_s: 0}", "dram.bandwidth_gb_per_s: must be greater than 0 (got 0)"),
    ("components: {cache: {area_um2: 1, leakage_uw: 1}}",
     "components: unknown component 'cache' (known: pe, register_file, fifo, io_buffer)"),
    ("word_bits: {fp32: 12}", "word_bits.fp32: must be a multiple of 8 bits (got 12)"),
    ("io_buffers: 5", "io_buffers: must be a mapping of north, south, west, east"),
    ("io_buffers: {west: 7}",
     "io_buffers.west: must be a mapping of capacity_words, bandwidth_words_per_cycle"),
    ("pe: {fd_depth: 2.5}", "pe.fd_depth: must be a whole number (got 2.5)"),
    ("pe: {fd_depth: 99999999999}", "pe.fd_depth: must be at most 16,777,216"),
    ("clock_mhz: fast", "clock_mhz: must be a number (got 'fast')"),
    ("io_buffers: {west: {capacity_words: 64}}",
     "io_buffers.west.bandwidth_words_per_cycle: is missing"),
    ("speed: 1", "speed: unknown field (known: version, name, rows, cols"),
    ("io_buffers: {}", "io_buffers: an array needs at least one I/O buffer"),
]


def _declaration(tmp_path, line: str):
    p = tmp_path / "bad.yaml"
    p.write_text(f"version: 2\nrows: 2\ncols: 2\n{line}\n")
    return p


@pytest.mark.parametrize(("line", "message"), MALFORMED)
def test_a_malformed_declaration_names_file_and_field_in_domain_words(tmp_path, line, message):
    p = _declaration(tmp_path, line)
    with pytest.raises(SpecError) as e:
        load_array(p)
    text = str(e.value)
    assert text.startswith(f"{p}: {message}"), text
    assert "\n" not in text and not any(w in text for w in PYDANTIC), text


def test_every_wrong_field_is_named_on_the_one_line(tmp_path):
    p = _declaration(tmp_path, "pe: {fd_depth: 0, od_ports: -1}\nclock_mhz: .nan")
    with pytest.raises(SpecError) as e:
        load_array(p)
    text = str(e.value)
    assert "\n" not in text
    for part in ("pe.fd_depth: must be at least 1 (got 0)", "pe.od_ports: must be at least 0",
                 "clock_mhz: must be a finite number (got nan)"):
        assert part in text, text


def test_the_cli_prints_the_one_line_and_exits_2(tmp_path):
    p = _declaration(tmp_path, "io_buffers: 5")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-m", "polyjoule", "analyze", "gesummv", "--array",
                          str(p)], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.strip().splitlines() == [
        f"polyjoule: error: {p}: io_buffers: must be a mapping of north, south, west, east "
        "(got 5; see docs/arch.md)"]
