"""``polyjoule map``: search a workload's mapspace on a target, rank, census, gate."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from polyjoule.cli._common import MACHINE_HELP, handles_errors, machine_target
from polyjoule.cli._progress import progress_bar, progress_option
from polyjoule.errors import (
    DuplicateKeyError,
    InfeasibleMapping,
    SpecError,
    UnknownNameError,
    ValidationMismatch,
)
from polyjoule.jsontext import dumps
from polyjoule.search.mapspace import MAX_SLOTS


def _catalogued_objectives() -> dict[str, tuple[str, ...]]:
    """What ``--objective`` takes per catalogued target, its default first: read from the
    catalogue's data (``polyjoule.search.target.CATALOGUE``) without importing a target
    or the search core (``--help`` stays light)."""
    import importlib

    return dict(getattr(importlib.import_module("polyjoule.targets"), "OBJECTIVES", {}))


#: what ``--objective`` takes, per target of the catalogue (its default first)
OBJECTIVE_HELP = "Rank by, per target: " + "; ".join(
    f"{name} {objs[0]} (its default), {', '.join(objs[1:-1])} or {objs[-1]}"
    for name, objs in _catalogued_objectives().items()) + (
    " (edp: energy x cycles; a target that counts cycles by a modelled makespan, as the"
    " programmable GEMM target's published rankings do, says so in its table).")
#: the most mappings one kernel search evaluates (problem sizes x mappings per size)
MAX_MAPPINGS = 2_000_000
#: above this many problem sizes (or with --max-mappings), the mappings are counted first
COUNT_SIZES_ABOVE = 64
#: the sizes counted, spread over the ranges: a range's mapspace grows with its extents
#: until the tile sizes saturate (gesummv: 58 mappings at N0=8, 130 from N0=72), so the
#: first size alone undercounts
COUNT_AT = 16
MAX_EXTENT = 2**40  # an extent past this is refused before the mapspace is enumerated

if TYPE_CHECKING:
    from rich.console import Console

EVIDENCE = ("evidence: encodable = passes the checker and the reference model agrees with "
            "numpy; modelled = encodable and priced by the target's cost model (a ranking "
            "device); measured = the exact program has published measured cycles")


def _console(wide: bool = False) -> Console:
    """The terminal's width (``--wide``: unlimited); tables fold text, never a number."""
    from polyjoule.reports.tables import console

    return console(wide)


def _say(con: Console, text: str) -> None:
    from polyjoule.reports.tables import echo

    echo(text, con=con)


def parse_shape(text: str, ranks: tuple[str, ...], workload: str) -> dict[str, int]:
    """``16x16x16``, ``16,16,16`` or ``M=16,K=16,N=16`` -> extents in rank order."""
    items = [p.strip() for p in text.replace("x", ",").split(",") if p.strip()]
    if items and all("=" in p for p in items):
        out: dict[str, int] = {}
        for p in items:
            k, v = (s.strip() for s in p.split("=", 1))
            if k not in ranks:
                raise UnknownNameError(f"shape {text!r}: {workload} has no rank {k!r} "
                                       f"(ranks {', '.join(ranks)})")
            if k in out:
                raise DuplicateKeyError(f"shape {text!r}: rank {k} given twice")
            out[k] = _int(v, text)
        missing = [r for r in ranks if r not in out]
        if missing:
            raise SpecError(f"shape {text!r}: rank {missing[0]} missing "
                            f"(ranks {', '.join(ranks)})")
        return {r: out[r] for r in ranks}
    if len(items) != len(ranks):
        raise SpecError(f"shape {text!r}: {len(items)} extents for the {len(ranks)} ranks "
                        f"({', '.join(ranks)}) of {workload}")
    return {r: _int(v, text) for r, v in zip(ranks, items, strict=True)}


def _int(v: str, text: str) -> int:
    try:
        n = int(v)
    except ValueError:
        raise SpecError(f"shape {text!r}: {v!r} is not an integer") from None
    if not 1 <= n <= MAX_EXTENT:
        raise SpecError(f"shape {text!r}: extent {n} is not in 1..2**40")
    return n


def order(nest: Any) -> str:
    from polyjoule.search.nest import order as label

    return label(nest)


def _evidence(target: Any, cycles: int | None, verified: bool | None) -> str:
    if verified is False:
        return "WRONG"
    if cycles:
        basis = getattr(target, "measured_basis", "")
        shown = getattr(target, "measured_format", "{cycles} cyc").format(cycles=cycles)
        return f"measured ({shown}{', ' + basis if basis else ''})"
    return "modelled" if verified else "modelled, unverified"


def _candidates(target: Any, res: Any, top: int, verify: bool) -> list[dict[str, Any]]:
    from polyjoule.search import target as targets

    p = res.problem
    out = []
    for c in res.candidates[:top]:
        ok = target.verify(p.workload, p.extents, c.program) if verify else None
        cycles = targets.measured(target, p.workload, p.extents, c.program)
        tl = c.priced.timeline
        unit, load = tl.bottleneck if tl is not None else ("-", 0)
        out.append({
            "mapping": c.label, "nest": order(c.nest), **targets.report(target, c.program),
            **_both(target, c), **c.cost.asdict(), "bottleneck": unit,
            "bottleneck_load": load, "verified": ok,
            "evidence": _evidence(target, cycles, ok), "measured_cycles": cycles,
        })
    return out


