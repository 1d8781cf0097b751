"""A PRA file read for display only: what ``polyjoule list`` and ``show`` print.

The full reader (:mod:`.pra_yaml`) validates with pydantic, parses every bound with sympy and
asks isl whether two writers overlap: seconds of imports before a table appears. A built-in
file is validated by the test suite, so ``list`` and ``show NAME`` read it here with PyYAML
alone: the same names, bounds (as :class:`Affine`), conditions and statement texts, from a
small exact parser of affine text (integers, names, ``+ - *`` and parentheses).
tests/frontends/test_pra_outline.py checks every built-in kernel against the full reader.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from polyjoule.errors import SpecError
from polyjoule.frontends.pra_dump import transport_text
from polyjoule.model.affine import Affine, Conjunction, Constraint, parse_when

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(.))")


class _Affine:
    """Recursive descent over ``expr := term (+|- term)*``, ``term := factor (* factor)*``."""

    def __init__(self, text: str, known: set[str], where: str):
        self.tokens = [m.groups() for m in _TOKEN.finditer(text) if m.group(0).strip()]
        self.pos, self.text, self.known, self.where = 0, text, known, where

    def fail(self, why: str) -> SpecError:
        return SpecError(f"{self.where}: {self.text!r} {why}")

    def peek(self) -> str | None:
        if self.pos >= len(self.tokens):
            return None
        num, name, op = self.tokens[self.pos]
        return num or name or op

    def take(self) -> tuple[str | None, str | None, str | None]:
        self.pos += 1
        return self.tokens[self.pos - 1]

    def parse(self) -> Affine:
        out = self.expr()
        if self.peek() is not None:
            raise self.fail(f"is not affine text (at {self.peek()!r})")
        return out

    def expr(self) -> Affine:
        out = self.term()
        while self.peek() in ("+", "-"):
            sign = self.take()[2]
            rhs = self.term()
            out = out + rhs if sign == "+" else out - rhs
        return out

    def term(self) -> Affine:
        out = self.factor()
        while self.peek() == "*":
            self.take()
            rhs = self.factor()
            if out.terms and rhs.terms:
                raise self.fail("is not affine")
            scale, other = (out.const, rhs) if not out.terms else (rhs.const, out)
            out = Affine.of({k: v * scale for k, v in other.terms}, other.const * scale)
        return out

    def factor(self) -> Affine:
        if self.peek() is None:
            raise self.fail("ends early")
        num, name, op = self.take()
        if num is not None:
            return Affine.of({}, int(num))
        if name is not None:
            if name not in self.known:
                raise self.fail(f"uses the unknown name {name!r}")
            return Affine.of({name: 1})
        if op in ("-", "+"):
            inner = self.factor()
            return -inner if op == "-" else inner
        if op == "(":
            inner = self.expr()
            if self.peek() != ")":
                raise self.fail("misses a ')'")
            self.take()
            return inner
        raise self.fail(f"is not affine text (at {op!r})")


def affine_text(text: str | int, known: Iterable[str], where: str) -> Affine:
    """``NI - 1`` -> :class:`Affine`, without sympy; text outside the grammar is an error."""
    if isinstance(text, bool) or not isinstance(text, int | str):
        raise SpecError(f"{where}: expected an affine expression, got {text!r}")
    if isinstance(text, int):
        return Affine.of({}, text)
    return _Affine(text, set(known), where).parse()


@dataclass(frozen=True)
class DimOutline:
    """A loop index as ``show`` prints it: bounds and tiling box."""

    name: str
    lower: Affine
    upper: Affine
    extent: Affine


@dataclass(frozen=True)
class TensorOutline:
    name: str
    shape: tuple[Affine, ...]
    kind: str


@dataclass(frozen=True)
class StatementOutline:
    """A statement's id, kind, text (``x[i] = ...``) and condition: a conjunction in
    ``when``, or ``alternatives`` as written (the full reader splits those into pieces)."""

    id: str
    kind: str
    text: str
    when: tuple[Constraint, ...]
    alternatives: tuple[Conjunction, ...] = ()


@dataclass(frozen=True)
class PhaseOutline:
    """One PRA as displayed; the attributes ``show`` reads have the names of :class:`PRA`'s."""

    name: str
    dtype: str
    params: tuple[str, ...]
    param_min: tuple[tuple[str, int], ...]
    dims: tuple[DimOutline, ...]
    tensors: tuple[TensorOutline, ...]
    scalars: tuple[tuple[str, float], ...]
    statements: tuple[StatementOutline, ...]

    @property
    def n(self) -> int:
        return len(self.dims)

    @property
    def dim_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dims)


