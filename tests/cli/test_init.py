"""How a run ends (cli/__init__.py): a reader that closes the pipe early ends it quietly."""

from __future__ import annotations

import fcntl
import subprocess
import sys

import pytest


@pytest.mark.parametrize("args", [["list"], ["analyze", "jacobi-2d", "--dataset", "MINI"]])
def test_a_reader_that_stops_early_ends_the_run_with_141_and_no_message(args):
    """``polyjoule list | head -1``: rich's and click's own handling exit 1, the status a
    validation mismatch has; the shell's word for a closed pipe is 141."""
    p = subprocess.Popen([sys.executable, "-m", "polyjoule", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env={"COLUMNS": "80", "PATH": ""})
    assert p.stdout is not None and p.stderr is not None
    fcntl.fcntl(p.stdout.fileno(), 1031, 4096)  # F_SETPIPE_SZ: the output outgrows the pipe
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 141 and first.strip() and err == b"", err


@pytest.mark.parametrize("args", [[], ["tinytpu"], ["tinytpu", "gen"]])
def test_a_group_without_its_command_prints_its_help_and_exits_2(args):
    """Not the help squashed into one error line: the usage, the commands one per line."""
    from typer.testing import CliRunner

    from polyjoule.cli import app

    r = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert r.exit_code == 2
    lines = r.stderr.splitlines()
    assert lines[0].startswith("Usage: polyjoule") and "Commands:" in lines
    assert max(map(len, lines)) <= 80 and "error" not in r.stderr
