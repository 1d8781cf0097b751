"""The simulator's estimate and progress bar: on stderr, only on a terminal or when asked."""

from __future__ import annotations

import io
import json

from rich.console import Console
from typer.testing import CliRunner

from polyjoule.analysis.simulator import estimate_seconds, iterations, simulate
from polyjoule.cli import app
from polyjoule.cli._progress import duration, simulation_progress, wanted
from polyjoule.library import kernels as registry

runner = CliRunner()


def test_json_output_stays_json_with_progress() -> None:
    args = ["validate", "gemm", "--array", "2x2", "--set", "NI=9,NJ=8,NK=7", "--json"]
    quiet = runner.invoke(app, args)
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == ""  # not a terminal, not asked: nothing on stderr
    asked = runner.invoke(app, [*args, "--progress", "--chunk", "16"])
    assert asked.exit_code == 0, asked.output
    assert json.loads(asked.stdout)["ok"] is True
    assert json.loads(asked.stdout)["rows"] == json.loads(quiet.stdout)["rows"]


def test_progress_is_wanted_on_a_terminal_only() -> None:
    assert wanted(True, True) and not wanted(False, False)
    assert not wanted(None, False)  # pytest's stderr is not a terminal
    assert not wanted(None, True)


def test_the_bar_reaches_every_point_and_the_estimate_comes_first() -> None:
    """With no delay, the estimate is printed before the run and the bar is updated per
    band up to the box's points."""
    k = registry.get("gemm")
    values = {"NI": 12, "NJ": 10, "NK": 9}
    out = io.StringIO()
    con = Console(file=out, force_terminal=True, width=100, highlight=False)
    seen: list[tuple[int, int]] = []
    with simulation_progress(k, values, True, delay=0.0, console=con) as report:
        assert report is not None
        assert "points, about" in out.getvalue()  # before the run

        def both(done: int, total: int) -> None:
            seen.append((done, total))
            report(done, total)

        r = simulate(k, (2, 2), values=values, chunk=50, progress=both)
    assert r.ok
    assert len(seen) > 3 and seen[-1] == (iterations(k, values), 12 * 10 * 9)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    text = out.getvalue()
    assert "simulating gemm: 1,080 points" in text and "1080/1080" in text


def test_estimate_grows_with_the_points() -> None:
    k = registry.get("gemm")
    large = dict(k.datasets["LARGE"])
    medium = dict(k.datasets["MEDIUM"])
    ratio = estimate_seconds(k, large) / estimate_seconds(k, medium)
    assert abs(ratio - iterations(k, large) / iterations(k, medium)) < 1e-9
    assert duration(30) == "30 s" and duration(1800) == "30 min" and duration(9000) == "2.5 h"
