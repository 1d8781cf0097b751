"""The ``polyjoule`` command line. Each concept registers its commands from its own module.

Start-up is part of the interface (``--version`` and ``--help`` within 0.3 s, ``list`` and
``show`` within 0.5 s; benchmarks/bench_startup.py). Two rules keep it so:

* :data:`COMMANDS` names the module that registers each command; the module is imported only
  when its command runs or ``--help`` lists it, so ``--version`` imports no command module.
* A command module imports at module level only the standard library, typer,
  :mod:`polyjoule.errors` and :mod:`polyjoule.cli._common`; numpy, sympy, islpy, rich,
  pydantic and the analysis are imported inside the command's body.
  tests/cli/test_startup.py holds both rules.

And typer's coercion of a parameter (a pydantic TypeAdapter, ~0.1 s of imports) is built
only for a value that needs it (:class:`_DeferredCoercion`): an unset option and a text
argument are passed as typer would pass them.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperGroup

from polyjoule.errors import PolyjouleError, ReaderGone

#: command -> the module of :mod:`polyjoule.cli` whose ``register(app)`` adds it; the order
#: is the order of ``--help``. A new command is one line here.
COMMANDS: dict[str, str] = {
    "analyze": "symbolic", "simulate": "simulate", "validate": "simulate",
    "list": "kernels", "show": "kernels", "localize": "kernels",
    "sweep": "sweep", "plot": "plot", "report": "report", "map": "mapper", "import": "tosa",
    "judge": "judge", "tinytpu": "tinytpu",
}


def _commands_of(module: str) -> dict[str, Any]:
    """The click commands that ``polyjoule.cli.<module>`` registers."""
    sub = typer.Typer(rich_markup_mode=None)
    importlib.import_module(f"polyjoule.cli.{module}").register(sub)
    return dict(typer.main.get_group(sub).commands)


class _DeferredCoercion:
    """typer's coercion of one parameter, built on the first value that needs it: an unset
    option is None (or () when repeatable), text for a ``str`` parameter is itself, an
    ``int``/``bool``/``float`` value of its parameter's type (a default) is itself and
    strings for a ``list[str]`` are their list, as typer's own coercion gives them, without
    building pydantic's validator (~0.1 s on the first one)."""

    TEXT = (str, str | None)
    PLAIN = (int, bool, float)  # already of the annotated type (a default): as pydantic gives it

    def __init__(self) -> None:
        self.built: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if param.multiple or param.nargs == -1 else None
        desc = param.type_descriptor
        if desc.parameter_info.parser is None and (
                (isinstance(value, str) and desc.annotation in self.TEXT)
                or (type(value) in self.PLAIN and desc.annotation is type(value))):
            return value
        if (desc.parameter_info.parser is None and desc.annotation == list[str]
                and isinstance(value, list | tuple) and all(isinstance(x, str) for x in value)):
            return list(value)
        if self.built is None:
            self.built = build_runtime_param(desc)
        return self.built.coerce(value, param=param, ctx=ctx)


def _deferred_runtime_param(self: Any) -> Any:
    if self._runtime_param is None:
        self._runtime_param = _DeferredCoercion()
    return self._runtime_param


if hasattr(typer.core, "_TyperParameter"):  # typer >= 0.25: coercion through pydantic
    from typer._coercion import build_runtime_param

    typer.core._TyperParameter.get_runtime_param = _deferred_runtime_param


class _LazyCommands(TyperGroup):
    """A command group that imports a command's module on first use."""

    def list_commands(self, ctx):  # type: ignore[no-untyped-def]
        return list(dict.fromkeys([*COMMANDS, *self.commands]))

    def get_command(self, ctx, cmd_name):  # type: ignore[no-untyped-def]
        if cmd_name not in self.commands:
            # an unknown name loads every module, so that the error suggests close names
            for module in [COMMANDS[cmd_name]] if cmd_name in COMMANDS else set(COMMANDS.values()):
                for name, cmd in _commands_of(module).items():
                    self.commands.setdefault(name, cmd)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx, formatter):  # type: ignore[no-untyped-def]
        """Each command's whole first sentence, wrapped (click would cut it at the width)."""
        found = [(n, self.get_command(ctx, n)) for n in self.list_commands(ctx)]
        rows = [(n, c.get_short_help_str(limit=1_000)) for n, c in found if c and not c.hidden]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


class _OneLineGroup(_LazyCommands):
    """The root command: lazy commands, and every way a run ends is one line on stderr
    (see :func:`outcome`).

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
    rich_markup_mode=None,  # click's plain help: typer's rich help imports ~0.1 s of rich
    # an unset --help is None, which typer 0.29 coerces through a pydantic TypeAdapter
    # (~0.1 s CPU to build); a default of False is a bool, which it passes through
    context_settings={"default_map": {"help": False, **{c: {"help": False} for c in COMMANDS}}},
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_OneLineGroup,
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


def usage_line(e: Exception) -> str:
    """A usage error as one line: ``polyjoule: error: map: No such option: -4 (see --help)``."""
    path = str(getattr(getattr(e, "ctx", None), "command_path", "") or "")
    where = f"{path.split(' ', 1)[1]}: " if " " in path else ""
    text = e.format_message() if hasattr(e, "format_message") else str(e)
    text = _PYDANTIC.sub(lambda m: f"expected {_KINDS.get(m[1], 'a ' + m[1])}", text)
    return f"polyjoule: error: {where}{' '.join(text.split())} (see --help)"


#: typer words a bad option value as pydantic does; a user reads what was expected
_PYDANTIC = re.compile(r"Input should be a valid (\w+)(?:, unable to parse string as an? \w+)?")
_KINDS = {"integer": "a whole number", "number": "a number", "boolean": "true or false"}


def outcome(call: Callable[[], Any]) -> int:
    """Run ``call`` (the command line); its exit code, every failure one line on stderr.

    A :class:`PolyjouleError` (exit 2, or its own code), a usage error (exit 2; a group
    given no command prints its help, as click does, and exits 2), an input
    nested past the interpreter's stack (exit 2), an interrupt (exit 130).
    """
    try:
        rv = call()
    except typer.TyperException as e:  # click's usage errors, as typer vendors them
        if type(e).__name__ == "NoArgsIsHelpError":  # a group without its command: its help
            print(e.ctx.get_help(), file=sys.stderr)  # type: ignore[attr-defined]
            return 2
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
    except ReaderGone:  # the reader closed the pipe (| head): quietly, as a shell says it
        return 141
    except SystemExit:  # click ends a run whose reader closed the pipe with exit 1
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":  # what it does then, only then
            return 141
        raise
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0  # typer.Exit(code)


def main() -> None:
    """Console entry point: a user-facing error is one line and exit 2, never a traceback.
    A reader that stops early (``| head``) ends the run quietly with 141, as a shell reports
    a program its pipe closed (1 is a validation mismatch)."""
    app()
