"""The ``polyjoule`` command line. Each concept registers its commands from its own module."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperGroup

from polyjoule import __version__
from polyjoule.errors import PolyjouleError


class _OneLineGroup(TyperGroup):
    """The root command: every way a run ends is one line on stderr (see :func:`outcome`).

    Overriding ``main`` (not only the console entry point) makes ``CliRunner(app)`` in the
    tests see exactly what a user sees.
    """

    def main(self, args: Any = None, prog_name: str | None = None,  # type: ignore[override]
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        def call() -> Any:
            return super(_OneLineGroup, self).main(args, prog_name or "polyjoule", complete_var,
                                                   standalone_mode=False, **extra)

        if not standalone_mode:
            return call()
        sys.exit(outcome(call))


app = typer.Typer(
    name="polyjoule",
    help="Symbolic energy and latency of loop nests on processor arrays, and a loop-nest "
    "mapper for TinyTPU-isa.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_OneLineGroup,
)


def _version(value: bool) -> None:
    if value:
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


def usage_line(e: Exception) -> str:
    """A usage error as one line: ``polyjoule: error: map: No such option: -4 (see --help)``."""
    path = str(getattr(getattr(e, "ctx", None), "command_path", "") or "")
    where = f"{path.split(' ', 1)[1]}: " if " " in path else ""
    text = e.format_message() if hasattr(e, "format_message") else str(e)
    return f"polyjoule: error: {where}{' '.join(text.split())} (see --help)"


def outcome(call: Callable[[], Any]) -> int:
    """Run ``call`` (the command line); its exit code, every failure one line on stderr.

    A :class:`PolyjouleError` (exit 2, or its own code), a usage error (exit 2), an input
    nested past the interpreter's stack (exit 2), an interrupt (exit 130).
    """
    try:
        rv = call()
    except typer.TyperException as e:  # click's usage errors, as typer vendors them
        print(usage_line(e), file=sys.stderr)
        return int(getattr(e, "exit_code", 2))
    except typer.Abort:
        print("polyjoule: aborted", file=sys.stderr)
        return 130
    except PolyjouleError as e:
        print(f"polyjoule: error: {e}", file=sys.stderr)
        return e.exit_code
    except RecursionError:
        print("polyjoule: error: input nested too deeply to read", file=sys.stderr)
        return 2
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0  # typer.Exit(code)


def main() -> None:
    """Console entry point: a user-facing error is one line and exit 2, never a traceback."""
    app()
