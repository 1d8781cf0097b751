"""Start-up stays fast: what ``polyjoule`` imports, asserted (not timed).

benchmarks/bench_startup.py times the console script; these tests hold the two rules of
:mod:`polyjoule.cli` that make the times possible: a command's module is imported only when
the command runs or ``--help`` lists it, and no command module imports the heavy libraries
at module level; ``list`` and ``show NAME`` read built-in kernels without sympy or isl.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
from typer.testing import CliRunner

from polyjoule.cli import COMMANDS, _commands_of, app
from polyjoule.library import kernels as registry

HEAVY = ("sympy", "islpy", "matplotlib", "numpy", "torch", "pandas", "scipy")

PROBE = """
import json, sys
import polyjoule.cli as cli
if len(sys.argv) > 1:
    sys.argv = ["polyjoule", *sys.argv[1:]]
    try:
        cli.main()
    except SystemExit:
        pass
tops = {m.split(".")[0] for m in sys.modules}
sys.stderr.write("\\nPROBE " + json.dumps({
    "top": sorted(tops),
    "cli": sorted(m for m in sys.modules if m.startswith("polyjoule.cli."))}))
"""


def _probe(*argv: str) -> dict[str, list[str]]:
    """The modules a fresh interpreter holds after ``polyjoule ARGV`` (none: after import)."""
    r = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                       timeout=120)
    line = r.stderr.rsplit("PROBE ", 1)
    assert len(line) == 2, r.stderr
    return json.loads(line[1])


def _heavy(found: dict[str, list[str]]) -> list[str]:
    return [m for m in HEAVY if m in found["top"]]


def test_importing_the_cli_imports_no_library_and_no_command() -> None:
    found = _probe()
    assert _heavy(found) == []
    assert [m for m in ("rich", "pydantic", "yaml") if m in found["top"]] == []
    assert found["cli"] == []


def test_version_imports_no_command_module() -> None:
    found = _probe("--version")
    assert _heavy(found) == [] and found["cli"] == []


def test_help_imports_every_command_module_and_no_heavy_library() -> None:
    """``--help`` lists every command, so every command module must be light."""
    found = _probe("--help")
    assert _heavy(found) == []
    assert {f"polyjoule.cli.{m}" for m in COMMANDS.values()} <= set(found["cli"])


@pytest.mark.parametrize("argv", [("list",), ("list", "--json"), ("show", "gemm"),
                                  ("show", "2mm", "--yaml")])
def test_list_and_show_read_kernels_without_sympy_or_isl(argv: tuple[str, ...]) -> None:
    found = _probe(*argv)
    assert _heavy(found) == []
    assert found["cli"] == ["polyjoule.cli._common", "polyjoule.cli.kernels"]


@pytest.mark.parametrize("argv", [("list",), ("list", "--json"), ("show", "gemm"),
                                  ("show", "2mm", "--yaml")])
def test_list_and_show_build_no_pydantic_coercion(argv: tuple[str, ...]) -> None:
    """Flags, unset options and text arguments pass without typer's pydantic coercion
    (``_DeferredCoercion`` in cli/__init__.py)."""
    assert "pydantic" not in _probe(*argv)["top"]


@pytest.mark.parametrize(("argv", "says"), [
    (["map", "gemm", "8x8x8", "--top", "three"], "'--top': expected a whole number"),
    (["map", "gemm", "8x8x8", "--objective", "speed"], "'speed' is not one of"),
])
def test_a_value_that_needs_coercion_still_gets_typer_s(argv: list[str], says: str) -> None:
    """Deferring the coercion changes when it is built, not what it accepts."""
    r = CliRunner().invoke(app, argv)
    assert r.exit_code == 2 and says in r.output, r.output


def test_the_command_table_names_each_module_s_commands() -> None:
    """A command missing from ``COMMANDS`` would be absent from ``--help``."""
    for module in set(COMMANDS.values()):
        assert set(_commands_of(module)) == {c for c, m in COMMANDS.items() if m == module}


@pytest.mark.parametrize("name", registry.names())
def test_show_of_a_name_prints_what_the_full_reader_prints(name: str) -> None:
    """``show NAME`` (the light outline) and ``show FILE`` (the validated kernel) agree."""
    path = resources.files("polyjoule.library").joinpath("data", "kernels", f"{name}.yaml")
    runner = CliRunner()
    light, full = runner.invoke(app, ["show", name]), runner.invoke(app, ["show", str(path)])
    assert light.exit_code == 0 and full.exit_code == 0, light.output + full.output
    assert light.output == full.output


def test_map_on_the_tcpa_derives_and_prices_without_sympy() -> None:
    """The map search derives the schedules and prices every mapping with integer
    expressions (:mod:`polyjoule.analysis.intexpr`); sympy is for display only, so the
    cold command (issue 12: under 1 s) never imports it."""
    found = _probe("map", "gemm", "--target", "tcpa", "--census", "--no-verify")
    assert "islpy" in found["top"] and "numpy" in found["top"]
    assert "sympy" not in found["top"]
