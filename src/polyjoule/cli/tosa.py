"""``polyjoule import``: a PyTorch module -> TOSA (torch-mlir) -> per-layer results.

With ``--target tinytpu-isa`` (the default) every recognised layer is searched by the mapper;
with ``--target tcpa`` it is localised to a PRA and analysed on a processor array
(``--array``): per layer the energy and latency, with the latency formula. ``polyjoule map
--tosa FILE.mlir`` (the mapper CLI) calls :func:`map_tosa_file`. Exit codes: 0 every layer
recognised and mapped (or analysed), 1 some layer refused or not mapped, 2 bad input.
Nothing here imports torch or torch-mlir at import time; without the ``tosa`` extra the
command exits 2 with the install command.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from polyjoule.cli._common import (
    MACHINE_HELP,
    handles_errors,
    machine_target,
    output_path,
    parse_ints,
)
from polyjoule.errors import PolyjouleError, SpecError
from polyjoule.jsontext import dumps

TCPA = "tcpa"


# --------------------------------------------------------------------- the mapper (TinyTPU)

def mapping_lines(model: Any, maps: list[Any], top: int, source: str) -> list[str]:
    """The mapper's report, one block per layer."""
    from polyjoule.frontends.tosa.layers import TARGET, registered_name

    n_ok = sum(lm.ok for lm in maps)
    out = [f"{source} @{model.function}: {len(maps)} layer(s), {n_ok} mapped on {TARGET}"]
    for lm in maps:
        layer, rec = lm.layer, lm.layer.recognized
        head = f"layer {layer.index} ({layer.anchor}; {' '.join(layer.ops)})"
        if rec is None:
            out.append(f"{head}: refused, {layer.cause}")
            continue
        wl = rec.workload
        ops = ", ".join(f"{t.name}({','.join(t.ranks)})={rec.sources[t.name]}"
                        for t in wl.operands)
        reg = " [registered]" if registered_name(wl) else " [not registered]"
        out.append(f"{head}: {wl.name} {rec.shape_text}{reg}")
        out.append(f"    operands: {ops}; dtypes {', '.join(f'{k}={v}' for k, v in rec.dtypes.items())}")
        out += _result_lines(lm, top)
    return out


def _result_lines(lm: Any, top: int) -> list[str]:
    res = lm.result
    if res is None:
        return [f"    not mapped: {lm.error}"]
    out = [f"    {res.considered} nests, {len(res.candidates)} encodable"]
    if res.best is None:
        causes = ", ".join(f"{r.cause} {r.first}" for r in res.census.rows())
        return [*out, f"    not mapped: {lm.error} (first causes: {causes})"]
    tgt = _target()
    for i, c in enumerate(res.candidates[:top]):
        mark = "best" if i == 0 else f"#{i + 1}"
        cost = ", ".join(f"{k} {v}" for k, v in c.priced.cost.asdict().items())
        pj = _layer_energy(tgt, c)
        out.append(f"    {mark:>4} {c.label:<14} cost ({cost})"
                   + ("" if pj is None else f", energy {pj:,.1f} pJ"))
    return out


def _target() -> Any:
    from polyjoule.frontends.tosa.layers import TARGET
    from polyjoule.search import target as targets

    return targets.get(TARGET)


def _layer_energy(tgt: Any, cand: Any) -> float | None:
    fn = getattr(tgt, "energy_pj", None)
    return None if fn is None else round(fn(cand.program), 3)


def _add_both(doc: dict[str, Any], maps: list[Any], top: int) -> None:
    """Every listed candidate carries the modelled makespan (summed over host blocks, as
    the cost), the event model's cycles and energy, whatever ranks them."""
    tgt = _target()
    for d, lm in zip(doc["layers"], maps, strict=True):
        for cd, c in zip(d.get("candidates", []), lm.result.candidates[:top] if lm.result
                         else [], strict=True):
            cd["makespan"] = c.priced.timeline.makespan
            cyc = _layer_cycles(tgt, c)
            if cyc is not None:
                cd["cycles"] = cyc
            pj = _layer_energy(tgt, c)
            if pj is not None:
                cd["energy_pj"] = pj


def _layer_cycles(tgt: Any, cand: Any) -> int | None:
    """The event model's cycles of a candidate, when the target reports them."""
    from polyjoule.search import target as targets

    return targets.report(tgt, cand.program).get("cycles")


def totals(maps: list[Any]) -> dict[str, Any]:
    """Cycles and energy summed over the layers' best mappings (layers run one after
    another); layers without a mapping are counted, not summed."""
    tgt = _target()
    best = [lm.result.best for lm in maps if lm.ok]
    out: dict[str, Any] = {"layers": len(maps), "mapped": len(best),
                           "makespan": sum(b.priced.timeline.makespan for b in best)}
    cycles = [_layer_cycles(tgt, b) for b in best]
    if best and all(c is not None for c in cycles):
        out["cycles"] = sum(cycles)  # type: ignore[arg-type]
    energies = [_layer_energy(tgt, b) for b in best]
    if best and all(e is not None for e in energies):
        out["energy_pj"] = round(sum(energies), 3)  # type: ignore[arg-type]
    return out


