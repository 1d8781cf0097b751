"""``polyjoule plot``: figures of a sweep's CSV or JSON output for a paper."""

from __future__ import annotations

from pathlib import Path

import typer

from polyjoule.cli._common import handles_errors, output_path
from polyjoule.errors import SpecError


@handles_errors
def plot(
    sweep_file: Path = typer.Argument(..., help="A sweep's --csv or --json output."),
    kind: str = typer.Option("breakdown", "--kind", help="breakdown (energy share per location "
                             "class vs problem size, a panel per array) or pareto (energy vs "
                             "latency, a panel per problem size)."),
    output: Path = typer.Option(..., "-o", "--output", callback=output_path,
                                help="Image file (.png, .svg or .pdf)."),
    x: str | None = typer.Option(None, "--x", help="Breakdown x axis (default: the varying size)."),
    where: list[str] = typer.Option([], "--where", help="Select points: COLUMN=VALUE. Repeated "
                                    "on one column: any of the values (--where NI=256 --where "
                                    "NI=512); on different columns: all of them."),
    title: str | None = typer.Option(None, "--title", help="Plot title."),
) -> None:
    """Plot a sweep: energy breakdown vs problem size, or the energy-latency Pareto scatter.

    A Pareto plot draws one panel per problem size, at most nine: choose sizes of a larger
    sweep with --where. A breakdown draws one scanning order and tile per array shape (at
    most four): choose them with --where order=... --where tile=...
    """
    from polyjoule.reports import plots
    from polyjoule.reports.tables import echo

    if kind not in ("breakdown", "pareto"):
        raise SpecError(f"--kind: {kind!r} is not breakdown or pareto")
    if output.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise SpecError(f"-o: {output}: unsupported format (use .png, .svg or .pdf)")
    sel = plots.parse_where(where)
    cols, meta = plots.load(sweep_file)
    kernel = meta.get("kernel") if isinstance(meta.get("kernel"), str) else None
    if kind == "breakdown":
        path = plots.breakdown(cols, output, x=x, where=sel, title=title, kernel=kernel)
    else:
        path = plots.pareto(cols, output, where=sel, title=title, kernel=kernel)
    echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    """Add ``plot`` to the app."""
    app.command("plot")(plot)
