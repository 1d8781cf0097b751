"""A blocked layer's mapping cost does not grow with its extent: the block shapes are
walked up to MAXDIM, and ``verify`` runs a bounded spread of blocks, never M x K arrays."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.library.workloads import get
from polyjoule.search.search import Problem, search
from polyjoule.targets.tinytpu import blocked, builds, target
from polyjoule.targets.tinytpu.target import VERIFY_SPAN, TinyTPUTarget, spread

CFG = builds.load().cfg
ROLES = ("M", "K", "N")


def _brute_blocks(M, K, N):
    """Every divisor pair, no cap: the definition the capped walk must agree with."""
    out = [blocked.Block(mb, K, nb) for mb in range(M, 0, -1) if M % mb == 0
           for nb in range(N, 0, -1) if N % nb == 0]
    return [b for b in out if b.misfit(CFG) is None]


@pytest.mark.parametrize("shape", [(32, 32, 32), (48, 16, 40), (4096, 16, 96), (36, 32, 12)])
def test_capped_block_walk_equals_every_divisor_pair(shape):
    M, K, N = shape
    got = blocked.blocks(dict(zip(ROLES, shape, strict=True)), ROLES, CFG)
    assert got == _brute_blocks(M, K, N)


def test_block_walk_at_2_to_the_40_rows_is_the_walk_at_16():
    huge = blocked.blocks({"M": 2**40, "K": 16, "N": 16}, ROLES, CFG)
    assert [(b.mb, b.nb) for b in huge] == [(b.mb, b.nb) for b in _brute_blocks(16, 16, 16)]


def test_spread_keeps_both_ends_and_at_most_k():
    assert spread(5, 8) == [0, 1, 2, 3, 4]
    s = spread(2**36, VERIFY_SPAN)
    assert len(s) == VERIFY_SPAN and s[0] == 0 and s[-1] == 2**36 - 1 and s == sorted(s)


def _count_runs(monkeypatch):
    calls = []
    real = target._run_checked

    def counted(*a):
        calls.append(1)
        return real(*a)

    monkeypatch.setattr(target, "_run_checked", counted)
    return calls


def test_verify_runs_every_block_of_a_small_layer(monkeypatch):
    best = search(Problem(get("gemm.relu"), {"M": 32, "K": 32, "N": 32}), TinyTPUTarget(CFG)).best
    calls = _count_runs(monkeypatch)
    assert TinyTPUTarget(CFG).verify(get("gemm.relu"), {"M": 32, "K": 32, "N": 32}, best.program)
    assert len(calls) == best.program.count  # all 16 blocks


def test_verify_of_a_2_to_the_30_row_layer_runs_a_bounded_spread(monkeypatch):
    shape = {"M": 2**30, "K": 16, "N": 32}
    best = search(Problem(get("gemm"), shape), TinyTPUTarget(CFG)).best
    assert best.program.count * best.program.block.mb * best.program.block.nb == 2**35
    calls = _count_runs(monkeypatch)
    assert TinyTPUTarget(CFG).verify(get("gemm"), shape, best.program)
    rows, cols = 2**30 // best.program.block.mb, 32 // best.program.block.nb
    assert len(calls) == min(rows, VERIFY_SPAN) * min(cols, VERIFY_SPAN) < best.program.count


def test_verify_still_catches_a_wrong_block_program():
    """The relu program verified as plain gemm: negative sums become 0, numpy disagrees."""
    shape = {"M": 2**20, "K": 32, "N": 16}
    best = search(Problem(get("gemm.relu"), shape), TinyTPUTarget(CFG)).best
    assert TinyTPUTarget(CFG).verify(get("gemm.relu"), shape, best.program)
    assert not TinyTPUTarget(CFG).verify(get("gemm"), shape, best.program)


def test_cli_map_at_the_extent_limit_maps_and_verifies():
    """2**40 rows (the extent limit): was an O(M) walk and an M x K numpy draw (a hang)."""
    r = CliRunner().invoke(app, ["map", "gemm", f"{2**40}x16x16", "--json", "--top", "2"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    rows = doc["candidates"] if "candidates" in doc else doc["problems"][0]["candidates"]
    assert rows and all(c["verified"] for c in rows)
    nb = [int(c["nest"].split(">")[-1].lstrip("N")) for c in rows]  # the band's last loop
    assert all(c["programs"] * c["rows"] * w == 2**40 * 16 for c, w in zip(rows, nb, strict=True))
    assert np.int64(rows[0]["makespan"]) > 2**36  # priced for every block, not the spread


@pytest.mark.parametrize("shape, nearest", [
    ("720720x720720x720720", "the nearest, 16x720720x16: 45045 folds of 16 A rows > "
                             "MAXDIM=16"),
    ("20x20x20", "the nearest, 10x20x4: K=20 folds only in whole MAXDIM=16"),
    ("1099511627689x16x16", "the nearest, 1x16x16: mb=1 outside AR_RAW_DIST..MAXROWS"),
])
def test_a_layer_no_host_block_fits_says_which_rule_the_nearest_block_misses(shape, nearest):
    """It used to be 'target tinytpu-isa offers no intrinsic for this workload'."""
    r = CliRunner().invoke(app, ["map", "gemm", shape, "--target", "tinytpu-isa"])
    errors = [ln for ln in r.output.splitlines() if ln.startswith("polyjoule:")]
    assert r.exit_code == 2 and errors == [
        f"polyjoule: error: gemm {shape}: no host block fits (blocks Mb x K x Nb, K never "
        f"split); {nearest}"], r.output