def _both(target: Any, cand: Any) -> dict[str, float]:
    """Cycles and energy of a candidate whatever the objective ranks by: the timeline's
    makespan, and ``energy_pj(program)`` when the target prices energy."""
    out: dict[str, float] = {}
    tl = cand.priced.timeline
    if tl is not None and hasattr(tl, "makespan"):
        out["makespan"] = tl.makespan
    fn = getattr(target, "energy_pj", None)
    if fn is not None:
        out["energy_pj"] = round(fn(cand.program), 3)
    return out


#: column headers with their units, where the key alone does not say them
HEADERS = {"energy_pj": "energy", "edp": "EDP (energy x cycles)", "power_mw": "power"}


def _cell(name: str, value: Any, fmt: Any = None) -> str:
    """Energies (and energy x cycles) in engineering units, counts exact; ``fmt`` formats an
    energy column with the digits its ranking needs (:func:`energy_format`)."""
    from polyjoule.reports.tables import count, energy

    show = fmt or energy
    if name == "energy_pj":
        return show(value)
    if name == "edp":  # pJ x cycles, in the energy's engineering unit
        return f"{show(value)}·cycles"
    if isinstance(value, float):
        return f"{value:,.1f}"  # mW; exact in --json
    return count(value) if isinstance(value, int) else str(value)


def energy_format(values: Any) -> Any:
    """A formatter of one column of energies (pJ): one engineering unit (the largest
    value's), at least three significant digits in every value (down to a thousandth of
    a pJ), more until every distinct value reads distinct, so that rows ranked apart are
    visibly apart."""
    import math

    from polyjoule.reports.tables import UNITS, energy

    vals = sorted({float(v) for v in values if math.isfinite(float(v))})
    mag = max((abs(v) for v in vals), default=0.0)
    if mag == 0:
        return energy
    name, scale = next(((n, sc) for n, sc in UNITS if mag >= sc), UNITS[-1])
    least = min(abs(v) for v in vals if v)
    lead = math.floor(math.log10(least / scale)) + 1  # the smallest's digits before the point
    d = max(0, min(3 - lead, math.floor(math.log10(scale / 1e-3))))
    while (len({f"{v / scale:,.{d}f}" for v in vals}) < len(vals)
           and scale / 10**d > 1e-3):
        d += 1
    return lambda v: f"{float(v) / scale:,.{d}f} {name}"


