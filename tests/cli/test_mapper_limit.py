"""``map --max-mappings N``: a kernel search over size ranges is refused past N mappings,
estimated before the search at sizes spread over the ranges (not at the first size alone,
where the fewest tile sizes fit), and checked against the count the search reports."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()
RANGE = ["map", "gesummv", "--target", "tcpa", "--set", "N0=8:512:8", "--set", "N1=16",
         "--no-verify"]


def _one_error(args: list[str]) -> str:
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("polyjoule: error: "), r.stderr
    assert "Traceback" not in r.output
    return lines[0]


@pytest.mark.parametrize("value", ["0", "-3"])
def test_the_limit_is_a_positive_number_and_its_error_names_the_flag(value):
    line = _one_error([*RANGE, "--max-mappings", value])
    assert line == (f"polyjoule: error: --max-mappings: {value} is not a positive number "
                    "of mappings")


def test_a_workload_target_refuses_the_flag_rather_than_ignoring_it():
    line = _one_error(["map", "gemm", "8x8x8", "--max-mappings", "10"])
    assert line.startswith("polyjoule: error: --max-mappings: limits the search of a kernel "
                           "target over size ranges")


def test_the_estimate_over_the_whole_range_is_close_to_the_count_of_the_search():
    r = runner.invoke(app, [*RANGE, "--json", "--top", "1", "--max-mappings", "1000000"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    searched, first = doc["nests"], doc["sizes"][0]["nests"]
    line = _one_error([*RANGE, "--max-mappings", str(searched // 2)])
    m = re.search(r"--set: 64 problem sizes x about [\d,]+ mappings each \(counted at 16 "
                  r"sizes spread over the ranges\) is about ([\d,]+) mappings, over map's "
                  rf"limit of {searched // 2:,}: .* raise --max-mappings$", line)
    assert m, line
    estimate = int(m.group(1).replace(",", ""))
    assert abs(estimate - searched) <= 0.05 * searched, (estimate, searched)
    assert first * 64 < 0.6 * searched  # the first size alone would undercount by half


def test_a_search_within_the_limit_runs():
    r = runner.invoke(app, [*RANGE, "--json", "--top", "1", "--max-mappings", "20000"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["nests"] <= 20000