@dataclass(frozen=True)
class KernelOutline:
    """A kernel as ``list`` and ``show`` print it (attribute names as :class:`Kernel`'s)."""

    name: str
    description: str
    datasets: Mapping[str, Mapping[str, int]]
    phases: tuple[PhaseOutline, ...]

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for ph in self.phases for p in ph.params))


def _dims(data: Sequence[Mapping[str, Any]], params: tuple[str, ...], where: str
          ) -> tuple[DimOutline, ...]:
    dims: list[DimOutline] = []
    for k, d in enumerate(data):
        known = set(params) | {x.name for x in dims}
        w = f"{where}: dims[{k}]"
        upper = affine_text(d["upper"], known, f"{w}.upper")
        extent = (affine_text(d["extent"], params, f"{w}.extent") if d.get("extent") is not None
                  else upper.shift(1))
        dims.append(DimOutline(d["name"], affine_text(d["lower"], known, f"{w}.lower"),
                               upper, extent))
    return tuple(dims)


def _statement(s: Mapping[str, Any], dims: Sequence[str], known: set[str], where: str
               ) -> StatementOutline:
    var = s["var"]
    alts = parse_when(s.get("when", []), known, f"{where}.when", affine=affine_text)
    if "input" in s:
        kind, text = "input", f"{var}[i] = {s['input']}"
    elif "output" in s:
        kind, text = "output", f"{s['output']} = {var}[i]"
    elif "from" in s:
        kind, text = "transport", transport_text(var, s["from"], dims, s["dep"])
    else:
        kind, text = "compute", f"{var}[i] = {s['compute']}"
    if len(alts) == 1:
        return StatementOutline(s["id"], kind, text, alts[0])
    return StatementOutline(s["id"], kind, text, (), alts)


def phase_outline(data: Mapping[str, Any], where: str) -> PhaseOutline:
    """One PRA's YAML data (a phase or a single-PRA file) as displayed."""
    params = tuple(data["params"])
    dims = _dims(data["dims"], params, where)
    known = set(params) | {d.name for d in dims}
    tensors = tuple(
        TensorOutline(n, tuple(affine_text(x, params, f"{where}: tensors.{n}.shape")
                               for x in t["shape"]), t["kind"])
        for n, t in (data.get("tensors") or {}).items())
    statements = tuple(
        _statement(s, [d.name for d in dims], known, f"{where}: statements[{k}] ({s['id']})")
        for k, s in enumerate(data["statements"]))
    return PhaseOutline(data["name"], data.get("dtype", "fp32"), params,
                        tuple(data["params"].items()), dims, tensors,
                        tuple((k, float(v)) for k, v in (data.get("scalars") or {}).items()),
                        statements)


def kernel_outline(data: Mapping[str, Any], where: str) -> KernelOutline:
    """A kernel file's YAML data (phases, or one PRA) as ``list`` and ``show`` print it."""
    if "phases" not in data:
        return KernelOutline(data["name"], "", {}, (phase_outline(data, where),))
    phases = tuple(phase_outline(p, f"{where}: phases[{i}]")
                   for i, p in enumerate(data["phases"]))
    return KernelOutline(data["name"], data.get("description", ""),
                         dict(data.get("datasets") or {}), phases)
