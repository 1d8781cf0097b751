"""``polyjoule sweep``: design-space exploration from the command line."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from polyjoule.cli._common import (
    EINSUM_HELP,
    EXTENTS_HELP,
    KERNEL_HELP,
    distinct_outputs,
    handles_errors,
    load_kernel,
    output_path,
    positive_finite,
)
from polyjoule.cli._progress import LazyProgress, progress_option
from polyjoule.errors import SpecError

if TYPE_CHECKING:
    from rich.console import Console


def _fmt(x: float) -> str:
    """Short (exact values in --csv/--json): ``4,096`` or ``2.06e9``."""
    from polyjoule.reports.tables import scientific

    return scientific(x)


def _print_table(console: Console, result: Any, top: int, sort: str) -> None:
    from polyjoule.reports.tables import Column, count, counted, echo, energy, in_words, print_table

    cols = result.columns
    if sort not in cols:
        raise SpecError(f"--sort: no column {sort!r}")
    idx = result.order_by(sort)
    if sort in ("utilisation", "throughput_ips"):  # higher is better
        idx = idx[::-1]
    tables = list(result.meta.get("tables", []))
    multi_table = len(tables) > 1
    short = {name: f"T{n}" for n, name in enumerate(tables, 1)}  # a long name folds a row
    show = [c for c in ("tile", "order") if len(set(cols[c].tolist())) > 1]
    heads = [Column("array", fold=False), *(Column(c, fold=False) for c in show),
             *([Column("table")] if multi_table else []),
             *(Column(p, number=True) for p in result.params),
             Column("energy", number=True), Column("DR %", number=True),
             Column("cycles", number=True), Column("EDP", number=True),
             Column("util", number=True), Column("P", fold=False)]
    rows = []
    for i in idx[:top]:
        e = float(cols["total_pj"][i])  # dynamic + static
        row = [str(cols["array"][i]), *(str(cols[c][i]) for c in show)]
        if multi_table:
            row.append(short.get(str(cols["table"][i]), str(cols["table"][i])))
        row += [count(int(cols[p][i])) for p in result.params]
        row += [energy(e), f"{100 * float(cols['energy.DR'][i]) / e:.1f}" if e else "-",
                count(int(cols["latency_cycles"][i])), _fmt(float(cols["edp"][i])),
                f"{float(cols['utilisation'][i]):.3f}", "*" if cols["pareto"][i] else ""]
        rows.append(row)
    print_table(f"{result.kernel}: {counted(len(result), 'design point')}, best {min(top, len(result))} "
                f"by {in_words(sort)} (energy = dynamic + static, cycles = latency, EDP in pJ*cycles, * = Pareto front of its problem "
                "size)", heads, rows, con=console)
    if multi_table:
        for name, label in short.items():
            echo(f"{label}: energy table {name}", con=console)


def _print_summary(out: Console, console: Console, result: Any, store: Any,
                   written: list[Path], seconds: float) -> None:
    """The lines under the table: sizes and timing, skipped points, the cache, files written."""
    from rich.markup import escape

    from polyjoule.reports.tables import counted, echo

    m = result.meta
    s = m["seconds"]
    echo(f"{counted(m['points'], 'design point')} ({counted(m['problem_sizes'], 'size')} x "
         f"{counted(m['mappings'], 'mapping')} x {counted(len(m['tables']), 'table')}) in "
         f"{seconds:.2f} s: derive "
         f"{s['derive']:.2f} s, schedule {s['schedule']:.2f} s, evaluate {s['evaluate']:.3f} s",
         con=out)
    if m["skipped_infeasible"]:
        echo(f"skipped {m['skipped_infeasible']:,} infeasible (mapping, size) pairs", con=out)
    if store is not None:
        st = store.stats
        echo(f"formula cache {store.directory}: {st.hits} hits, {st.misses} misses"
             + (f", {st.rejected} untrusted entries re-derived" if st.rejected else "")
             + (f", rebuilt {st.rebuilt}x" if st.rebuilt else ""), con=out)
        for note in st.notes[:3]:
            console.print(escape(note))
    for p in written:
        echo(f"wrote {p}", con=out)


def _datasets(k: Any, size: list[str], dataset: str | None) -> list[str]:
    """``--dataset`` as a list; with neither it nor ``--size``: the kernel's own ``default``
    dataset (an einsum's ``--extents``), if it has one."""
    datasets = [d.strip() for d in dataset.split(",") if d.strip()] if dataset else []
    if not size and not datasets and "default" in k.datasets:
        return ["default"]
    return datasets


@handles_errors
def sweep(
    kernel: str | None = typer.Argument(None, help=KERNEL_HELP),
    einsum: str | None = typer.Option(None, "--einsum", help=EINSUM_HELP),
    extents: str | None = typer.Option(None, "--extents", help=EXTENTS_HELP),
    size: list[str] = typer.Option([], "--size", "-s", help="NAME=START:STOP[:STEP|:*FACTOR] or "
                                   "NAME=a,b,c (inclusive); N=.. sets every parameter not given. Repeatable."),
    dataset: str | None = typer.Option(None, "--dataset", help="Dataset presets: MINI,SMALL,.. or all."),
    arrays: str = typer.Option("8x8", "--arrays", help="Array shapes, e.g. 4x4,8x8,16x16 (1xC or C for 1-D)."),
    tile: list[str] = typer.Option([], "--tile", help="Tile sizes p0,p1,.. or auto (ceil(N/t)). Repeatable."),
    orders: str = typer.Option("auto", "--orders", help="Scanning orders, innermost first: auto (best per "
                               "point), all, or e.g. ijk,kji (i/j/k for long dim names)."),
    energy_table: list[Path] = typer.Option([], "--energy-table", help="Energy-table YAML; repeatable "
                                            "(each is a sweep dimension)."),
    pi: int = typer.Option(1, "--pi", max=2**31, help="Pipeline interval (cycles between iterations of a PE)."),
    w: int = typer.Option(1, "--w", max=2**31, help="Operation latency in cycles."),
    skip_infeasible: bool = typer.Option(False, "--skip-infeasible", help="Drop points a mapping cannot "
                                         "run (array larger than the problem, ...) instead of failing."),
    csv_out: Path | None = typer.Option(None, "--csv", callback=output_path, help="Write every design point as CSV."),
    json_out: Path | None = typer.Option(None, "--json", callback=output_path, help="Write every design point (and the "
                                         "validation) as JSON."),
    top: int = typer.Option(10, "--top", min=1, max=10**9, help="Rows shown in the terminal table."),
    sort: str = typer.Option("edp", "--sort", help="Column ranking the table: edp, total_pj, "
                             "energy_pj or dynamic_pj (dynamic), static_pj, power_mw, latency_cycles, utilisation."),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="Formula cache directory "
                                          "(default $POLYJOULE_CACHE_DIR or the user cache dir)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Derive everything afresh; no cache."),
    scheduler: str | None = typer.Option(None, "--scheduler", help="Dask scheduler address "
                                         "(tcp://host:8786): derivations and validations run there."),
    scheduler_timeout: float = typer.Option(5.0, "--scheduler-timeout", callback=positive_finite, help="Seconds to wait for "
                                            "the scheduler."),
    validate_k: int = typer.Option(0, "--validate", min=0, max=10**6, help="Check K sampled points against the "
                                   "simulator and the scalar evaluation (exact equality)."),
    validate_max: int = typer.Option(200_000, "--validate-max", min=1, max=2**40, help="Largest iteration space a "
                                     "validated point may have (simulator cost)."),
    wide: bool = typer.Option(False, "--wide", help="Full table, whatever the terminal's width."),
    progress: bool = typer.Option(False, "--progress", callback=progress_option, help="Show the "
                                  "progress bar (stderr) even when stderr is not a terminal."),
) -> None:
    """Sweep problem sizes x array shapes x tiles x scanning orders x energy tables.

    Energy, latency, EDP, utilisation and the energy-latency Pareto front of every design
    point, from formulas derived once per mapping (cached) and evaluated vectorised.
    """
    from polyjoule.reports.tables import console as plain_console

    t0 = time.perf_counter()
    distinct_outputs({"--csv": csv_out, "--json": json_out})
    spec = _spec(kernel, einsum, extents, size, dataset, arrays, tile, orders, energy_table,
                 pi, w, skip_infeasible)
    for p in (csv_out, json_out):
        if p is not None and p.is_dir():
            raise SpecError(f"{p}: is a directory")
    result, store = _execute(spec, cache_dir, no_cache, scheduler, scheduler_timeout,
                             validate_k, validate_max)
    _report(plain_console(wide), result, store, scheduler, csv_out, json_out, top, sort,
            time.perf_counter() - t0)


