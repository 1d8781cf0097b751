"""What every command shares: turning a user-facing error into one line and exit 2."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import typer

from polyjoule.errors import PolyjouleError

F = TypeVar("F", bound=Callable[..., Any])


def handles_errors(fn: F) -> F:
    """Print a :class:`PolyjouleError` as one line on stderr and exit with its code (2)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except PolyjouleError as e:
            print(f"polyjoule: error: {e}", file=sys.stderr)
            raise typer.Exit(code=e.exit_code) from None

    return wrapper  # type: ignore[return-value]


def parse_assignments(text: str | None, what: str = "--set") -> dict[str, int]:
    """``N0=4,N1=5`` -> ``{"N0": 4, "N1": 5}``; a malformed item is a one-line error."""
    from polyjoule.errors import SpecError

    out: dict[str, int] = {}
    if not text:
        return out
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise SpecError(f"{what}: {item!r} is not NAME=VALUE")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = int(v)
        except ValueError:
            raise SpecError(f"{what}: {k.strip()}: {v!r} is not an integer") from None
    return out


def parse_ints(text: str | None, what: str, sep: str = ",") -> tuple[int, ...] | None:
    """``2,3`` -> ``(2, 3)``; ``None`` stays ``None``."""
    from polyjoule.errors import SpecError

    if text is None:
        return None
    parts = [p for p in text.replace("x", sep).split(sep) if p.strip()]
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise SpecError(f"{what}: {text!r} is not a list of integers") from None


KERNEL_HELP = "Built-in kernel name, PRA YAML file (.yaml) or C loop nest (.c); or give --einsum."
EINSUM_HELP = "Einsum instead of KERNEL, e.g. 'C[m,n] += A[m,k]*B[k,n]'."
EXTENTS_HELP = "Rank extents of --einsum, e.g. m=64,n=64,k=64 (they become its default dataset)."


def load_kernel(kernel: str | None, einsum: str | None = None, extents: str | None = None
                ) -> Any:
    """The kernel of a command's KERNEL argument or ``--einsum`` (one resolver for every
    command: :func:`polyjoule.frontends.resolve.kernel_from`)."""
    from polyjoule.frontends.resolve import kernel_from

    return kernel_from(kernel, einsum, extents)


MACHINE_HELP = ("The target's machine: a shipped declaration by name or a declaration YAML "
                "file (default: the target's default machine; listed in docs).")


@contextmanager
def machine_target(target: str | None, machine: str | None, echo: bool = True
                   ) -> Iterator[None]:
    """Run a search command on the target ``target`` declared by ``machine``.

    The target is re-registered on that machine for the command's duration and restored
    after, so the search, census and TOSA paths need no change. ``echo`` prints the
    machine's header line first (off for JSON output).
    """
    from polyjoule.search import target as targets

    before = targets.get(target or targets.default_name())
    chosen = targets.on_machine(before, machine)
    header = targets.machine_header(chosen)
    if echo and header:
        typer.echo(f"# {header}")
    targets.register(chosen)
    try:
        yield
    finally:
        targets.register(before)
