"""``polyjoule judge``: grade a TinyTPU-isa program (or the mapper's pick) against a workload spec."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import typer

from polyjoule.cli._common import handles_errors
from polyjoule.cli.tinytpu import BUILD_HELP
from polyjoule.errors import SpecError, ValidationMismatch

STATUSES = ("CORRECT", "KNOWN GAP", "WRONG", "REJECTED", "NOT MAPPED", "SKIPPED")


def _image(path: Path) -> list[int] | None:
    """A ``.thex`` file's words (its header is what the units are promised)."""
    if path.suffix != ".thex":
        return None
    lines = (ln.split("#", 1)[0].strip() for ln in path.read_text().splitlines())
    return [int(ln, 16) for ln in lines if ln]


def _program(path: Path, build: Any) -> tuple[list[Any], list[int] | None]:
    from polyjoule.targets.tinytpu.asmfile import load_program
    from polyjoule.targets.tinytpu.builds import require_same

    require_same(path, build)
    return load_program(path, build.cfg, check_header=False), _image(path)  # judged itself


def _print_verdict(v: Any, program: Any, cfg: Any) -> None:
    from polyjoule.reports.tables import echo

    name = v.spec.name
    echo(f"spec {name}: {v.spec.einsum} {v.spec.dims}  ({v.spec.stresses})")
    if v.mapping != "-" or program is None:
        echo(f"program: the mapper's best, {v.mapping}")
    if v.status in ("SKIPPED", "NOT MAPPED"):
        echo(f"{v.status}: {v.detail}")
    elif v.rejection is not None:
        echo(v.rejection.render(program))
    else:
        echo("legal: isa, encoding, protocol, spec layers pass")
        for c in v.cases:
            echo(f"  correct[{c.dist:6s}] {c.total - c.wrong}/{c.total} output bytes "
                 f"match the gold, {c.clobbered} bytes changed outside the window")
        s = v.speed
        ref = (f"; reference submission: {s.reference[0]} {s.reference[1]} -> estimate "
               f"{s.reference[2]}, cosim "
               f"{s.reference[3] if s.reference[3] is not None else 'never completed'} "
               f"(T=4, MAXDIM=16, QD=8 era)") if s.reference else ""
        if s.cosim is not None:
            ref += (f"; cosim of this exact program on this build: {s.cosim.cycles} "
                    f"({s.cosim.series})")
        pace = {None: "", True: "; fast (estimate within 10% of the reference's)",
                False: "; SLOW (estimate more than 10% above the reference's)"}[s.fast]
        echo(f"fast: model {s.model} cycles; estimate {s.estimate:.0f} "
             f"(critical {s.unit} {s.work}){ref}{pace}")
        if v.status == "KNOWN GAP":
            echo(f"known gap: {v.detail}")
    echo(f"VERDICT {name} {v.status.replace(' ', '_')}"
         + (f" {v.rejection.layer}/{v.rejection.rule}" if v.rejection else ""))


def _row(v: Any) -> list[str]:
    cases = "-"
    if v.cases:
        cases = " ".join(f"{c.wrong}/{c.clobbered}" for c in v.cases)
    s = v.speed
    return [v.spec.name, v.mapping, v.status, v.detail if not v.cases else cases,
            str(s.model) if s else "-", f"{s.estimate:.0f}" if s else "-",
            str(s.reference[2]) if s and s.reference else "-",
            str(s.reference[3]) if s and s.reference and s.reference[3] else "-",
            str(s.cosim.cycles) if s and s.cosim else "-"]


