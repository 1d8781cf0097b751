"""An einsum over named ranks plus a pointwise epilogue: a spec that is its own gold.

One object drives enumeration (its ranks and extents), lowering (its operands and
contractions) and correctness (``evaluate`` computes the result with numpy). The
localisation front end turns the same object into a PRA; the TOSA front end produces it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from polyjoule.errors import SpecError

#: Pointwise epilogue operations, by name. Adding one is adding an entry.
POINTWISE = {"relu": lambda x: np.maximum(x, 0)}


@dataclass(frozen=True)
class Tensor:
    """A tensor indexed by named ranks, in order (``A(M, K)``)."""

    name: str
    ranks: tuple[str, ...]

    def extent(self, extents: Mapping[str, int]) -> tuple[int, ...]:
        return tuple(extents[r] for r in self.ranks)


@dataclass(frozen=True)
class Workload:
    """``result = epilogue(sum_i einsum(act_i, wgt_i))`` over named ranks.

    ``contractions`` names (activation, weight) pairs; the result is the sum of their
    einsums. Validation happens at construction and raises :class:`SpecError`.
    """

    name: str
    ranks: tuple[str, ...]
    reduce: tuple[str, ...]
    operands: tuple[Tensor, ...]
    result: Tensor
    contractions: tuple[tuple[str, str], ...]
    epilogue: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        where = f"workload {self.name!r}"
        if len(set(self.ranks)) != len(self.ranks):
            raise SpecError(f"{where}: ranks: repeated rank in {self.ranks}")
        known = set(self.ranks)
        for t in (*self.operands, self.result):
            bad = [r for r in t.ranks if r not in known]
            if bad:
                raise SpecError(f"{where}: tensor {t.name}: unknown rank {bad[0]!r}")
        bad = [r for r in self.reduce if r not in known]
        if bad:
            raise SpecError(f"{where}: reduce: unknown rank {bad[0]!r}")
        if set(self.result.ranks) != set(self.free):
            raise SpecError(
                f"{where}: result {self.result.name}: ranks {self.result.ranks} "
                f"must be the free ranks {self.free}"
            )
        names = {t.name for t in self.operands}
        for act, wgt in self.contractions:
            for n in (act, wgt):
                if n not in names:
                    raise SpecError(f"{where}: contractions: unknown operand {n!r}")
            covered = set(self.tensor(act).ranks) | set(self.tensor(wgt).ranks)
            if covered != known:
                raise SpecError(
                    f"{where}: contraction ({act}, {wgt}) covers ranks {sorted(covered)}, "
                    f"not all of {list(self.ranks)}"
                )
        for op in self.epilogue:
            if op not in POINTWISE:
                raise SpecError(f"{where}: epilogue: unknown pointwise op {op!r}")

    @property
    def free(self) -> tuple[str, ...]:
        return tuple(r for r in self.ranks if r not in self.reduce)

    def tensor(self, name: str) -> Tensor:
        for t in (*self.operands, self.result):
            if t.name == name:
                return t
        raise SpecError(f"workload {self.name!r}: no tensor named {name!r}")

    def letters(self, t: Tensor) -> str:
        """Einsum subscript of a tensor: rank i is the i-th lowercase letter."""
        return "".join(chr(ord("a") + self.ranks.index(r)) for r in t.ranks)

    def check_extents(self, extents: Mapping[str, int]) -> None:
        for r in extents:
            if r not in self.ranks:
                raise SpecError(f"workload {self.name!r}: extents: unknown rank {r!r}")
        for r in self.ranks:
            if r not in extents:
                raise SpecError(f"workload {self.name!r}: extents: rank {r!r} missing")
            if int(extents[r]) < 1:
                raise SpecError(f"workload {self.name!r}: extents: rank {r} = {extents[r]} < 1")

    def evaluate(self, values: Mapping[str, np.ndarray],
                 dtype: type = np.int64) -> np.ndarray:
        """The gold result: each contraction's einsum (in int64 by default), summed, then the
        epilogue."""
        out = None
        for act, wgt in self.contractions:
            a, w = self.tensor(act), self.tensor(wgt)
            spec = f"{self.letters(a)},{self.letters(w)}->{self.letters(self.result)}"
            term = np.einsum(spec, np.asarray(values[act], dtype=dtype),
                             np.asarray(values[wgt], dtype=dtype))
            out = term if out is None else out + term
        assert out is not None
        for op in self.epilogue:
            out = POINTWISE[op](out)
        return out
