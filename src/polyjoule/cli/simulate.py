"""``polyjoule simulate`` and ``polyjoule validate``: the simulator, and symbolic vs simulated.

Simulation costs grow with the iteration space, so without ``--set``/``--dataset`` these
commands use the kernel's MINI dataset (``analyze`` defaults to LARGE).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from polyjoule.cli._common import (
    EINSUM_HELP,
    EXTENTS_HELP,
    KERNEL_HELP,
    ORDER_HELP,
    SET_HELP,
    check_unplaced_tiles,
    handles_errors,
    kernel_tilings,
    load_kernel,
    naming_order,
    parse_assignments,
    parse_ints,
    parse_order,
    positive_finite,
    run_title,
)
from polyjoule.cli.symbolic import AXES_HELP
from polyjoule.errors import ValidationMismatch
from polyjoule.jsontext import dumps
from polyjoule.targets.tcpa.locations import CLASSES

if TYPE_CHECKING:
    from polyjoule.model.pra import Kernel


def _values(k: Kernel, set_: list[str], sizes: str | None, dataset: str | None) -> dict[str, int]:
    """As for ``analyze``, but the default preset is MINI: simulation cost grows with size."""
    from polyjoule.cli.symbolic import resolve_values

    return resolve_values(k, set_, dataset, default="MINI", sizes=sizes)


def checks_of(r: Any) -> dict[str, bool | None]:
    """The simulator's checks, ``None`` (n/a) for a comparison that had nothing to compare.

    A PRA file carries no numpy reference: its outputs were compared with nothing, so
    ``outputs_match_reference`` is not applicable rather than ``ok``.
    """
    out: dict[str, bool | None] = dict(r.checks)
    if r.reference is None:
        out["outputs_match_reference"] = None
    return out


def first_difference(r: Any) -> str | None:
    """The first output element (C order) where the simulation and the reference differ
    beyond the simulator's tolerance, as one line; None when all agree or none was compared."""
    import numpy as np

    from polyjoule.analysis.sim_checks import differing, number_text

    for name, want in (r.reference or {}).items():
        got, want = r.outputs.get(name), np.asarray(want, dtype=np.float64)
        if got is None or got.shape != want.shape:
            return f"output {name}: shape {None if got is None else got.shape} != {want.shape}"
        bad = differing(got, want)
        if bad.any():
            at = tuple(int(x) for x in np.argwhere(bad)[0])
            return (f"{name}[{']['.join(map(str, at))}]: simulated {number_text(got[at])}, "
                    f"reference {number_text(want[at])} ({int(bad.sum())} of {bad.size} "
                    f"elements differ)")
    return None


def _word(v: bool | None) -> str:
    return "n/a" if v is None else "ok" if v else "FAILED"


def _op_latency(text: str | None) -> dict[str, int] | None:
    """``mul=3,div=8``: known operation names, latencies in 0..2**31."""
    from polyjoule.errors import SpecError, UnknownNameError
    from polyjoule.model.expr import OPS

    given = parse_assignments(text, "--op-latency")
    for op, cycles in given.items():
        if op not in OPS:
            raise UnknownNameError(f"--op-latency: {op!r} is not an operation "
                                   f"({', '.join(sorted(OPS))})")
        if not 0 <= cycles <= 2**31:
            raise SpecError(f"--op-latency: {op}={cycles} is not a latency in 0..2**31 cycles")
    return given or None


def _common(kernel: str | None, einsum: str | None, extents: str | None, array: str,
            tile: str | None, axes: str | None = None
            ) -> tuple[Kernel, tuple[int, int], tuple[int, ...] | None]:
    from polyjoule.cli.symbolic import parse_array
    from polyjoule.mapping.placement import parse_axes, place_kernel

    k = load_kernel(kernel, einsum, extents)
    shape = parse_array(array)
    return place_kernel(k, parse_axes(axes), shape), shape, parse_ints(tile, "--tile")


def _simulated(k: Kernel, arr: tuple[int, int], tl: Any, values: dict[str, int],
               progress: bool | None, as_json: bool, **options: Any) -> Any:
    """One simulator run, with its time estimate and progress bar when wanted."""
    from polyjoule.analysis.simulator import simulate as run
    from polyjoule.cli._progress import simulation_progress, wanted

    with simulation_progress(k, values, wanted(progress, as_json)) as report:
        return run(k, arr, tl, values, progress=report, **options)


