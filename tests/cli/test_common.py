"""Issue 14 at the command line: one line and exit 2 for every bad value or usage."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()
MINI = ["--dataset", "MINI"]


def _line(args: list[str]) -> str:
    r = runner.invoke(app, args, catch_exceptions=False)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1, (args, r.output)
    assert lines[0].startswith("polyjoule: error: ") and "Traceback" not in r.output
    return lines[0]


@pytest.mark.parametrize("args,needle", [
    (["analyze", "gemm", "--set", "NI=4,NI=8,NJ=4,NK=4"], "--set: NI given twice"),
    (["analyze", "gemm", "--set", "NI=18446744073709551616,NJ=4,NK=4"], "outside the 64-bit"),
    (["analyze", "gemm", *MINI, "--array", "9223372036854775808x2"], "--array"),
    (["analyze", "gemm", "--set", "NI=0,NJ=4,NK=4"], "--set: NI=0 is below its minimum 1"),
    # the value typed out of range is named before the parameters not given
    (["analyze", "gemm", "--set", "NI=0"], "--set: NI=0 is below its minimum 1"),
    (["simulate", "gemm", *MINI, "--seed", "-1"], "--seed"),
    (["simulate", "gemm", *MINI, "--memory-limit", "nan"], "not a finite positive number"),
    (["simulate", "gemm", *MINI, "--op-latency", "frob=3"], "'frob' is not an operation"),
    (["simulate", "gemm", *MINI, "--pi", str(2**64)], "--pi"),
    (["map", "gemm", "M=4,M=8,K=4,N=4"], "rank M given twice"),
    (["map", "gemm", "-4x4x4"], "map: No such option: -4"),
    (["map", "gemm", "16x16x16", "--slots", "6"], "--slots"),
    (["map", "gemm", "1099511627776000x4x4"], "extent"),
    (["localize", "--einsum", "C[μ,n] += A[μ,k]*B[k,n]"], "'μ' is not an ASCII name"),
    (["localize", "--einsum", "C[m,n] += " + "(" * 3000 + "A[m,k]*B[k,n]" + ")" * 3000],
     "nested deeper"),
    (["frob"], "No such command 'frob'"),
    (["analyze", "", "--array", "2x2"], "KERNEL: an empty name; give a built-in kernel"),
    (["sweep", "gemm", "-s", "N=1:10000000000", "--arrays", "2x2"], "more than 50,000,000"),
    (["sweep", "gemm", "-s", f"N=1:{2**64}", "--arrays", "2x2"], "64-bit"),
])
def test_bad_value_is_one_line(args, needle):
    assert needle in _line(args)


def test_empty_gemm_is_refused_not_matched(tmp_path):
    p = tmp_path / "g.tasm"
    p.write_text("nop\n")
    assert "an empty GEMM checks nothing" in _line(["tinytpu", "run", "--gemm", "0x0x0", str(p)])


def test_usage_error_is_one_line_from_the_console_entry_point():
    r = subprocess.run([sys.executable, "-m", "polyjoule", "map", "gemm", "-4x4x4"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip() == "polyjoule: error: map: No such option: -4 (see --help)"


def test_assignments_parse_and_refuse():
    from polyjoule.cli._common import parse_assignments, parse_ints
    from polyjoule.errors import DuplicateKeyError, SpecError

    assert parse_assignments("N0=4, N1=-5") == {"N0": 4, "N1": -5}
    with pytest.raises(DuplicateKeyError):
        parse_assignments("N=1,N=1")
    with pytest.raises(SpecError, match="no name"):
        parse_assignments("=4")
    assert parse_ints("2x3", "--tile") == (2, 3)
    for bad in ("0,1", "-1,2", f"{2**63},1", ""):
        with pytest.raises(SpecError, match="--tile"):
            parse_ints(bad, "--tile")


@pytest.mark.parametrize("args", [
    ["tinytpu", "gen", "gemm", "8x8x8", "-o", "{d}/nodir/g.tasm"],
    ["sweep", "gemm", "-s", "N=4", "--arrays", "2x2", "--csv", "{d}/afile/out.csv"],
    ["sweep", "gemm", "-s", "N=4", "--arrays", "2x2", "--cache-dir", "{d}/afile"],
    ["localize", "--einsum", "C[m,n] += A[m,k]*B[k,n]", "-o", "{d}"],
])
def test_output_and_cache_paths_are_refused_before_work(tmp_path, args):
    (tmp_path / "afile").write_text("x")
    line = _line([a.replace("{d}", str(tmp_path)) for a in args])
    assert str(tmp_path) in line
