"""Reading an array declaration file: its schema, its value sources, its defaults.

Every number of a declaration is either bare (``fd_depth: 32``) or carries its source
(``fd_depth: {value: 32, source: "..."}``). :func:`split_sources` separates the two, so the
schema checks plain values and errors name the field as the user wrote it. A user file is
laid over the shipped declaration (:func:`overlay`): what it leaves out keeps the shipped
value and source. ``energy`` is the energy table's own format (``targets/tcpa/energy.py``).
"""

from __future__ import annotations

import copy
import functools
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from polyjoule.errors import SpecError
from polyjoule.frontends.specerrors import spec_error

COMPONENTS = ("pe", "register_file", "fifo", "io_buffer")
BORDERS = ("north", "south", "west", "east")
SHIPPED = "tcpa-45nm.yaml"
_Real = dict(allow_inf_nan=False)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _only(data: Any, kind: str, known: tuple[str, ...]) -> Any:
    """``data`` when its keys are all in ``known``; else an error naming the stranger."""
    if isinstance(data, dict):
        for k in data:
            if k not in known:
                raise ValueError(f"unknown {kind} {k!r} (known: {', '.join(known)})")
    return data


class _PESpec(_Strict):
    rd_registers: int = Field(ge=0, le=1 << 16)
    fd_fifos: int = Field(ge=0, le=1 << 16)
    fd_depth: int = Field(ge=1, le=1 << 24)
    id_ports: int = Field(ge=0, le=64)
    od_ports: int = Field(ge=0, le=64)


class _BufferSpec(_Strict):
    capacity_words: int = Field(ge=1, le=1 << 40)
    bandwidth_words_per_cycle: float = Field(gt=0, le=1e6, **_Real)


class _DramSpec(_Strict):
    bandwidth_gb_per_s: float = Field(gt=0, le=1e6, **_Real)


class _CostSpec(_Strict):
    area_um2: float = Field(ge=0, le=1e12, **_Real)
    leakage_uw: float = Field(ge=0, le=1e12, **_Real)


class _ComponentsSpec(_Strict):
    @model_validator(mode="before")
    @classmethod
    def _known(cls, data: Any) -> Any:
        return _only(data, "component", COMPONENTS)

    pe: _CostSpec
    register_file: _CostSpec
    fifo: _CostSpec
    io_buffer: _CostSpec


class _BuffersSpec(_Strict):
    @model_validator(mode="before")
    @classmethod
    def _known(cls, data: Any) -> Any:
        return _only(data, "border", BORDERS)

    @model_validator(mode="after")
    def _some(self) -> _BuffersSpec:
        if all(getattr(self, b) is None for b in BORDERS):
            raise ValueError(f"an array needs at least one I/O buffer (borders: {', '.join(BORDERS)})")
        return self

    north: _BufferSpec | None = None
    south: _BufferSpec | None = None
    west: _BufferSpec | None = None
    east: _BufferSpec | None = None


WordBits = Annotated[int, Field(ge=8, le=1024, multiple_of=8)]


class DeclarationSpec(_Strict):
    """A declaration after :func:`split_sources` and :func:`overlay` (plain values)."""

    version: Literal[1, 2] = 1
    name: str = "array"
    rows: int = Field(ge=1, le=4096)
    cols: int = Field(ge=1, le=4096)
    clock_mhz: float = Field(gt=0, le=1e6, **_Real)
    word_bits: dict[str, WordBits]
    pe: _PESpec
    io_buffers: _BuffersSpec
    dram: _DramSpec
    components: _ComponentsSpec
    energy: dict[str, Any] = Field(default_factory=dict)


#: the declaration's own words where the shared ones are too general
WORDS = {"multiple_of": "must be a multiple of {multiple_of} bits"}


def checked(data: dict[str, Any], where: str) -> DeclarationSpec:
    """``data`` (plain values, laid over the shipped declaration) checked against the schema;
    a failure is one line naming the file and every wrong field, in a declaration's words."""
    try:
        return DeclarationSpec.model_validate(data)
    except ValidationError as e:
        raise spec_error(e, where, DeclarationSpec, "docs/arch.md", WORDS) from None


def _is_sourced(x: Any, where: str) -> bool:
    """Whether ``x`` is a ``{value, source}`` pair (any other key next to value: an error)."""
    if not (isinstance(x, dict) and "value" in x):
        return False
    extra = sorted(str(k) for k in set(x) - {"value", "source"})
    if extra:
        raise SpecError(f"{where}: unknown key {extra[0]!r} next to value "
                        "(a value with its source is {value: ..., source: \"...\"})")
    return True


def split_sources(data: Any, bare: str, at: str = "") -> tuple[Any, dict[str, str]]:
    """``data`` with every ``{value, source}`` replaced by its value, and the sources by
    field path (``pe.fd_depth``); a bare value's source is ``bare``. ``energy`` is kept."""
    if _is_sourced(data, f"{bare}: {at}"):
        return data["value"], {at: str(data.get("source", bare))}
    if not isinstance(data, dict):
        return data, ({at: bare} if at and isinstance(data, int | float) else {})
    plain, sources = {}, {}
    for k, v in data.items():
        path = f"{at}.{k}" if at else str(k)
        if path in ("energy", "version", "name"):
            plain[k] = v
            continue
        plain[k], found = split_sources(v, bare, path)
        sources.update(found)
    return plain, sources


def overlay(base: dict[str, Any], user: dict[str, Any], whole: tuple[str, ...] = ("io_buffers",)) -> dict[str, Any]:
    """``user`` laid over ``base``: nested sections merge key by key, except the ``whole``
    ones, which a user file replaces entirely (a 1-D array may have two I/O buffers)."""
    out = copy.deepcopy(base)
    for k, v in user.items():
        if k not in whole and isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = overlay(out[k], v, ())
        else:
            out[k] = copy.deepcopy(v)
    return out


@cache
def _shipped_text() -> str:
    return resources.files("polyjoule.library").joinpath("data", "arch", SHIPPED).read_text()


@functools.cache
def _shipped_parsed() -> dict[str, Any]:
    from polyjoule.targets.tcpa.energy import SAFE_LOADER

    return yaml.load(_shipped_text(), Loader=SAFE_LOADER)


def shipped() -> dict[str, Any]:
    """The shipped declaration as parsed YAML (a fresh copy: callers may change it); parsed
    once per process, since every analysis starts from it."""
    return copy.deepcopy(_shipped_parsed())
