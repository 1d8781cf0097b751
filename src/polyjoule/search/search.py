"""Search: enumerate the mapspace, lower every nest, price what lowered, rank, census the rest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from polyjoule.analysis import steps as schedule
from polyjoule.analysis.steps import Schedule
from polyjoule.errors import InfeasibleMapping
from polyjoule.model.workload import Workload
from polyjoule.search import mapspace
from polyjoule.search.census import Census
from polyjoule.search.nest import Nest, Refused, emitted_order, tile_rows
from polyjoule.search.target import Program, Target
from polyjoule.targets.tinytpu import fit


@dataclass(frozen=True)
class Problem:
    """A workload at a shape (one extent per rank, in the workload's rank order)."""

    workload: Workload
    extents: Mapping[str, int]

    def __post_init__(self) -> None:
        self.workload.check_extents(self.extents)
        object.__setattr__(self, "extents",
                           {r: int(self.extents[r]) for r in self.workload.ranks})

    @property
    def title(self) -> str:
        return f"{self.workload.name} {'x'.join(str(e) for e in self.extents.values())}"


@dataclass(frozen=True)
class Priced:
    """ACT's lexicographic cost ``(makespan, emits)``; emits only breaks ties."""

    cost: tuple[int, int]
    schedule: Schedule

    @classmethod
    def of(cls, sched: Schedule, emits: int) -> Priced:
        return cls((sched.makespan, emits), sched)


@dataclass(frozen=True)
class Candidate:
    """An encodable nest, its program and its price."""

    nest: Nest
    program: Program
    priced: Priced

    @property
    def label(self) -> str:
        return emitted_order(self.nest)

    @property
    def makespan(self) -> int:
        return self.priced.cost[0]

    def rows(self, rank: str) -> int:
        return tile_rows(self.nest, rank)


@dataclass
class SearchResult:
    """Ranked candidates, the census of refusals, and how many nests were considered."""

    problem: Problem
    target: str
    candidates: list[Candidate]
    census: Census
    considered: int
    relieved: frozenset[str] = field(default_factory=frozenset)

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def runner_up(self) -> Candidate | None:
        return self.candidates[1] if len(self.candidates) > 1 else None

    def margin(self) -> fit.Margin | None:
        """Best vs runner-up next to the makespan->cosim fit's error bar."""
        if self.best is None or self.runner_up is None:
            return None
        return fit.margin(self.best.makespan, self.runner_up.makespan)


def _untileable(problem: Problem, target: str, tiles: list[Mapping[str, int]]) -> str:
    if not tiles:
        return f"{problem.title}: target {target} offers no intrinsic for this workload"
    bad = [f"{r}={e} is not a multiple of {tiles[-1].get(r, 1)}"
           for r, e in problem.extents.items() if e % tiles[-1].get(r, 1)]
    return (f"{problem.title}: shape is not a multiple of any {target} intrinsic "
            f"({', '.join(bad)})")


def price(target: Target, program: Program, charge_control: bool = True) -> Priced:
    """Schedule a program's steps; ``charge_control=False`` drops loop/endloop fetches."""
    steps = target.steps(program)
    if not charge_control:
        steps = [s for s in steps if not s.control]
    return Priced.of(schedule.run(steps), target.emits(program))


def search(problem: Problem, target: Target, slots: int = 2, *,
           relieve: frozenset[str] | set[str] = frozenset(),
           charge_control: bool = True) -> SearchResult:
    """Every nest of the mapspace, lowered and priced or refused; sorted by (cost, label).

    Raises :class:`InfeasibleMapping` when no intrinsic tiles the shape (an empty
    mapspace); a mapspace whose every nest is refused is a result, not an error.
    """
    wl, ext = problem.workload, problem.extents
    relieve = frozenset(relieve)
    census = Census()
    cands: list[Candidate] = []
    n = 0
    tiles = list(target.intrinsics(wl, ext))
    for nest in mapspace.nests(ext, tiles, slots):
        n += 1
        try:
            prog = target.lower(wl, ext, nest, relieve=relieve)
        except Refused as r:
            census.add(nest, r)
            continue
        cands.append(Candidate(nest, prog, price(target, prog, charge_control)))
    if n == 0:
        raise InfeasibleMapping(_untileable(problem, target.name, tiles))
    cands.sort(key=lambda c: (c.priced.cost, c.label))
    return SearchResult(problem, target.name, cands, census, n, relieve)
