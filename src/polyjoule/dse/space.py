"""The design space of a sweep: problem sizes, array shapes, tile sizes, scanning orders.

Size specs (``--size``, repeatable, one parameter each):

* ``NI=8:1024:8``   inclusive range with a step (``8:1024`` steps by 1);
* ``NI=8:1024:*2``  geometric range (8, 16, 32, ..., 1024);
* ``NI=20,60,200``  a list;
* ``N=...``         when ``N`` is not a parameter of the kernel: every parameter not given
  on its own takes the same value (square problems).

Named parameters form a Cartesian product; dataset presets (``--dataset MINI,SMALL`` or
``all``) add one point each. Problem sizes are kept as one int64 array per parameter, so a
million points cost a few megabytes and evaluate in one vectorised call.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from polyjoule.errors import SpecError
from polyjoule.model.pra import Kernel

T = TypeVar("T")

#: Largest number of design points a sweep accepts (memory: ~100 B per point and mapping).
MAX_POINTS = 50_000_000


def parse_values(text: str, what: str) -> np.ndarray:
    """``8:1024:8``, ``8:1024:*2`` or ``8,16,32`` -> int64 array (never empty)."""
    text = text.strip()
    try:
        if ":" in text:
            parts = text.split(":")
            if len(parts) not in (2, 3):
                raise ValueError
            lo, hi = int(parts[0]), int(parts[1])
            if max(abs(lo), abs(hi)) >= 2**63:
                raise SpecError(f"{what}: {text!r}: bounds outside the 64-bit integer range")
            step = parts[2].strip() if len(parts) == 3 else "1"
            if step.startswith("*"):
                f = int(step[1:])
                if f < 2 or lo < 1:
                    raise SpecError(f"{what}: {text!r}: a geometric range needs start >= 1 and factor >= 2")
                vals = []
                v = lo
                while v <= hi:
                    vals.append(v)
                    v *= f
                out = np.asarray(vals, dtype=np.int64)
            else:
                s = int(step)
                if s < 1:
                    raise SpecError(f"{what}: {text!r}: step must be at least 1")
                if (hi - lo) // s + 1 > MAX_POINTS:  # refused before anything is allocated
                    raise SpecError(f"{what}: {text!r}: more than {MAX_POINTS:,} values")
                out = np.arange(lo, hi + 1, s, dtype=np.int64)
        else:
            vals = [int(x) for x in text.split(",") if x.strip()]
            if any(abs(v) >= 2**63 for v in vals):
                raise SpecError(f"{what}: {text!r}: a value outside the 64-bit integer range (sizes "
                                "are below 2**63; counts and latencies beyond it are exact)")
            out = np.asarray(vals, dtype=np.int64)
    except (ValueError, OverflowError):
        raise SpecError(f"{what}: {text!r} is not START:STOP[:STEP|:*FACTOR] or a list of integers") from None
    if out.size == 0:
        raise SpecError(f"{what}: {text!r} is an empty range")
    return out


#: a comma that starts another ``NAME=`` in one size spec
_NEXT_NAME = re.compile(r",\s*(?=[A-Za-z_][A-Za-z0-9_]*\s*=)")


def parameter_names(kernel: Kernel, named: dict[str, T], where: str) -> dict[str, T]:
    """``named`` keyed by the kernel's parameters: a name that is no parameter but one in
    another case (``i`` for an einsum's ``I``) is that parameter; ``N`` (or ``ALL``) stays,
    to set every parameter not given (:meth:`Kernel.spread`). Refused: any other name, and
    ``N`` when it would set nothing (a kernel without parameters: ``#define N 16`` is a
    constant, not a parameter)."""
    from polyjoule.errors import UnknownNameError

    params = list(kernel.params)
    out: dict[str, T] = {}
    typed: dict[str, str] = {}
    for k, v in named.items():
        typed_as = k
        alike = [p for p in params if p.lower() == k.lower()]
        tied = k == "N" or k.upper() == "ALL"
        if k not in params and not params:
            raise UnknownNameError(f"{where}: {kernel.name} has no parameters (its loop bounds "
                                   f"are constants), so {k} sets nothing")
        if k not in params and len(alike) == 1 and not tied:
            k = alike[0]
        elif k not in params and not tied:
            raise UnknownNameError(f"{where}: {kernel.name} has no parameter {k!r} (its "
                                   f"parameters: {', '.join(params)}; N sets every one not "
                                   "given)")
        if k in out:
            raise SpecError(f"{where}: {k} given twice (as {typed[k]} and {typed_as})")
        out[k], typed[k] = v, typed_as
    tie = next((k for k in out if k not in params), None)
    if tie is not None and params and all(p in out for p in params):
        raise SpecError(f"{where}: {typed[tie]} sets nothing here: every parameter of "
                        f"{kernel.name} is given ({', '.join(params)})")
    return out


def parse_size_specs(kernel: Kernel, specs: Sequence[str]) -> tuple[dict[str, np.ndarray], list[str]]:
    """``["NI=8:64:8", "N=4,8"]`` -> per-parameter value lists and the parameters ``N`` ties.
    One spec may name several parameters, as ``analyze --set`` takes them: ``N=64,W=8``
    (a comma before ``NAME=`` starts the next)."""
    named: dict[str, np.ndarray] = {}
    for spec in (part for given in specs for part in _NEXT_NAME.split(given)):
        if "=" not in spec:
            raise SpecError(f"--size: {spec!r} is not NAME=RANGE (e.g. N=8:1024:8)")
        name, rng = (s.strip() for s in spec.split("=", 1))
        named[name] = parse_values(rng, f"--size {name}")
    named = parameter_names(kernel, named, "--size")
    given = kernel.spread(named, "--size")
    return given, [p for p in given if p not in named]


@dataclass(frozen=True)
class SizeGrid:
    """Design points in problem size: one int64 array per kernel parameter, equal length."""

    params: tuple[str, ...]
    values: dict[str, np.ndarray]
    labels: np.ndarray  # dataset name or "" per point

    def __len__(self) -> int:
        return int(self.labels.shape[0])


def size_grid(kernel: Kernel, specs: Sequence[str] = (), datasets: Sequence[str] = (),
              base: Mapping[str, int] | None = None) -> SizeGrid:
    """Every problem size the sweep covers (product of ranges, plus dataset presets); a
    parameter no spec names (and ``N`` does not tie) takes its value in ``base`` (an
    einsum's ``--extents``), as ``analyze --set`` overlays them."""
    params = kernel.params
    columns: dict[str, list[np.ndarray]] = {p: [] for p in params}
    labels: list[np.ndarray] = []
    if specs:
        given, tied = parse_size_specs(kernel, specs)
        given.update({p: np.asarray([int(base[p])], dtype=np.int64) for p in params
                      if p not in given and base and p in base})
        missing = [p for p in params if p not in given]
        if missing:
            raise SpecError(f"--size: parameter {missing[0]} of {kernel.name} is not set "
                            f"(give --size {missing[0]}=.. or --size N=.. for all)")
        free = [p for p in params if p not in tied]
        axes = [given[p] for p in free] + ([given[tied[0]]] if tied else [])
        total = int(np.prod([a.size for a in axes], dtype=object))
        if total > MAX_POINTS:
            raise SpecError(f"--size: {total:,} problem sizes exceed the limit of {MAX_POINTS:,}")
        mesh = np.meshgrid(*axes, indexing="ij")
        flat = [m.reshape(-1) for m in mesh]
        for p, a in zip(free, flat, strict=False):
            columns[p].append(a)
        for p in tied:
            columns[p].append(flat[-1])
        labels.append(np.full(total, "", dtype=object))
    names = list(kernel.datasets) if list(datasets) == ["all"] else list(datasets)
    if list(datasets) == ["all"] and not names:
        raise SpecError(f"--dataset all: {kernel.name} has no dataset presets (give --size "
                        "NAME=RANGE)")
    for d in names:
        vals = kernel.resolve(None, d)
        for p in params:
            if p not in vals:
                raise SpecError(f"--dataset: {d} does not set {p}")
            columns[p].append(np.asarray([vals[p]], dtype=np.int64))
        labels.append(np.asarray([d], dtype=object))
    if not labels:
        raise SpecError("sweep: no problem sizes (give --size NAME=RANGE or --dataset)")
    return SizeGrid(tuple(params), {p: np.concatenate(c) for p, c in columns.items()},
                    np.concatenate(labels))


@dataclass(frozen=True)
class MappingSpec:
    """One mapping: array shape, tile sizes (``None``: ceil(N/t)) and scanning order.

    ``order`` is ``None`` for the best feasible order per point, else dim names innermost
    first (``("i", "j", "k")``).
    """

    array: tuple[int, int]
    tile: tuple[int, ...] | None = None
    order: tuple[str, ...] | None = None

    @property
    def array_text(self) -> str:
        return f"{self.array[0]}x{self.array[1]}"

    @property
    def tile_text(self) -> str:
        return "auto" if self.tile is None else ",".join(map(str, self.tile))

    @property
    def order_text(self) -> str:
        return "auto" if self.order is None else "/".join(self.order)


def parse_arrays(text: str) -> list[tuple[int, int]]:
    """``4x4,8x8,1x16`` (a bare ``16`` is a 1-D array 1x16)."""
    from polyjoule.targets.tcpa.array import parse_shape

    items = [item.strip() for item in text.split(",") if item.strip()]
    out = [parse_shape(f"1x{item}" if item.isdigit() else item, "--arrays") for item in items]
    if not out:
        raise SpecError("--arrays: no array shape given")
    return list(dict.fromkeys(out))


def parse_tiles(items: Sequence[str]) -> list[tuple[int, ...] | None]:
    """``["auto", "4,4,1"]`` -> tile-size vectors (``auto``: ceil(N/t))."""
    out: list[tuple[int, ...] | None] = []
    for item in items or ["auto"]:
        for part in item.split(";"):
            part = part.strip()
            if not part:
                continue
            if part == "auto":
                out.append(None)
                continue
            try:
                t = tuple(int(x) for x in part.split(","))
            except ValueError:
                raise SpecError(f"--tile: {part!r} is not a list of integers (or auto)") from None
            if min(t) < 1:
                raise SpecError(f"--tile: {part!r}: tile sizes must be positive")
            out.append(t)
    return list(dict.fromkeys(out)) or [None]


def parse_orders(kernel: Kernel, text: str | None) -> list[tuple[str, ...] | None]:
    """``auto`` (best per point), ``all`` (every permutation) or orders like ``ijk,kji``/``i/j/k``."""
    if text is None or text.strip() == "auto":
        return [None]
    dims = kernel.phases[0].dim_names
    out: list[tuple[str, ...] | None] = []
    for item in text.split(","):
        item = item.strip()
        if item == "auto":
            out.append(None)
        elif item == "all":
            out.extend(itertools.permutations(dims))
        elif item:
            names = tuple(item.split("/")) if "/" in item else (
                tuple(item) if all(len(d) == 1 for d in dims) else (item,))
            if sorted(names) != sorted(dims):
                raise SpecError(f"--orders: {item!r} is not a permutation of {kernel.name}'s dims "
                                f"{'/'.join(dims)} (innermost first)")
            out.append(names)
    if not out:
        raise SpecError(f"--orders: {text!r} names no order (auto, all, or orders like "
                        f"{'/'.join(dims)})")
    return list(dict.fromkeys(out))


def mappings(arrays: Sequence[tuple[int, int]], tiles: Sequence[tuple[int, ...] | None],
             orders: Sequence[tuple[str, ...] | None]) -> list[MappingSpec]:
    """The product of array shapes, tile sizes and scanning orders."""
    return [MappingSpec(a, t, o) for a in arrays for t in tiles for o in orders]
