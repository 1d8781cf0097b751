"""What every command shares: turning a user-facing error into one line and exit 2."""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from polyjoule.errors import DuplicateKeyError, InfeasibleSchedule, PolyjouleError, SpecError

if TYPE_CHECKING:
    from polyjoule.mapping.tiling import Tiling
    from polyjoule.model.pra import PRA, Kernel

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


INT64_MAX = 2**63 - 1


def positive_finite(value: float) -> float:
    """Option callback: a float option (seconds, GiB) is a finite positive number."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"{value} is not a finite positive number")
    return value


def output_path(value: Path | None) -> Path | None:
    """Option callback: an output file's folder is checked while the options are parsed,
    before any work (a missing folder, a file in the way, a directory as the file)."""
    from polyjoule.reports.files import check_destination

    return None if value is None else check_destination(value)


def distinct_outputs(outputs: Mapping[str, Path | None]) -> None:
    """Two output options naming one file would leave only the last written: refused,
    naming both options (``{"--csv": path, "--json": path}``)."""
    seen: dict[Path, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        key = path.resolve()
        if key in seen:
            raise SpecError(f"{seen[key]} and {option} both write {path}: give each its own file")
        seen[key] = option


def _integer(text: str, what: str) -> int:
    """A decimal integer within int64 (larger values would wrap in vectorised paths)."""
    try:
        v = int(text.strip())
    except ValueError:
        raise SpecError(f"{what}: {text.strip()!r} is not an integer") from None
    if not -INT64_MAX - 1 <= v <= INT64_MAX:
        raise SpecError(f"{what}: {v} is outside the 64-bit integer range")
    return v


def parse_assignments(text: str | None, what: str = "--set") -> dict[str, int]:
    """``N0=4,N1=5`` -> ``{"N0": 4, "N1": 5}``; malformed or repeated -> a one-line error."""
    out: dict[str, int] = {}
    if not text:
        return out
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise SpecError(f"{what}: {item!r} is not NAME=VALUE")
        k, v = (x.strip() for x in item.split("=", 1))
        if not k:
            raise SpecError(f"{what}: {item!r} has no name before '='")
        if k in out:
            raise DuplicateKeyError(f"{what}: {k} given twice ({k}={out[k]} and {item})")
        out[k] = _integer(v, f"{what}: {k}")
    return out


def parse_ints(text: str | None, what: str, sep: str = ",") -> tuple[int, ...] | None:
    """``2,3`` -> ``(2, 3)``, each positive and within int64; ``None`` stays ``None``."""
    if text is None:
        return None
    parts = [p for p in text.replace("x", sep).split(sep) if p.strip()]
    if not parts:
        raise SpecError(f"{what}: {text!r} is not a list of integers")
    try:
        values = tuple(int(p) for p in parts)
    except ValueError:
        raise SpecError(f"{what}: {text!r} is not a list of integers") from None
    for v in values:
        if not 1 <= v <= INT64_MAX:
            raise SpecError(f"{what}: {v} is not a positive 64-bit integer")
    return values


KERNEL_HELP = "Built-in kernel name, PRA YAML file (.yaml) or C loop nest (.c); or give --einsum."
EINSUM_HELP = "Einsum instead of KERNEL, e.g. 'C[m,n] += A[m,k]*B[k,n]'."
EXTENTS_HELP = ("Rank extents of --einsum, e.g. m=64,n=64,k=64 (its default dataset: --set "
                "values go over them).")


def parse_order(text: str | None) -> tuple[str, ...] | None:
    """``--order j,i``: dims innermost first (checked against the phase's dims when used)."""
    if text is None:
        return None
    return tuple(x.strip() for x in text.split(",") if x.strip())


@contextmanager
def naming_order(order: str | None) -> Iterator[None]:
    """A schedule refused for the ``--order`` a user gave names that option: the refusal's
    reason stays one text for every point (``map``'s census prints it bare), so the option
    is added here, where the command line reports it."""
    try:
        yield
    except InfeasibleSchedule as e:
        why = getattr(e, "reason", None)
        if order is None or why is None or why.cause != "no-schedule":
            raise
        named = InfeasibleSchedule(f"--order {order}: {e}")
        named.reason = why  # type: ignore[attr-defined]
        raise named from None


ORDER_HELP = ("Tile scanning order, dims innermost first, e.g. j,i (default: the best feasible "
              "order per phase and point).")


def check_unplaced_tiles(tilings: Iterable[tuple[PRA, Tiling]], values: Mapping[str, int]) -> None:
    """A ``--tile`` size for a dim that is not on the array would be dropped (one tile spans
    such a dim, :meth:`Tiling.dropped`): refused unless it is that extent (what ``map``
    prints for it). Every command that takes ``--tile`` asks this before it runs."""
    for pra, tiling in tilings:
        dropped = tiling.dropped(pra, {p: int(values[p]) for p in pra.params})
        if dropped:
            l, given, e = dropped[0]
            name = pra.dims[l].name
            raise SpecError(f"--tile: {given} for {name}, which is not on the array: one tile "
                            f"spans its {e} iterations (give {e}, or place {name} with --axes)")


def kernel_tilings(kernel: Kernel, array: tuple[int, ...], tile: tuple[int, ...] | None
                   ) -> list[tuple[PRA, Tiling]]:
    """Each phase with the tiling the schedules and the simulator use (:func:`per_phase`)."""
    from polyjoule.mapping.tiling import Tiling, per_phase

    return [(pra, Tiling.of(pra, array, per_phase(pra, tile))) for pra in kernel.phases]


SET_HELP = "Parameter values N0=..,N1=.. (repeatable; N=.. sets every one not given)."


def load_kernel(kernel: str | None, einsum: str | None = None, extents: str | None = None
                ) -> Any:
    """The kernel of a command's KERNEL argument or ``--einsum`` (one resolver for every
    command: :func:`polyjoule.frontends.resolve.kernel_from`)."""
    from polyjoule.frontends.resolve import kernel_from

    if kernel is not None and not kernel.strip():
        raise SpecError("KERNEL: an empty name; give a built-in kernel (polyjoule list), a "
                        ".c or .yaml file, or --einsum")
    return kernel_from(kernel, einsum, extents)


def run_title(name: str, arr: tuple[int, ...], values: dict[str, int], verb: str = "") -> str:
    """``[verb ]gemm on an 8x8 array (NI=20, ...)``: the sizes left out when there are none."""
    from polyjoule.reports.tables import article

    sizes = f" ({', '.join(f'{p}={v}' for p, v in values.items())})" if values else ""
    return f"{verb + ' ' if verb else ''}{name} on {article(arr[0])} {arr[0]}x{arr[1]} array{sizes}"


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
        from polyjoule.reports.tables import comment

        comment(header)
    targets.register(chosen)
    try:
        yield
    finally:
        targets.register(before)
