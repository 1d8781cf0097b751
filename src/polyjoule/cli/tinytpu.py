"""``polyjoule tinytpu``: disassemble, check, run and time TinyTPU-isa programs; generate GEMMs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from polyjoule.cli._common import handles_errors, output_path, parse_assignments
from polyjoule.errors import InProgramFile, ParameterRangeError, PolyjouleError, SpecError

tinytpu_app = typer.Typer(
    name="tinytpu",
    help="TinyTPU-isa toolchain: disasm, check, run, cycles, gen (file formats: docs/tinytpu.md).",
    no_args_is_help=True,
)

BUILD_HELP = ("Build: a shipped name (maxdim16 = the default, maxdim64, t8, agu4, depth6, "
                "agu4-depth6-imem104) or a build YAML file.")
CONFIG_HELP = ("Override build parameters as NAME=VALUE,... (T, MAXDIM, QD, DMA_WORDS, IMEM_SIZE, "
               "LOOP_DEPTH, AGU_TERMS, AR_RAW_DIST, MAXROWS, SPAD_ROWS, NVR, NAR).")


def _build(machine: str | None, config: str | None):  # -> Build
    """The build a command runs: ``--machine`` (default: the published build) + ``--config``."""
    from polyjoule.targets.tinytpu import builds

    build = builds.with_overrides(builds.load(machine), parse_assignments(config, "--config"))
    from polyjoule.reports.tables import comment

    comment(build.header())  # a comment, so disasm output stays valid .tasm
    return build


def _load(path: Path, build):  # -> list[Instr]
    from polyjoule.targets.tinytpu.asmfile import load_program
    from polyjoule.targets.tinytpu.builds import require_same

    require_same(path, build)
    return load_program(path, build.cfg)


def _admit(path: Path, prog, cfg):  # -> Admitted
    """The one gate of every command that runs, prices or writes a program: the checker,
    then the encoding limits (``assembler.admit``); a refusal names the file and the rule."""
    from polyjoule.targets.tinytpu.assembler import admit

    return _in_file(path, admit, prog, cfg)


def _in_file(path: Path, fn, *args):
    try:
        return fn(*args)
    except PolyjouleError as e:
        raise InProgramFile(path, e) from None


@tinytpu_app.command("disasm")
@handles_errors
def disasm_cmd(
    program: Path = typer.Argument(..., help="Program file (.tasm or .thex)."),
    machine: str | None = typer.Option(None, "--machine", help=BUILD_HELP),
    config: str | None = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """Print a program readably: pc, loops indented, AGU terms as 'f3 += iv0*64'."""
    from polyjoule.targets.tinytpu.disasm import disassemble

    build = _build(machine, config)
    typer.echo(_listing(_load(program, build), disassemble, build.cfg), nl=False)


def _listing(prog, disassemble, cfg) -> str:  # noqa: ANN001 - list[Instr], the disassembler
    """The listing, narrowed to the terminal when it can be: AGU terms in the compact form
    ``+fN:L*S``, then no pc labels. A program line is never wrapped (it must reassemble)."""
    import re

    from polyjoule.reports.tables import width

    limit = width()
    text = disassemble(prog, cfg=cfg)
    if max(map(len, text.splitlines()), default=0) <= limit:
        return text

    def compact(listing: str) -> str:
        return re.sub(r",? f(\d+) \+= iv(\d+)\*(\d+)", r" +f\1:\2*\3", listing)

    text = compact(text)
    if max(map(len, text.splitlines()), default=0) <= limit:
        return text
    return compact(disassemble(prog, pcs=False, cfg=cfg))


@tinytpu_app.command("check")
@handles_errors
def check_cmd(
    program: Path = typer.Argument(..., help="Program file (.tasm or .thex)."),
    machine: str | None = typer.Option(None, "--machine", help=BUILD_HELP),
    config: str | None = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """Run every checker rule and the encoding limits; exit 2 naming the first broken rule."""
    from polyjoule.reports.tables import echo
    from polyjoule.targets.tinytpu.assembler import header_of

    build = _build(machine, config)
    cfg = build.cfg
    prog = _load(program, build)
    ok = _admit(program, prog, cfg)
    h = header_of(prog, ok.stream, cfg)
    echo(f"{program}: ok: {len(prog)} static instructions, {len(ok.words)} words "
         f"(IMEM_SIZE={cfg.IMEM_SIZE})")
    for k, v in dataclasses.asdict(h).items():
        echo(f"  {k:16s} {v}", indent=19)


def _gemm_tag(path: Path) -> tuple[int, int, int, bool] | None:
    from polyjoule.targets.tinytpu.asmfile import gemm_tag

    return gemm_tag(path.read_text())


@tinytpu_app.command("run")
@handles_errors
def run_cmd(
    program: Path = typer.Argument(..., help="Program file (.tasm or .thex)."),
    machine: str | None = typer.Option(None, "--machine", help=BUILD_HELP),
    config: str | None = typer.Option(None, "--config", help=CONFIG_HELP),
    seed: int | None = typer.Option(None, "--seed", min=0, max=2**63 - 1,
                                    help="Seed for random int8 A and B (when no .npy; "
                                    "default 0)."),
    full_range: bool = typer.Option(False, "--full-range", help="Random values over all of "
                                    "int8 (default -8..8, so most outputs do not saturate)."),
    a: Path | None = typer.Option(None, "--a", help="A as a (MAXDIM, MAXDIM) int8 .npy file."),
    b: Path | None = typer.Option(None, "--b", help="B as a (MAXDIM, MAXDIM) int8 .npy file."),
    out: Path | None = typer.Option(None, "--out", callback=output_path, help="Save C to this .npy file."),
    gemm: str | None = typer.Option(None, "--gemm", help="MxKxN: compare C[:M,:N] with numpy "
                                    "(default: the '# polyjoule: gemm' tag of a generated file)."),
    relu: bool = typer.Option(False, "--relu", help="With --gemm: the GEMM has a relu."),
) -> None:
    """Run a program on the numpy reference model; check a GEMM's C against numpy."""
    import numpy as np

    from polyjoule.errors import ValidationMismatch
    from polyjoule.reports.tables import echo, width
    from polyjoule.targets.tinytpu.refmodel import execute, gemm_expected

    _run_conflicts(seed, full_range, a, b, gemm, relu)
    build = _build(machine, config)
    cfg = build.cfg
    prog = _load(program, build)
    stream = _admit(program, prog, cfg).stream
    rng = np.random.default_rng(0 if seed is None else seed)
    shape = (cfg.MAXDIM, cfg.MAXDIM)
    lo, hi = (-128, 128) if full_range else (-8, 9)
    tag: tuple[int, int, int, bool] | None = None
    if gemm is not None:  # before any run: a claim the images cannot hold is bad input
        tag = (*_claim(gemm, build.name, cfg.MAXDIM), relu)
    A = _npy("--a", a, shape) if a else rng.integers(lo, hi, shape, dtype=np.int8)
    B = _npy("--b", b, shape) if b else rng.integers(lo, hi, shape, dtype=np.int8)
    C = execute(stream, A, B, np.zeros(shape, np.int8), cfg)
    if tag is None:
        tag = _gemm_tag(program)
    if out is not None:
        _save_npy(out, C)
    if tag is None:
        with np.printoptions(linewidth=width(), threshold=4096):
            typer.echo(C)
        return
    M, K, N, r = tag
    want = gemm_expected(A, B, M, K, N, r)
    got = C[:M, :N]
    bad = int((got != want).sum())
    with np.printoptions(linewidth=width(), threshold=4096):
        typer.echo(got)
    if bad:
        raise ValidationMismatch(f"{program}: C[:{M},:{N}] differs from numpy in {bad} of "
                                 f"{M * N} cells")
    echo(f"{program}: C[:{M},:{N}] matches numpy (gemm {M}x{K}x{N}"
         f"{' relu' if r else ''}; int32 wrap, int8 saturate)")


