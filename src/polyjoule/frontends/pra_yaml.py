"""The PRA file format (YAML), validated with pydantic; every error names file and field.

A file holds one PRA (top-level ``statements``) or a kernel of phases (``phases: [...]``)::

    version: 1
    name: gesummv
    dtype: fp32                       # op energies: fp64, fp32, fp16, int32, int16, int8
    params: {N0: 1, N1: 2}            # parameter -> smallest legal value
    dims:                             # inclusive bounds, affine in params and outer dims
      - {name: i0, lower: 0, upper: N0 - 1}
      - {name: i1, lower: 0, upper: N1 - 1}   # extent: optional tiling box (default upper+1)
    tensors:                          # external arrays in DRAM
      A: {shape: [N0, N1], kind: input}
      Y: {shape: [N0], kind: output}
    scalars: {alpha: 1.5}             # immediates usable in compute expressions
    statements:
      - {id: S1, var: x, input: "X[i1]", when: "i0 == 0"}      # DR -> IOb -> ID
      - {id: S2, var: x, from: x, dep: [1, 0], when: "i0 >= 1"} # x[i] = x[i - d]
      - {id: S3, var: t, compute: "a * x"}                      # zero-dependence operation
      - {id: S4, var: y, output: "Y[i0]", when: "i1 == N1 - 1"} # OD -> IOb -> DR

``when`` is one condition, a list (all must hold) or alternatives (one must hold), nested::

      - {id: S5, var: x, input: "X[i + a, j + b]",
         when: [{any: ["i == 0", "a == K - 1"]}, {any: ["j == 0", "b == K - 1"]}]}

A statement with alternatives is split at load into disjoint pieces ``S5.1, S5.2, ..``
(:func:`polyjoule.model.pra.split_alternatives`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, model_validator

from polyjoule.errors import SpecError
from polyjoule.frontends.pra_dump import transport_text
from polyjoule.frontends.specerrors import spec_error
from polyjoule.frontends.specfile import check_expression, read_yaml
from polyjoule.model.affine import Affine, parse_affine, parse_when
from polyjoule.model.expr import parse_expr
from polyjoule.model.pra import (
    PRA,
    Dim,
    Kernel,
    Statement,
    TensorDecl,
    check_datasets,
    check_one_writer,
    check_semantics,
    split_alternatives,
)

_Strict = ConfigDict(extra="forbid", frozen=True)
#: a bound, extent or shape entry: a number or an affine expression of the parameters
Scalar = Annotated[int | str, Field(description="a whole number or an affine expression "
                                                "like N - 1")]
#: a parameter's smallest value, a dataset's value, a dependence entry: a whole number
#: (not ``true``, not ``2.0``) within 64 bits
Whole = Annotated[StrictInt, Field(ge=-(2**63), le=2**63 - 1)]
#: a scalar immediate of a compute expression: a finite number
Real = Annotated[float, Field(allow_inf_nan=False)]


class DimSpec(BaseModel):
    model_config = _Strict
    name: str
    lower: Scalar
    upper: Scalar
    extent: Scalar | None = None


class TensorSpec(BaseModel):
    model_config = _Strict
    shape: list[Scalar]
    kind: Literal["input", "output", "inout"]


class StatementSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    id: str
    var: str
    input: str | None = None
    output: str | None = None
    from_: str | None = Field(default=None, alias="from")
    dep: list[Whole] | None = None
    compute: str | None = None
    when: Any = Field(default_factory=list)  # checked by parse_when, which names the entry

    @model_validator(mode="after")
    def _one_kind(self) -> StatementSpec:
        kinds = [k for k in ("input", "output", "from_", "compute") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("give exactly one of input, output, from (+dep), compute")
        if (self.from_ is None) != (self.dep is None):
            raise ValueError("a transport needs both 'from' and 'dep'")
        return self


class PRASpec(BaseModel):
    model_config = _Strict
    version: Literal[1] = 1
    name: str
    dtype: Literal["fp64", "fp32", "fp16", "int32", "int16", "int8"] = "fp32"
    params: dict[str, Whole]
    dims: list[DimSpec] = Field(min_length=1)
    tensors: dict[str, TensorSpec] = Field(default_factory=dict)
    scalars: dict[str, Real] = Field(default_factory=dict)
    statements: list[StatementSpec] = Field(min_length=1)


class KernelSpec(BaseModel):
    model_config = _Strict
    version: Literal[1] = 1
    name: str
    description: str = ""
    datasets: dict[str, dict[str, Whole]] = Field(default_factory=dict)
    phases: list[PRASpec] = Field(min_length=1)


_ACCESS = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*\[([^\[\]]*)\]\s*$")


def _subscripts(text: str) -> list[str]:
    """``i, (j, k)`` -> ``['i', '(j, k)']``: split at the commas outside brackets, so that
    a bracketed comma reaches the affine parser (and is refused there as a tuple)."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += (ch in "({") - (ch in ")}")
        if ch == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    return [*parts, text[start:]]


