"""A processor array (TCPA) as data: its PE grid and its energy table.

An array is a declaration, not code: ``--array 8x8`` (the default 45 nm table) or
``--array my-array.yaml``::

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

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from polyjoule.errors import SpecError
from polyjoule.frontends.specfile import read_yaml, validation_error
from polyjoule.targets.tcpa.energy import EnergyTable, default_table


class _ArraySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = 1
    name: str = "array"
    rows: int = Field(ge=1, le=4096)
    cols: int = Field(ge=1, le=4096)
    energy: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class ProcessorArray:
    """A rows x cols grid of PEs and the energies of its memories and operations."""

    name: str
    rows: int
    cols: int
    energy: EnergyTable

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)


def load_array(path: str | Path) -> ProcessorArray:
    """An array declaration file; errors name the file and the field."""
    p = Path(path)
    data = read_yaml(p)
    try:
        spec = _ArraySpec.model_validate(data)
    except ValidationError as e:
        raise validation_error(e, p) from None
    table = default_table()
    if spec.energy:
        table = table.merged(spec.energy, f"{p}: energy")
    return ProcessorArray(spec.name, spec.rows, spec.cols, table)


def parse_shape(text: str, what: str = "--array") -> tuple[int, int]:
    """``ROWSxCOLS``; a bare ``C`` is the 1-D array ``1xC``."""
    parts = [x for x in text.strip().lower().split("x") if x.strip()]
    try:
        dims = [int(x) for x in parts]
    except ValueError:
        raise SpecError(f"{what}: {text!r} is not ROWSxCOLS") from None
    if len(dims) == 1:
        dims = [1, dims[0]]
    if len(dims) != 2 or min(dims) < 1 or max(dims) > 2**20:
        raise SpecError(f"{what}: {text!r} is not ROWSxCOLS with sizes in 1..2**20")
    return dims[0], dims[1]


def array_of(text: str) -> ProcessorArray:
    """``ROWSxCOLS`` (1-D: ``C`` or ``1xC``) with the default table, or a declaration file."""
    if text.endswith((".yaml", ".yml")) or Path(text).is_file():
        return load_array(text)
    rows, cols = parse_shape(text)
    return ProcessorArray(f"{rows}x{cols}", rows, cols, default_table())
