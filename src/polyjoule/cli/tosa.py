"""``polyjoule import``: a PyTorch module -> TOSA (torch-mlir) -> per-layer workloads and mappings.

``polyjoule map --tosa FILE.mlir`` (owned by the mapper CLI) calls
:func:`polyjoule.frontends.tosa.cli_support.map_tosa_file`. Nothing here imports torch or
torch-mlir at import time; without the ``tosa`` extra the command exits 2 with the
install command.
"""

from __future__ import annotations

from pathlib import Path

import typer

from polyjoule.cli._common import handles_errors, parse_ints
from polyjoule.cli.tinytpu import MACHINE_HELP, machine_target
from polyjoule.errors import SpecError


@handles_errors
def import_model(
    model: str = typer.Argument(..., metavar="FILE.py:NAME",
                                help="Module file and the nn.Module class, factory or instance."),
    input_shape: list[str] = typer.Option(..., "--input-shape", "-i",
                                          help="Shape of one example input, e.g. 4x16; "
                                          "repeat for several inputs."),
    dtype: str = typer.Option("float32", "--dtype", help="Element type of the example inputs."),
    top: int = typer.Option(1, "--top", help="Candidates to print per layer."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    emit: Path | None = typer.Option(None, "--emit-mlir",
                                     help="Also write the TOSA MLIR torch-mlir produced."),
    machine: str | None = typer.Option(None, "--machine", help=MACHINE_HELP),
) -> None:
    """Export a PyTorch module to TOSA and map it layer by layer (needs the tosa extra)."""
    from polyjoule.frontends.tosa import from_module
    from polyjoule.frontends.tosa.cli_support import report
    from polyjoule.frontends.tosa.producer import example_inputs, export, load_module

    shapes = []
    for text in input_shape:
        dims = parse_ints(text, "--input-shape")
        if not dims or any(d < 1 for d in dims):
            raise SpecError(f"--input-shape {text!r}: expected positive extents like 4x16")
        shapes.append(dims)
    net = load_module(model)
    mlir = export(net, *example_inputs(shapes, dtype))
    if emit is not None:
        emit.write_text(str(mlir))
    with machine_target(machine, echo=not as_json):
        code = report(from_module(mlir), model, top=top, json=as_json)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add ``import`` to the app."""
    app.command("import")(import_model)
