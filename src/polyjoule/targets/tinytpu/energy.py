"""TinyTPU-isa programs priced in energy: event counts of the fetched stream x unit energies.

A program's events are counted from what the sequencer fetches (the expanded, AGU-resolved
issues and the loop/endloop fetches) and the build: int8 MACs in the array, accumulator
lane adds, spad/vr/ar row reads and writes, the array's pipeline registers, the DMA
engines' words, DRAM words (the operand bursts of the header spans, the C rows), the imem
prefetch and the two imem words every fetch reads. Energy = sum over events of count x
the unit energy of its table entry, scaled to the width the event moves.

The table is data (``library/data/tinytpu_energy.yaml``), every value with its source; a
user file overrides any subset of entries (``map --energy-table FILE``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from polyjoule.errors import EnergyTableError
from polyjoule.frontends.specerrors import spec_error
from polyjoule.frontends.specfile import read_yaml
from polyjoule.targets.tinytpu.assembler import Issue
from polyjoule.targets.tinytpu.isa import Op
from polyjoule.targets.tinytpu.params import Config

#: table entries priced per operation (no width)
OP_ENTRIES = ("mac_int8", "add_int32", "relu_int32", "saturate_int32")
#: table entries priced per access of ``bits`` bits, scaled linearly to the event's width
WIDTH_ENTRIES = ("spad_read", "spad_write", "vr_read", "vr_write", "ar_read", "ar_write",
                 "imem_read", "imem_write", "pe_register", "dma_word", "dram_read",
                 "dram_write")
#: imem word width (bits) and words per instruction fetch (sheet §1)
IMEM_BITS, FETCH_WORDS = 64, 2


def _widths(cfg: Config) -> dict[str, tuple[str, int | None]]:
    """Event -> (table entry, bits the event moves; None for an operation)."""
    vw, aw = cfg.VW, cfg.AW
    return {
        "mac": ("mac_int8", None), "acc_add": ("add_int32", None),
        "relu": ("relu_int32", None), "saturate": ("saturate_int32", None),
        "spad_read": ("spad_read", vw), "spad_write": ("spad_write", vw),
        "vr_read": ("vr_read", vw), "vr_write": ("vr_write", vw),
        "ar_read": ("ar_read", aw), "ar_write": ("ar_write", aw),
        "pe_act": ("pe_register", 8), "pe_psum": ("pe_register", 32),
        "pe_weight": ("pe_register", 8),
        "dma_word": ("dma_word", vw), "dram_read": ("dram_read", vw),
        "dram_write": ("dram_write", vw),
        "fetch": ("imem_read", FETCH_WORDS * IMEM_BITS),
        "imem_load": ("dram_read", IMEM_BITS), "imem_write": ("imem_write", IMEM_BITS),
    }


#: what each event counts (docs, ``--json``)
EVENTS: dict[str, str] = {
    "mac": "int8 multiply-accumulates in the PEs (mm rows x T x T)",
    "acc_add": "int32 accumulator lane adds (mm acc=1, vadd, vaddrelu)",
    "relu": "int32 lane max(x, 0) (vrelu, vaddrelu)",
    "saturate": "int32 -> int8 lane clips (mvout)",
    "spad_read": "spad rows read (vld, T weight rows per mm)",
    "spad_write": "spad rows written (dma_ld to spad)",
    "vr_read": "vr rows read (mm activations)",
    "vr_write": "vr rows written (dma_ld to vr, vld)",
    "ar_read": "ar rows read (mm acc=1, 2 per vadd row, vrelu, mvout)",
    "ar_write": "ar rows written (mm, vadd, vrelu, vaddrelu)",
    "pe_act": "int8 activation register writes (a lane enters each of T PEs per row)",
    "pe_psum": "int32 partial-sum register writes (each PE per row)",
    "pe_weight": "int8 stationary weight loads (T x T per mm; chain hops not counted)",
    "dma_word": "packed words the DMA engines move on chip (dma_ld rows, mvout rows)",
    "dram_read": "DRAM words of the operand bursts ((a_span + b_span) x MAXDIM/T)",
    "dram_write": "DRAM words written (mvout rows)",
    "fetch": "sequencer fetches, data and loop/endloop (two imem words each)",
    "imem_load": "64-bit program words prefetched from DRAM (IMEM_SIZE)",
    "imem_write": "64-bit imem words written by the prefetch (IMEM_SIZE)",
}


# --------------------------------------------------------------------------- the table

class _UnitEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pj: float = Field(gt=0, allow_inf_nan=False)
    bits: StrictInt | None = Field(default=None, gt=0, multiple_of=8)
    source: str = Field(default="user file", min_length=1)


class _TableFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: Literal[1] = 1
    name: str = "user table"
    unit_pj: dict[Literal[OP_ENTRIES + WIDTH_ENTRIES], _UnitEntry] = {}  # type: ignore[valid-type]


@dataclass(frozen=True)
class UnitEnergies:
    """pJ per unit operation (or per access of ``bits`` bits), each with its source."""

    name: str
    pj: Mapping[str, float]
    bits: Mapping[str, int | None]
    sources: Mapping[str, str]

    def per_event(self, entry: str, event_bits: int | None) -> float:
        """pJ of one event priced by ``entry`` moving ``event_bits`` bits."""
        unit = self.bits[entry]
        return self.pj[entry] if unit is None else self.pj[entry] * event_bits / unit  # type: ignore[operator]

    def merged(self, data: Any, where: str) -> UnitEnergies:
        """This table with the entries of ``data`` (a parsed table file) replacing its own."""
        if not isinstance(data, dict):
            raise EnergyTableError(f"{where}: expected a mapping with unit_pj")
        try:
            t = _TableFile.model_validate(data)
        except ValidationError as e:
            raise spec_error(e, where, _TableFile, "docs/mapper.md",
                             error=EnergyTableError) from None
        pj, bits, sources = dict(self.pj), dict(self.bits), dict(self.sources)
        for k, e in t.unit_pj.items():
            if k in WIDTH_ENTRIES and e.bits is None:
                raise EnergyTableError(f"{where}: unit_pj.{k}.bits: required (pJ per access "
                                       "of this many bits)")
            if k in OP_ENTRIES and e.bits is not None:
                raise EnergyTableError(f"{where}: unit_pj.{k}.bits: {k} is priced per "
                                       "operation, not per bit width")
            pj[k], bits[k] = e.pj, e.bits
            sources[k] = e.source if where == "<default>" else f"{where}: {e.source}"
        name = t.name if where == "<default>" else f"{self.name} + {Path(where).name}"
        return UnitEnergies(name, pj, bits, sources)


@functools.lru_cache(maxsize=1)
def default_energies() -> UnitEnergies:
    """The shipped 45 nm table; it must price every entry."""
    text = resources.files("polyjoule.library").joinpath("data", "tinytpu_energy.yaml")
    table = UnitEnergies("empty", {}, {}, {}).merged(yaml.safe_load(text.read_text()),
                                                     "<default>")
    assert set(table.pj) == set(OP_ENTRIES + WIDTH_ENTRIES), sorted(table.pj)
    return table


def load_energies(path: str | Path | None) -> UnitEnergies:
    """The shipped table, with ``path``'s entries overriding when given."""
    if path is None:
        return default_energies()
    return default_energies().merged(read_yaml(path), str(path))


