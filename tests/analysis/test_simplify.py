"""Merging formula pieces: conditions that couple tiled dims through a second parameter."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyjoule import analyze
from polyjoule.analysis.simulator import simulate
from polyjoule.frontends.pra_yaml import load_kernel_file

# y = A x with upper bandwidth B: ``j <= i + B`` couples the two tiled dims through B.
BANDED_MV = """\
version: 1
name: bandmv
description: "y = A x for a matrix with upper bandwidth B (A[i][j] = 0 for j > i + B)"
phases:
  - name: bandmv
    dtype: fp32
    params: {N: 1, B: 0}
    dims:
      - {name: i, lower: 0, upper: N - 1}
      - {name: j, lower: 0, upper: N - 1}
    tensors:
      A: {shape: [N, N], kind: input}
      x: {shape: [N], kind: input}
      y: {shape: [N], kind: output}
    statements:
      - {id: S1, var: a, input: "A[i, j]", when: "j <= i + B"}
      - {id: S2, var: xv, input: "x[j]", when: "j <= i + B"}
      - {id: S3, var: s, compute: "a * xv", when: ["j == 0"]}
      - {id: S4, var: sp, from: s, dep: [0, 1], when: ["j >= 1", "j <= i + B"]}
      - {id: S5, var: s, compute: "sp + a * xv", when: ["j >= 1", "j <= i + B"]}
      - {id: S6, var: s, output: "y[i]", when: "j == i + B"}
      - {id: S7, var: s, output: "y[i]", when: ["j == N - 1", "i + B >= N"]}
"""


@pytest.fixture(scope="module")
def banded(tmp_path_factory: pytest.TempPathFactory):
    path = Path(tmp_path_factory.mktemp("k")) / "bandmv.yaml"
    path.write_text(BANDED_MV)
    return load_kernel_file(str(path))


@pytest.mark.parametrize("array", [(2, 2), (1, 4)])
def test_coupled_band_condition_counts_match_the_simulator(banded, array) -> None:
    a = analyze(banded, array)  # used to crash merging pieces ('int' has no free_symbols)
    for n, b in [(7, 2), (5, 0), (9, 3), (6, 7)]:
        values = {"N": n, "B": b}
        r = a.evaluate(values)
        sim = simulate(banded, array, None, values)
        assert sim.ok, sim.violations
        for c in ("RD", "FD", "ID", "OD", "IOb", "DR"):
            assert r.counts[c] == sim.counts[c], (values, c)
        assert r.counts["ops"] == sim.counts["ops"]