def total_line(t: dict[str, Any]) -> str:
    """The report's last line: the ranking model's makespan (steps, not cycles), the
    event model's cycles and the energy over its mapped layers."""
    from polyjoule.reports.tables import energy

    cyc = f", {t['cycles']:,} cycles (event model)" if "cycles" in t else ""
    pj = f", energy {energy(t['energy_pj'])}" if "energy_pj" in t else ""
    missing = t["layers"] - t["mapped"]
    return (f"total over {t['mapped']} mapped layer(s): modelled makespan {t['makespan']:,} "
            f"(ranking steps){cyc}{pj}" + (f" ({missing} layer(s) not mapped, not included)"
                                           if missing else ""))


def report(model: Any, source: str, top: int = 1, as_json: bool = False,
           wide: bool = False) -> int:
    """Map every layer, print the report, return the exit code (0 all mapped, else 1)."""
    from polyjoule.frontends.tosa.layers import as_json as report_data
    from polyjoule.frontends.tosa.layers import map_model

    maps = map_model(model)
    if as_json:
        doc = report_data(model, maps, top, source)
        _add_both(doc, maps, top)
        doc["totals"] = totals(maps)
        typer.echo(dumps(doc, indent=2))
    else:
        from polyjoule.reports.tables import echo

        echo("\n".join([*mapping_lines(model, maps, top, source), total_line(totals(maps))]),
             wide)
    return 0 if maps and all(lm.ok for lm in maps) else 1


def map_tosa_file(path: str, top: int = 1, json: bool = False, wide: bool = False) -> int:
    """``polyjoule map --tosa FILE``: read the file, print per layer, return the exit code."""
    from polyjoule.errors import InProgramFile, MlirParseError
    from polyjoule.frontends.tosa import from_file

    try:
        layers = from_file(path)
    except MlirParseError as e:  # the file's name in front of every reading error
        raise MlirParseError(str(InProgramFile(path, e))) from None
    return report(layers, path, top=top, as_json=json, wide=wide)


# ----------------------------------------------------------------- a processor array (TCPA)

@dataclass
class LayerAnalysis:
    """A layer's PRA analysed on a processor array (or why it was not)."""

    layer: Any
    values: dict[str, int] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    error: str = ""


def analyse_layer(layer: Any, array: tuple[int, int], table: Any) -> LayerAnalysis:
    """Energy (total and by class), latency and its formula of one layer on ``array``."""
    from polyjoule.analysis import analyze
    from polyjoule.analysis.latency import schedule_report
    from polyjoule.frontends.tosa.layers import layer_kernel

    if layer.recognized is None:
        return LayerAnalysis(layer, error=layer.cause)
    k = layer_kernel(layer)
    values = dict(k.datasets["default"])
    try:
        a = analyze(k, array=array, energy_table=table, values=values)
        r = a.evaluate(values)
        lat = schedule_report(a, values)
    except PolyjouleError as e:
        return LayerAnalysis(layer, values, error=f"{type(e).__name__}: {e}")
    data = {
        "kernel": k.name, "values": values, "energy_pj": r.power.total_pj,
        "dynamic_pj": r.power.dynamic_pj, "static_pj": r.power.static_pj,
        "counts": {c: v for c, v in r.counts.items() if c != "ops"}, "ops": r.counts["ops"],
        "latency_cycles": lat["latency_cycles"],
        "latency_formula": [ph["latency_formula"] for ph in lat["schedule"]],
        "tile_sizes": {ph: list(p) for ph, p in r.tile_sizes.items()},
        "volumes": [{"statement": v.statement, "case": v.case, "class": v.cls,
                     "formula": v.formula, "count": v.value} for v in r.volumes],
    }
    return LayerAnalysis(layer, values, data)


def tcpa_lines(model: Any, rows: list[LayerAnalysis], array: str, source: str) -> list[str]:
    """The processor-array report, one block per layer."""
    from polyjoule.reports.tables import energy

    n_ok = sum(not row.error for row in rows)
    out = [f"{source} @{model.function}: {len(rows)} layer(s), {n_ok} analysed on a "
           f"{array} TCPA"]
    for row in rows:
        layer = row.layer
        head = f"layer {layer.index} ({layer.anchor}; {' '.join(layer.ops)})"
        if layer.recognized is None:
            out.append(f"{head}: refused, {row.error}")
            continue
        rec = layer.recognized
        out.append(f"{head}: {rec.workload.name} {rec.shape_text} "
                   f"({', '.join(f'{p}={v}' for p, v in row.values.items())})")
        if row.error:
            out.append(f"    not analysed: {row.error}")
            continue
        d = row.data
        out.append(f"    energy {energy(d['energy_pj'])} (dynamic {energy(d['dynamic_pj'])}), "
                   f"latency {d['latency_cycles']:,} cycles")
        tiles = "; ".join(f"p = ({', '.join(map(str, p))})" for p in d["tile_sizes"].values())
        out.append(f"    latency = {' + '.join(d['latency_formula'])}  at {tiles}")
        out.append(f"    energy: {len(d['volumes'])} volume formulas (see --json or "
                   f"polyjoule analyze)")
    return out