def _spec(kernel: str | None, einsum: str | None, extents: str | None, size: list[str],
          dataset: str | None, arrays: str, tile: list[str], orders: str,
          energy_table: list[Path], pi: int, w: int, skip_infeasible: bool) -> Any:
    """The design space the command line describes (a :class:`~polyjoule.dse.sweep.SweepSpec`)."""
    from polyjoule.dse import space
    from polyjoule.dse.sweep import SweepSpec
    from polyjoule.targets.tcpa.energy import load_table

    k = load_kernel(kernel, einsum, extents)
    grid = space.size_grid(k, size, _datasets(k, size, dataset), k.datasets.get("default"))
    maps = space.mappings(space.parse_arrays(arrays), space.parse_tiles(tile),
                          space.parse_orders(k, orders))
    tables = [load_table(p) for p in energy_table] or [load_table(None)]
    return SweepSpec(k, grid, maps, tables, pi, w, skip_infeasible)


def _execute(spec: Any, cache_dir: Path | None, no_cache: bool, scheduler: str | None,
             scheduler_timeout: float, validate_k: int, validate_max: int) -> tuple[Any, Any]:
    """Run the sweep (and the sampled validation) with a progress bar; the result and cache."""
    from polyjoule.dse.cache import FormulaCache
    from polyjoule.dse.sweep import run_sweep

    store = None if no_cache else FormulaCache(cache_dir)
    executor = None
    if scheduler is not None:
        from polyjoule.dse.distributed import DaskExecutor

        executor = DaskExecutor(scheduler, scheduler_timeout)
    progress = LazyProgress()
    try:
        result = run_sweep(spec, store=store, executor=executor, progress=progress)
        if validate_k:
            from polyjoule.dse.validate import validate

            result.validation = validate(result, spec, validate_k, executor=executor,
                                         max_instances=validate_max, progress=progress)
            n = result.validation["checked"]
            progress("validate", n, n)
    finally:
        progress.close()
        if executor is not None:
            executor.close()
        if store is not None:
            store.close()
    return result, store


