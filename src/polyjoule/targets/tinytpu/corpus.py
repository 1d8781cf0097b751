"""The judge's corpus: the 22 workload specs shipped with the package, and the mapper's pick.

The mapper maps a spec only when it is a registered workload at its placement: a
plain or relu GEMM ``mk,kn->mn`` with A in buffer A and B in buffer B at origin
(0, 0), no constants. Everything else (batch ranks, pointwise and reduction specs
with host constants) is reported as *not mapped* with the reason; shapes the
search refuses (not a multiple of T, below AR_RAW_DIST) say which causes refused them.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from polyjoule.errors import InfeasibleMapping, UnknownNameError
from polyjoule.targets.tinytpu.isa import Instr
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.spec import WorkloadSpec, load_spec, parse_spec


def _data() -> resources.abc.Traversable:
    return resources.files("polyjoule.library") / "data" / "specs"


def names() -> list[str]:
    """Names of the corpus specs, sorted."""
    return sorted(p.name[:-5] for p in _data().iterdir() if p.name.endswith(".json"))


def load(name_or_path: str | Path) -> WorkloadSpec:
    """A corpus spec by name, or a spec JSON by path."""
    import json

    text = str(name_or_path)
    if text in names():
        return parse_spec(json.loads((_data() / f"{text}.json").read_text()), f"{text}.json")
    if not Path(text).suffix and not Path(text).exists():
        raise UnknownNameError(f"spec: {text!r} is neither a corpus spec nor a file "
                               "(see polyjoule judge --list)")
    return load_spec(text)


@dataclass(frozen=True)
class Mapped:
    """The mapper's answer for a spec: its best program, or why there is none."""

    program: tuple[Instr, ...] | None
    label: str
    reason: str = ""


def _workload(spec: WorkloadSpec) -> str:
    """The registered workload a spec is, or raise ``ValueError`` with why it is not."""
    if spec.einsum != "mk,kn->mn":
        raise ValueError(f"einsum {spec.einsum}: only mk,kn->mn maps today (batch ranks, "
                         "pointwise and reductions are a later step)")
    if spec.constants:
        raise ValueError("host constants: not a registered workload")
    a, b = spec.inputs
    if (a.buffer, b.buffer) != ("A", "B") or any(
            t.origin != (0, 0) for t in (a, b, spec.output)):
        raise ValueError("operands not at the mapper's placement (A in A, B in B, origin 0,0)")
    if spec.accumulator != "int32" or spec.output.dtype != "int8":
        raise ValueError("only int32 accumulation narrowed to int8 maps")
    epi = tuple(spec.epilogue)
    if epi not in (("saturate",), ("relu", "saturate")):
        raise ValueError(f"epilogue {list(epi)}: only [saturate] or [relu, saturate] map")
    return "gemm.relu" if epi[0] == "relu" else "gemm"


def gemm_shape(spec: WorkloadSpec) -> tuple[int, int, int, bool] | None:
    """(M, K, N, relu) when the spec is a registered GEMM at the mapper's placement."""
    try:
        relu = _workload(spec) == "gemm.relu"
    except ValueError:
        return None
    d = spec.dims
    return d["m"], d["k"], d["n"], relu


def map_spec(spec: WorkloadSpec, cfg: Config) -> Mapped:
    """The mapper's best program for ``spec`` on ``cfg`` (search, rank, first candidate)."""
    from polyjoule.library import workloads as registry
    from polyjoule.search.search import Problem, search
    from polyjoule.targets.tinytpu.target import TinyTPUTarget

    try:
        name = _workload(spec)
    except ValueError as e:
        return Mapped(None, "-", str(e))
    d = spec.dims
    try:
        res = search(Problem(registry.get(name), {"M": d["m"], "K": d["k"], "N": d["n"]}),
                     TinyTPUTarget(cfg))
    except InfeasibleMapping as e:
        return Mapped(None, "-", str(e))
    if res.best is None:
        causes = ", ".join(f"{r.cause} {r.first}" for r in res.census.rows()[:3])
        return Mapped(None, "-", f"every nest refused (first causes: {causes})")
    return Mapped(tuple(res.best.program.instrs), res.best.label)
