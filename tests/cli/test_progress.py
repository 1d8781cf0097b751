"""The shared progress bar: stderr only, only on a terminal or with --progress."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from polyjoule.cli._progress import LazyProgress, progress_bar, progress_option
from polyjoule.search.search import report


def test_forced_bar_draws_on_stderr_never_stdout(capsys):
    progress_option(True)
    try:
        with progress_bar("a search of its own", delay=0.0) as bar:
            assert bar.enabled
            report("searching", 3, 10)
            bar._start()
            report("searching", 10, 10)
    finally:
        progress_option(False)
    out, err = capsys.readouterr()
    assert out == "" and "searching" in err and "10/10" in err and "a search of its own" in err


def test_no_terminal_no_bar(capsys):
    bar = LazyProgress(delay=0.0)
    assert not bar.enabled  # pytest's stderr is no terminal
    bar("sweep", 1, 2)
    bar.close()
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("argv", [
    ["map", "gemm", "8x8x8", "--json", "--progress"],
    ["sweep", "gemm", "-s", "N=8:32:8", "--arrays", "4x4", "--progress", "--json"],
])
def test_json_stdout_stays_clean_with_progress(argv, tmp_path):
    if argv[0] == "sweep":
        argv = [*argv, str(tmp_path / "s.json")]
    out = subprocess.run([sys.executable, "-m", "polyjoule", *argv], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    if argv[0] == "map":
        assert json.loads(out.stdout)["problem"] == "gemm 8x8x8"
    else:
        assert json.loads((tmp_path / "s.json").read_text())["n_points"] == 4

