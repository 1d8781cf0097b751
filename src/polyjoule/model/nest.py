"""The loop-nest IR every front end produces and localisation turns into a PRA.

A :class:`Nest` is one chain of loops (a phase) with inclusive affine bounds and statements
``T[f] op= E`` at some depth. The C front end builds nests from C, and an einsum
:class:`~polyjoule.model.workload.Workload` (the mapper's workloads, einsum text, TOSA
layers) becomes one through :func:`workload_nest`: every source reaches a PRA by one path.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from polyjoule.errors import SpecError
from polyjoule.model.affine import Affine
from polyjoule.model.workload import Tensor, Workload


@dataclass(frozen=True)
class Access:
    """An array reference ``T[f(i)]`` with affine subscripts; ``where`` is its source place."""

    tensor: str
    index: tuple[Affine, ...]
    where: str = ""

    @property
    def key(self) -> tuple[str, tuple[Affine, ...]]:
        return (self.tensor, self.index)

    def __str__(self) -> str:
        return f"{self.tensor}[{']['.join(str(a) for a in self.index)}]"


@dataclass(frozen=True)
class Loop:
    """``for name in lower..upper`` (inclusive bounds, affine in parameters and outer loops)."""

    name: str
    lower: Affine
    upper: Affine
    where: str = ""


@dataclass(frozen=True)
class Stmt:
    """``target op expr`` at ``depth`` (number of enclosing loops).

    ``expr`` is a Python ``ast`` expression whose array reads are the names ``__r0``,
    ``__r1``, ... (see :func:`read_name`) standing for ``reads[0]``, ``reads[1]``, ...;
    other names are scalars. ``position`` is ``body`` (innermost), ``pre`` (before the
    inner loop) or ``post``.
    """

    target: Access
    op: str  # "=", "+=", "-=", "*=", "/="
    expr: Any
    reads: tuple[Access, ...]
    depth: int
    position: str = "body"
    where: str = ""


@dataclass(frozen=True)
class Carry:
    """A value carried along loop ``dim`` (a filter state): the array named by the key of
    :attr:`Nest.carried` holds, at each point, what the array ``state`` holds one step
    before along ``dim`` (same subscripts), and ``init`` (an expression of numbers and
    scalars, no array read) at the first point along ``dim``."""

    state: str
    dim: str
    init: Any


@dataclass
class Nest:
    """One perfectly chained loop nest (a phase) as the front ends see it."""

    name: str
    params: tuple[str, ...]
    loops: tuple[Loop, ...]
    stmts: tuple[Stmt, ...]
    shapes: dict[str, tuple[Affine, ...]] = field(default_factory=dict)
    scalars: dict[str, float] = field(default_factory=dict)
    zero_init: frozenset[str] = frozenset()
    temporaries: frozenset[str] = frozenset()
    dtype: str = "fp32"
    carried: dict[str, Carry] = field(default_factory=dict)  # see Carry (frontends/ccarry.py)


def read_name(k: int) -> str:
    """The placeholder name of ``reads[k]`` inside a statement's expression."""
    return f"__r{k}"


def read_index(node: Any) -> int | None:
    """``k`` when ``node`` is the placeholder of ``reads[k]``, else ``None``."""
    if isinstance(node, ast.Name) and node.id.startswith("__r"):
        return int(node.id[3:])
    return None


def workload_names(w: Workload) -> tuple[dict[str, str], dict[str, str]]:
    """rank -> loop name (lower case), rank -> parameter (upper case; ``N`` before it when a
    tensor has that name: the batch rank ``b`` of ``C[b,m,n] += A[b,m,k]*B[b,k,n]`` is ``NB``)."""
    dims = {r: r.lower() for r in w.ranks}
    if len(set(dims.values())) != len(dims):
        raise SpecError(f"workload {w.name!r}: ranks {', '.join(w.ranks)} differ only in case")
    tensors = {t.name for t in (*w.operands, w.result)}
    clash = set(dims.values()) & tensors
    if clash:
        raise SpecError(f"workload {w.name!r}: {sorted(clash)[0]!r} names both a rank and a tensor")
    params: dict[str, str] = {}
    for r in w.ranks:
        name = r.upper()
        while name in tensors or name in dims.values() or name in params.values():
            name = "N" + name
        params[r] = name
    return dims, params


def _epilogue(expr: Any, ops: tuple[str, ...]) -> Any:
    for op in ops:
        expr = ast.Call(ast.Name(id=op, ctx=ast.Load()), [expr], [])
    return expr


def workload_nest(w: Workload, dtype: str = "fp32") -> Nest:
    """The loop nest of a workload: result ranks outer, reduced ranks inner, zero-initialised.

    The epilogue applies where the reduction ends (a ``post`` statement); without a
    reduction it wraps the body.
    """
    dims, params = workload_names(w)
    order = [*w.result.ranks, *[r for r in w.ranks if r in w.reduce]]
    loops = tuple(Loop(dims[r], Affine.of({}), Affine.of({params[r]: 1}, -1), f"rank {r}")
                  for r in order)
    reads: list[Access] = []

    def access(t: Tensor) -> Access:
        return Access(t.name, tuple(Affine.of({dims[r]: 1}) for r in t.ranks),
                      f"{t.name}[{','.join(t.ranks)}]")

    def ref(t: Tensor) -> Any:
        reads.append(access(t))
        return ast.Name(id=read_name(len(reads) - 1), ctx=ast.Load())

    expr: Any = None
    for act, wgt in w.contractions:
        term = ast.BinOp(ref(w.tensor(act)), ast.Mult(), ref(w.tensor(wgt)))
        expr = term if expr is None else ast.BinOp(expr, ast.Add(), term)
    target = access(w.result)
    if w.reduce:
        stmts = [Stmt(target, "+=", expr, tuple(reads), len(order), "body", target.where)]
        if w.epilogue:
            post = _epilogue(ast.Name(id=read_name(0), ctx=ast.Load()), w.epilogue)
            stmts.append(Stmt(target, "=", post, (target,), len(w.result.ranks), "post",
                              target.where))
    else:
        stmts = [Stmt(target, "=", _epilogue(expr, w.epilogue), tuple(reads), len(order),
                      "body", target.where)]
    shapes = {t.name: tuple(Affine.of({params[r]: 1}) for r in t.ranks)
              for t in (*w.operands, w.result)}
    return Nest(w.name, tuple(params[r] for r in order), loops, tuple(stmts), shapes,
                zero_init=frozenset({w.result.name}), dtype=dtype)
