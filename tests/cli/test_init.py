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
