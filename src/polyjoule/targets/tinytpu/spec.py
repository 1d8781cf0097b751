"""Workload specs (act-mapper sheet §14): what a program must compute, where, and into which bytes.

A spec JSON names an einsum over int8 tensors, where each tensor lives in a
MAXDIM x MAXDIM DRAM image (row-major: every subscript but the last indexes rows,
the last indexes columns, a vector is a column), which output bytes a program may
write (``exact`` footprint or to the end of its T-lane ``column_block``), what the
judge puts in undeclared operand bytes (``operand_pad``), host-placed constants
(``identity``, ``ones_column``) and the spec's own gold: the einsum in int64, the
accumulator wrap, the epilogue, the narrowing to the output type.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from polyjoule.errors import WorkloadSpecError
from polyjoule.targets.tinytpu.params import Config

_SUB = re.compile(r"^[a-z]+$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SpecTensor(_Strict):
    """One input (or the output): its subscript, element type, DRAM buffer and origin."""

    name: str = Field(min_length=1)
    subscript: str
    dtype: Literal["int8", "int32"]
    buffer: Literal["A", "B", "C"]
    origin: tuple[StrictInt, StrictInt]

    @field_validator("subscript")
    @classmethod
    def _letters(cls, v: str) -> str:
        if not _SUB.match(v) or len(set(v)) != len(v):
            raise ValueError(f"{v!r} is not distinct lowercase letters")
        return v

    @field_validator("origin")
    @classmethod
    def _non_negative(cls, v: tuple[int, int]) -> tuple[int, int]:
        if min(v) < 0:
            raise ValueError(f"{list(v)} has a negative coordinate")
        return v


class OutputSpec(SpecTensor):
    write_window: Literal["exact", "column_block"]


class ConstantSpec(_Strict):
    """A host-placed constant operand (the identity of a pointwise op, a ones column)."""

    name: str = Field(min_length=1)
    kind: Literal["identity", "ones_column"]
    rows: StrictInt = Field(ge=1)
    cols: StrictInt = Field(ge=1)
    buffer: Literal["A", "B", "C"]
    origin: tuple[StrictInt, StrictInt]

    def values(self) -> np.ndarray:
        if self.kind == "identity":
            return np.eye(self.rows, self.cols, dtype=np.int64)
        return np.ones((self.rows, self.cols), dtype=np.int64)


class WorkloadSpec(_Strict):
    """A workload spec: the schema of one corpus JSON file."""

    name: str = Field(min_length=1)
    stresses: str = Field(min_length=16)
    einsum: str
    dims: dict[str, StrictInt]
    inputs: tuple[SpecTensor, ...] = Field(min_length=1)
    output: OutputSpec
    accumulator: Literal["int8", "int32"]
    epilogue: tuple[Literal["relu", "saturate"], ...]
    operand_pad: Literal["arbitrary", "zero"]
    constants: tuple[ConstantSpec, ...] = ()
    known_gap: str | None = None

    # --- the layout: a tensor's (rows, cols) box in its image
    def extent(self, t: SpecTensor) -> tuple[int, int]:
        """Rows x columns a tensor occupies: leading subscripts flatten to rows."""
        sizes = [self.dims[c] for c in t.subscript]
        if len(sizes) == 1:
            return sizes[0], 1  # a vector is a column
        return int(np.prod(sizes[:-1])), sizes[-1]

    def box(self, t: SpecTensor | ConstantSpec) -> tuple[slice, slice]:
        r, c = (t.rows, t.cols) if isinstance(t, ConstantSpec) else self.extent(t)
        return slice(t.origin[0], t.origin[0] + r), slice(t.origin[1], t.origin[1] + c)

    def window(self, T: int) -> tuple[slice, slice]:
        """The output bytes a program may write."""
        rows, cols = self.box(self.output)
        if self.output.write_window == "column_block":
            cols = slice(cols.start, -(-cols.stop // T) * T)
        return rows, cols

    def fits(self, cfg: Config) -> str | None:
        """Why the spec does not fit ``cfg``'s images (None when it does)."""
        for t in (*self.inputs, self.output, *self.constants):
            rows, cols = self.box(t)
            if rows.stop > cfg.MAXDIM or cols.stop > cfg.MAXDIM:
                return (f"{t.name} needs rows {rows.stop}, cols {cols.stop} of a "
                        f"MAXDIM={cfg.MAXDIM} image")
        if any(t.origin[1] % cfg.T for t in (*self.inputs, self.output, *self.constants)):
            return f"an origin column is not a multiple of T={cfg.T}"
        return None

    # --- the gold
    def gold(self, values: dict[str, np.ndarray]) -> np.ndarray:
        """The output the spec asks for: einsum in int64, accumulator wrap, epilogue, narrow."""
        operands = [np.asarray(values[t.name], dtype=np.int64).reshape(
            [self.dims[c] for c in t.subscript]) for t in self.inputs]
        acc = np.einsum(self.einsum, *operands, dtype=np.int64)
        acc = _wrap(acc, 32 if self.accumulator == "int32" else 8)
        for op in self.epilogue:
            acc = np.maximum(acc, 0) if op == "relu" else np.clip(acc, -128, 127)
        out = _wrap(acc, 8 if self.output.dtype == "int8" else 32)
        return out.reshape(self.extent(self.output))