def _access(text: str, known: set[str], where: str) -> tuple[str, tuple[Affine, ...]]:
    m = _ACCESS.match(text)
    if not m:
        raise SpecError(f"{where}: {text!r} is not an array access like 'A[i0, i1]'")
    idx = tuple(parse_affine(p.strip(), known, where) for p in _subscripts(m.group(2)))
    return m.group(1), idx


def _dims(spec: PRASpec, where: str) -> tuple[Dim, ...]:
    """The dims, each bound affine in the parameters and the outer dims."""
    params = tuple(spec.params)
    dims: list[Dim] = []
    for k, d in enumerate(spec.dims):
        w = f"{where}: dims[{k}]"
        if d.name in params or d.name in (x.name for x in dims):
            raise SpecError(f"{w}.name: {d.name!r} is already a parameter or dim")
        outer = set(params) | {x.name for x in dims}
        lower = parse_affine(d.lower, outer, f"{w}.lower")
        upper = parse_affine(d.upper, outer, f"{w}.upper")
        if d.extent is not None:
            extent = parse_affine(d.extent, params, f"{w}.extent")
        elif upper.names() <= set(params) and lower.names() <= set(params):
            extent = upper.shift(1)
        else:
            raise SpecError(f"{w}.extent: bounds depend on outer dims; give the tiling box extent")
        if lower.names() <= set(params) and lower.names() and lower.coeffs != {}:
            raise SpecError(f"{w}.lower: a lower bound must be a constant or depend on outer dims")
        if not lower.names() and lower.const < 0:
            raise SpecError(f"{w}.lower: {lower} is negative; the tiling box starts at 0")
        dims.append(Dim(d.name, lower, upper, extent))
    return tuple(dims)


class _Scope:
    """The names statements of one PRA may use."""

    def __init__(self, spec: PRASpec, dims: tuple[Dim, ...], tensors: set[str], where: str):
        self.spec = spec
        self.where = where  # the file (and phase), as errors name it
        self.dim_names = [d.name for d in dims]
        self.known = set(spec.params) | set(self.dim_names)
        self.tensors = tensors
        self.written = {s.var for s in spec.statements if s.output is None}

    def access(self, text: str, where: str) -> tuple[str, tuple[Affine, ...]]:
        """A tensor access over the known names, of a declared tensor."""
        tname, idx = _access(text, self.known, where)
        if tname not in self.tensors:
            raise SpecError(f"{where}: unknown tensor {tname!r}")
        return tname, idx

    def check_kind(self, tensor: str, use: str, statement: str) -> None:
        """An ``input:`` reads a tensor declared input or inout, an ``output:`` writes one
        declared output or inout: the kind says which arrays the simulator fills and
        which it checks (``kind: input`` written by an output statement was accepted)."""
        kind = self.spec.tensors[tensor].kind
        if kind not in (use, "inout"):
            verb = "reads" if use == "input" else "writes"
            raise SpecError(f"{self.where}: tensors.{tensor}.kind: {kind}, but {statement} "
                            f"{verb} {tensor} (declare it {use} or inout)")

    def written_var(self, name: str, where: str) -> None:
        """Refuse reading a variable no statement writes."""
        if name not in self.written:
            raise SpecError(f"{where}: {name!r} is never written")


def _statement(s: StatementSpec, w: str, scope: _Scope, named: str) -> Statement:
    """One statement; ``w`` names it in errors (``named`` without the file)."""
    alternatives = parse_when(s.when, scope.known, f"{w}.when")
    stmt = _statement_body(s, w, scope)
    if stmt.kind in ("input", "output"):
        assert stmt.tensor is not None
        scope.check_kind(stmt.tensor, stmt.kind, named)
    if len(alternatives) == 1:
        return replace(stmt, when=alternatives[0])
    return replace(stmt, alternatives=alternatives)


def _statement_body(s: StatementSpec, w: str, scope: _Scope) -> Statement:
    """The statement without its condition."""
    if s.input is not None:
        tname, idx = scope.access(s.input, f"{w}.input")
        return Statement(s.id, "input", s.var, (), tensor=tname, index=idx,
                         text=f"{s.var}[i] = {s.input}")
    if s.output is not None:
        tname, idx = scope.access(s.output, f"{w}.output")
        scope.written_var(s.var, f"{w}.var")
        return Statement(s.id, "output", s.var, (), tensor=tname, index=idx,
                         text=f"{s.output} = {s.var}[i]")
    if s.from_ is not None:
        assert s.dep is not None
        n = len(scope.dim_names)
        if len(s.dep) != n:
            raise SpecError(f"{w}.dep: {s.dep} has {len(s.dep)} entries, the PRA has {n} dims")
        scope.written_var(s.from_, f"{w}.from")
        return Statement(s.id, "transport", s.var, (), source=s.from_,
                         dep=tuple(s.dep),
                         text=transport_text(s.var, s.from_, scope.dim_names, s.dep))
    assert s.compute is not None
    expr = parse_expr(s.compute, scope.written, [*scope.spec.scalars, *scope.spec.params],
                      f"{w}.compute")  # a parameter is an immediate of the run
    return Statement(s.id, "compute", s.var, (), expr=expr,
                     text=f"{s.var}[i] = {s.compute}")


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_names(spec: PRASpec, where: str) -> None:
    """Every declared name an ASCII identifier (isl and the code generators read them)."""
    named = [(f"params.{p}", p) for p in spec.params]
    named += [(f"dims[{k}].name", d.name) for k, d in enumerate(spec.dims)]
    named += [(f"tensors.{t}", t) for t in spec.tensors]
    named += [(f"scalars.{c}", c) for c in spec.scalars]
    named += [(f"statements[{k}].var", s.var) for k, s in enumerate(spec.statements)]
    for field, name in named:
        if not _NAME.fullmatch(name):
            raise SpecError(f"{where}: {field}: {name!r} is not an ASCII name "
                            "(letters, digits, '_')")


