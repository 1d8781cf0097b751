"""The ``polyjoule`` command line. Each concept registers its commands from its own module."""

from __future__ import annotations

import sys

import typer

from polyjoule import __version__
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
    """A usage error as one line: ``polyjoule map: error: No such option: -4 (see --help)``."""
    ctx = getattr(e, "ctx", None)
    where = str(getattr(ctx, "command_path", "") or "polyjoule")
    text = e.format_message() if hasattr(e, "format_message") else str(e)
    return f"{where}: error: {' '.join(text.split())} (see --help)"


def run(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv``; the exit code (2 for bad input, usage included).

    Every way a run can end is one line on stderr: a :class:`PolyjouleError` (exit 2, or
    its own code), a usage error (exit 2), an input nested past the interpreter's stack
    (exit 2), an interrupt (exit 130). Tests run the same function in-process.
    """
    try:
        rv = app(args=argv, prog_name="polyjoule", standalone_mode=False)
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
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


def main() -> None:
    """Console entry point: a user-facing error is one line and exit 2, never a traceback."""
    sys.exit(run())