def _wrap(x: np.ndarray, bits: int) -> np.ndarray:
    half = 1 << (bits - 1)
    return ((x + half) % (1 << bits)) - half


def _check_rules(spec: WorkloadSpec) -> str | None:
    """The cross-key rules of §14; the first broken one as ``key: message``."""
    subs = [t.subscript for t in spec.inputs]
    want = ",".join(subs) + "->" + spec.output.subscript
    if spec.einsum != want:
        return f"einsum: {spec.einsum!r} is not the subscripts joined ({want!r})"
    if "\n" in spec.stresses:
        return "stresses: must be one line"
    for letter in sorted(set("".join(subs) + spec.output.subscript)):
        if letter not in spec.dims:
            return f"dims: subscript letter {letter!r} has no extent"
    for k, v in spec.dims.items():
        if not re.fullmatch(r"[a-z]", k) or v < 1:
            return f"dims.{k}: must be a single lowercase letter with a positive extent"
    if spec.epilogue and spec.epilogue[-1] != "saturate":
        return "epilogue: a non-empty epilogue must end with saturate"
    for c in spec.constants:
        if c.buffer == spec.output.buffer:
            return f"constants.{c.name}.buffer: a constant may not live in the output buffer"
    if spec.output.buffer != "C" or any(t.buffer == "C" for t in spec.inputs):
        return "buffer: inputs live in A or B, the output in C"
    return None


def parse_spec(doc: object, where: str) -> WorkloadSpec:
    """A spec from its parsed JSON; errors name ``where`` and the key."""
    try:
        spec = WorkloadSpec.model_validate(doc)
    except ValidationError as e:
        from polyjoule.frontends.specerrors import spec_error

        raise spec_error(e, where, WorkloadSpec, "docs/tinytpu.md",
                         error=WorkloadSpecError) from None
    broken = _check_rules(spec)
    if broken is not None:
        raise WorkloadSpecError(f"{where}: {broken}")
    return spec


def load_spec(path: str | Path) -> WorkloadSpec:
    """Read a spec JSON file."""
    path = Path(path)
    from polyjoule.errors import SpecError
    from polyjoule.frontends.specfile import read_text

    try:
        doc = json.loads(read_text(path))
    except SpecError as e:
        raise WorkloadSpecError(str(e)) from None
    except RecursionError:
        raise WorkloadSpecError(f"{path}: nested too deeply") from None
    except json.JSONDecodeError as e:
        raise WorkloadSpecError(f"{path}: not JSON: {e.msg} at line {e.lineno}") from None
    return parse_spec(doc, str(path))
