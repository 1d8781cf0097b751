"""The gate: search a problem set and verify every encodable mapping of each.

A problem passes when at least one nest is encodable, every encodable program
computes the workload on the target's reference model, and the best cost's first
objective equals the published one where a figure is published. The problem set is
the target's (``problem_set``); nothing here knows one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from polyjoule.search.search import Problem, SearchResult, search
from polyjoule.search.target import Target


@dataclass(frozen=True)
class ProblemSet:
    """Problems to gate on, and published values of the first objective by title."""

    problems: tuple[Problem, ...]
    published: Mapping[str, float] = field(default_factory=dict)


@dataclass
class GateRow:
    """One problem's outcome; ``failures`` is empty when it passed."""

    problem: Problem
    result: SearchResult
    verified: int
    published: float | None
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


def _check(row: GateRow, target: Target, seed: int) -> None:
    p, res = row.problem, row.result
    if not res.candidates:
        row.failures.append(f"{p.title}: every nest was refused")
    for c in res.candidates:
        if target.verify(p.workload, p.extents, c.program, seed=seed):
            row.verified += 1
        else:
            row.failures.append(f"{p.title}: {c.label} computes a wrong result")
    best = res.best
    if row.published is not None and best is not None and best.cost[0] != row.published:
        row.failures.append(f"{p.title}: best {best.cost.names[0]} {best.cost[0]} != "
                            f"published {row.published}")


def run(problems: Sequence[Problem], target: Target, slots: int = 2,
        published: Mapping[str, float] | None = None, seed: int = 0) -> GateResult:
    """Search and verify each problem; ``published`` maps a title to the published
    value of the best cost's first objective."""
    rows = []
    for p in problems:
        row = GateRow(p, search(p, target, slots), 0, (published or {}).get(p.title))
        _check(row, target, seed)
        rows.append(row)
    return GateResult(rows)


def run_set(problem_set: ProblemSet, target: Target, slots: int = 2,
            seed: int = 0) -> GateResult:
    """:func:`run` over a target's published problem set."""
    return run(problem_set.problems, target, slots, problem_set.published, seed)
