"""A processor array (TCPA) as data: its grid, its PE resources, buffers, clock and costs.

An array is a declaration, not code (``docs/arch.md``): ``--array 8x8`` is the shipped
declaration (``library/data/arch/tcpa-45nm.yaml``) with an 8x8 grid; ``--array FILE.yaml``
is that declaration with the file's values laid over it. A version-1 file (grid and
energy overrides only) keeps loading::

    version: 1
    name: tcpa-4x4-lowpower
    rows: 4                 # 1 for a 1-D array
    cols: 4
    energy:                 # optional: values overriding the default 45 nm table
      access_pj: {DR: 200.0, IOb: {value: 3.0, source: "CACTI 22 nm, 8 KB"}}
      op_pj: {fp32: {mul: 2.5}}

Every PE has the register classes RD, FD, ID, OD; the I/O buffers (IOb) border the grid and
DRAM (DR) sits behind them (``docs/model.md``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from polyjoule.errors import SpecError
from polyjoule.frontends.specfile import read_yaml
from polyjoule.targets.tcpa.declaration import (
    SHIPPED,
    DeclarationSpec,
    checked,
    overlay,
    shipped,
    split_sources,
)
from polyjoule.targets.tcpa.energy import EnergyTable, default_table


@dataclass(frozen=True)
class PEResources:
    """Storage and ports of one PE, in words (the capacities the schedule must fit)."""

    rd_registers: int  # RD general-purpose registers
    fd_fifos: int  # FD feedback FIFOs
    fd_depth: int  # words per FD FIFO
    id_ports: int  # ID input port registers
    od_ports: int  # OD output port registers

    @property
    def register_words(self) -> int:
        """Words of register file: RD plus the ID/OD port registers."""
        return self.rd_registers + self.id_ports + self.od_ports

    @property
    def fifo_words(self) -> int:
        return self.fd_fifos * self.fd_depth


@dataclass(frozen=True)
class IOBuffer:
    """The I/O buffer on one border of the grid."""

    border: str  # north, south, west or east
    capacity_words: int
    bandwidth_words_per_cycle: float


@dataclass(frozen=True)
class ComponentCost:
    """Area and leakage power of one instance of a component (``docs/arch.md``)."""

    area_um2: float
    leakage_uw: float


@dataclass(frozen=True)
class Capacities:
    """What a mapping must fit in, with units in the names (for capacity rules)."""

    rd_count: int  # RD registers per PE
    fd_count: int  # FD FIFOs per PE
    fd_depth_words: int  # words per FD FIFO
    iob_capacity_words: Mapping[str, int]  # per border
    iob_bandwidth_words_per_cycle: Mapping[str, float]  # per border
    dram_bandwidth_words_per_cycle: float  # for the data type asked


@dataclass(frozen=True)
class ProcessorArray:
    """A rows x cols grid of PEs: resources, clock, costs and energies, each with a source."""

    name: str
    rows: int
    cols: int
    energy: EnergyTable
    pe: PEResources
    io_buffers: tuple[IOBuffer, ...]
    dram_bandwidth_gb_per_s: float
    word_bits: Mapping[str, int]
    clock_mhz: float
    components: Mapping[str, ComponentCost]
    sources: Mapping[str, str]  # field path (``pe.fd_depth``) -> where the value comes from

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)

    @property
    def n_pes(self) -> int:
        return self.rows * self.cols

    @property
    def cycle_seconds(self) -> float:
        return 1e-6 / self.clock_mhz

    def bits(self, dtype: str) -> int:
        try:
            return self.word_bits[dtype]
        except KeyError:
            raise SpecError(f"array {self.name!r}: no word width for data type {dtype!r} "
                            f"(declared: {', '.join(self.word_bits)})") from None

    def access_pj(self, cls: str, dtype: str) -> float:
        """pJ of one access to class ``cls`` of a word of ``dtype``."""
        return self.energy.access(cls, self.bits(dtype))

    def capacities(self, dtype: str = "fp32") -> Capacities:
        words_per_s = self.dram_bandwidth_gb_per_s * 1e9 * 8 / self.bits(dtype)
        return Capacities(
            self.pe.rd_registers, self.pe.fd_fifos, self.pe.fd_depth,
            {b.border: b.capacity_words for b in self.io_buffers},
            {b.border: b.bandwidth_words_per_cycle for b in self.io_buffers},
            words_per_s * self.cycle_seconds)


def _build(spec: DeclarationSpec, sources: dict[str, str], table: EnergyTable,
           where: str) -> ProcessorArray:
    """The machine of a validated declaration; data types must have op energies."""
    for dt in spec.word_bits:
        if dt not in table.op_pj:
            raise SpecError(f"{where}: word_bits.{dt}: no op energies for this data type "
                            f"(known: {', '.join(table.op_pj)})")
    pe = PEResources(**spec.pe.model_dump())
    buffers = tuple(IOBuffer(b, **s.model_dump())
                    for b, s in spec.io_buffers if s is not None)
    costs = {c: ComponentCost(**s.model_dump()) for c, s in spec.components}
    return ProcessorArray(spec.name, spec.rows, spec.cols, table, pe, buffers,
                          spec.dram.bandwidth_gb_per_s, dict(spec.word_bits), spec.clock_mhz,
                          costs, sources)


def _strict(spec: DeclarationSpec, data: dict[str, Any], where: str) -> DeclarationSpec:
    """``spec`` when ``data`` gives every number as a number: ``rows: "2"`` (a string) or
    ``rows: 2.0`` where a whole number belongs was read as 2 without a word."""
    from pydantic import ValidationError

    from polyjoule.frontends.specerrors import spec_error

    try:
        DeclarationSpec.model_validate(data, strict=True)
    except ValidationError as e:
        raise spec_error(e, where, DeclarationSpec, "docs/arch.md") from None
    return spec


def declaration(data: Any, where: str) -> ProcessorArray:
    """The array of a parsed declaration ``data`` laid over the shipped one."""
    if not isinstance(data, dict):
        raise SpecError(f"{where}: expected a mapping with rows and cols (docs/arch.md)")
    base, base_src = split_sources(shipped(), f"<{SHIPPED}>")
    for k in ("rows", "cols", "name", "version"):
        base.pop(k, None)
    plain, user_src = split_sources(data, where)
    if "io_buffers" in plain:
        base_src = {k: v for k, v in base_src.items() if not k.startswith("io_buffers.")}
    spec = _strict(checked(overlay(base, plain), where), overlay(base, plain), where)
    table = default_table()
    if spec.energy:
        table = table.merged(spec.energy, where, "energy")
    if "version" not in plain:  # after the schema: a file's other faults are named first
        raise SpecError(f"{where}: version: is missing (1 or 2; see docs/arch.md)")
    return _build(spec, {**base_src, **user_src}, table, where)


def load_array(path: str | Path) -> ProcessorArray:
    """An array declaration file; errors name the file and the field."""
    p = Path(path)
    return declaration(read_yaml(p), str(p))


@functools.lru_cache(maxsize=256)
def default_array(shape: tuple[int, int] | None = None, where: str = "--array") -> ProcessorArray:
    """The shipped declaration, with the grid ``shape`` (rows, cols) when given (frozen, so
    built once per shape and process)."""
    data = shipped()
    if shape is None:
        return declaration(data, f"<{SHIPPED}>")
    rows, cols = shape
    return declaration({**data, "rows": rows, "cols": cols, "name": f"{rows}x{cols}"}, where)


#: the largest side a grid takes (the declaration's limit, :mod:`.declaration`)
MAX_SIDE = 4096


def parse_shape(text: str, what: str = "--array") -> tuple[int, int]:
    """Exactly ``ROWSxCOLS`` (``1xC`` for a 1-D array), each side in 1..MAX_SIDE."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if m is None:
        raise SpecError(f"{what}: {text!r} is not ROWSxCOLS (e.g. 8x8, or 1x16 for a 1-D "
                        "array)")
    rows, cols = int(m[1]), int(m[2])
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise SpecError(f"{what}: {text.strip()!r} is outside the grids a declaration takes: "
                        f"ROWSxCOLS with each side in 1..{MAX_SIDE}")
    return rows, cols


