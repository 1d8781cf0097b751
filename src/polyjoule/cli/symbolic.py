"""``polyjoule analyze``: closed-form access counts and energy of a kernel on an array."""

from __future__ import annotations

import time
from collections.abc import Sequence
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
    load_kernel,
    naming_order,
    parse_assignments,
    parse_ints,
    parse_order,
    run_title,
)
from polyjoule.errors import SpecError
from polyjoule.jsontext import dumps
from polyjoule.targets.tcpa.locations import CLASSES

AXES_HELP = ("Dims on the array's rows and cols, e.g. i,k (default: the leading dims; "
             "--tile then lists tile sizes in that placed order: these dims first).")

if TYPE_CHECKING:
    from polyjoule.model.pra import Kernel
    from polyjoule.targets.tcpa.energy import EnergyTable


def resolve_values(kernel: Kernel, set_: Sequence[str], dataset: str | None,
                   default: str = "LARGE", sizes: str | None = None) -> dict[str, int]:
    """Parameter values from ``--set`` (repeatable) and ``--sizes`` over ``--dataset``; a name
    given twice, or one that is no parameter, is refused. Without ``--dataset``: ``--set``
    over the kernel's own ``default`` dataset (an einsum's ``--extents``) if it has one,
    else, when no value is given either, the command's ``default`` preset if it has it."""
    from polyjoule.dse.space import parameter_names

    given = parameter_names(kernel, parse_assignments(",".join([*set_, sizes or ""]), "--set"),
                            "--set")
    if dataset is None and "default" in kernel.datasets:  # an einsum's --extents, under --set
        dataset = "default"
    elif dataset is None and not given and default in kernel.datasets:
        dataset = default
    for ph in kernel.phases:  # a value given out of range first: it names what was typed
        for p, lo in ph.param_min:
            if p in given and given[p] < lo:
                from polyjoule.errors import ParameterRangeError

                raise ParameterRangeError(f"--set: {p}={given[p]} is below its minimum {lo} "
                                          f"(kernel {kernel.name})")
    values = kernel.resolve(given, dataset)
    missing = [p for p in kernel.params if p not in values]
    if missing:
        names = ", ".join(missing)
        hint = f"--set {','.join(f'{p}=..' for p in missing)}"
        known = f" or --dataset ({', '.join(kernel.datasets)})" if kernel.datasets else ""
        raise SpecError(f"--set: {'parameters' if len(missing) > 1 else 'parameter'} {names} "
                        f"of {kernel.name} {'are' if len(missing) > 1 else 'is'} not set "
                        f"(give {hint}{known})")
    return values


def parse_array(text: str) -> tuple[int, int]:
    """The PE grid of ``--array`` (``ROWSxCOLS`` or an array declaration file)."""
    from polyjoule.targets.tcpa.array import array_of

    return array_of(text).shape


def resolve_table(array: str, energy_table: Path | None) -> EnergyTable:
    """The array's energy table (a declaration file may carry one), ``--energy-table`` on top."""
    from polyjoule.targets.tcpa.array import array_of
    from polyjoule.targets.tcpa.energy import load_table

    return load_table(energy_table, base=array_of(array).energy)


