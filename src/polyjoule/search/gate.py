"""The gate: search a fixed problem set and verify every encodable mapping of each.

A problem passes when at least one nest is encodable, every encodable program
computes the workload on the target's reference model, and the best cost equals the
published one where a figure is published.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from polyjoule.search.search import Problem, SearchResult, search
from polyjoule.search.target import Target


@dataclass
class GateRow:
    """One problem's outcome; ``failures`` is empty when it passed."""

    problem: Problem
    result: SearchResult
    verified: int
    published: int | None
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


@dataclass
class GateResult:
    rows: list[GateRow]

    @property
    def passed(self) -> int:
        return sum(r.ok for r in self.rows)

    @property
    def ok(self) -> bool:
        return self.passed == len(self.rows)

    def verdict(self) -> str:
        """The one grep-able line."""
        word = "OK" if self.ok else "FAILED"
        return (f"MAPPER GATE {word}: {self.passed}/{len(self.rows)} problems, every "
                f"encodable mapping verified" if self.ok else
                f"MAPPER GATE {word}: {self.passed}/{len(self.rows)} problems passed")


def run(problems: Sequence[Problem], target: Target, slots: int = 2,
        published: Mapping[str, int] | None = None, seed: int = 0) -> GateResult:
    """Search and verify each problem; ``published`` maps a title to its best makespan."""
    rows = []
    for p in problems:
        res = search(p, target, slots)
        want = (published or {}).get(p.title)
        row = GateRow(p, res, 0, want)
        if not res.candidates:
            row.failures.append(f"{p.title}: every nest was refused")
        for c in res.candidates:
            if target.verify(p.workload, p.extents, c.program, seed=seed):
                row.verified += 1
            else:
                row.failures.append(f"{p.title}: {c.label} computes a wrong result")
        if want is not None and res.best is not None and res.best.makespan != want:
            row.failures.append(f"{p.title}: best makespan {res.best.makespan} != "
                                f"published {want}")
        rows.append(row)
    return GateResult(rows)
