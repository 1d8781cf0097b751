"""The energy table: pJ per access per location class and per operation per data type.

The default 45 nm table ships as data (``data/energy_45nm.yaml``), every value with its
source. A user file overrides any subset of values; unknown keys are errors naming the file.

``access_pj`` holds the energy of a 32-bit access; ``access_pj_by_bits`` the energy of an
access of another word width. A width without an entry scales the 32-bit value linearly
(bits / 32), and a file that overrides a class's 32-bit value without giving its widths
drops the shipped width entries of that class, so the widths follow the new value.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from polyjoule.errors import SpecError, UnknownNameError
from polyjoule.frontends.specerrors import spec_error
from polyjoule.frontends.specfile import check_version, read_yaml
from polyjoule.targets.tcpa.locations import CLASSES

#: libyaml's safe loader where built (the same documents, ~10x faster), else PyYAML's
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: float
    source: str = "user file"


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = 1
    name: str = "user table"
    access_pj: dict[str, _Entry | float] = {}
    access_pj_by_bits: dict[str, dict[int, _Entry | float]] = {}
    op_pj: dict[str, dict[str, _Entry | float]] = {}


MAX_PJ = 1e9  # one access or operation above a millijoule is a unit mistake, not a design



@dataclass(frozen=True)
class EnergyTable:
    """Energies in pJ with their sources."""

    name: str
    access_pj: Mapping[str, float]
    op_pj: Mapping[str, Mapping[str, float]]
    sources: Mapping[str, str]
    access_bits_pj: Mapping[str, Mapping[int, float]] = field(default_factory=dict)

    def access(self, cls: str, bits: int = 32) -> float:
        """pJ of one access of a ``bits``-wide word to class ``cls``."""
        if bits == 32:
            return self.access_pj[cls]
        given = self.access_bits_pj.get(cls, {})
        return given[bits] if bits in given else self.access_pj[cls] * bits / 32

    def at_width(self, bits: int) -> EnergyTable:
        """This table with ``access_pj`` holding the energies of a ``bits``-wide access (for
        code that prices accesses by class alone, e.g. the simulator's measured counts)."""
        if bits == 32:
            return self
        access = {c: self.access(c, bits) for c in self.access_pj}
        return EnergyTable(f"{self.name} ({bits}-bit words)", access, self.op_pj, self.sources,
                           self.access_bits_pj)

    def op(self, dtype: str, op: str) -> float:
        try:
            return self.op_pj[dtype][op]
        except KeyError:
            raise SpecError(f"energy table {self.name!r}: no energy for op {op!r} on {dtype}") from None

    def _known_op(self, dtype: str, op: str, field: str) -> None:
        """A user table overrides known entries only: a typo is an error, not a no-op."""
        from polyjoule.model.expr import OPS

        if dtype not in self.op_pj:
            raise UnknownNameError(f"{field}op_pj.{dtype}: unknown dtype (known: "
                                   f"{', '.join(self.op_pj)})")
        if op not in OPS | set(self.op_pj[dtype]):
            raise UnknownNameError(f"{field}op_pj.{dtype}.{op}: unknown operation (known: "
                                   f"{', '.join(sorted(OPS | set(self.op_pj[dtype])))})")

    def merged(self, data: Any, where: str, at: str = "") -> EnergyTable:
        """This table with the values of ``data`` (a parsed user file) overriding; ``at``
        is where the table sits in the file (``energy`` of an array declaration)."""
        field = f"{where}: {at}." if at else f"{where}: "  # errors: FILE: energy.access_pj..
        check_version(data, f"{where}: {at}" if at else where)
        try:
            t = _Table.model_validate(data)
        except ValidationError as e:
            raise spec_error(e, where, _Table, "docs/model.md", at=at) from None
        access = dict(self.access_pj)
        widths = {k: dict(v) for k, v in self.access_bits_pj.items()}
        ops = {k: dict(v) for k, v in self.op_pj.items()}
        sources = dict(self.sources)
        for k, e in t.access_pj.items():
            access[k] = _value(e, f"{field}access_pj.{k}", k)
            sources[f"access.{k}"] = _source(e, where)
            if k not in t.access_pj_by_bits:
                widths.pop(k, None)  # the shipped widths described the replaced value
        for k, entries in t.access_pj_by_bits.items():
            for bits, e in entries.items():
                entry = f"{field}access_pj_by_bits.{k}.{bits}"
                if bits < 8 or bits % 8:
                    raise SpecError(f"{entry}: word width {bits} is not a positive multiple of 8")
                widths.setdefault(k, {})[bits] = _value(e, entry, k)
                sources[f"access.{k}.{bits}b"] = _source(e, where)
        for dt, entries in t.op_pj.items():
            for op, e in entries.items():
                if where != "<default>":
                    self._known_op(dt, op, field)
                ops.setdefault(dt, {})[op] = _value(e, f"{field}op_pj.{dt}.{op}")
                sources[f"op.{dt}.{op}"] = _source(e, where)
        name = t.name if where == "<default>" else f"{self.name} + {Path(where).name}"
        return EnergyTable(name, access, ops, sources, widths)


def _value(e: _Entry | float, at: str, cls: str | None = None) -> float:
    """The energy of one entry: a known class (when ``cls``), finite and not negative."""
    if cls is not None and cls not in CLASSES:
        raise SpecError(f"{at}: unknown location class (known: {', '.join(CLASSES)})")
    v = e.value if isinstance(e, _Entry) else float(e)
    if not math.isfinite(v) or not 0 <= v <= MAX_PJ:
        raise SpecError(f"{at}: energy {v} pJ is not a finite value in 0..{MAX_PJ:g}")
    return v


def _source(e: _Entry | float, where: str) -> str:
    src = e.source if isinstance(e, _Entry) else "user file"
    return src if where == "<default>" else f"{where}: {src}"


@functools.cache
def default_table() -> EnergyTable:
    """The shipped 45 nm table, read once per process (frozen: ``merged`` makes new ones)."""
    text = resources.files("polyjoule.library").joinpath("data", "energy_45nm.yaml").read_text()
    return EnergyTable("empty", {}, {}, {}).merged(yaml.load(text, Loader=SAFE_LOADER), "<default>")


def load_table(path: str | Path | None, base: EnergyTable | None = None) -> EnergyTable:
    """``base`` (default: the 45 nm table), with ``path``'s values overriding when given."""
    base = base or default_table()
    if path is None:
        return base
    p = Path(path)
    data = read_yaml(p)
    if not isinstance(data, dict):
        raise SpecError(f"{p}: expected a mapping with access_pj and/or op_pj")
    return base.merged(data, str(p))
