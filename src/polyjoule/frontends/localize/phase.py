"""The statement list of one phase as it is built, and the PRA it becomes.

Statements are :class:`~polyjoule.model.pra.Statement` objects from the start; a compute's
expression is parsed once every variable of the phase is known (:meth:`Phase.pra`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from polyjoule.errors import SpecError
from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.frontends.pra_dump import condition_text, oriented, transport_text
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.expr import parse_expr
from polyjoule.model.nest import Access, Nest
from polyjoule.model.pra import PRA, Dim, Statement, TensorDecl

_RESERVED = {"relu", "max", "min", "sqrt", "abs"}


def access_text(a: Access) -> str:
    """``A[i, j + 1]``: an access as PRA text."""
    return f"{a.tensor}[{', '.join(str(x) for x in a.index)}]"


class Phase:
    """Fresh names, emitted statements and the tensors touched, for one nest."""

    def __init__(self, nest: Nest, reserved: set[str] | None = None):
        self.nest = nest
        self.geo = Geometry(nest)
        self.dims = self.geo.dims
        self.out: list[Statement] = []
        self.used: set[str] = {*(reserved or ()), *self.dims, *nest.params, *nest.scalars}
        self.vars: dict[tuple[str, tuple[Affine, ...]], str] = {}  # localised inputs (body)
        self.point_vars: dict[tuple[object, ...], str] = {}  # inputs read at a boundary point
        self.tensors: dict[str, TensorDecl] = {}

    def fresh(self, base: str) -> str:
        """A new variable name derived from ``base`` (lower case, unused)."""
        base = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in base.lower()) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, k = base, 1
        while name in self.used or name in _RESERVED:
            k += 1
            name = f"{base}{k}"
        self.used.add(name)
        return name

    def _when(self, when: Sequence[Constraint]) -> tuple[Constraint, ...]:
        """The conditions the domain does not imply, one per written form, as written."""
        seen: dict[str, Constraint] = {}
        for c in self.geo.prune(when):
            seen.setdefault(condition_text(c, self.dims), oriented(c, self.dims))
        return tuple(seen.values())

    def _add(self, st: Statement) -> None:
        self.out.append(replace(st, id=f"S{len(self.out) + 1}"))

    def compute(self, var: str, text: str, when: Sequence[Constraint] = ()) -> None:
        """``var[i] = text`` (the expression is parsed in :meth:`pra`)."""
        self._add(Statement("", "compute", var, self._when(when), text=f"{var}[i] = {text}"))

    def transport(self, var: str, source: str, when: Sequence[Constraint],
                  dep: Sequence[int]) -> None:
        """``var[i] = source[i - dep]``."""
        self._add(Statement("", "transport", var, self._when(when), source=source,
                            dep=tuple(dep), text=transport_text(var, source, self.dims, dep)))

    def input(self, var: str, a: Access, when: Sequence[Constraint] = ()) -> None:
        """``var[i] = A[f(i)]`` from DRAM."""
        self._add(Statement("", "input", var, self._when(when), tensor=a.tensor,
                            index=a.index, text=f"{var}[i] = {access_text(a)}"))

    def output(self, var: str, a: Access, when: Sequence[Constraint] = ()) -> None:
        """``A[f(i)] = var[i]`` to DRAM."""
        self._add(Statement("", "output", var, self._when(when), tensor=a.tensor,
                            index=a.index, text=f"{access_text(a)} = {var}[i]"))

    def tensor(self, a: Access, kind: str) -> None:
        """Declare the tensor of ``a`` (read and written: ``inout``)."""
        shape = self.nest.shapes.get(a.tensor)
        if shape is None:
            shape = tuple(self.geo.maximum(x).shift(1) for x in a.index)
        if len(shape) != len(a.index):
            raise SpecError(f"{a.where}: {a} has {len(a.index)} subscripts, {a.tensor} has "
                            f"{len(shape)} dimensions")
        prev = self.tensors.get(a.tensor)
        if prev is not None and prev.kind != kind:
            kind = "inout"
        self.tensors[a.tensor] = TensorDecl(a.tensor, shape, kind)  # type: ignore[arg-type]

    def inout(self, name: str) -> None:
        """The tensor ``name`` is read and written."""
        self.tensors[name] = replace(self.tensors[name], kind="inout")

    def _param_min(self, params: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
        """Each parameter's least value, 1 unless a loop bounded by parameters alone is empty
        below more (``i <= M - 2`` needs ``M >= 2``: correlation's ``corr`` nest)."""
        least = dict.fromkeys(params, 1)
        for lp in self.nest.loops:
            gap = lp.upper - lp.lower
            if not gap.names() <= set(params) or len(gap.terms) != 1 or gap.terms[0][1] <= 0:
                continue
            p, c = gap.terms[0]
            least[p] = max(least[p], -(gap.const // c))  # c * p + const >= 0
        return tuple(least.items())

    def _dims(self) -> tuple[Dim, ...]:
        names = set(self.dims)
        out = []
        for lp in self.nest.loops:
            coupled = (lp.lower.names() | lp.upper.names()) & names
            extent = self.geo.maximum(lp.upper).shift(1) if coupled else lp.upper.shift(1)
            out.append(Dim(lp.name, lp.lower, lp.upper, extent))
        return tuple(out)

    def pra(self, name: str) -> PRA:
        """The phase as a PRA: temporaries dropped, used scalars kept, computes parsed."""
        for t in self.nest.temporaries:
            self.tensors.pop(t, None)
        written = {s.var for s in self.out if s.kind != "output"}
        words = {w for s in self.out if s.kind == "compute"
                 for w in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", s.text.split(" = ", 1)[1])}
        scalars = {k: float(v) for k, v in self.nest.scalars.items() if k in words}
        params = tuple(self.nest.params)
        immediates = [*scalars, *params]  # a parameter in a computation: N for float_n
        statements = tuple(self._parsed(s, written, immediates) for s in self.out)
        return PRA(name, params, self._param_min(params), self._dims(),
                   tuple(self.tensors.values()), tuple(scalars.items()), statements,
                   self.nest.dtype)

    @staticmethod
    def _parsed(s: Statement, written: set[str], scalars: list[str]) -> Statement:
        if s.kind != "compute":
            return s
        text = s.text.split(" = ", 1)[1]
        return replace(s, expr=parse_expr(text, written, scalars, f"{s.id} ({s.var})"))