def _report(out: Any, result: Any, store: Any, scheduler: str | None, csv_out: Path | None,
            json_out: Path | None, top: int, sort: str, seconds: float) -> None:
    """Write the files, print the table and the summary; a validation mismatch is exit 1."""
    from rich.console import Console

    from polyjoule.errors import ValidationMismatch
    from polyjoule.reports.output import write_outputs
    from polyjoule.reports.tables import echo

    if store is not None:
        result.meta["cache"] = {"dir": str(store.directory), "hits": store.stats.hits,
                                "misses": store.stats.misses, "rejected": store.stats.rejected,
                                "rebuilt": store.stats.rebuilt}
    if scheduler is not None:
        result.meta["scheduler"] = scheduler
    written = write_outputs(result, csv_out, json_out)
    _print_table(out, result, top, sort)
    _print_summary(out, Console(stderr=True), result, store, written, seconds)
    if result.validation is not None:
        from polyjoule.dse.validate import summary

        echo(summary(result.validation), con=out)
        if result.validation["mismatches"]:
            raise ValidationMismatch(
                f"--validate: {result.validation['mismatches']} sampled points differ from the "
                "simulator or the scalar evaluation (details in the --json output)")


def register(app: typer.Typer) -> None:
    """Add ``sweep`` to the app (``plot`` is :mod:`polyjoule.cli.plot`)."""
    app.command("sweep")(sweep)