def _formats(names: Any, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per energy column of a ranking, its :func:`energy_format`."""
    return {n: energy_format([r[n] for r in rows if n in r]) for n in names
            if n in ("energy_pj", "edp")}


def _census_rows(res: Any) -> list[dict[str, Any]]:
    return [{"cause": r.cause, "first": r.first, "any": r.any, "kind": str(r.kind),
             "example": r.example, "detail": r.detail} for r in res.census.rows()]


#: the census' legend of the two kinds of refusal, where a target gives none of its own
KIND_GLOSS = ("express: the encoding cannot say it; refuse: the machine would accept it and "
              "compute wrongly, hang or lose values, so only a checker stops it")


def _print_census(con: Console, target: Any, res: Any,
                  independent: Mapping[str, int] | None) -> None:
    from polyjoule.reports.tables import Column, print_table
    from polyjoule.search import target as targets

    if res.census.total:
        print_table("refusals (first cause; every cause)",
                    [Column("first", number=True), Column("every", number=True),
                     Column("kind", fold=False), Column("cause", fold=False),
                     Column("example nest", fold=False), Column("detail")],
                    [(str(r.first), str(r.any), str(r.kind), r.cause, r.example, r.detail)
                     for r in res.census.rows()], con=con)
        k1, k2 = res.census.by_kind(), res.census.by_kind(every=True)
        _say(con, f"express vs refuse: {k1['express']} vs {k1['refuse']} by first cause; "
                  f"{k2['express']} vs {k2['refuse']} counting every cause")
        _say(con, f"  ({getattr(target, 'kind_gloss', KIND_GLOSS)})")
    if independent is not None and not any(independent.values()):
        _say(con, "independent census: no predicate refuses any nest"
             + (f" once {', '.join(sorted(res.relieved))} is relieved" if res.relieved else ""))
    elif independent is not None:
        print_table("independent census (each structural predicate asked of every nest)",
                    [Column("nests", number=True), Column("kind", fold=False),
                     Column("cause", fold=False)],
                    [(str(n), str(targets.kind(target, cause)), cause) for cause, n in
                     sorted(independent.items(), key=lambda kv: (-kv[1], kv[0]))], con=con)


def _print_ranking(con: Console, target: Any, res: Any, cands: list[dict[str, Any]]) -> None:
    """The ranking table; the bottleneck column only where it fits whole (else the chosen
    line names the best's, and ``--json``/``--wide`` every candidate's)."""
    from polyjoule.reports.tables import Column, print_table

    names = res.best.cost.names
    shown = [k for k in ("rows", "static", "words") if any(k in c for c in cands)]
    both = [k for k in ("makespan", "energy_pj") if k not in names and any(k in c for c in cands)]
    after = [k for k in ("cycles",) if any(k in c for c in cands)]
    fmt = _formats((*names, *both), cands)
    heads = ["mapping", *shown, *(HEADERS.get(n, n) for n in (*names, *both, *after))]
    rows = [[c["mapping"], *(str(c.get(k, "")) for k in shown),
             *(_cell(n, c[n], fmt.get(n)) for n in (*names, *both)),
             *(_cell(n, c.get(n, "")) for n in after)] for c in cands]
    bound = [f"{c['bottleneck']} {c['bottleneck_load']:,}" for c in cands]
    with_bound = _whole_width([*heads, "bottleneck"], [[*r, b] for r, b in
                                                        zip(rows, bound, strict=True)])
    if with_bound + 2 + len("measured") <= con.width:  # evidence folds, its header whole
        heads.append("bottleneck")
        rows = [[*r, b] for r, b in zip(rows, bound, strict=True)]
    print_table(f"top {len(cands)} of {len(res.candidates)} candidates by "
                f"{ranked_by(target, names)}",
                [Column("mapping", fold=False),
                 *(Column(h, number=True) for h in heads[1:len(shown) + 1 + len(names)
                                                         + len(both) + len(after)]),
                 *(Column(h, fold=False) for h in heads[len(shown) + 1 + len(names)
                                                        + len(both) + len(after):]),
                 Column("evidence")],
                [(*r, c["evidence"]) for r, c in zip(rows, cands, strict=True)], con=con)
    for line in getattr(target, "ranking_notes", ()):
        _say(con, line)


def _whole_width(heads: list[str], rows: list[list[str]]) -> int:
    """The width of a table whose every cell and header is kept on one line."""
    widths = [max([len(h), *(len(r[j]) for r in rows)]) for j, h in enumerate(heads)]
    return sum(widths) + 2 * (len(widths) - 1)


def ranked_by(target: Any, names: Any) -> str:
    """The ranking's objectives in words: the target's own words where it has them (a
    modelled makespan that is not cycles), else the shared ones."""
    from polyjoule.reports.tables import in_words

    words = getattr(target, "objective_words", {})
    return ", then ".join(words.get(n) or in_words(n) for n in names)


def _print_choice(con: Console, target: Any, res: Any) -> None:
    from polyjoule.search import target as targets

    best = res.best
    from polyjoule.reports.tables import count, energy

    tl = best.priced.timeline
    unit, load = tl.bottleneck if tl is not None else ("", 0)
    _say(con, f"chosen: {best.label}  cost {best.cost}"
         + ("  (no emitted loops: one intrinsic tile)" if best.label == "-" else "")
         + (f"; bottleneck {unit} ({load:,} busy)" if unit and unit != "-" else ""))
    e = _breakdown(target, best).get("energy")
    if e is not None:
        top = sorted(e["pj"].items(), key=lambda kv: -kv[1])[:4]
        over = f" over its {e['programs']} programs" if e["programs"] > 1 else ""
        _say(con, f"energy {energy(e['total_pj'])}{over}, most in: " + ", ".join(
            f"{k} {energy(v)} ({count(e['counts'][k])})" for k, v in top))
    m, ru = res.margin(), res.runner_up
    if ru is None:
        _say(con, "margin: no runner-up (the only encodable nest)")
    elif m is None:
        _say(con, f"margin: runner-up {ru.label} {ru.cost}; {target.name} has no error bar")
    else:
        _say(con,
             f"margin: runner-up {ru.label} {ru.cost} is {m.ratio:.2f}x the best "
             f"{best.cost.names[0]}; {m.basis} that is {m.gap:.0f} {m.unit}, "
             + ("beyond the error bar." if m.exceeds_error_bar else
                "within the error bar: the ranking is not established."))
    for line in targets.notes(target):
        _say(con, line)
    _say(con, EVIDENCE)


def _print_search(con: Console, target: Any, res: Any, cands: list[dict[str, Any]],
                  independent: Mapping[str, int] | None, relief: Any) -> None:
    from polyjoule.search import target as targets

    title = f"{res.problem.title} on {targets.describe(target)}"
    _say(con, f"{title}: {res.considered} nests, {len(res.candidates)} encodable"
         + (f" (relieved: {', '.join(sorted(res.relieved))})" if res.relieved else ""))
    _print_census(con, target, res, independent)
    if relief is not None:
        named = relief.base.census.any_counts[relief.cause]
        _say(con, f"relieve {relief.cause}: it refused {named} nests, {len(relief.alone)} of "
                  f"them alone; {len(relief.returned)} returned encodable; what binds the "
                  f"{named} next: "
                  + (", ".join(f"{c} {n}" for c, n in relief.rebound.most_common()) or "-"))
    if cands:
        _print_ranking(con, target, res, cands)
        _print_choice(con, target, res)


def _search_cmd(workload: str, shape: str, target_name: str | None, top: int, slots: int,
                census: bool, relieve: str | None, as_json: bool, verify: bool,
                wide: bool = False) -> None:
    from polyjoule.library import workloads as registry
    from polyjoule.search import census as census_mod
    from polyjoule.search import target as targets
    from polyjoule.search.search import Problem, search

    wl = registry.get(workload)
    tgt = targets.get(target_name or targets.default_name())
    if slots < 1:
        raise SpecError(f"--slots: {slots} < 1")
    problem = Problem(wl, parse_shape(shape, wl.ranks, wl.name))
    with progress_bar():  # on stderr, once the search takes a second
        res = search(problem, tgt, slots)
        relief = None
        if relieve is not None:
            allowed = targets.relievable(tgt)
            if relieve not in allowed:
                raise UnknownNameError(f"--relieve: {relieve!r} is not a constraint {tgt.name} "
                                       f"can relieve ({', '.join(allowed) or 'none'})")
            relief = census_mod.relieve(problem, tgt, relieve, slots, base=res)
            res = relief.relieved
        indep = census_mod.independent(problem, tgt, slots) if census else None
    cands = _candidates(tgt, res, top, verify)
    if as_json:
        doc: dict[str, Any] = {
            "problem": problem.title, "target": tgt.name,
            "machine": targets.machine_header(tgt), "nests": res.considered,
            "encodable": len(res.candidates), "census": _census_rows(res),
            "candidates": cands,
            "objectives": list(tgt.objectives),
            **_energy_header(tgt),
            "chosen": None if res.best is None else {"mapping": res.best.label,
                                                      "cost": list(res.best.cost)},
            **({} if res.best is None else _breakdown(tgt, res.best)),
        }
        m = res.margin()
        if m is not None:
            doc["margin"] = m._asdict()
        if indep is not None:
            doc["independent"] = dict(indep)
        if relief is not None:
            doc["relieve"] = {"cause": relieve, "alone": len(relief.alone),
                              "returned": len(relief.returned), "rebound": dict(relief.rebound)}
        typer.echo(dumps(doc, indent=2))
    else:
        _print_search(_console(wide), tgt, res, cands, indep, relief)
    if not res.candidates:
        raise InfeasibleMapping(f"{problem.title}: every nest was refused")


def _breakdown(tgt: Any, cand: Any) -> dict[str, Any]:
    """The chosen program's event counts and pJ per event class, when the target has them."""
    fn = getattr(tgt, "energy", None)
    if fn is None:
        return {}
    e = fn(cand.program)
    blocks = getattr(cand.program, "count", 1)  # host blocks: counts summed over them
    return {"energy": {"mapping": cand.label, "counts": dict(e.counts),
                       "pj": {k: round(v, 3) for k, v in e.pj.items()},
                       "total_pj": round(e.total_pj, 3), "programs": blocks}}


def _energy_header(tgt: Any) -> dict[str, Any]:
    """The ranking objective and the energy table's name, when the target prices energy."""
    out: dict[str, Any] = {}
    if getattr(tgt, "objective", None):
        out["objective"] = tgt.objective
    fn = getattr(tgt, "energy_table", None)
    if fn is not None:
        out["energy_table"] = fn()
    return out


def _gate_cmd(target_name: str | None, as_json: bool, wide: bool = False) -> None:
    from polyjoule.search import gate
    from polyjoule.search import target as targets

    tgt = targets.get(target_name or targets.default_name())
    result = gate.run_set(targets.problem_set(tgt), tgt)
    if as_json:
        typer.echo(dumps({"machine": targets.machine_header(tgt), "ok": result.ok,
                               "passed": result.passed, "rows": [
            {"problem": r.problem.title, "nests": r.result.considered,
             "encodable": len(r.result.candidates), "verified": r.verified,
             "best": r.result.best.label if r.result.best else None,
             "cost": list(r.result.best.cost) if r.result.best else None,
             "published": r.published, "failures": r.failures} for r in result.rows],
            "verdict": result.verdict()}, indent=2))
    else:
        _print_gate(tgt, result, wide)
    if not result.ok:
        raise ValidationMismatch(result.verdict())


def _print_gate(tgt: Any, result: Any, wide: bool = False) -> None:
    from polyjoule.reports.tables import Column, print_table
    from polyjoule.search import target as targets

    con = _console(wide)
    rows = []
    for r in result.rows:
        b = r.result.best
        rows.append((r.problem.title, str(r.result.considered), str(len(r.result.candidates)),
                     str(r.verified), b.label if b else "-", str(b.cost) if b else "-",
                     str(r.published) if r.published is not None else "-"))
    print_table(f"gate on {targets.describe(tgt)}",
                [Column("problem"), Column("nests", number=True),
                 Column("encodable", number=True), Column("verified", number=True),
                 Column("best", fold=False), Column("cost", fold=False),
                 Column("published", fold=False)], rows, con=con)
    for r in result.rows:
        for f in r.failures:
            _say(con, f"FAIL {f}")
    _say(con, result.verdict())


def _list_cmd(as_json: bool, wide: bool = False) -> None:
    from polyjoule.library import workloads as registry
    from polyjoule.search import target as targets

    wls = [registry.get(n) for n in registry.names()]
    if as_json:
        typer.echo(dumps({"workloads": [
            {"name": w.name, "ranks": list(w.ranks), "reduce": list(w.reduce),
             "contractions": [list(c) for c in w.contractions], "epilogue": list(w.epilogue)}
            for w in wls], "targets": targets.names()}, indent=2))
        return
    from polyjoule.reports.tables import Column, print_table

    con = _console(wide)
    print_table("workloads", [Column("name", fold=False), Column("ranks"), Column("reduce"),
                              Column("result ="), Column("epilogue")],
                [(w.name, ",".join(w.ranks), ",".join(w.reduce),
                  " + ".join(f"{a}@{b}" for a, b in w.contractions), ",".join(w.epilogue) or "-")
                 for w in wls], con=con)
    _say(con, "targets: " + ", ".join(targets.describe(targets.get(n)) for n in targets.names()))


@handles_errors
def map_cmd(
    workload: str | None = typer.Argument(None, help="Registered workload (see --list)."),
    shape: str | None = typer.Argument(None, help="Extents in rank order: 16x16x16, or "
                                       "M=16,K=16,N=16."),
    target: str | None = typer.Option(None, "--target", help="Registered target (default: "
                                      "the catalogue's, see --list)."),
    top: int = typer.Option(8, "--top", help="Candidates to print (kernel targets: per "
                            "problem size)."),
    slots: int = typer.Option(2, "--slots", min=1, max=MAX_SLOTS,
                              help=f"Outer loops per rank (mapspace size, at most {MAX_SLOTS})."),
    census: bool = typer.Option(False, "--census", help="Also the independent census."),
    relieve: str | None = typer.Option(None, "--relieve", help="Drop one constraint and "
                                       "re-census (e.g. acc-position)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    no_verify: bool = typer.Option(False, "--no-verify", help="Skip the reference model."),
    gate: bool = typer.Option(False, "--gate", help="Run the gate: the target's published "
                              "problem set, every encodable mapping verified."),
    list_: bool = typer.Option(False, "--list", help="List workloads and targets."),
    tosa: Path | None = typer.Option(None, "--tosa", help="Map every layer of a TOSA MLIR "
                                     "file (needs the tosa extra)."),
    machine: str | None = typer.Option(None, "--machine", help=MACHINE_HELP),
    objective: str | None = typer.Option(None, "--objective", help=OBJECTIVE_HELP),
    energy_table: Path | None = typer.Option(None, "--energy-table", help="A unit-energy "
                                             "table file overriding the shipped one."),
    wide: bool = typer.Option(False, "--wide", help="Full tables, whatever the terminal's width."),
    sets: list[str] = typer.Option([], "--set", help="Kernel targets (processor arrays): "
                                   "problem sizes, NAME=RANGE (N0=8:256:8, N=64,128; N sets "
                                   "every parameter); default: the kernel's MINI dataset."),
    arch: str | None = typer.Option(None, "--arch", help="Alias of --machine."),
    bandwidth_bound: bool = typer.Option(False, "--bandwidth-bound", help="Kernel targets: "
                                         "stretch the latency to the DRAM bandwidth instead "
                                         "of refusing with dram-bandwidth."),
    progress: bool = typer.Option(False, "--progress", callback=progress_option, help="Show the "
                                  "search's progress bar (stderr) even when stderr is no terminal."),
    max_mappings: int | None = typer.Option(None, "--max-mappings", help="Kernel targets: "
                                            "refuse a search of more mappings than this "
                                            f"(estimated first; default {MAX_MAPPINGS:,})."),
) -> None:
    """Enumerate WORKLOAD's mapspace at SHAPE, lower every nest, rank, and census refusals."""
    if gate and (workload is not None or shape is not None):
        raise SpecError("--gate runs the target's published problem set: give no workload "
                        "or shape with it")
    if gate and objective not in (None, "cycles"):
        raise SpecError(f"--objective {objective}: the gate checks published makespans; "
                        "it ranks by cycles")
    if top < 1:
        raise SpecError(f"--top: {top} is not a positive number of mappings to show")
    if max_mappings is not None and max_mappings < 1:
        raise SpecError(f"--max-mappings: {max_mappings} is not a positive number of mappings")
    _check_conflicts(workload, shape, target, sets, bandwidth_bound, tosa, machine, arch)
    option = "--machine" if machine is not None or arch is None else "--arch"
    machine = machine or arch
    if _maps_kernels(target) and not (list_ or gate or tosa is not None):
        problem = _kernel_problem(workload, shape, target, sets)  # before any output
        with objective_target(target, objective, energy_table), \
                _named(option, target, machine), machine_target(target, machine, False):
            _kernel_cmd(problem, target, top, census, relieve, as_json, not no_verify,
                        bandwidth_bound, wide, max_mappings)
        return
    if max_mappings is not None:
        raise SpecError("--max-mappings: limits the search of a kernel target over size "
                        "ranges (e.g. --target tcpa --set N=8:256:8)")
    if not (list_ or gate or tosa is not None) and workload is not None:
        _check_workload(workload, shape)  # before the machine's header
    with objective_target(target, objective, energy_table), \
            _named(option, target, machine), machine_target(target, machine, not as_json):
        _map(workload, shape, target, top, slots, census, relieve, as_json, no_verify, gate,
             list_, tosa, wide)


def _check_conflicts(workload: str | None, shape: str | None, target: str | None,
                     sets: list[str], bandwidth_bound: bool, tosa: Path | None,
                     machine: str | None, arch: str | None) -> None:
    """Options that cannot both apply are refused, naming both, rather than one ignored."""
    if machine is not None and arch is not None:
        raise SpecError(f"--machine {machine} and --arch {arch}: --arch is an alias of "
                        "--machine; give one")
    if tosa is not None and (workload is not None or shape is not None):
        given = " ".join(x for x in (workload, shape) if x is not None)
        raise SpecError(f"--tosa maps every layer of {tosa}: give no WORKLOAD or SHAPE with "
                        f"it (got {given})")
    if _maps_kernels(target):
        return
    from polyjoule.search import target as targets

    name = target or targets.default_name()
    if sets:
        raise SpecError(f"--set {sets[0]}: problem sizes of a kernel target (--target tcpa); "
                        f"--target {name} takes the workload's SHAPE (e.g. 8x8x8)")
    if bandwidth_bound:
        raise SpecError(f"--bandwidth-bound: an option of a kernel target (--target tcpa), "
                        f"not of --target {name}")


def _check_workload(workload: str, shape: str | None) -> None:
    """A workload target maps registered workloads; a file is a kernel for ``--target tcpa``."""
    from polyjoule.library import workloads as registry

    try:
        wl = registry.get(workload)
    except UnknownNameError as e:
        if workload.endswith((".c", ".yaml", ".yml")) or "/" in workload:
            raise UnknownNameError(f"{e}; a C or YAML kernel file maps on a kernel target "
                                   "(--target tcpa)") from None
        raise
    if shape is not None:
        parse_shape(shape, wl.ranks, wl.name)


@contextmanager
def _named(option: str, target: str | None, machine: str | None) -> Iterator[None]:
    """Check the machine declaration first, its errors naming the option typed."""
    from polyjoule.search import target as targets

    with reworded("--array", option):
        targets.on_machine(targets.get(target or targets.default_name()), machine)
    yield


@contextmanager
def reworded(old: str, new: str) -> Iterator[None]:
    """Errors raised inside name the option ``new`` where a shared parser says ``old``
    (``map`` takes problem sizes as ``--set``, machines as ``--machine``/``--arch``)."""
    from polyjoule.errors import PolyjouleError

    try:
        yield
    except PolyjouleError as e:
        text = str(e)
        if old not in text:
            raise
        raise type(e)(text.replace(old, new)) from None


@contextmanager
def objective_target(target: str | None, objective: str | None,
                     energy_table: Path | None) -> Iterator[None]:
    """Run a command on the target ``target`` ranking by ``objective`` and pricing energy
    with ``energy_table`` (the target's ``with_objective``; re-registered for the command,
    restored after, as ``--machine`` is)."""
    from polyjoule.search import target as targets

    if objective is None and energy_table is None:
        yield
        return
    before = targets.get(target or targets.default_name())
    fn = getattr(before, "with_objective", None)
    if fn is None:
        raise SpecError(f"--objective/--energy-table: target {before.name} ranks by one "
                        "cost only")
    targets.register(fn(objective, None if energy_table is None else str(energy_table)))
    try:
        yield
    finally:
        targets.register(before)


def _map(workload: str | None, shape: str | None, target: str, top: int, slots: int,
         census: bool, relieve: str | None, as_json: bool, no_verify: bool, gate: bool,
         list_: bool, tosa: Path | None, wide: bool = False) -> None:
    if tosa is not None:
        from polyjoule.cli.tosa import map_tosa_file

        raise typer.Exit(map_tosa_file(str(tosa), top=top, json=as_json, wide=wide))
    if list_:
        _list_cmd(as_json, wide)
    elif gate:
        _gate_cmd(target, as_json, wide)
    elif workload is None or shape is None:
        raise SpecError("map: give WORKLOAD and SHAPE (e.g. gemm.relu 16x16x16), "
                        "or --gate, or --list")
    else:
        _search_cmd(workload, shape, target, top, slots, census, relieve, as_json,
                    not no_verify, wide)


def _maps_kernels(target: str | None) -> bool:
    """Does the target search kernels (PRA loop nests at size ranges) rather than
    workloads at one shape? It says so by answering ``search_kernel``."""
    from polyjoule.search import target as targets

    return target is not None and hasattr(targets.get(target), "search_kernel")


def _kernel_problem(kernel_name: str | None, shape: str | None, target: str,
                    sets: list[str]) -> tuple[Any, Any, str]:
    """The kernel (a built-in name or a C/YAML file), its problem sizes and the name to
    show: every input checked before anything is printed."""
    from polyjoule.cli._common import load_kernel
    from polyjoule.dse.space import size_grid

    if kernel_name is None:
        raise SpecError(f"map --target {target}: give a KERNEL (e.g. gesummv) and --set sizes")
    kernel = load_kernel(kernel_name)
    specs = [*sets, *([x for x in shape.split(",") if x.strip()] if shape else [])]
    if not specs and "MINI" not in kernel.datasets:
        raise SpecError(f"map: {kernel.name} has no datasets: give its sizes, "
                        f"{' '.join(f'--set {p}=..' for p in kernel.params)}")
    if not specs:
        specs = [f"{k}={v}" for k, v in kernel.resolve(None, "MINI").items()]
    with reworded("--size", "--set"):
        grid = size_grid(kernel, specs)
    _check_minimum(kernel, grid.values)
    return kernel, grid, kernel_name


def _check_minimum(kernel: Any, values: Mapping[str, Any]) -> None:
    """A size below a parameter's minimum is refused up front, as ``analyze`` does."""
    from polyjoule.errors import ParameterRangeError

    for ph in kernel.phases:
        for p, lo in ph.param_min:
            if p in values and len(values[p]) and int(values[p].min()) < lo:
                raise ParameterRangeError(f"--set: {p}={int(values[p].min())} is below its "
                                          f"minimum {lo} (kernel {kernel.name})")


def _check_mapspace(tgt: Any, kernel: Any, values: Mapping[str, Any],
                    limit: int | None = None) -> None:
    """Refuse a search past ``limit`` (``--max-mappings``, default ``MAX_MAPPINGS``)
    mappings, counted at ``COUNT_AT`` sizes spread over the ranges."""
    sizes = len(next(iter(values.values()))) if values else 1
    if sizes <= COUNT_SIZES_ABOVE and limit is None:
        return
    limit = MAX_MAPPINGS if limit is None else limit
    at = _spread(sizes, COUNT_AT)
    counted = tgt.search_kernel(kernel, {k: v[at] for k, v in values.items()}, frozenset(),
                                1).considered
    total = round(counted * sizes / len(at))
    if total > limit:
        raise SpecError(f"--set: {sizes:,} problem sizes x about {round(counted / len(at)):,} "
                        f"mappings each (counted at {len(at)} sizes spread over the ranges) "
                        f"is about {total:,} mappings, over map's limit of {limit:,}: narrow "
                        "the ranges, coarsen their steps or raise --max-mappings")


def _spread(n: int, k: int) -> list[int]:
    """``k`` indices spread evenly over ``range(n)``, the first and last included."""
    if n <= k:
        return list(range(n))
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def _kernel_cmd(problem: tuple[Any, Any, str], target: str, top: int, census: bool,
                relieve: str | None, as_json: bool, verify: bool, bandwidth_bound: bool,
                wide: bool = False, max_mappings: int | None = None) -> None:
    """``map KERNEL --target T --set ...`` for a kernel target: its vectorised search."""
    from polyjoule.dse.cache import FormulaCache
    from polyjoule.search import target as targets

    kernel, grid, source = problem
    tgt = targets.get(target)
    tgt = tgt.configured(bandwidth_bound=bandwidth_bound, store=FormulaCache())
    if relieve is not None and relieve not in tgt.relievable:
        raise UnknownNameError(f"--relieve: {relieve!r} is not a constraint {target} can "
                               f"relieve ({', '.join(tgt.relievable)})")
    with progress_bar(f"{kernel.name}: searching {target}"):
        _check_mapspace(tgt, kernel, grid.values, max_mappings)
        res = tgt.search_kernel(kernel, grid.values, frozenset({relieve} if relieve else ()), top)
    if not as_json:  # the machine's header, once every input passed
        from polyjoule.reports.tables import comment

        comment(targets.machine_header(tgt))
    if source != kernel.name:  # a file: the analyze command names it
        for row in res.candidates:
            row["analyze"] = row["analyze"].replace(f"analyze {kernel.name} ",
                                                    f"analyze {source} ", 1)
    if verify and res.best is not None:
        res.best["verified"] = tgt.verify_row(kernel, res.best)
    if as_json:
        typer.echo(dumps(_kernel_doc(tgt, res, census), indent=2))
    else:
        _print_kernel_search(tgt, res, census, wide)
    if not res.candidates:
        raise InfeasibleMapping(f"{kernel.name}: every mapping was refused")


def _chosen(tgt: Any, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    return None if not rows else {"mapping": rows[0]["mapping"],
                                  "cost": [rows[0][k] for k in tgt.objectives]}


def _kernel_doc(tgt: Any, res: Any, census: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "problem": res.kernel, "target": tgt.name, "nests": res.considered,
        "encodable": res.accepted, "census": _census_rows(res), "candidates": res.candidates,
        "objectives": list(tgt.objectives), "objective": tgt.objective,
        "chosen": _chosen(tgt, res.candidates),
        "sizes": [{**size, "chosen": _chosen(tgt, res.at(size["values"]))}
                  for size in getattr(res, "sizes", ())],
        "derive_seconds": res.derive_seconds, "eval_seconds": res.eval_seconds}
    if census:
        doc["independent"] = dict(res.independent)
    if res.relief is not None:
        doc["relieve"] = res.relief
    return doc


def _print_kernel_search(tgt: Any, res: Any, census: bool, wide: bool = False) -> None:
    from polyjoule.reports.tables import counted
    from polyjoule.search import target as targets

    con = _console(wide)
    _say(con, f"{res.kernel} on {targets.describe(tgt)}: {counted(res.considered, 'mapping')}, "
              f"{res.accepted:,} fit" + (f" (relieved: {', '.join(sorted(res.relieved))})"
                                         if res.relieved else "")
              + (f" over {n} problem sizes" if (n := len(getattr(res, "sizes", ()))) > 1
                 else "")
              + f"; derived in {res.derive_seconds:.2f} s, evaluated in "
                f"{res.eval_seconds:.3f} s")
    if res.census.total:
        _print_census(con, tgt, res, res.independent if census else None)
    else:
        _say(con, "refusals: none" + (
            f": {targets.describe(tgt)} offers {res.kernel} no mapping" if not res.considered
            else (f" once {', '.join(sorted(res.relieved))} is relieved" if res.relieved
                  else "") + ": every mapping fits"))
        _print_census(con, tgt, res, res.independent if census else None)
    if res.relief is not None:
        _print_relief(con, res.relief)
    if not res.candidates:
        return
    several = len(getattr(res, "sizes", ())) > 1
    if not several:
        _print_kernel_ranking(con, tgt, res.candidates, {"encodable": res.accepted}, False)
    else:
        _print_per_size(con, tgt, res)
        for size in res.sizes:
            rows = res.at(size["values"])
            if rows:
                _print_kernel_ranking(con, tgt, rows, size, True)
    _print_kernel_choice(con, res, several)


def _size_label(values: Mapping[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in values.items())


def _print_relief(con: Console, r: Mapping[str, Any]) -> None:
    """What relieving a constraint returned, and what refuses the rest in its place."""
    rebound = ", ".join(f"{c} {n}" for c, n in r["rebound"].items())
    _say(con, f"relieve {r['cause']}: {r['alone']} mappings refused by it alone now fit; "
              + (f"the rest it refused are refused next by: {rebound}" if rebound else
                 f"no other constraint refuses the mappings {r['cause']} refused"))


def _print_per_size(con: Console, tgt: Any, res: Any) -> None:
    """The best mapping at each problem size, and how many fit there."""
    from polyjoule.reports.tables import Column, count, energy, print_table, ranking

    best = [(s, res.at(s["values"])[:1]) for s in res.sizes]
    print_table(f"best at each problem size by {ranking(tgt.objectives)}; latency in cycles",
                [Column("size", fold=False), Column("fit", number=True),
                 Column("best mapping", fold=False), Column("latency", number=True),
                 Column("energy", number=True)],
                [(_size_label(s["values"]), f"{count(s['encodable'])} of {count(s['nests'])}",
                  *((b[0]["mapping"].split(" @ ")[0], count(b[0]["latency"]),
                     energy(b[0]["energy_pj"])) if b else ("none fits", "-", "-")))
                 for s, b in best], con=con)


def _print_kernel_ranking(con: Console, tgt: Any, rows: list[dict[str, Any]],
                          size: Mapping[str, Any], several: bool) -> None:
    from polyjoule.reports.tables import Column, print_table, ranking

    cols = ("mapping", "latency", "energy_pj", "power_mw", "edp")
    fmt = _formats(cols, rows)
    at = f" at {_size_label(size['values'])}" if several else ""
    print_table(f"top {len(rows)} of {size['encodable']}{at} by {ranking(tgt.objectives)}; "
                "latency in cycles, power in mW",
                [Column(HEADERS.get(c, c), number=c != "mapping", fold=False) for c in cols],
                [[c["mapping"], *(_cell(k, c[k], fmt.get(k)) for k in cols[1:])]
                 for c in rows], con=con)


def _print_kernel_choice(con: Console, res: Any, several: bool) -> None:
    """The best mapping (at the first size, with several), checked in simulation, and the
    command that prices it alone."""
    from polyjoule.reports.tables import energy

    b = res.best
    verified = "" if "verified" not in b else "; simulated with capacities enforced: " + (
        "passes" if b["verified"] else "too large" if b["verified"] is None
        else "FAILS" + (f" (expected: it needs what --relieve {', '.join(b['relieved'])}"
                        " set aside; the simulator enforces the declared capacities)"
                        if b.get("relieved") else ""))
    at = f" at {_size_label(b['values'])}" if several else ""
    _say(con, f"chosen{at}: {b['mapping']}  latency {b['latency']:,} cycles, energy "
              f"{energy(b['energy_pj'])} (dynamic {energy(b['dynamic_pj'])}){verified}")
    if "analyze" in b:
        from rich.text import Text

        from polyjoule.reports.tables import WIDE, command_lines

        _say(con, "  same mapping alone:")
        for line in ([f"    {b['analyze']}"] if con.width >= WIDE
                     else command_lines(b["analyze"], con.width, "    ")):
            con.print(Text(line), soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add ``polyjoule map`` to the app."""
    app.command("map")(map_cmd)