def _run_conflicts(seed: int | None, full_range: bool, a: Path | None, b: Path | None,
                   gemm: str | None, relu: bool) -> None:
    """An option the run would ignore is refused, naming it and what makes it moot."""
    if relu and gemm is None:
        raise SpecError("--relu without --gemm: --relu says the GEMM that --gemm MxKxN claims "
                        "has a relu (a generated file's tag says so itself)")
    if a is not None and b is not None:
        for given, option in ((seed is not None, "--seed"), (full_range, "--full-range")):
            if given:
                raise SpecError(f"{option} with --a and --b: {option} draws random operands, "
                                "and both are given as .npy files")


#: the first bytes of every .npy file (numpy's format, any version)
NPY_MAGIC = b"\x93NUMPY"


def _npy(option: str, path: Path, shape: tuple[int, int]):
    """The int8 image ``option`` names; anything else is one line naming option and file
    (numpy's own text would talk about pickles for a text file)."""
    import numpy as np

    try:
        with path.open("rb") as f:
            magic = f.read(len(NPY_MAGIC))
    except OSError as e:
        raise SpecError(f"{option}: {path}: cannot read: {e.strerror or e}") from None
    if magic != NPY_MAGIC:
        raise SpecError(f"{option}: {path} is not a .npy array (no .npy header; write one "
                        "with numpy.save)")
    try:
        X = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:
        raise SpecError(f"{option}: {path} is not a readable .npy array: "
                        f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    if X.shape != shape:
        raise SpecError(f"{option}: {path}: shape {X.shape} is not {shape} (MAXDIM x MAXDIM)")
    if not np.issubdtype(X.dtype, np.integer) or X.min() < -128 or X.max() > 127:
        raise SpecError(f"{option}: {path}: dtype: values must be int8 (-128..127)")
    return X.astype(np.int8)


def _claim(text: str, build: str, maxdim: int) -> tuple[int, int, int]:
    """``--gemm MxKxN``: the GEMM the program is claimed to compute; A, B and C are
    MAXDIM x MAXDIM images, so an extent past MAXDIM is not a claim one run can check."""
    dims = _shape(text)
    over = [f"{r}={d}" for r, d in zip("MKN", dims, strict=True) if d > maxdim]
    if over:
        raise SpecError(f"--gemm {text}: {', '.join(over)} over MAXDIM={maxdim} of build "
                        f"{build} (A, B and C are MAXDIM x MAXDIM images; a larger layer is "
                        "host blocks: polyjoule map)")
    return dims


def _save_npy(path: Path, C) -> None:
    import numpy as np

    if path.suffix != ".npy":
        raise SpecError(f"{path}: --out must end in .npy")
    np.save(path, C)


def _shape(text: str) -> tuple[int, int, int]:
    parts = text.lower().split("x")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        raise SpecError(f"shape: {text!r} is not MxKxN") from None
    if len(dims) != 3:
        raise SpecError(f"shape: {text!r} is not MxKxN")
    if not all(1 <= d <= 2**16 for d in dims):
        raise SpecError(f"shape: {text!r}: every extent must be in 1..65536 (an empty GEMM "
                        "checks nothing)")
    return dims  # type: ignore[return-value]


@tinytpu_app.command("cycles")
@handles_errors
def cycles_cmd(
    program: Path = typer.Argument(..., help="Program file (.tasm or .thex)."),
    machine: str | None = typer.Option(None, "--machine", help=BUILD_HELP),
    config: str | None = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """Estimate ap_start→ap_done cycles with the event model, with a per-unit breakdown."""
    from polyjoule.reports.tables import echo
    from polyjoule.targets.tinytpu.cycles import simulate

    build = _build(machine, config)
    cfg = build.cfg
    prog = _load(program, build)
    _admit(program, prog, cfg)
    res = simulate(prog, cfg)
    echo(f"{program}: {res.cycles} cycles (model; build {build.name})")
    for k, v in res.breakdown().items():
        echo(f"  {k:22s} {v}", indent=25)


gen_app = typer.Typer(name="gen", help="Generate reference programs.", no_args_is_help=True)
tinytpu_app.add_typer(gen_app)


@gen_app.command("gemm")
@handles_errors
def gen_gemm_cmd(
    shape: str = typer.Argument(..., help="MxKxN, each a multiple of T, at most MAXDIM."),
    output: Path = typer.Option(..., "-o", "--output", callback=output_path, help="Program file to write "
                                "(.tasm or .thex)."),
    relu: bool = typer.Option(False, "--relu", help="Apply relu before the output."),
    flat: bool = typer.Option(False, "--flat", help="Fully unrolled (absolute addresses)."),
    machine: str | None = typer.Option(None, "--machine", help=BUILD_HELP),
    config: str | None = typer.Option(None, "--config", help=CONFIG_HELP),
) -> None:
    """Write the shipped tiled GEMM (sheet §12) as a program file."""
    from polyjoule.reports.tables import echo
    from polyjoule.targets.tinytpu.asmfile import save_program
    from polyjoule.targets.tinytpu.builds import record
    from polyjoule.targets.tinytpu.programs import gemm_program, gemm_program_flat

    build = _build(machine, config)
    cfg = build.cfg
    M, K, N = _shape(shape)
    try:
        prog = (gemm_program_flat if flat else gemm_program)(M, K, N, relu, cfg)
    except ParameterRangeError as e:  # name the workload typed and the build it is for
        raise ParameterRangeError(f"gen gemm {shape}: {e} (build {build.name})") from None
    _admit(output, prog, cfg)  # never write a program `check` refuses
    _in_file(output, save_program, output, prog, cfg, (M, K, N, relu), record(build))
    echo(f"{output}: gemm {M}x{K}x{N}{' relu' if relu else ''}: {len(prog)} static "
         "instructions")


def register(app: typer.Typer) -> None:
    """Add the ``tinytpu`` command group to the app."""
    app.add_typer(tinytpu_app)


