"""The loop-nest model: a piecewise regular algorithm (PRA).

A PRA is an n-dimensional iteration space over parameters (the loop bounds) and a list of
statements, each with a condition space (an affine subset of the iteration space):

* ``input``     ``x[i] = X[f(i)]``     an external tensor element enters the array;
* ``output``    ``Y[f(i)] = y[i]``     a result leaves the array;
* ``transport`` ``x[i] = y[i - d]``    a pure copy along a constant dependence ``d``;
* ``compute``   ``x[i] = F(y[i], ..)`` an operation over zero-dependence operands.

A condition written as alternatives (``when: {any: [...]}``) is split once, at load, into
disjoint conjunctive pieces ``S3.1, S3.2, ..`` (:func:`split_alternatives`): every later
stage (counts, tiling, schedule, simulator) sees plain conjunctions, and a piece names its
user statement in ``origin``, so the pieces' counts add up to the user's statement.

A :class:`Kernel` is a sequence of PRAs (phases) whose energies and latencies add, plus an
optional numpy reference semantics used by the simulator as its independent witness.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from polyjoule.errors import ConditionError, SpecError
from polyjoule.model.affine import Affine, Conjunction, Constraint
from polyjoule.model.dtypes import DTYPES  # noqa: F401 - re-exported
from polyjoule.model.expr import Expr

StatementKind = Literal["input", "output", "transport", "compute"]


@dataclass(frozen=True)
class Dim:
    """Loop index with inclusive bounds; ``extent`` is the box the tiling partitions."""

    name: str
    lower: Affine
    upper: Affine
    extent: Affine  # tiles cover 0 <= i < extent


@dataclass(frozen=True)
class TensorDecl:
    """An external array (DRAM): its shape in parameters and whether it is read or written."""

    name: str
    shape: tuple[Affine, ...]
    kind: Literal["input", "output", "inout"]


@dataclass(frozen=True)
class Statement:
    """One statement of a PRA; the fields used depend on ``kind``."""

    id: str
    kind: StatementKind
    var: str  # written variable (output: the variable read)
    when: tuple[Constraint, ...] = ()
    source: str | None = None  # transport: the variable read at i - dep
    dep: tuple[int, ...] | None = None
    tensor: str | None = None  # input / output
    index: tuple[Affine, ...] = ()
    expr: Expr | None = None  # compute
    text: str = ""
    origin: str = ""  # a piece of a condition with alternatives: the user statement's id
    alternatives: tuple[Conjunction, ...] = ()  # that statement's condition, as written

    @property
    def user_id(self) -> str:
        """The id of the statement as the user wrote it (a piece's ``origin``)."""
        return self.origin or self.id

    @property
    def reads(self) -> tuple[str, ...]:
        """Variables read at the statement's own iteration (or at ``i - dep``)."""
        if self.kind == "compute":
            assert self.expr is not None
            return self.expr.operands
        if self.kind == "transport":
            assert self.source is not None
            return (self.source,)
        if self.kind == "output":
            return (self.var,)
        return ()




@dataclass(frozen=True)
class PRA:
    """A piecewise regular algorithm over parameters ``params`` and dims ``dims``."""

    name: str
    params: tuple[str, ...]
    param_min: tuple[tuple[str, int], ...]
    dims: tuple[Dim, ...]
    tensors: tuple[TensorDecl, ...]
    scalars: tuple[tuple[str, float], ...]
    statements: tuple[Statement, ...]
    dtype: str = "fp32"

    @property
    def n(self) -> int:
        return len(self.dims)

    @property
    def dim_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dims)

    def tensor(self, name: str) -> TensorDecl:
        for t in self.tensors:
            if t.name == name:
                return t
        raise SpecError(f"PRA {self.name}: no tensor {name!r}")

    def domain(self) -> tuple[Constraint, ...]:
        """The iteration space as constraints ``lower <= i <= upper``."""
        out: list[Constraint] = []
        for d in self.dims:
            i = Affine.of({d.name: 1})
            out.append(Constraint(i - d.lower))
            out.append(Constraint(d.upper - i))
        return tuple(out)

    def statement_space(self, s: Statement) -> tuple[Constraint, ...]:
        return self.domain() + s.when

    def counts_as_work(self, s: Statement) -> bool:
        """Do ``s``'s executions count the loop body's iterations (``work``, utilisation)?
        The compute statements do; a copy nest (``B[i][j] = A[j][i]``) has none, and there
        every statement does: its body moves a value at each point it runs."""
        return s.kind == "compute" or not any(t.kind == "compute" for t in self.statements)

    def check_params(self, values: Mapping[str, int], where: str = "parameters") -> None:
        """Every parameter given, an integer and at least its minimum."""
        from polyjoule.errors import ParameterRangeError

        for p in self.params:
            if p not in values:
                raise ParameterRangeError(f"{where}: {self.name}: parameter {p} is not set")
        for p, lo in self.param_min:
            v = values[p]
            if not isinstance(v, int | np.integer) and not np.all(np.asarray(v) >= lo):
                raise ParameterRangeError(f"{where}: {p} below its minimum {lo}")
            if isinstance(v, int | np.integer) and v < lo:
                raise ParameterRangeError(f"{where}: {p}={v} is below its minimum {lo}")


