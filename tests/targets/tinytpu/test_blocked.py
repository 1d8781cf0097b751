"""Layers larger than MAXDIM: host blocks run as a sequence of programs, K folded into the
images; each block's program on the reference model, the assembled C against numpy."""

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from polyjoule.analysis import steps as timeline
from polyjoule.cli import app
from polyjoule.errors import Refused
from polyjoule.library.workloads import get
from polyjoule.search.search import Problem, search
from polyjoule.targets.tinytpu import blocked, builds, energy, refmodel
from polyjoule.targets.tinytpu.assembler import expand, fetches
from polyjoule.targets.tinytpu.target import Blocked, TinyTPUTarget

SMALL, BIG = builds.load().cfg, builds.load("maxdim64").cfg
SHAPE = {"M": 32, "K": 32, "N": 32}


def _best(workload, cfg, shape=SHAPE):
    return search(Problem(get(workload), shape), TinyTPUTarget(cfg)).best


def _run_blocks(prog, A, B, cfg):
    """Each host block's images packed by hand from the layout the module documents."""
    b, md = prog.block, cfg.MAXDIM
    M, N = A.shape[0], B.shape[1]
    out = np.zeros((M, N), np.int64)
    for i in range(M // b.mb):
        for j in range(N // b.nb):
            Ai, Bj = np.zeros((md, md), np.int8), np.zeros((md, md), np.int8)
            for k in range(b.K):  # element (m, k) at row (k // md) * mb + m, column k % md
                Ai[(k // md) * b.mb:(k // md + 1) * b.mb, k % md] = A[i * b.mb:(i + 1) * b.mb, k]
                Bj[k % md, (k // md) * b.nb:(k // md + 1) * b.nb] = B[k, j * b.nb:(j + 1) * b.nb]
            C = refmodel.run(list(prog.instrs), Ai, Bj, np.zeros((md, md), np.int8), cfg)
            out[i * b.mb:(i + 1) * b.mb, j * b.nb:(j + 1) * b.nb] = C[:b.mb, :b.nb]
    return out


@pytest.mark.parametrize("workload", ["gemm", "gemm.relu"])
def test_32_cubed_on_maxdim16_is_a_blocked_mapping_equal_to_numpy(workload):
    best = _best(workload, SMALL)
    prog = best.program
    assert isinstance(prog, Blocked) and prog.count == 16 and prog.block.K == 32
    rng = np.random.default_rng(11)
    A, B = rng.integers(-128, 128, (32, 32)), rng.integers(-128, 128, (32, 32))
    acc = A @ B
    if workload == "gemm.relu":
        acc = np.maximum(acc, 0)
    assert np.array_equal(_run_blocks(prog, A, B, SMALL), np.clip(acc, -128, 127))


def test_blocked_cycles_and_issues_are_summed_over_the_programs():
    tgt = TinyTPUTarget(SMALL)
    best = _best("gemm", SMALL)
    priced = tgt.price(best.program)
    one = timeline.run(tgt.steps(best.program))  # one block's schedule, run here
    assert best.cost["makespan"] == best.program.count * one.makespan
    assert priced.timeline.makespan == best.cost["makespan"]  # what every command shows
    unit, load = one.bottleneck
    assert priced.timeline.bottleneck == (unit, best.program.count * load)
    issues = sum(1 for s in tgt.steps(best.program) if not s.control)
    assert best.cost["emits"] == best.program.count * issues
    assert tgt.report(best.program)["programs"] == 16


def test_maxdim64_maps_32_cubed_as_one_program():
    best = _best("gemm", BIG)
    assert not isinstance(best.program, Blocked) and best.label == "N8>K8"


def test_a_block_splitting_k_is_refused_and_misfits_say_why():
    with pytest.raises(Refused, match="whole K"):
        blocked.check_band({"M": 8, "K": 16, "N": 8}, ("M", "K", "N"), SHAPE, SMALL)
    assert "MAXDIM" in blocked.Block(16, 32, 8).misfit(SMALL)  # 2 folds of 16 A rows


def test_cli_map_32_cubed_blocked_on_the_default_build_one_program_on_the_maxdim64_file():
    r = CliRunner().invoke(app, ["map", "gemm", "32x32x32"])
    assert r.exit_code == 0, r.output
    assert "chosen: M4>N4" in r.output and "modelled" in r.output  # verified vs numpy
    build = Path(builds.__file__).parents[2] / "library" / "data" / "builds" / "maxdim64.yaml"
    r = CliRunner().invoke(app, ["map", "--machine", str(build), "gemm", "32x32x32"])
    assert r.exit_code == 0, r.output
    assert "chosen: N8>K8" in r.output


@pytest.mark.parametrize("shape", [(64, 64, 64), (16, 64, 16)])
def test_a_block_program_beyond_imem_is_a_refusal_in_the_census(shape):
    """K=64 on maxdim16 folds into 4 images, unrolled in staging: the block program does
    not fit IMEM_SIZE. That is a counted `resources` refusal (express), not an error."""
    ext = dict(zip("MKN", shape, strict=True))
    res = search(Problem(get("gemm"), ext), TinyTPUTarget(SMALL))
    assert not res.candidates
    assert res.census.total == res.considered and res.census.counts["resources"] >= 1
    assert res.census.kinds["resources"] == "express"
    nest, detail = res.census.examples["resources"]
    # the words counted independently: the block program the module writes for that band
    b = blocked.Block(4, 64, 4)  # the only block that fits: 4 folds of 4 rows / 4 columns
    assert b.misfit(SMALL) is None and blocked.blocks(ext, ("M", "K", "N"), SMALL) == [b]
    n = len(blocked.program(b, False, SMALL))
    words = 8 + 2 * n
    assert words > SMALL.IMEM_SIZE
    assert detail == (f"imem.overflow: {n} instructions = {words} words > "
                      f"IMEM_SIZE={SMALL.IMEM_SIZE}")
    # with room for it, the same band maps and computes the layer
    roomy = TinyTPUTarget(builds.load("agu4-depth6-imem104").cfg)
    assert search(Problem(get("gemm"), ext), roomy).best is not None


def test_cli_map_every_block_refused_prints_the_census_then_exit_2():
    r = CliRunner().invoke(app, ["map", "gemm", "16x64x16"])
    assert r.exit_code == 2, r.output
    out = r.output
    assert "gemm 16x64x16 on tinytpu-isa" in out and "0 encodable" in out
    assert "resources" in out and "imem.overflow" in out
    assert out.rstrip().splitlines()[-1] == "polyjoule: error: gemm 16x64x16: every nest was refused"


def test_blocked_energy_counts_are_summed_over_the_programs():
    tgt = TinyTPUTarget(SMALL)
    best = _best("gemm", SMALL, {"M": 20, "K": 16, "N": 16})
    prog = best.program
    assert isinstance(prog, Blocked) and prog.count > 1
    e = tgt.energy(prog)
    assert e.counts["mac"] == 20 * 16 * 16  # every MAC of the layer, not one block's
    one = energy.program_energy(expand(list(prog.instrs), SMALL),
                                len(fetches(list(prog.instrs), SMALL)), SMALL)
    assert e.counts == {k: prog.count * v for k, v in one.counts.items()}
    assert tgt.energy_pj(prog) == pytest.approx(prog.count * one.total_pj)