# --------------------------------------------------------------------------- the counts

def _issue_events(x: Issue, T: int, n: dict[str, int]) -> None:
    """Add one data issue's events to ``n`` (sheet §6, §8: what each opcode touches)."""
    op, nr = x.op, x.nr
    if op == Op.DMA_LD:
        n["dma_word"] += nr
        n["vr_write" if x.f0 & 2 else "spad_write"] += nr
    elif op == Op.VLD:
        n["spad_read"] += nr
        n["vr_write"] += nr
    elif op == Op.MM:
        for ev in ("mac", "pe_act", "pe_psum"):
            n[ev] += nr * T * T
        n["pe_weight"] += T * T
        n["spad_read"] += T
        n["vr_read"] += nr
        n["ar_write"] += nr
        if x.f2 == 1:
            n["ar_read"] += nr
            n["acc_add"] += nr * T
    elif op in (Op.VADD, Op.VADDRELU):
        n["ar_read"] += 2 * nr
        n["ar_write"] += nr
        n["acc_add"] += nr * T
        n["relu"] += nr * T if op == Op.VADDRELU else 0
    elif op == Op.VRELU:
        n["ar_read"] += nr
        n["ar_write"] += nr
        n["relu"] += nr * T
    elif op == Op.MVOUT:
        n["ar_read"] += nr
        n["saturate"] += nr * T
        n["dma_word"] += nr
        n["dram_write"] += nr


def count_events(issues: Iterable[Issue], fetches: int, cfg: Config) -> dict[str, int]:
    """Every event of a program: its data issues, its ``fetches`` (data + loop control)."""
    n = dict.fromkeys(EVENTS, 0)
    spans = {0: 0, 1: 0}  # DRAM rows each operand burst covers (header word 7)
    for x in issues:
        _issue_events(x, cfg.T, n)
        if x.op == Op.DMA_LD:
            spans[x.f0 & 1] = max(spans[x.f0 & 1], x.f1 + x.nr)
    n["dram_read"] = (spans[0] + spans[1]) * cfg.WPR
    n["fetch"] = fetches
    n["imem_load"] = n["imem_write"] = cfg.IMEM_SIZE
    return n


@dataclass(frozen=True)
class ProgramEnergy:
    """A program's event counts, pJ per event class, and the total."""

    counts: Mapping[str, int]
    pj: Mapping[str, float]
    table: str

    @property
    def total_pj(self) -> float:
        return sum(self.pj.values())


def priced_events(counts: Mapping[str, int], cfg: Config,
                  table: UnitEnergies | None = None) -> ProgramEnergy:
    """Event counts of a program on ``cfg`` x ``table`` (default: the shipped one)."""
    table = table or default_energies()
    widths = _widths(cfg)
    pj = {ev: c * table.per_event(*widths[ev]) for ev, c in counts.items()}
    return ProgramEnergy(dict(counts), pj, table.name)


def program_energy(issues: Iterable[Issue], fetches: int, cfg: Config,
                   table: UnitEnergies | None = None) -> ProgramEnergy:
    """Counts x ``table`` (default: the shipped one) for a program's issues and fetches."""
    return priced_events(count_events(issues, fetches, cfg), cfg, table)