@handles_errors
def simulate(
    kernel: str | None = typer.Argument(None, help=KERNEL_HELP),
    einsum: str | None = typer.Option(None, "--einsum", help=EINSUM_HELP),
    extents: str | None = typer.Option(None, "--extents", help=EXTENTS_HELP),
    array: str = typer.Option("8x8", "--array", help="Processor array ROWSxCOLS (1xC for 1-D)."),
    tile: str | None = typer.Option(None, "--tile", help="Tile sizes p0,p1,... (default ceil(N/t))."),
    axes: str | None = typer.Option(None, "--axes", help=AXES_HELP),
    set_: list[str] = typer.Option([], "--set", help=SET_HELP),
    dataset: str | None = typer.Option(None, "--dataset", help="Dataset preset (default MINI)."),
    pi: int = typer.Option(1, "--pi", max=2**31, help="Pipeline interval (cycles between iterations)."),
    w: int = typer.Option(1, "--w", max=2**31, help="Latency of a compute statement in cycles."),
    op_latency: str | None = typer.Option(None, "--op-latency", help="Per-op latencies mul=3,div=8."),
    order: str | None = typer.Option(None, "--order", help=ORDER_HELP),
    seed: int = typer.Option(0, "--seed", min=0, max=2**63 - 1, help="Seed of the random inputs."),
    memory_gib: float = typer.Option(2.0, "--memory-limit", callback=positive_finite, help="Simulator memory bound in GiB."),
    chunk: int | None = typer.Option(None, "--chunk", min=1, help="Points per streamed band (default: as many as --memory-limit allows)."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Time estimate and progress bar on stderr (default: on a terminal, not with --json)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    wide: bool = typer.Option(False, "--wide", help="Full table, whatever the terminal's width."),
) -> None:
    """Run the cycle-level reference simulator: counts, makespan and checks vs the kernel's reference."""
    k, arr, tl = _common(kernel, einsum, extents, array, tile, axes)
    values = _values(k, set_, None, dataset)
    check_unplaced_tiles(kernel_tilings(k, arr, tl), values)
    with naming_order(order):
        r = _simulated(k, arr, tl, values, progress, as_json, pi=pi, w=w,
                       order=parse_order(order), op_latency=_op_latency(op_latency), seed=seed,
                       memory_limit=int(memory_gib * 2**30), chunk=chunk)
    if as_json:
        typer.echo(dumps({**r.to_json(), "checks": checks_of(r)}, indent=2))
    else:
        _print_simulation(k, arr, values, r, wide)
    if not r.ok:
        raise ValidationMismatch(f"simulation of {k.name} failed its checks: "
                                 f"{r.violations[0] if r.violations else ''}")


@handles_errors
def validate(
    kernel: str | None = typer.Argument(None, help=KERNEL_HELP),
    einsum: str | None = typer.Option(None, "--einsum", help=EINSUM_HELP),
    extents: str | None = typer.Option(None, "--extents", help=EXTENTS_HELP),
    array: str = typer.Option("8x8", "--array", help="Processor array ROWSxCOLS (1xC for 1-D)."),
    sizes: str | None = typer.Option(None, "--sizes", help="Parameter values N0=..,N1=.."),
    tile: str | None = typer.Option(None, "--tile", help="Tile sizes p0,p1,..."),
    axes: str | None = typer.Option(None, "--axes", help=AXES_HELP),
    set_: list[str] = typer.Option([], "--set", help="Parameter values (as --sizes; repeatable)."),
    dataset: str | None = typer.Option(None, "--dataset", help="Dataset preset (default MINI)."),
    energy_table: Path | None = typer.Option(None, "--energy-table", help="YAML overriding energies."),
    order: str | None = typer.Option(None, "--order", help=ORDER_HELP),
    seed: int = typer.Option(0, "--seed", min=0, max=2**63 - 1, help="Seed of the random inputs."),
    memory_gib: float = typer.Option(2.0, "--memory-limit", callback=positive_finite, help="Simulator memory bound in GiB."),
    chunk: int | None = typer.Option(None, "--chunk", min=1, help="Points per streamed band (default: as many as --memory-limit allows)."),
    progress: bool | None = typer.Option(None, "--progress/--no-progress", help="Time estimate and progress bar on stderr (default: on a terminal, not with --json)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    wide: bool = typer.Option(False, "--wide", help="Full table, whatever the terminal's width."),
) -> None:
    """Symbolic vs simulated counts, energy and latency; exit 1 on any difference."""
    from polyjoule.analysis import analyze
    from polyjoule.analysis.schedule import kernel_latency, kernel_schedules
    from polyjoule.cli.symbolic import resolve_table

    k, arr, tl = _common(kernel, einsum, extents, array, tile, axes)
    values = _values(k, set_, sizes, dataset)
    table = resolve_table(array, energy_table)
    check_unplaced_tiles(kernel_tilings(k, arr, tl), values)
    scan = parse_order(order)
    with naming_order(order):
        r = _simulated(k, arr, tl, values, progress, as_json, seed=seed, order=scan,
                       memory_limit=int(memory_gib * 2**30), chunk=chunk)
        a = analyze(k, array=arr, tile=tl, energy_table=table, values=values, order=scan)
        sym = a.evaluate(values)
        latency = kernel_latency(kernel_schedules(k, arr, tl, order=scan), values)
    priced = table.at_width(a.machine.bits(k.phases[0].dtype))  # the kernel's word width
    rows = compare(sym.counts, sym.energy_pj, latency, r.counts, r.energy_pj(priced), r.makespan)
    rows += [(f"check {n}", "", _word(v), v) for n, v in checks_of(r).items()]
    bad = [row for row in rows if row[3] is False]
    differs = first_difference(r)
    if as_json:
        typer.echo(dumps({
            "kernel": k.name, "array": list(arr), "values": values, "ok": not bad,
            "rows": [{"what": w_, "symbolic": s_, "simulated": m_, "match": ok}
                     for w_, s_, m_, ok in rows],
            "first_output_difference": differs,
            "simulation_seconds": r.seconds, "violations": r.violations}, indent=2))
    else:
        _print_validation(k, arr, values, rows, wide)
        if differs:
            typer.echo(f"outputs_match_reference FAILED: {differs}")
    if bad:
        first = (f"{bad[0][0]}: {differs}" if differs and bad[0][0].endswith("reference")
                 else f"{bad[0][0]}: {bad[0][1]} vs {bad[0][2]}")
        raise ValidationMismatch(f"validate {k.name}: {len(bad)} differences (first: {first})")


def register(app: typer.Typer) -> None:
    """Add ``simulate`` and ``validate`` to the app."""
    app.command("simulate")(simulate)
    app.command("validate")(validate)


def _fmt(x: Any, what: str) -> str:
    """A compared value: counts exact; energies in engineering units (exact in ``--json``)."""
    from polyjoule.reports.tables import count, energy

    if isinstance(x, float):
        return energy(x) if what.startswith("energy") or what.startswith("dynamic energy") else f"{x:,.3f}"
    if isinstance(x, int):
        return count(x)
    return str(x)


def _print_simulation(k: Kernel, arr: tuple[int, int], values: dict[str, int], r: Any,
                      wide: bool) -> None:
    from polyjoule.reports.tables import Column, console, count, echo, print_table

    con = console(wide)
    rows = [(f"{c} accesses", count(r.counts[c])) for c in CLASSES]
    rows += [(f"op {op} executions", count(n)) for op, n in r.counts["ops"].items()]
    rows.append(("makespan (cycles)", count(r.makespan)))
    print_table(run_title(k.name, arr, values, "simulated"),
                [Column("what", fold=False), Column("number", number=True)], rows, con=con)
    for ph in r.phases:
        s = ph.schedule
        echo(f"{ph.name}: lambda_J={list(s.lambda_J)} lambda_K={list(s.lambda_K)} "
             f"p={list(s.p)} t={list(s.t)} L_c={s.timing.L_c} makespan={ph.makespan:,}", con=con)
    echo("checks: " + ", ".join(f"{n} {_word(v)}" for n, v in checks_of(r).items())
         + f"   ({r.seconds:.2f} s)", con=con)
    for v in r.violations:
        echo(f"  {v}", con=con)


def _print_validation(k: Kernel, arr: tuple[int, int], values: dict[str, int],
                      rows: list[tuple[str, Any, Any, bool | None]], wide: bool) -> None:
    from rich.text import Text

    from polyjoule.reports.tables import Column, print_table

    def mark(ok: bool | None) -> Text:
        return (Text("n/a") if ok is None else Text("ok", style="green") if ok
                else Text("DIFFERS", style="red"))

    print_table(run_title(k.name, arr, values, "validate"),
                [Column("what", fold=False), Column("symbolic", number=True),
                 Column("simulated", number=True), Column("", fold=False)],
                [(w_.removesuffix(" (pJ)"), _fmt(s_, w_), _fmt(m_, w_), mark(ok))
                 for w_, s_, m_, ok in rows],
                wide=wide)


def compare(sym_counts: dict[str, Any], sym_energy: dict[str, Any], latency: int,
            sim_counts: dict[str, Any], sim_energy: dict[str, Any], makespan: int
            ) -> list[tuple[str, Any, Any, bool]]:
    """Rows (what, symbolic, simulated, equal): counts exact, energies to 1e-9 relative."""
    rows: list[tuple[str, Any, Any, bool]] = []
    for c in CLASSES:
        rows.append((f"{c} accesses", int(sym_counts[c]), int(sim_counts[c]),
                     int(sym_counts[c]) == int(sim_counts[c])))
    for op in sorted(set(sym_counts["ops"]) | set(sim_counts["ops"])):
        a, b = int(sym_counts["ops"].get(op, 0)), int(sim_counts["ops"].get(op, 0))
        rows.append((f"op {op}", a, b, a == b))

    def close(a: float, b: float) -> bool:
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))

    for c in CLASSES:
        a, b = float(sym_energy["by_class"][c]), float(sim_energy["by_class"][c])
        rows.append((f"energy {c} (pJ)", a, b, close(a, b)))
    for op in sorted(set(sym_energy["by_op"]) | set(sim_energy["by_op"])):
        a, b = float(sym_energy["by_op"].get(op, 0.0)), float(sim_energy["by_op"].get(op, 0.0))
        rows.append((f"energy op {op} (pJ)", a, b, close(a, b)))
    a, b = float(sym_energy["dynamic"]), float(sim_energy["total"])  # (the simulator's: dynamic)
    rows.append(("dynamic energy (pJ)", a, b, close(a, b)))
    rows.append(("latency (cycles)", int(latency), int(makespan), int(latency) == int(makespan)))
    return rows
