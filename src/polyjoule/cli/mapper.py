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
        return f"measured ({cycles} cyc{', ' + basis if basis else ''})"
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
HEADERS = {"energy_pj": "energy", "edp": "EDP (energy x cycles)"}


def _cell(name: str, value: Any) -> str:
    """Energies (and energy x cycles) in engineering units, counts exact."""
    from polyjoule.reports.tables import count, energy

    if name == "energy_pj":
        return energy(value)
    if name == "edp":  # pJ x cycles, in the energy's engineering unit
        return f"{energy(value)}·cycles"
    if isinstance(value, float):
        return f"{value:,.1f}"  # mW; exact in --json
    return count(value) if isinstance(value, int) else str(value)


def _census_rows(res: Any) -> list[dict[str, Any]]:
    return [{"cause": r.cause, "first": r.first, "any": r.any, "kind": str(r.kind),
             "example": r.example, "detail": r.detail} for r in res.census.rows()]


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
        _say(con, "  (express: the encoding cannot say it; refuse: the machine would accept it "
                  "and compute wrongly, hang or lose values, so only a checker stops it)")
    if independent is not None:
        print_table("independent census (each structural predicate asked of every nest)",
                    [Column("nests", number=True), Column("kind", fold=False),
                     Column("cause", fold=False)],
                    [(str(n), str(targets.kind(target, cause)), cause) for cause, n in
                     sorted(independent.items(), key=lambda kv: (-kv[1], kv[0]))], con=con)


def _print_ranking(con: Console, res: Any, cands: list[dict[str, Any]]) -> None:
    from polyjoule.reports.tables import Column, print_table

    names = res.best.cost.names
    shown = [k for k in ("rows", "static", "words") if any(k in c for c in cands)]
    both = [k for k in ("makespan", "energy_pj") if k not in names and any(k in c for c in cands)]
    print_table(f"top {len(cands)} of {len(res.candidates)} candidates by ({', '.join(names)})",
                [Column("mapping", fold=False), *(Column(k, number=True) for k in shown),
                 *(Column(HEADERS.get(n, n), number=True) for n in (*names, *both)),
                 Column("bottleneck"), Column("evidence")],
                [(c["mapping"], *(str(c.get(k, "")) for k in shown),
                  *(_cell(n, c[n]) for n in (*names, *both)),
                  f"{c['bottleneck']} {c['bottleneck_load']}", c["evidence"]) for c in cands],
                con=con)


