"""Search: enumerate the target's mapspace, lower every nest, price what lowered, rank by
the target's cost, census the rest."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

from polyjoule.errors import InfeasibleMapping, Refused
from polyjoule.model.workload import Workload
from polyjoule.search import mapspace
from polyjoule.search import target as targets
from polyjoule.search.census import Census
from polyjoule.search.cost import Cost, Margin, Priced
from polyjoule.search.nest import MapNest, emitted_order, tile_rows
from polyjoule.search.target import Program, Target

#: ``progress(stage, done, total)``: a search's advance (``total`` ``None`` when unknown).
Progress = Callable[[str, int, "int | None"], None]

T = TypeVar("T")
_PROGRESS: ContextVar[Progress | None] = ContextVar("polyjoule_search_progress", default=None)


@contextmanager
def reporting(progress: Progress | None) -> Iterator[None]:
    """Every search run inside the block (this one, the census's, a target's own) reports
    its advance to ``progress``: how a command shows one bar for all of them."""
    token = _PROGRESS.set(progress)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def report(stage: str, done: int, total: int | None) -> None:
    """Tell the active :func:`reporting` callback (if any) how far ``stage`` is."""
    hook = _PROGRESS.get()
    if hook is not None:
        hook(stage, done, total)


def tracked(stage: str, items: Iterable[T]) -> Iterator[T]:
    """``items``, reporting progress while they are consumed; without a :func:`reporting`
    callback the items pass through untouched (no counting, no cost)."""
    if _PROGRESS.get() is None:
        yield from items
        return
    todo = list(items)  # the total, for the bar
    step = max(1, len(todo) // 200)
    for i, x in enumerate(todo):
        if i % step == 0:
            report(stage, i, len(todo))
        yield x
    report(stage, len(todo), len(todo))


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
class Candidate:
    """An encodable nest, its program and its price."""

    nest: MapNest
    program: Program
    priced: Priced

    @property
    def label(self) -> str:
        return emitted_order(self.nest)

    @property
    def cost(self) -> Cost:
        return self.priced.cost

    def tile(self, rank: str) -> int:
        """Factor of ``rank`` the intrinsic band covers."""
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
    priced_by: Target | None = field(default=None, repr=False, compare=False)

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def runner_up(self) -> Candidate | None:
        return self.candidates[1] if len(self.candidates) > 1 else None

    def margin(self) -> Margin | None:
        """Best vs runner-up next to the target's error bar (None without a runner-up or
        an error bar)."""
        if self.best is None or self.runner_up is None or self.priced_by is None:
            return None
        return targets.margin(self.priced_by, self.best.cost, self.runner_up.cost)


def _untileable(problem: Problem, target: str, tiles: tuple[Mapping[str, int], ...]) -> str:
    if not tiles:
        return f"{problem.title}: target {target} offers no intrinsic for this workload"
    return (f"{problem.title}: shape is not a multiple of any {target} intrinsic "
            f"({', '.join(mapspace.untileable(problem.extents, tiles))})")


def search(problem: Problem, target: Target, slots: int = 2, *,
           relieve: frozenset[str] | set[str] = frozenset(),
           charge_control: bool = True,
           max_nests: int = mapspace.MAX_NESTS) -> SearchResult:
    """Every nest of the mapspace, lowered and priced or refused; sorted by (cost, label).

    Raises :class:`InfeasibleMapping` when no intrinsic tiles the shape (an empty
    mapspace); a mapspace whose every nest is refused is a result, not an error. A
    mapspace of more than ``max_nests`` nests is refused before it is enumerated
    (:class:`ResourceLimitError`).
    """
    wl, ext = problem.workload, problem.extents
    relieve = frozenset(relieve)
    census = Census()
    cands: list[Candidate] = []
    n = 0
    space = target.mapspace(wl, ext)
    mapspace.check_count(problem.title, ext, space, slots, max_nests)
    lower, price = target.lower, target.price
    for nest in tracked(f"{problem.title} (slots {slots})", mapspace.nests(ext, space, slots)):
        n += 1
        try:
            prog = lower(wl, ext, nest, relieve=relieve)
        except Refused as r:
            census.add(nest, r)
            continue
        cands.append(Candidate(nest, prog, price(prog, charge_control=charge_control)))
    if n == 0:
        raise InfeasibleMapping(_untileable(problem, target.name, space.intrinsics))
    cands.sort(key=lambda c: (c.priced.cost, c.label))
    return SearchResult(problem, target.name, cands, census, n, relieve, target)
