"""The mapper for the whole corpus: every spec class reduced to one searched GEMM.

A spec maps as a registered GEMM (``gemm`` or ``gemm.relu``) searched on a padded
shape, then one program transform (act-mapper sheet §14):

* **pad**: K and N round up to T (a zero ``operand_pad`` makes the extra k-tile
  exact; an ``arbitrary`` pad maps only as a declared known gap, no opcode zeroes a
  row: otherwise it is not mapped, e.g. K=4 on a T=8 build), N only into
  a ``column_block`` write window; M below AR_RAW_DIST runs the mm on AR_RAW_DIST
  rows and *retires* the extra ones (mvout moves only M rows);
* **batch**: a batch rank (``bmk,bkn->bmn``) is one outer hardware loop around the
  GEMM, each batch one DRAM row step of A, B and C;
* **identity**: pointwise relu ``mn->mn`` is an mm of each T-column block of X
  against a host-placed TxT identity in B, the same outer loop stepping A's and
  C's column block;
* **ones column**: a row reduce ``mk->m`` is the GEMM against a host-placed ones
  column in B, written into the T-lane column block of the output vector.

Each class is a workload of the registry (``gemm``, ``gemm.relu``, ``bmm``,
``relu``, ``rowsum``); :func:`map_spec` returns the best ranked candidate whose
transform the build can still encode (LOOP_DEPTH, AGU_TERMS, the checker).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from polyjoule.errors import (
    AssemblyError,
    InfeasibleMapping,
    ProgramError,
    ResourceLimitError,
)
from polyjoule.targets.tinytpu.assembler import admit
from polyjoule.targets.tinytpu.isa import Instr, Op, Term
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.spec import ConstantSpec, WorkloadSpec


@dataclass(frozen=True)
class Reduction:
    """A spec as a searched GEMM plus the transform of its program.

    ``steps`` are the per-batch DRAM steps: ``a_row``, ``a_cb`` (A's column block),
    ``b_row``, ``c_row``, ``c_cb``.
    """

    workload: str
    gemm: str
    shape: tuple[int, int, int]
    rows: int
    batch: int = 1
    steps: dict[str, int] = field(default_factory=dict)

    @property
    def retired(self) -> bool:
        return self.rows < self.shape[0]


@dataclass(frozen=True)
class Mapped:
    """The mapper's answer for a spec: its best program, or why there is none."""

    program: tuple[Instr, ...] | None
    label: str
    reason: str = ""
    workload: str = "-"


def _up(x: int, T: int) -> int:
    return -(-x // T) * T


def _numerics(spec: WorkloadSpec) -> str:
    """``gemm`` or ``gemm.relu`` from accumulator, output type and epilogue."""
    if spec.accumulator != "int32" or spec.output.dtype != "int8":
        raise ValueError("only int32 accumulation narrowed to int8 maps")
    epi = tuple(spec.epilogue)
    if epi not in (("saturate",), ("relu", "saturate")):
        raise ValueError(f"epilogue {list(epi)}: only [saturate] or [relu, saturate] map")
    return "gemm.relu" if epi[0] == "relu" else "gemm"


def _placed(spec: WorkloadSpec, constant: str | None) -> ConstantSpec | None:
    """Check the mapper's placement: inputs A then B (or one input in A and the
    constant in B), every origin (0, 0); the constant of kind ``constant``, if any."""
    want = ("A", "B")[:len(spec.inputs)]
    if tuple(t.buffer for t in spec.inputs) != want or any(
            t.origin != (0, 0) for t in (*spec.inputs, spec.output, *spec.constants)):
        raise ValueError("operands not at the mapper's placement (A in A, B in B, origin 0,0)")
    if constant is None:
        if spec.constants:
            raise ValueError("host constants on a GEMM: not a registered workload")
        return None
    if len(spec.constants) != 1 or spec.constants[0].kind != constant \
            or spec.constants[0].buffer != "B":
        raise ValueError(f"needs exactly one {constant} constant in buffer B")
    return spec.constants[0]


def _padded_n(spec: WorkloadSpec, n: int, T: int) -> int:
    if n % T and spec.output.write_window != "column_block":
        raise ValueError(f"N={n} pads to {_up(n, T)} columns: mvout writes whole T-lane "
                         "blocks, which needs the column_block write window")
    return _up(n, T)


def _padded_k(spec: WorkloadSpec, k: int, T: int) -> int:
    """K rounded up to T; refused when the padding is arbitrary bytes, unless the spec
    declares that as its known gap (then the padded program is graded KNOWN GAP)."""
    if k % T and spec.operand_pad == "arbitrary" and not spec.known_gap:
        raise ValueError(f"K={k} pads to {_up(k, T)}: with operand_pad arbitrary the "
                         "padding bytes are garbage and no opcode zeroes a row")
    return _up(k, T)


def reduction(spec: WorkloadSpec, cfg: Config) -> Reduction:
    """The GEMM a spec is searched as, or ``ValueError`` with why it does not map."""
    T, d, gemm = cfg.T, spec.dims, _numerics(spec)
    if spec.einsum in ("mk,kn->mn", "bmk,bkn->bmn"):
        _placed(spec, None)
        m, k, n = d["m"], d["k"], d["n"]
        shape = (max(m, cfg.AR_RAW_DIST), _padded_k(spec, k, T), _padded_n(spec, n, T))
        if spec.einsum == "mk,kn->mn":
            return Reduction(gemm, gemm, shape, m)
        if k % T:
            raise ValueError(f"batched K={k}: a padded k-tile would read the next batch")
        return Reduction("bmm", gemm, shape, m, d["b"],
                         {"a_row": m, "b_row": k, "c_row": m})
    if spec.einsum == "mn->mn":
        eye = _placed(spec, "identity")
        if (eye.rows, eye.cols) != (T, T):
            raise ValueError(f"the identity constant must be {T}x{T} (one mm tile)")
        m, n = d["m"], _padded_n(spec, d["n"], T)
        return Reduction("relu", gemm, (max(m, cfg.AR_RAW_DIST), T, T), m, n // T,
                         {"a_cb": 1, "c_cb": 1})
    if spec.einsum == "mk->m":
        ones = _placed(spec, "ones_column")
        if ones.rows != d["k"] or ones.cols != 1:
            raise ValueError(f"the ones column must be {d['k']}x1")
        shape = (max(d["m"], cfg.AR_RAW_DIST), _padded_k(spec, d["k"], T),
                 _padded_n(spec, 1, T))
        return Reduction("rowsum", gemm, shape, d["m"])
    raise ValueError(f"einsum {spec.einsum}: no reduction to a GEMM (the corpus classes "
                     "are mk,kn->mn, bmk,bkn->bmn, mn->mn, mk->m)")


def transform(program: tuple[Instr, ...], red: Reduction, cfg: Config) -> list[Instr]:
    """Retire padded rows, then wrap in the batch loop; checked and assembled on ``cfg``.

    Raises :class:`InfeasibleMapping` when the build cannot take the result.
    """
    out = list(program)
    if red.retired:
        mv = [i for i, x in enumerate(out) if x.op == Op.MVOUT]
        if any(out[i].nr != red.shape[0] for i in mv):
            raise InfeasibleMapping("rows tiled below the padded M: nothing to retire")
        for i in mv:
            out[i] = Instr(Op.MVOUT, out[i].f, red.rows, out[i].terms)
    if red.batch > 1:
        out = _batched(out, red)
    try:
        admit(out, cfg)
    except (ProgramError, AssemblyError, ResourceLimitError) as e:
        raise InfeasibleMapping(f"transformed program refused: {e}") from None
    return out


def _batch_terms(x: Instr, steps: dict[str, int]) -> list[Term]:
    """The batch loop's terms (level 0) for one instruction."""
    if x.op == Op.DMA_LD:
        keys = (("b_row", 1),) if x.f[0] & 1 else (("a_row", 1), ("a_cb", 2))
    elif x.op == Op.MVOUT:
        keys = (("c_row", 1), ("c_cb", 2))
    else:
        return []
    return [Term(f, 0, steps[k]) for k, f in keys if steps.get(k)]


def _batched(program: list[Instr], red: Reduction) -> list[Instr]:
    """The program inside one outer loop of ``red.batch`` trips (levels shift by one)."""
    body = []
    for x in program:
        if x.op in (Op.LOOP, Op.ENDLOOP):
            body.append(x)
            continue
        terms = [Term(t.field, t.level + 1, t.stride) for t in x.terms]
        terms = sorted([*terms, *_batch_terms(x, red.steps)], key=lambda t: t.field)
        body.append(Instr(x.op, x.f, x.nr, tuple(terms)))
    return [Instr(Op.LOOP, nr=red.batch), *body, Instr(Op.ENDLOOP)]


def map_spec(spec: WorkloadSpec, cfg: Config) -> Mapped:
    """The mapper's best program for ``spec`` on ``cfg`` (search, rank, first candidate
    whose transform the build encodes)."""
    from polyjoule.library import workloads as registry
    from polyjoule.search.search import Problem, search
    from polyjoule.targets.tinytpu.target import TinyTPUTarget

    try:
        red = reduction(spec, cfg)
    except ValueError as e:
        return Mapped(None, "-", str(e))
    m, k, n = red.shape
    try:
        res = search(Problem(registry.get(red.gemm), {"M": m, "K": k, "N": n}),
                     TinyTPUTarget(cfg))
    except InfeasibleMapping as e:
        return Mapped(None, "-", str(e), red.workload)
    why = []
    for cand in res.candidates:
        try:
            prog = transform(tuple(cand.program.instrs), red, cfg)
        except InfeasibleMapping as e:
            why.append(f"{cand.label or '-'}: {e}")
            continue
        return Mapped(tuple(prog), _label(cand.label, red), workload=red.workload)
    if not res.candidates:
        causes = ", ".join(f"{r.cause} {r.first}" for r in res.census.rows()[:3])
        return Mapped(None, "-", f"every nest refused (first causes: {causes})",
                      red.workload)
    return Mapped(None, "-", "; ".join(why[:2]), red.workload)


def _label(label: str, red: Reduction) -> str:
    """The nest label, with the batch loop and the retired rows named."""
    if red.batch > 1:
        outer = f"{'B' if red.workload == 'bmm' else 'Nb'}{red.batch}"
        label = f"{outer}>{label}" if label and label != "-" else outer
    label = label or "-"
    if red.retired:
        label += f" (M{red.shape[0]}->{red.rows})"
    return label
