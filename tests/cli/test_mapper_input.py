"""``polyjoule map`` on a kernel target: bad input is one line naming the option typed,
exit 2, nothing on stdout; files go through the one kernel resolver."""

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()
GEMM_C = Path(__file__).parents[1] / "frontends/polybench_c/linear-algebra/blas/gemm/gemm.c"


def _run(*args):
    return subprocess.run([sys.executable, "-m", "polyjoule", "map", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args,says", [
    (["--set", "N=abc"], "--set N: 'abc' is not START:STOP"),
    (["--set", "N=64:16:8"], "--set N: '64:16:8' is an empty range"),
    (["--set", "NI="], "--set NI: '' is an empty range"),
    (["--set", "FOO=3"], "--set: gemm has no parameter 'FOO'"),
    (["--set", "N=0"], "--set: NI=0 is below its minimum 1"),
    (["--set", "N=-5"], "--set: NI=-5 is below its minimum 1"),
    (["--arch", "/tmp"], "--arch: '/tmp' is a directory; give ROWSxCOLS"),
    (["--arch", "maxdim64"], "--arch: 'maxdim64' is not ROWSxCOLS (e.g. 8x8"),
    (["--machine", "4x"], "--machine: '4x' is not ROWSxCOLS"),
    (["--top", "0"], "--top: 0 is not a positive number"),
    (["--top", "-1"], "--top: -1 is not a positive number"),
    (["--set", "N=1:1000000:1"], "--set: 1,000,000 problem sizes x"),
    (["--objective", "cycles"], "--objective cycles: tcpa ranks by energy, latency"),
    (["--max-mappings", "lots"], "'--max-mappings': expected a whole number"),
])
def test_bad_input_is_one_line_naming_the_option(args, says):
    r = _run("gemm", "--target", "tcpa", *args)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert says in lines[0] and "Traceback" not in r.stderr, lines[0]
    assert r.stdout == "", r.stdout  # nothing half-written before the error


def test_an_unknown_kernel_prints_nothing_before_the_error():
    r = _run("/nonexistent/file.c", "--target", "tcpa")
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1


def test_a_c_file_maps_as_its_builtin_twin():
    """A C loop nest goes through the resolver; its mapspace is the built-in's, and the
    analyze command shown names the file."""
    a = runner.invoke(app, ["map", str(GEMM_C), "--target", "tcpa", "--top", "2",
                            "--no-verify"])
    b = runner.invoke(app, ["map", "gemm", "--target", "tcpa", "--top", "2", "--no-verify"])
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    def counts(out):
        line = [ln for ln in out.splitlines() if "mappings," in ln][0]
        return line.split(":", 1)[1].split(";")[0]

    assert counts(a.output) == counts(b.output) == " 1,008 mappings, 174 fit"
    assert "gemm.c" in a.output.replace("\n", "")


def test_objective_help_matches_each_targets_objectives():
    from polyjoule.cli.mapper import OBJECTIVE_HELP
    from polyjoule.targets import OBJECTIVES
    from polyjoule.targets.tcpa.target import OBJECTIVES as TCPA
    from polyjoule.targets.tcpa.target import TcpaTarget
    from polyjoule.targets.tinytpu.target import OBJECTIVE_SETS as TINY
    from polyjoule.targets.tinytpu.target import TinyTPUTarget

    assert OBJECTIVES["tcpa"][0] == TcpaTarget().objective and set(OBJECTIVES["tcpa"]) == set(TCPA)
    assert OBJECTIVES["tinytpu-isa"][0] == TinyTPUTarget().objective
    assert set(OBJECTIVES["tinytpu-isa"]) == set(TINY)
    assert "tcpa energy (its default), latency, edp or power" in OBJECTIVE_HELP
    assert "tinytpu-isa cycles (its default), energy or edp" in OBJECTIVE_HELP


@pytest.mark.parametrize("text,says", [
    ("4x", "is not ROWSxCOLS (e.g. 8x8"), ("x4", "is not ROWSxCOLS"),
    ("4", "is not ROWSxCOLS"), ("4x4x", "is not ROWSxCOLS"),
    ("0x4", "is outside the grids a declaration takes: ROWSxCOLS with each side in 1..4096"),
    ("99999x99999", "is outside the grids a declaration takes: ROWSxCOLS with each side in "
                    "1..4096"),
])
def test_one_array_parser_for_every_command(text, says):
    """``analyze --array`` and ``map --arch`` read a grid through the same parser."""
    for cmd, option in ((["analyze", "gemm", "--array"], "--array"),
                        (["map", "gemm", "--target", "tcpa", "--arch"], "--arch")):
        r = runner.invoke(app, [*cmd, text])
        assert r.exit_code == 2 and f"{option}: '{text}' {says}" in r.output, r.output


@pytest.mark.parametrize("args,says", [
    (["/tmp/x.c", "16x16x16"], "a C or YAML kernel file maps on a kernel target"),
    (["gemm", "16x16"], "shape '16x16': 2 extents for the 3 ranks"),
    (["gemm.relu", "16x16x16", "--objective", "latency"], "'latency' is not one of"),
])
def test_workload_target_checks_before_its_header(args, says):
    r = _run(*args)
    assert r.returncode == 2 and r.stdout == "", r.stdout
    assert len(r.stderr.strip().splitlines()) == 1 and says in r.stderr, r.stderr


@pytest.mark.parametrize("args,says", [
    (["gemm", "8x8x8", "--set", "N=4"], ("--set N=4", "--target tinytpu-isa", "SHAPE")),
    (["gemm", "8x8x8", "--bandwidth-bound"], ("--bandwidth-bound", "--target tinytpu-isa")),
    (["gemm", "4x4x4", "--tosa", "t.mlir"], ("--tosa", "WORKLOAD or SHAPE", "gemm 4x4x4")),
    (["gemm", "8x8x8", "--machine", "maxdim64", "--arch", "t8"],
     ("--machine maxdim64 and --arch t8",)),
])
def test_options_that_cannot_both_apply_on_tinytpu_are_refused_naming_both(args, says):
    r = runner.invoke(app, ["map", *args])
    assert r.exit_code == 2, r.output
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and r.stdout == "", r.output
    for s in says:
        assert s in err[0]