def _check_ids(spec: PRASpec, where: str) -> None:
    """Every statement id once (reports, errors and ``--order`` name statements by id)."""
    first: dict[str, int] = {}
    for k, s in enumerate(spec.statements):
        if s.id in first:
            raise SpecError(f"{where}: statements[{first[s.id]}] and statements[{k}]: "
                            f"repeated id {s.id!r}")
        first[s.id] = k


def _check_zero_cycle(pra: PRA, spec: PRASpec, where: str) -> None:
    """Statements reading each other's values of one iteration (a transport with ``dep``
    all 0 closing the loop) have no order to run in: refused here by file and field, not
    later by the schedule with the file unnamed."""
    from polyjoule.analysis.timing import zero_cycle

    bad = zero_cycle(pra)
    if not bad:
        return
    field = "statements"
    for k, s in enumerate(spec.statements):
        if s.dep is not None and not any(s.dep) and s.id in {b.split(".")[0] for b in bad}:
            field = f"statements[{k}] ({s.id}).dep: {s.dep}"
            break
    raise SpecError(f"{where}: {field}: a zero-dependence cycle through {', '.join(bad)} "
                    "(each reads at its own iteration what another writes there)")


def build_pra(spec: PRASpec, where: str, checked: bool = True) -> PRA:
    """Turn a validated spec into a :class:`PRA`, checking names and dependences (and, if
    ``checked``, its meaning: one writer per point, shapes, subscripts, reads; isl questions
    that cost 50-200 ms a kernel)."""
    _check_names(spec, where)
    _check_ids(spec, where)
    params = tuple(spec.params)
    dims = _dims(spec, where)
    tensors = []
    for name, t in spec.tensors.items():
        shape = tuple(parse_affine(s, params, f"{where}: tensors.{name}.shape") for s in t.shape)
        tensors.append(TensorDecl(name, shape, t.kind))
    scope = _Scope(spec, dims, {t.name for t in tensors}, where)
    statements = tuple(_statement(s, f"{where}: statements[{k}] ({s.id})", scope,
                                  f"statements[{k}] ({s.id})")
                       for k, s in enumerate(spec.statements))
    pra = PRA(spec.name, params, tuple(spec.params.items()), dims, tuple(tensors),
              tuple(spec.scalars.items()), statements, spec.dtype)
    pra = split_alternatives(pra, where)
    if checked:
        _check_zero_cycle(pra, spec, where)
    return check_semantics(check_one_writer(pra, where), where) if checked else pra


def _check_strings(data: Any, where: str, field: str = "") -> None:
    """Every expression of the file within the parser's limits (before any parser sees it)."""
    if isinstance(data, str):
        check_expression(data, f"{where}: {field}")
    elif isinstance(data, dict):
        for k, v in data.items():
            if k != "description":
                _check_strings(v, where, f"{field}.{k}" if field else str(k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            _check_strings(v, where, f"{field}[{i}]")


def load_kernel_data(data: Any, where: str, checked: bool = True) -> Kernel:
    """Validate parsed YAML data as a kernel (phases) or a single PRA; ``checked=False``
    skips the semantic checks (the built-ins, which a test checks once)."""
    if not isinstance(data, dict):
        raise SpecError(f"{where}: expected a mapping at the top level")
    _check_strings(data, where)
    try:
        if "phases" in data:
            ks = KernelSpec.model_validate(data)
            phases = tuple(build_pra(p, f"{where}: phases[{i}]", checked) for i, p in enumerate(ks.phases))
            return check_datasets(Kernel(ks.name, phases, ks.description, ks.datasets), where)
        ps = PRASpec.model_validate(data)
    except ValidationError as e:
        raise spec_error(e, where, KernelSpec if "phases" in data else PRASpec,
                         "docs/model.md") from None
    return Kernel(ps.name, (build_pra(ps, where, checked),))


def load_kernel_file(path: str | Path) -> Kernel:
    """Load a PRA/kernel YAML file; any problem is a :class:`SpecError` naming the file."""
    return load_kernel_data(read_yaml(path), str(Path(path)))
