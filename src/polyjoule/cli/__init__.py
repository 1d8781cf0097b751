"""The ``polyjoule`` command line. Each concept registers its commands from its own module.

Start-up is part of the interface (``--version`` and ``--help`` within 0.3 s): a command
module imports at module level only the standard library, typer, :mod:`polyjoule.errors` and
:mod:`polyjoule.cli._common`; everything else (numpy, sympy, islpy, rich, pydantic, the
analysis) is imported inside the command's body. tests/cli/test_startup.py holds the rule.
"""

from __future__ import annotations

import sys

import typer

from polyjoule.errors import PolyjouleError

app = typer.Typer(
    name="polyjoule",
    help="Symbolic energy and latency of loop nests on processor arrays, and a loop-nest "
    "mapper for TinyTPU-isa.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from polyjoule import __version__

        typer.echo(f"polyjoule {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """polyjoule: energy, latency and legality of loop nests on accelerators."""


def _register() -> None:
    from polyjoule.cli import judge, kernels, mapper, simulate, sweep, symbolic, tinytpu, tosa

    for module in (symbolic, simulate, kernels, sweep, tinytpu, mapper, tosa, judge):
        module.register(app)


_register()


def main() -> None:
    """Console entry point: a user-facing error is one line and exit 2, never a traceback."""
    try:
        app()
    except PolyjouleError as e:
        print(f"polyjoule: error: {e}", file=sys.stderr)
        sys.exit(e.exit_code)