def _corpus(build: Any, seed: int, wide: bool = False) -> None:
    from polyjoule.reports.tables import Column, print_table
    from polyjoule.targets.tinytpu import corpus
    from polyjoule.targets.tinytpu.judge import judge_best

    verdicts = [judge_best(corpus.load(n), build.cfg, seed) for n in corpus.names()]
    print_table(f"judge --corpus on build {build.name} (wrong/clobbered bytes per "
                "distribution: small mid full corner; ref = the reference submission, T=4 "
                "MAXDIM=16 QD=8 era; cosim = published figure of this exact program on this "
                "build)",
                [Column("spec", fold=False), Column("mapping", fold=False),
                 Column("verdict", fold=False), Column("cases / reason"),
                 *(Column(c, number=True) for c in ("model", "estimate", "ref est.",
                                                    "ref cosim", "cosim"))],
                [_row(v) for v in verdicts], wide=wide)
    n = Counter(v.status for v in verdicts)
    counts = " ".join(f"{s.replace(' ', '_')}={n[s]}" for s in STATUSES)
    # two grep-able lines, each within 80 columns (the six counts sum to the 22 specs)
    typer.echo(f"JUDGE corpus build={build.name} specs={len(verdicts)}")
    typer.echo(f"JUDGE corpus {counts}")
    if any(v.failed for v in verdicts):
        raise ValidationMismatch(f"judge --corpus: WRONG={n['WRONG']} "
                                 f"REJECTED={n['REJECTED']}")


def _list() -> None:
    from polyjoule.reports.tables import echo
    from polyjoule.targets.tinytpu import corpus

    for n in corpus.names():
        s = corpus.load(n)
        gap = "  [known gap]" if s.known_gap else ""
        echo(f"{n:28s} {s.einsum:14s} {s.stresses}{gap}", indent=44)


@handles_errors
def judge_cmd(
    spec: str | None = typer.Argument(None, help="Corpus spec name (see --list) or a spec "
                                      "JSON file."),
    program: Path | None = typer.Argument(None, help="Program (.tasm/.thex); default: the "
                                          "mapper's best for the spec."),
    machine: str | None = typer.Option(None, "--machine", help=BUILD_HELP),
    list_: bool = typer.Option(False, "--list", help="List the corpus specs."),
    all_: bool = typer.Option(False, "--corpus", help="Grade the whole corpus in one table."),
    seed: int = typer.Option(0, "--seed", min=0, max=2**63 - 1, help="Seed of the operand and prefill draws."),
    wide: bool = typer.Option(False, "--wide", help="Full table, whatever the terminal's width."),
) -> None:
    """Grade a program against a workload spec: legal (4 layers), correct (4 distributions), fast.

    A program that reads is graded, whatever it asks of the machine: a broken rule is the
    verdict REJECTED [layer / rule], not an error. Exit 0: CORRECT, KNOWN GAP, NOT MAPPED
    or SKIPPED. Exit 1: a failing grade, REJECTED or WRONG. Exit 2: bad input, one line
    naming the file and the line or field: an unknown or broken spec, or a program file
    that cannot be read or parsed (a value no instruction word holds, e.g. f0=-1 or
    nr=300, an unknown mnemonic, bad hex, a truncated image, another build's file).
    """
    from polyjoule.targets.tinytpu import builds, corpus
    from polyjoule.targets.tinytpu.judge import judge, judge_best

    if list_ and all_:
        raise SpecError("judge: --list and --corpus: --list names the corpus' specs, "
                        "--corpus grades them; give one")
    if (list_ or all_) and (spec is not None or program is not None):
        raise SpecError(f"judge: {'--list' if list_ else '--corpus'} takes no SPEC or "
                        f"PROGRAM (got {spec if spec is not None else program})")
    if list_:
        _list()
        return
    build = builds.load(machine)
    from polyjoule.reports.tables import comment

    comment(build.header())
    if all_:
        _corpus(build, seed, wide)
        return
    if spec is None:
        raise SpecError("judge: give SPEC [PROGRAM], or --corpus, or --list")
    ws = corpus.load(spec)
    if program is None:
        v = judge_best(ws, build.cfg, seed)
        prog = None
        if v.mapping != "-":
            prog = corpus.map_spec(ws, build.cfg).program
    else:
        prog, image = _program(program, build)
        v = judge(ws, prog, build.cfg, image, seed=seed)
    _print_verdict(v, prog, build.cfg)
    if v.failed:
        raise ValidationMismatch(f"{ws.name}: {v.status}")


def register(app: typer.Typer) -> None:
    """Add ``polyjoule judge`` to the app."""
    app.command("judge")(judge_cmd)
