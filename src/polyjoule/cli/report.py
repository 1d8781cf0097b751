"""``polyjoule report``: one self-contained HTML page about a kernel on a processor array."""

from __future__ import annotations

from pathlib import Path

import typer

from polyjoule.cli._common import (
    EINSUM_HELP,
    EXTENTS_HELP,
    KERNEL_HELP,
    SET_HELP,
    handles_errors,
    load_kernel,
    parse_ints,
)


def register(app: typer.Typer) -> None:
    @app.command()
    @handles_errors
    def report(
        kernel: str | None = typer.Argument(None, help=KERNEL_HELP),
        out: Path = typer.Option(..., "-o", "--output", help="The HTML file to write."),
        array: str = typer.Option("8x8", "--array", help="Processor array ROWSxCOLS (1xC for 1-D) "
                                  "or an array declaration file (docs/model.md)."),
        tile: str | None = typer.Option(None, "--tile", help="Tile sizes p0,p1,... (default ceil(N/t))."),
        set_: list[str] = typer.Option([], "--set", help=SET_HELP),
        dataset: str | None = typer.Option(None, "--dataset", help="PolyBench dataset preset (MINI..EXTRALARGE)."),
        energy_table: Path | None = typer.Option(None, "--energy-table", help="YAML overriding energies."),
        einsum: str | None = typer.Option(None, "--einsum", help=EINSUM_HELP),
        extents: str | None = typer.Option(None, "--extents", help=EXTENTS_HELP),
    ) -> None:
        """Write an HTML report: kernel, array, mapping, formulas, energy, schedule, pictures."""
        from polyjoule.analysis import analyze
        from polyjoule.cli.symbolic import parse_array, resolve_table, resolve_values
        from polyjoule.reports.files import check_destination, write_atomic
        from polyjoule.reports.html import render

        check_destination(out)
        k = load_kernel(kernel, einsum, extents)
        values = resolve_values(k, set_, dataset)
        a = analyze(k, array=parse_array(array), tile=parse_ints(tile, "--tile"),
                    energy_table=resolve_table(array, energy_table), values=values)
        path = write_atomic(out, render(a, values))
        typer.echo(f"wrote {path}")
