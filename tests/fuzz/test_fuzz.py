"""The fuzz suite: generated bad inputs on every surface; exit 2, one line, no traceback.

Deterministic (seeded); most cases in-process, a sample through ``python -m polyjoule``.
Done means (issue 14): >= 500 bad inputs, 0 tracebacks, 0 hangs, 0 wrong acceptances.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generators import SURFACES, programs  # noqa: E402
from harness import FuzzCase, run_in_process, run_subprocess  # noqa: E402

from polyjoule.cli import app  # noqa: E402

SEED = 14


def _program_files(tmp: Path) -> tuple[bytes, bytes]:
    """A valid .tasm and .thex (the shipped tiled GEMM), the base of the program mutations."""
    runner = CliRunner()
    for suffix in ("tasm", "thex"):
        r = runner.invoke(app, ["tinytpu", "gen", "gemm", "8x8x8", "-o", str(tmp / f"g.{suffix}")])
        assert r.exit_code == 0, r.output
    return (tmp / "g.tasm").read_bytes(), (tmp / "g.thex").read_bytes()


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[FuzzCase]:
    rng = random.Random(SEED)
    out = [c for gen in SURFACES for c in gen(rng)]
    out += list(programs(rng, *_program_files(tmp_path_factory.mktemp("programs"))))
    return out


def test_at_least_500_bad_inputs_across_every_surface(cases: list[FuzzCase]):
    assert len(cases) >= 500
    per = {c.surface for c in cases}
    assert per >= {"bytes", "yaml", "pra", "energy", "cli", "mapper", "einsum", "c",
                   "program", "plot", "sweep"}


def test_every_bad_input_is_refused_in_one_line(cases: list[FuzzCase], tmp_path: Path):
    failures = []
    for n, case in enumerate(cases):
        folder = tmp_path / f"c{n}"
        folder.mkdir()
        found = run_in_process(case, folder)
        if found:
            failures.append(f"{case.surface}/{case.label} {list(case.args)}: {'; '.join(found)}")
    assert not failures, f"{len(failures)} of {len(cases)}:\n" + "\n".join(failures[:80])


def test_a_sample_through_the_console_entry_point(cases: list[FuzzCase], tmp_path: Path):
    """The real process: usage errors and file errors are one line there too."""
    sample = random.Random(SEED).sample(cases, 6)
    sample.append(FuzzCase("cli", "usage", ("map", "gemm", "-4x4x4"), needle="No such option"))
    failures = []
    for n, case in enumerate(sample):
        folder = tmp_path / f"s{n}"
        folder.mkdir()
        found = run_subprocess(case, folder)
        if found:
            failures.append(f"{case.surface}/{case.label}: {'; '.join(found)}")
    assert not failures, "\n".join(failures)