def register(app: typer.Typer) -> None:
    @app.command()
    @handles_errors
    def analyze(
        kernel: str | None = typer.Argument(None, help=KERNEL_HELP),
        einsum: str | None = typer.Option(None, "--einsum", help=EINSUM_HELP),
        extents: str | None = typer.Option(None, "--extents", help=EXTENTS_HELP),
        array: str | None = typer.Option(None, "--array", help="Processor array ROWSxCOLS (1xC "
                                         "for 1-D) or an array declaration file (docs/arch.md); "
                                         "default 8x8, or --machine's whole grid."),
        machine: str | None = typer.Option(None, "--machine", help="An array declaration file "
                                           "whose grid --array ROWSxCOLS takes part of (as map "
                                           "prices a mapping on part of its machine)."),
        tile: str | None = typer.Option(None, "--tile", help="Tile sizes p0,p1,... (default ceil(N/t))."),
        axes: str | None = typer.Option(None, "--axes", help=AXES_HELP),
        order: str | None = typer.Option(None, "--order", help=ORDER_HELP),
        set_: list[str] = typer.Option([], "--set", help=SET_HELP),
        dataset: str | None = typer.Option(None, "--dataset", help="PolyBench dataset preset (MINI..EXTRALARGE)."),
        energy_table: Path | None = typer.Option(None, "--energy-table", help="YAML overriding energies."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
        as_latex: bool = typer.Option(False, "--latex", help="Show formulas as LaTeX."),
        wide: bool = typer.Option(False, "--wide", help="Full table, whatever the terminal's "
                                  "width, every piece of a piecewise formula."),
        as_csv: bool = typer.Option(False, "--csv", help="Print the per-case table as CSV "
                                    "(exact counts and pJ)."),
        output: Path | None = typer.Option(None, "-o", "--output", help="Write the --json or "
                                           "--csv output to this file (format by suffix when "
                                           "neither is given)."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Derive afresh: neither read "
                                      "nor write the formula cache ($POLYJOULE_CACHE_DIR)."),
        bandwidth_bound: bool = typer.Option(False, "--bandwidth-bound", help="Stretch the "
                                             "latency to the DRAM bandwidth (as map "
                                             "--bandwidth-bound prices a mapping)."),
    ) -> None:
        """Closed-form access counts and energy of a loop nest on a processor array."""
        from polyjoule.analysis import analyze as run
        from polyjoule.mapping.placement import parse_axes, place_kernel
        from polyjoule.targets.tcpa.array import array_on
        from polyjoule.targets.tcpa.energy import load_table

        fmt = output_format(as_json, as_csv, output)
        decl = array_on(array, machine)
        k = place_kernel(load_kernel(kernel, einsum, extents), parse_axes(axes), decl.shape)
        values = resolve_values(k, set_, dataset)
        table = load_table(energy_table, base=decl.energy)
        from polyjoule.dse.cache import FormulaCache

        with naming_order(order):
            a = run(k, array=decl, tile=parse_ints(tile, "--tile"), energy_table=table,
                    values=values, store=None if no_cache else FormulaCache(),
                    order=parse_order(order))
            check_unplaced_tiles([(ph.pra, ph.tiling) for ph in a.phases], values)
            t0 = time.perf_counter()
            r = a.evaluate(values, bandwidth_bound)
            evaluated = time.perf_counter() - t0
        extra = r.to_json()
        over = capacity_over(a, values, r)
        if fmt == "json":
            out = {**extra, "kernel": k.name, "array": list(a.array), "energy_table": table.name,
                   "derive_seconds": a.derive_seconds, "capacity": over}
            if as_latex:
                out["latex"] = [tex for *_, tex in latex_rows(a, values)]
            emit(dumps(out, indent=2) + "\n", output)
        elif fmt == "csv":
            emit(r.to_csv(), output)
        else:
            _print(k, a, r, extra, wide, evaluated, every_piece=as_latex)
            if as_latex:
                from polyjoule.reports.tables import echo

                echo("LaTeX of the formulas:", wide)
                for phase, statement, case, tex in latex_rows(a, values):
                    head = f"{phase}: " if len(a.phases) > 1 else ""
                    echo(f"  {head}{statement} {case}: ${tex}$", wide)
        warn_capacity(over, wide)  # after the output: a failed write stays the only error line


def capacity_over(a: Any, values: dict[str, int], r: Any) -> list[dict[str, str]]:
    """The declared capacities this mapping exceeds: what ``map --target tcpa`` would refuse
    it for (``--json``'s ``capacity``)."""
    from polyjoule.targets.tcpa.pricing import capacity_causes

    causes = capacity_causes(a, values, r)
    return [{"cause": c, "detail": why.detail} for c, why in causes.reasons.items()]


def warn_capacity(over: list[dict[str, str]], wide: bool = False) -> None:
    """One warning on stderr naming every exceeded capacity with its numbers: one line,
    folded to the terminal's width as all text is (``--wide``: never folded)."""
    from polyjoule.reports.tables import width, wrap

    if not over:
        return
    text = "polyjoule: warning: exceeds the declaration: " + "; ".join(
        f"{o['cause']} ({o['detail']})" for o in over)
    for line in [text] if wide else wrap(text, width(), 2):
        typer.echo(line, err=True)


def latex_rows(a: Any, values: dict[str, int]) -> list[tuple[str, str, str, str]]:
    """(phase, statement, case, LaTeX) of every case formula, in the table's order.

    Fixed-tile phases have a formula per tile sizes: the ones ``values`` choose are shown.
    """
    from polyjoule.analysis.analyze import latex

    out = []
    for ph in a.phases:
        sizes = a.tile_sizes(ph, {p: int(values[p]) for p in ph.pra.params})
        for v in ph.volumes_for(sizes):
            out.append((ph.pra.name, v.case.statement.id, v.case.name,
                        latex(v.formula, ph.pra, ph.groups)))
    return out


def output_format(as_json: bool, as_csv: bool, output: Path | None) -> str:
    """``json``, ``csv`` or ``table``: the flags, else the suffix of ``-o FILE``."""
    if as_json and as_csv:
        raise SpecError("--json and --csv: give one of them")
    if output is not None and output.is_dir():
        raise SpecError(f"-o {output}: a directory; give a file name (.json or .csv)")
    if as_json or as_csv:
        fmt = "json" if as_json else "csv"
        other = {"json": ".csv", "csv": ".json"}[fmt]
        if output is not None and output.suffix.lower() == other:
            raise SpecError(f"-o {output}: a {other} file for --{fmt} output (name it "
                            f"{output.with_suffix('.' + fmt).name}, or drop --{fmt})")
        return fmt
    if output is None:
        return "table"
    if output.suffix.lower() in (".json", ".csv"):
        return output.suffix.lower()[1:]
    raise SpecError(f"-o {output}: give --json or --csv (or a .json or .csv file name)")


def emit(text: str, output: Path | None) -> None:
    """Print ``text``, or write it to ``output`` all-or-nothing and say so on stderr."""
    if output is None:
        typer.echo(text, nl=False)
        return
    from polyjoule.reports.files import write_atomic

    path = write_atomic(output, text)
    typer.echo(f"wrote {path}", err=True)


def _print(k: Kernel, a, r, extra: dict, wide: bool = False,  # type: ignore[no-untyped-def]
           evaluated: float | None = None, every_piece: bool = False) -> None:
    """The tables and the summary; ``every_piece``: piecewise formulas whole (also ``wide``)."""
    from polyjoule.reports.cases import case_rows, print_cases
    from polyjoule.reports.tables import Column, console, count, echo, energy, print_table

    con = console(wide)
    print_cases(run_title(k.name, a.array, r.values), case_rows(r.volumes, wide or every_piece),
                con)
    rows = [(c, count(r.counts[c]), energy(r.energy_pj["by_class"][c])) for c in CLASSES]
    rows += [(f"op {op}", count(n), energy(r.energy_pj["by_op"][op]))
             for op, n in r.counts["ops"].items()]
    rows += [("dynamic (sum of the above)", "", energy(extra["dynamic_pj"])),
             ("static (leakage over the latency)", "", energy(extra["static_pj"])),
             ("total (dynamic + static)", "", energy(extra["total_pj"]))]
    print_table("totals (accesses per location class, executions per operation)",
                [Column("what", fold=False), Column("accesses / ops", number=True),
                 Column("energy", number=True)], rows, con=con)
    for line in _summary(a, r, extra, evaluated):
        echo(line, con=con)


def _summary(a, r, extra: dict, evaluated: float | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    """The lines under the tables: schedule, latency, static energy and power, timing."""
    from polyjoule.reports.tables import counted, energy, quantity

    out = []
    for ph in extra.get("schedule", []):
        lj = ", ".join(f"{sym}={v}" if sym != str(v) else sym
                       for sym, v in zip(ph["lambda_J_symbolic"], ph["lambda_J"], strict=True))
        lk = ", ".join(f"{sym}={v}" if sym != str(v) else sym
                       for sym, v in zip(ph["lambda_K_symbolic"], ph["lambda_K"], strict=True))
        out.append(f"schedule {ph['phase']}: order {'/'.join(ph['order'])} (innermost "
                   f"first), lambda_J = ({lj}), lambda_K = ({lk}), L_c = {ph['L_c']}, "
                   f"latency {ph['latency_cycles']:,} cycles")
    if len(extra.get("schedule", [])) > 1:
        out.append(f"latency (phases one after another): {extra['latency_cycles']:,} cycles")
    if "schedule_latency_cycles" in extra:
        out.append(f"latency stretched to the DRAM bandwidth (--bandwidth-bound): "
                   f"{extra['latency_cycles']:,} cycles, the schedule's "
                   f"{extra['schedule_latency_cycles']:,}")
    if extra.get("schedule"):  # a banded nest tiled over its bounding box shows here
        out.append(f"PE utilisation {100 * extra['utilisation']:.3g}% "
                   f"({counted(extra['iterations'], 'iteration')} on "
                   f"{counted(a.array[0] * a.array[1], 'PE')} in "
                   f"{counted(extra['latency_cycles'], 'cycle')})")
    if "static_pj" in extra:
        per_op = extra["energy_per_op_pj"]
        out.append(f"static {energy(extra['static_pj'])} (" + ", ".join(
            f"{c} {energy(v)}" for c, v in extra["static_pj_by_component"].items())
            + f"), dynamic {energy(extra['dynamic_pj'])}, total {energy(extra['total_pj'])}; "
            f"{quantity(extra['power_mw'] / 1e3, 'W')} at {extra['clock_mhz']:g} MHz, "
            f"{quantity(extra['throughput_ips'], 'iterations/s')}"
            + (f", {energy(per_op)}/op" if per_op is not None else ""))
    modes = (f"tile sizes {next(iter(r.modes.values()))}" if len(r.modes) == 1 else
             "tile sizes " + ", ".join(f"{m} in {n}" for n, m in r.modes.items()))
    out.append(f"derived in {a.derive_seconds:.3f} s ({modes})"
               # the schedule and the formulas' text come after: a user's wait is both
               + ("" if evaluated is None else
                  f"; scheduled, evaluated and formulas written out in {evaluated:.2f} s"))
    return out
