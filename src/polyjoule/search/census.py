"""Census of refusals, in the three published definitions.

* first cause: each nest charged to the cause its refusal names first (depends on the
  target's check order; a property of the flow, not of the hardware);
* every cause (``any_counts``) and *independent*: each structural predicate asked of
  every nest alone, so a nest may count in several rows;
* relieve-one-constraint: drop one check, search again, see which nests come back and
  what binds next.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from polyjoule.errors import Kind, Refused
from polyjoule.search import mapspace
from polyjoule.search import target as targets
from polyjoule.search.nest import MapNest, order

if TYPE_CHECKING:
    from polyjoule.search.search import Problem, SearchResult
    from polyjoule.search.target import Target


class Row(NamedTuple):
    """One census row: first-cause count, every-cause count, kind, an example."""

    cause: str
    first: int
    any: int
    kind: Kind
    example: str
    detail: str


@dataclass
class Census:
    """Refusals tallied by first cause and by every cause, with one example per cause."""

    counts: Counter[str] = field(default_factory=Counter)
    any_counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, tuple[str, str]] = field(default_factory=dict)
    kinds: dict[str, Kind] = field(default_factory=dict)
    refused: dict[MapNest, Refused] = field(default_factory=dict)

    def add(self, nest: MapNest, refusal: Refused) -> None:
        self.counts[refusal.cause] += 1
        for c in refusal.also:
            self.any_counts[c] += 1
            self.kinds.setdefault(c, refusal.kind(c))
        if refusal.cause not in self.examples:
            self.examples[refusal.cause] = (order(nest), refusal.detail)
        self.refused[nest] = refusal

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def rows(self) -> list[Row]:
        """One row per first cause, by descending count then name."""
        keys = sorted(self.counts, key=lambda c: (-self.counts[c], c))
        return [Row(c, self.counts[c], self.any_counts[c], self.kinds[c],
                    *self.examples[c]) for c in keys]

    def by_kind(self, every: bool = False) -> Counter[Kind]:
        """Refusals per kind, by first cause or (``every``) counting every cause."""
        src = self.any_counts if every else self.counts
        out: Counter[Kind] = Counter()
        for c, n in src.items():
            out[self.kinds[c]] += n
        return out


def independent(problem: Problem, target: Target, slots: int = 2) -> Counter[str]:
    """Each structural predicate asked of every nest on its own."""
    from polyjoule.search.search import tracked

    wl, ext = problem.workload, problem.extents
    out: Counter[str] = Counter()
    space = target.mapspace(wl, ext)
    mapspace.check_count(problem.title, ext, space, slots)  # as search: counted first
    for nest in tracked("census", mapspace.nests(ext, space, slots)):
        for cause in dict.fromkeys(c for c, _ in targets.refusals(target, wl, ext, nest)):
            out[cause] += 1
    return out


@dataclass
class Relief:
    """What relieving one constraint changed: nests returned, and what binds them next."""

    cause: str
    base: SearchResult
    relieved: SearchResult
    returned: list[MapNest]  # refused before, encodable now
    rebound: Counter[str]  # refused before by ``cause``, now refused by this first cause

    @property
    def alone(self) -> list[MapNest]:
        """Nests whose refusal named ``cause`` and nothing else."""
        return [n for n, r in self.base.census.refused.items() if r.also == (self.cause,)]


def relieve(problem: Problem, target: Target, cause: str, slots: int = 2,
            base: SearchResult | None = None) -> Relief:
    """Drop the check for ``cause``, search again, and compare with the base search."""
    from polyjoule.search.search import search

    base = base or search(problem, target, slots)
    after = search(problem, target, slots, relieve={cause})
    now_ok = {c.nest for c in after.candidates}
    returned = [n for n in base.census.refused if n in now_ok]
    rebound: Counter[str] = Counter(
        after.census.refused[n].cause for n, r in base.census.refused.items()
        if cause in r.also and n in after.census.refused)
    return Relief(cause, base, after, returned, rebound)