def is_declaration_file(text: str) -> bool:
    """Whether ``--array``/``--machine`` text names a declaration file (not ``ROWSxCOLS``)."""
    return text.endswith((".yaml", ".yml")) or Path(text).is_file()


def array_of(text: str, what: str = "--array") -> ProcessorArray:
    """``ROWSxCOLS`` (1-D: ``1xC``): the shipped declaration with that grid; or a
    declaration file."""
    if is_declaration_file(text):
        return load_array(text)
    if Path(text).is_dir():
        raise SpecError(f"{what}: {text!r} is a directory; give ROWSxCOLS (e.g. 8x8) or an "
                        "array declaration file (.yaml, docs/arch.md)")
    return default_array(parse_shape(text, what))


def on_grid(array: ProcessorArray, shape: tuple[int, int]) -> ProcessorArray:
    """The declaration on a grid of ``shape`` PEs: a mapping that uses part of the machine's
    grid is priced on that part (its PEs, borders and leakage)."""
    return replace(array, rows=shape[0], cols=shape[1])


def array_on(text: str | None, machine: str | None) -> ProcessorArray:
    """``--array`` on ``--machine``: without a machine, :func:`array_of` (``8x8`` when not
    given); with one, the grid ``ROWSxCOLS`` taken from that machine's (no larger than it),
    its whole grid when not given."""
    if machine is None:
        return array_of(text or "8x8")
    base = array_of(machine, "--machine")
    if text is None:
        return base
    if is_declaration_file(text):
        raise SpecError(f"--array {text}: with --machine, give the grid used as ROWSxCOLS "
                        f"(the declaration is {machine})")
    rows, cols = parse_shape(text)
    if rows > base.rows or cols > base.cols:
        raise SpecError(f"--array {rows}x{cols}: larger than the {base.rows}x{base.cols} grid "
                        f"of --machine {machine}")
    return on_grid(base, (rows, cols))
