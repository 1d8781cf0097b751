"""``polyjoule analyze`` warns when the analysed mapping exceeds a declared capacity: the
cause and the numbers the ``map`` search would refuse it for, on stderr and in ``--json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from polyjoule.library.kernels import get
from polyjoule.targets.tcpa.array import load_array
from polyjoule.targets.tcpa.target import TcpaTarget, evaluate


def _analyze(*args: str) -> subprocess.CompletedProcess[str]:
    """``analyze`` with ``--wide`` (the warning is folded to the width otherwise)."""
    return subprocess.run([sys.executable, "-m", "polyjoule", "analyze", *args, "--wide"],
                          capture_output=True, text=True, check=True)


def test_analyze_warns_with_the_cause_and_numbers(tmp_path) -> None:
    arch = tmp_path / "fifo16.yaml"
    arch.write_text("version: 2\nname: fifo16\nrows: 8\ncols: 8\npe: {fd_depth: 16}\n")
    over = _analyze("gesummv", "--array", str(arch), "--set", "N0=136,N1=136")
    lines = over.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("polyjoule: warning:")
    assert "fd-depth" in lines[0] and "needs up to 17 words per FIFO" in lines[0]
    assert "the declaration has 16" in lines[0]
    assert over.stdout  # the analysis itself is printed as usual
    folded = subprocess.run([sys.executable, "-m", "polyjoule", "analyze", "gesummv", "--array",
                             str(arch), "--set", "N0=136,N1=136"], capture_output=True,
                            text=True, check=True, env={**os.environ, "COLUMNS": "60"})
    assert all(len(x) <= 60 for x in folded.stderr.splitlines())
    assert " ".join(x.strip() for x in folded.stderr.splitlines()) == lines[0]
    # at N = 128 the FIFOs fit (the DRAM's 16 words per cycle do not, as in the search)
    fits = _analyze("gesummv", "--array", str(arch), "--set", "N0=128,N1=128", "--json")
    assert "fd-depth" not in fits.stderr
    assert [c["cause"] for c in json.loads(fits.stdout)["capacity"]] == ["dram-bandwidth"]
    doc = json.loads(_analyze("gesummv", "--array", str(arch), "--set", "N0=136,N1=136",
                              "--json").stdout)
    assert [c["cause"] for c in doc["capacity"]] == ["fd-depth", "dram-bandwidth"]


def test_analyze_warning_agrees_with_the_search(tmp_path) -> None:
    """The causes ``analyze`` names are the ones the search refuses the same mapping for."""
    arch = tmp_path / "fifo8.yaml"
    arch.write_text("version: 2\nname: fifo8\nrows: 1\ncols: 8\npe: {fd_fifos: 8}\n")
    k = get("jacobi-1d")
    out = _analyze("jacobi-1d", "--array", str(arch), "--set", "TSTEPS=20,N=30", "--json")
    named = {c["cause"] for c in json.loads(out.stdout)["capacity"]}
    b = evaluate(TcpaTarget(load_array(arch)), k, (1, 8), None,
                 {"TSTEPS": np.asarray([20]), "N": np.asarray([30])})
    assert named == {c for c, m in b.causes.masks.items() if m[0]} == {"fd-count"}