def _print_choice(con: Console, target: Any, res: Any) -> None:
    from polyjoule.search import target as targets

    best = res.best
    from polyjoule.reports.tables import count, energy

    _say(con, f"chosen: {best.label}  cost {best.cost}"
         + ("  (no emitted loops: one intrinsic tile)" if best.label == "-" else ""))
    e = _breakdown(target, best).get("energy")
    if e is not None:
        top = sorted(e["pj"].items(), key=lambda kv: -kv[1])[:4]
        _say(con, f"energy {energy(e['total_pj'])}, most in: " + ", ".join(
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
        _print_ranking(con, res, cands)
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
    if top < 0:
        raise SpecError(f"--top: {top} < 0")
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
    return {"energy": {"mapping": cand.label, "counts": dict(e.counts),
                       "pj": {k: round(v, 3) for k, v in e.pj.items()},
                       "total_pj": round(e.total_pj, 3)}}


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
    top: int = typer.Option(8, "--top", help="Candidates to print."),
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
    objective: str | None = typer.Option(None, "--objective", help="Rank by cycles (the "
                                         "default), energy or edp (energy x cycles)."),
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
) -> None:
    """Enumerate WORKLOAD's mapspace at SHAPE, lower every nest, rank, and census refusals."""
    if gate and objective not in (None, "cycles"):
        raise SpecError(f"--objective {objective}: the gate checks published makespans; "
                        "it ranks by cycles")
    machine = machine or arch
    if _maps_kernels(target) and not (list_ or gate or tosa is not None):
        with machine_target(target, machine, echo=not as_json), \
                objective_target(target, objective, energy_table):
            _kernel_cmd(workload, shape, target, sets, top, census, relieve, as_json,
                        not no_verify, bandwidth_bound, wide)
        return
    with machine_target(target, machine, echo=not as_json), \
            objective_target(target, objective, energy_table):
        _map(workload, shape, target, top, slots, census, relieve, as_json, no_verify, gate,
             list_, tosa, wide)


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


def _kernel_cmd(kernel_name: str | None, shape: str | None, target: str, sets: list[str],
                top: int, census: bool, relieve: str | None, as_json: bool, verify: bool,
                bandwidth_bound: bool, wide: bool = False) -> None:
    """``map KERNEL --target T --set ...`` for a kernel target: its vectorised search."""
    from polyjoule.dse.cache import FormulaCache
    from polyjoule.dse.space import size_grid
    from polyjoule.library.kernels import get
    from polyjoule.search import target as targets

    tgt = targets.get(target)
    if kernel_name is None:
        raise SpecError(f"map --target {target}: give a KERNEL (e.g. gesummv) and --set sizes")
    kernel = get(kernel_name)
    specs = [*sets, *([x for x in shape.split(",") if x.strip()] if shape else [])]
    if not specs:
        specs = [f"{k}={v}" for k, v in kernel.resolve(None, "MINI").items()]
    grid = size_grid(kernel, specs)
    tgt = tgt.configured(bandwidth_bound=bandwidth_bound, store=FormulaCache())
    if relieve is not None and relieve not in tgt.relievable:
        raise UnknownNameError(f"--relieve: {relieve!r} is not a constraint {target} can "
                               f"relieve ({', '.join(tgt.relievable)})")
    with progress_bar(f"{kernel.name}: searching {target}"):
        res = tgt.search_kernel(kernel, grid.values, frozenset({relieve} if relieve else ()), top)
    if verify and res.best is not None:
        res.best["verified"] = tgt.verify_row(kernel, res.best)
    if as_json:
        typer.echo(dumps(_kernel_doc(tgt, res, census), indent=2))
    else:
        _print_kernel_search(tgt, res, census, wide)
    if not res.candidates:
        raise InfeasibleMapping(f"{kernel.name}: every mapping was refused")


def _kernel_doc(tgt: Any, res: Any, census: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "problem": res.kernel, "target": tgt.name, "nests": res.considered,
        "encodable": res.accepted, "census": _census_rows(res), "candidates": res.candidates,
        "objectives": list(tgt.objectives), "objective": tgt.objective,
        "chosen": None if res.best is None else {
            "mapping": res.best["mapping"], "cost": [res.best[k] for k in tgt.objectives]},
        "derive_seconds": res.derive_seconds, "eval_seconds": res.eval_seconds}
    if census:
        doc["independent"] = dict(res.independent)
    if res.relief is not None:
        doc["relieve"] = res.relief
    return doc


def _print_kernel_search(tgt: Any, res: Any, census: bool, wide: bool = False) -> None:
    from polyjoule.reports.tables import Column, energy, print_table
    from polyjoule.search import target as targets

    con = _console(wide)
    _say(con, f"{res.kernel} on {targets.describe(tgt)}: {res.considered} mappings, "
              f"{res.accepted} fit" + (f" (relieved: {', '.join(sorted(res.relieved))})"
                                       if res.relieved else "")
              + f"; derived in {res.derive_seconds:.2f} s, evaluated in "
                f"{res.eval_seconds:.3f} s")
    _print_census(con, tgt, res, res.independent if census else None)
    if res.relief is not None:
        r = res.relief
        _say(con, f"relieve {r['cause']}: {r['alone']} mappings refused by it alone returned; "
                  "what binds the rest next: "
                  + (", ".join(f"{c} {n}" for c, n in r["rebound"].items()) or "-"))
    if not res.candidates:
        return
    cols = ("mapping", "latency", "energy_pj", "power_mw", "edp")
    print_table(f"top {len(res.candidates)} of {res.accepted} by ({', '.join(tgt.objectives)}); "
                "latency in cycles, power in mW",
                [Column(HEADERS.get(c, c), number=c != "mapping", fold=False) for c in cols],
                [[c["mapping"], *(_cell(k, c[k]) for k in cols[1:])] for c in res.candidates],
                con=con)
    b = res.best
    verified = ("" if "verified" not in b else "; simulated with capacities enforced: "
                + ("passes" if b["verified"] else "FAILS" if b["verified"] is False
                   else "too large"))
    _say(con, f"chosen: {b['mapping']}  latency {b['latency']:,} cycles, energy "
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