def tcpa_report(model: Any, array: str, source: str, as_json: bool = False,
                wide: bool = False) -> int:
    """Analyse every layer on the array, print, return the exit code (0 all analysed)."""
    from polyjoule.cli.symbolic import parse_array, resolve_table

    shape, table = parse_array(array), resolve_table(array, None)
    rows = [analyse_layer(layer, shape, table) for layer in model.layers]
    if as_json:
        layers = [{"layer": r.layer.index, "value": r.layer.anchor, "ops": list(r.layer.ops),
                   "status": "refused" if r.layer.recognized is None
                   else "unanalysed" if r.error else "analysed",
                   **({"reason": r.error} if r.error else {}), **r.data} for r in rows]
        typer.echo(dumps({"source": source, "function": model.function, "target": TCPA,
                               "array": array, "layers": layers}, indent=2))
    else:
        from polyjoule.reports.tables import echo

        echo("\n".join(tcpa_lines(model, rows, array, source)), wide)
    return 0 if rows and not any(r.error for r in rows) else 1


# ---------------------------------------------------------------------------- the command

def _shapes(input_shape: list[str]) -> list[tuple[int, ...]]:
    shapes = []
    for text in input_shape:
        dims = parse_ints(text, "--input-shape")
        if not dims or any(d < 1 for d in dims):
            raise SpecError(f"--input-shape {text!r}: expected positive extents like 4x16")
        shapes.append(dims)
    return shapes


@handles_errors
def import_model(
    model: str = typer.Argument(..., metavar="FILE.py:NAME",
                                help="Module file and the nn.Module class, factory or instance."),
    input_shape: list[str] = typer.Option(..., "--input-shape", "-i",
                                          help="Shape of one example input, e.g. 4x16; "
                                          "repeat for several inputs."),
    dtype: str = typer.Option("float32", "--dtype", help="Element type of the example inputs."),
    target: str = typer.Option("tinytpu-isa", "--target",
                               help="tinytpu-isa (map each layer) or tcpa (analyse each layer "
                               "on a processor array)."),
    array: str = typer.Option("8x8", "--array", help="With --target tcpa: ROWSxCOLS or an "
                              "array declaration file."),
    top: int = typer.Option(1, "--top", min=1, max=10**6, help="Candidates to print per layer."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    emit: Path | None = typer.Option(None, "--emit-mlir", callback=output_path,
                                     help="Also write the TOSA MLIR torch-mlir produced."),
    machine: str | None = typer.Option(None, "--machine", help=MACHINE_HELP),
    objective: str | None = typer.Option(None, "--objective", help="With the mapper: rank "
                                         "each layer by cycles (default), energy or edp."),
    energy_table: Path | None = typer.Option(None, "--energy-table", help="With the "
                                             "mapper: a unit-energy table file."),
    wide: bool = typer.Option(False, "--wide", help="Unwrapped lines, whatever the terminal's "
                              "width."),
) -> None:
    """Export a PyTorch module to TOSA and map (or analyse) it layer by layer (tosa extra)."""
    from polyjoule.frontends.tosa import from_module
    from polyjoule.frontends.tosa.layers import TARGET
    from polyjoule.frontends.tosa.producer import example_inputs, export, load_module

    if target not in (TARGET, TCPA):
        raise SpecError(f"--target: {target!r} is not {TARGET} or {TCPA}")
    from polyjoule.cli.mapper import objective_target

    if target == TCPA:
        from polyjoule.cli.symbolic import parse_array

        parse_array(array)  # bad input fails before the (slow) export
        if objective is not None or energy_table is not None:
            raise SpecError("--objective/--energy-table: the mapper's options "
                            f"(--target {TARGET})")
    shapes = _shapes(input_shape)
    # a bad objective or energy table fails before the (slow) export too
    with objective_target(TARGET, objective, energy_table):
        net = load_module(model)
        mlir = export(net, *example_inputs(shapes, dtype))
        if emit is not None:
            emit.write_text(str(mlir))
        if target == TCPA:
            raise typer.Exit(tcpa_report(from_module(mlir), array, model, as_json, wide))
        with machine_target(TARGET, machine, echo=not as_json):
            code = report(from_module(mlir), model, top=top, as_json=as_json, wide=wide)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add ``import`` to the app."""
    app.command("import")(import_model)