Reference = Callable[[Mapping[str, np.ndarray], Mapping[str, int]], dict[str, np.ndarray]]


@dataclass(frozen=True)
class Kernel:
    """A named sequence of PRA phases with dataset presets and numpy reference semantics."""

    name: str
    phases: tuple[PRA, ...]
    description: str = ""
    datasets: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    reference: Reference | None = None
    notes: str = ""

    @property
    def params(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for ph in self.phases:
            for p in ph.params:
                seen[p] = None
        return tuple(seen)

    def tensors(self) -> dict[str, TensorDecl]:
        out: dict[str, TensorDecl] = {}
        for ph in self.phases:
            for t in ph.tensors:
                prev = out.get(t.name)
                if prev is not None and prev.kind != t.kind:
                    t = TensorDecl(t.name, t.shape, "inout")
                out[t.name] = t
        return out

    def resolve(self, values: Mapping[str, int] | None = None, dataset: str | None = None) -> dict[str, int]:
        """Parameter values: a dataset preset, overridden by explicit values."""
        from polyjoule.errors import UnknownNameError

        out: dict[str, int] = {}
        if dataset is not None:
            if dataset not in self.datasets:
                raise UnknownNameError(
                    f"--dataset: {self.name} has no dataset {dataset!r} "
                    f"(known: {', '.join(self.datasets) or 'none'})"
                )
            out.update(self.datasets[dataset])
        out.update({k: int(v) for k, v in self.spread(values or {}, "--set").items()})
        return out

    def spread(self, values: Mapping[str, Any], where: str) -> dict[str, Any]:
        """``values`` per parameter: ``N`` (or ``ALL``), where it is not a parameter, sets
        every parameter not given (``--set N=64`` for gemm's ``NI, NJ, NK``)."""
        from polyjoule.errors import UnknownNameError

        out: dict[str, Any] = {}
        tied = None
        for k, v in values.items():
            if k in self.params:
                out[k] = v
            elif k == "N" or k.upper() == "ALL":
                tied = v
            else:
                raise UnknownNameError(f"{where}: {self.name} has no parameter {k!r} "
                                       f"(parameters: {', '.join(self.params)}; N sets all)")
        if tied is not None:
            out.update({p: tied for p in self.params if p not in out})
        return out


def check_one_writer(pra: PRA, where: str) -> PRA:
    """Refuse two statements that write one variable at one point: which value would win?

    Writers of one variable are fine under disjoint conditions (a boundary input and an
    interior transport); isl decides whether two conditions, within the dimension bounds and
    the parameter minimums, share a point for some parameter values.
    """
    from polyjoule.analysis import _isl

    base = [c.isl() for c in pra.domain()] + [f"{p} >= {lo}" for p, lo in pra.param_min]
    writers = [s for s in pra.statements if s.kind != "output"]
    for n, a in enumerate(writers):
        for b in writers[n + 1:]:
            if a.var != b.var or (a.origin and a.origin == b.origin):
                continue  # pieces of one statement are disjoint by construction
            if _isl.overlap(list(pra.params), list(pra.dim_names),
                            base + [c.isl() for c in a.when], [c.isl() for c in b.when]):
                raise SpecError(
                    f"{where}: {label(pra, a)} and {label(pra, b)} both write {a.var!r} at "
                    "the same points; give them disjoint 'when' conditions")
    return pra


def label(pra: PRA, s: Statement) -> str:
    """``statements[2] (S3)`` as the user numbered it (a statement's pieces are adjacent and
    count once); a piece adds its own id."""
    at = next((n for n, t in enumerate(pra.statements) if t is s), pra.statements.index(s))
    k = sum(1 for t in pra.statements[:at + 1] if not t.origin or t.id in (t.origin, f"{t.origin}.1"))
    piece = f", piece {s.id}" if s.id != s.user_id else ""
    return f"statements[{k - 1}] ({s.user_id}{piece})"


def split_alternatives(pra: PRA, where: str) -> PRA:
    """Each statement with alternatives becomes disjoint conjunctive pieces ``id.1, id.2..``
    (one piece keeps the id), split by isl within the domain and the parameter minimums;
    alternatives that never hold keep the first one (the statement counts 0)."""
    if not any(s.alternatives for s in pra.statements):
        return pra
    from polyjoule.analysis import _isl

    context = tuple(c.isl() for c in pra.domain()) + _mins(pra)
    out: list[Statement] = []
    for s in pra.statements:
        if not s.alternatives:
            out.append(s)
            continue
        raw = _isl.disjoint_pieces(pra.params, pra.dim_names, context,
                                   tuple(tuple(c.isl() for c in a) for a in s.alternatives))
        if any(p is None for p in raw):
            raise ConditionError(f"{where}: {label(pra, s)}.when: the alternatives need an "
                                 "integer division to be told apart; write them so that "
                                 "each is affine on its own")
        pieces = [_in_dim_order(pra, [Constraint(Affine.of(cf, k), eq) for cf, k, eq in p or ()])
                  for p in raw] or [s.alternatives[0]]
        ids = [s.id] if len(pieces) == 1 else [f"{s.id}.{n}" for n in range(1, len(pieces) + 1)]
        out += [replace(s, id=i, when=w, origin=s.id) for i, w in zip(ids, pieces, strict=True)]
    ids = [s.id for s in out]
    if len(set(ids)) != len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        raise SpecError(f"{where}: statements: id {twice!r} is given twice (a piece of a "
                        "condition with alternatives is named id.1, id.2, ..)")
    return replace(pra, statements=tuple(out))


def _in_dim_order(pra: PRA, cons: list[Constraint]) -> Conjunction:
    """isl's constraints sorted by the outermost dim each uses (as people write them)."""
    rank = {d: k for k, d in enumerate(pra.dim_names)}
    return tuple(sorted(cons, key=lambda c: min((rank[n] for n in c.expr.names() if n in rank),
                                                default=len(rank))))


def _mins(pra: PRA) -> tuple[str, ...]:
    return tuple(f"{p} >= {lo}" for p, lo in pra.param_min)


def _check_dims(pra: PRA, where: str) -> None:
    """A dim bounded by parameters alone is non-empty for every legal parameter value."""
    from polyjoule.analysis import _isl

    params = tuple(pra.params)
    for k, d in enumerate(pra.dims):
        if not (d.lower.names() | d.upper.names()) <= set(params):
            continue  # bounds over outer dims: a triangle may be empty on some rows
        if not _isl.is_empty(params, (), _mins(pra) + (f"{d.lower.isl()} > {d.upper.isl()}",)):
            raise SpecError(f"{where}: dims[{k}] ({d.name}): lower {d.lower} exceeds upper "
                            f"{d.upper} for some legal parameter values (an empty dim)")


def check_box(pra: PRA, where: str) -> None:
    """Every point of the domain lies in its tiling box ``0 .. extent - 1`` (the tiling,
    the simulator and the counts walk the box; a point outside would count but never run)."""
    from polyjoule.analysis import _isl

    space = tuple(c.isl() for c in pra.domain()) + _mins(pra)
    for k, d in enumerate(pra.dims):
        for bad in (f"{d.name} < 0", f"{d.name} >= {d.extent.isl()}"):
            if not _isl.is_empty(tuple(pra.params), pra.dim_names, space + (bad,)):
                raise SpecError(f"{where}: dims[{k}] ({d.name}): {d.lower} .. {d.upper} leaves "
                                f"its extent 0 .. {d.extent} - 1 for some legal parameter values")


def _check_tensors(pra: PRA, where: str) -> None:
    """Every extent of every tensor is at least 1 for every legal parameter value."""
    from polyjoule.analysis import _isl

    for t in pra.tensors:
        for k, e in enumerate(t.shape):
            if not _isl.is_empty(tuple(pra.params), (), _mins(pra) + (f"{e.isl()} <= 0",)):
                raise SpecError(f"{where}: tensors.{t.name}.shape[{k}]: {e} is not positive "
                                "for every legal parameter value")


def _check_subscripts(pra: PRA, s: Statement, where: str) -> None:
    """An input/output subscript has the tensor's rank and stays inside its shape."""
    from polyjoule.analysis import _isl

    w = f"{where}: {label(pra, s)}.{s.kind}"
    t = pra.tensor(str(s.tensor))
    if len(s.index) != len(t.shape):
        raise SpecError(f"{w}: {t.name} has rank {len(t.shape)}, the subscript "
                        f"{len(s.index)} entries")
    space = tuple(c.isl() for c in pra.statement_space(s)) + _mins(pra)
    for idx, ext in zip(s.index, t.shape, strict=True):
        for bad, said in ((f"{idx.isl()} < 0", f"{idx} < 0"),
                          (f"{idx.isl()} >= {ext.isl()}", f"{idx} >= {ext}")):
            if not _isl.is_empty(tuple(pra.params), pra.dim_names, space + (bad,)):
                raise SpecError(f"{w}: subscript {idx} leaves {t.name}'s shape "
                                f"[{', '.join(str(e) for e in t.shape)}] (it reaches {said})")


def _check_sources(pra: PRA, s: Statement, where: str) -> None:
    """A transport's source ``i - dep`` lies where some statement writes the variable."""
    from polyjoule.analysis import _isl

    assert s.dep is not None and s.source is not None
    space = tuple(c.isl() for c in pra.statement_space(s)) + _mins(pra)
    target = tuple(tuple(c.isl() for c in pra.statement_space(w)) + _mins(pra)
                   for w in pra.statements if w.kind != "output" and w.var == s.source)
    if not _isl.shifted_within(tuple(pra.params), pra.dim_names, space, s.dep, target):
        raise SpecError(f"{where}: {label(pra, s)}.dep: {list(s.dep)} reads "
                        f"{s.source!r} outside the points where it is written (outside the "
                        "domain or the writers' conditions); guard it with 'when'")


def _check_operands(pra: PRA, s: Statement, where: str) -> None:
    """A compute reads each variable at its own point: some other statement writes it there."""
    from polyjoule.analysis import _isl

    space = tuple(c.isl() for c in pra.statement_space(s)) + _mins(pra)
    for v in dict.fromkeys(s.reads):
        target = tuple(tuple(c.isl() for c in pra.statement_space(w)) + _mins(pra)
                       for w in pra.statements if w is not s and w.kind != "output" and w.var == v)
        if not _isl.shifted_within(tuple(pra.params), pra.dim_names, space, (0,) * pra.n, target):
            raise SpecError(f"{where}: {label(pra, s)}.compute: reads {v!r} where no statement "
                            "writes it (outside the writers' conditions); guard it with 'when'")


def check_semantics(pra: PRA, where: str) -> PRA:
    """Refuse a PRA that parses but means nothing: empty dims, non-positive shapes,
    subscripts of the wrong rank or past a shape, dependences or operands reaching unwritten
    points."""
    _check_dims(pra, where)
    check_box(pra, where)
    _check_tensors(pra, where)
    for s in pra.statements:
        if s.kind in ("input", "output"):
            _check_subscripts(pra, s, where)
        elif s.kind == "transport":
            _check_sources(pra, s, where)
        elif s.kind == "compute":
            _check_operands(pra, s, where)
    return pra


def check_datasets(kernel: Kernel, where: str) -> Kernel:
    """Every dataset names only the kernel's parameters, each at least its minimum."""
    mins: dict[str, int] = {}
    for ph in kernel.phases:
        for p, lo in ph.param_min:
            mins[p] = max(lo, mins.get(p, lo))
    for name, values in kernel.datasets.items():
        for p, v in values.items():
            if p not in mins:
                raise SpecError(f"{where}: datasets.{name}.{p}: not a parameter of "
                                f"{kernel.name} ({', '.join(kernel.params)})")
            if v < mins[p]:
                raise SpecError(f"{where}: datasets.{name}.{p}: {v} is below its minimum "
                                f"{mins[p]}")
    return kernel
