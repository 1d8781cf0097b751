"""What a target's price says: named objectives in priority order, and the margin.

The search ranks by :class:`Cost` alone; a target decides what its objectives are
(e.g. ``(makespan, emits)``) and in which order they matter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple


class Cost(tuple):  # type: ignore[type-arg]
    """Objective values in the target's priority order, lower is better, compared
    lexicographically (as the tuple of values; costs of one search share their names).

    ``cost[0]``, ``cost["makespan"]`` and ``cost.makespan`` read one value;
    ``str(cost)`` is the bare tuple, e.g. ``(517, 32)``.
    """

    names: tuple[str, ...]

    def __new__(cls, names: Sequence[str], values: Iterable[float]) -> Cost:
        self = super().__new__(cls, values)
        assert len(names) == len(self) and len(set(names)) == len(names), (names, self)
        self.names = tuple(names)
        return self

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names.index(key))
        return tuple.__getitem__(self, key)

    def __getattr__(self, name: str) -> Any:
        names = self.__dict__.get("names", ())
        if name in names:
            return tuple.__getitem__(self, names.index(name))
        raise AttributeError(f"cost has no objective {name!r} (objectives: {names})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Cost, (self.names, tuple(self)))

    def __repr__(self) -> str:
        return "Cost(" + ", ".join(f"{n}={v}" for n, v in zip(self.names, self, strict=True)) + ")"

    def __str__(self) -> str:
        return str(tuple(self))

    def asdict(self) -> dict[str, float]:
        return dict(zip(self.names, self, strict=True))


@dataclass(frozen=True)
class Priced:
    """A program's cost, and the timeline it was read from when the target has one."""

    cost: Cost
    timeline: Any = None  # e.g. polyjoule.analysis.steps.Timeline: bottleneck, critical path


class Margin(NamedTuple):
    """Best vs runner-up: ratio of the first objective, and the gap the target predicts
    in its measured unit next to its error bar (the ranking stands only beyond it)."""

    ratio: float
    gap: float
    unit: str
    exceeds_error_bar: bool
    basis: str  # how the gap was predicted, e.g. the fit and its worst residual


def exact_key(parts: Iterable[Any]) -> Any:
    """One objective over blocks of points, as a sort key (for ``np.lexsort``) that orders
    them exactly. Floats stay floats and integers int64; integers past int64 (Python ints
    in object arrays), or integers next to floats, become their exact ranks: a float key
    ties or misorders latencies past 2^53, and such a key misranked mappings."""
    import numpy as np

    arrays = [np.asarray(p).reshape(-1) for p in parts]
    kinds = {a.dtype.kind for a in arrays}
    if kinds <= {"i", "b"}:
        return np.concatenate(arrays).astype(np.int64)
    if kinds == {"f"}:
        return np.concatenate(arrays)
    column = np.concatenate([a.astype(object) for a in arrays])  # Python compares exactly
    return np.unique(column, return_inverse=True)[1].reshape(-1).astype(np.int64)
