"""The target protocol ("the five questions") and the target registry.

A target turns a nest into a program for its machine or refuses it with every cause.
The search and census only ever talk to a target through this protocol:

1. ``mapspace``: the intrinsic tiles it offers a workload at a shape, and its tiling rule;
2. ``lower``: a program for one nest, or :class:`~polyjoule.errors.Refused`;
3. ``price``: the program's :class:`~polyjoule.search.cost.Cost` (named objectives, in
   the target's priority order), and the timeline it came from;
4. ``verify``: does the program compute the workload (on the target's reference model)?
5. optional, asked through the functions below when present: ``report``, ``refusals``,
   ``measured``, ``describe``, ``margin``, ``cause_kinds``, ``relievable``,
   ``problem_set``, ``notes``.

The registry names no target: the modules that register targets are listed once, in
``polyjoule.targets.PROVIDERS``, or declared by other packages as entry points of the
group ``polyjoule.targets``; both are imported on the first lookup, except that a name the
catalogue maps to its module (``polyjoule.targets.MODULES``) imports only that module.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from polyjoule.errors import Kind, SpecError, UnknownNameError
from polyjoule.model.workload import Workload
from polyjoule.search.cost import Cost, Margin, Priced
from polyjoule.search.mapspace import Mapspace
from polyjoule.search.nest import MapNest

Program = Any  # a target's program; opaque to the search
#: where the built-in provider list lives, and the entry-point group for other packages
CATALOGUE = "polyjoule.targets"
ENTRY_POINTS = "polyjoule.targets"


@runtime_checkable
class Target(Protocol):
    """What the search needs of a target; see the module docstring for the optional rest."""

    name: str
    #: objective names of :meth:`price`'s cost, in priority order
    objectives: tuple[str, ...]

    def mapspace(self, workload: Workload, extents: Mapping[str, int]) -> Mapspace:
        """Intrinsic tiles in the order the mapspace tries them, and the tiling rule."""
        ...

    def lower(self, workload: Workload, extents: Mapping[str, int], nest: MapNest,
              relieve: frozenset[str] = frozenset()) -> Program:
        """A program for ``nest``, or raise :class:`~polyjoule.errors.Refused`.

        ``relieve`` names constraints not to check (relieve-and-re-census).
        """
        ...

    def price(self, program: Program, *, charge_control: bool = True) -> Priced:
        """The program's cost; ``charge_control=False`` leaves out fetches with no data
        effect (loop control), an ablation of the cost model."""
        ...

    def verify(self, workload: Workload, extents: Mapping[str, int], program: Program,
               seed: int = 0) -> bool:
        """Does the program compute the workload (on the target's reference model)?"""
        ...


# --- the optional questions, with what a target that does not answer them means


def report(target: Target, program: Program) -> dict[str, int]:
    """Counts for display (static, words, ...); none by default."""
    fn = getattr(target, "report", None)
    return fn(program) if fn else {}


def refusals(target: Target, workload: Workload, extents: Mapping[str, int],
             nest: MapNest) -> list[tuple[str, str]]:
    """Structural causes of ``nest`` alone, without raising (the independent census)."""
    fn = getattr(target, "refusals", None)
    return fn(workload, extents, nest) if fn else []


def measured(target: Target, workload: Workload, extents: Mapping[str, int],
             program: Program) -> int | None:
    """Published measured cycles of exactly this program, if the target has any."""
    fn = getattr(target, "measured", None)
    return fn(workload, extents, program) if fn else None


def describe(target: Target) -> str:
    """One line naming the build (for headers and listings)."""
    fn = getattr(target, "describe", None)
    return fn() if fn else target.name


def on_machine(target: Target, machine: str | None) -> Target:
    """The target on another machine declaration (``--machine``: a shipped name or a file).

    ``None`` is the target's default machine. A target without declarations refuses one.
    """
    fn = getattr(target, "on_machine", None)
    if fn is None:
        if machine is None:
            return target
        raise SpecError(f"--machine: target {target.name} takes no machine declaration")
    return fn(machine)


def machine_header(target: Target) -> str | None:
    """The line a command prints first so that every figure names its machine, if any."""
    fn = getattr(target, "machine_header", None)
    return fn() if fn else None


def margin(target: Target, best: Cost, runner_up: Cost) -> Margin | None:
    """Best vs runner-up next to the target's error bar; None without one."""
    fn = getattr(target, "margin", None)
    return fn(best, runner_up) if fn else None


def kind(target: Target, cause: str) -> Kind:
    """The kind of a cause the target names (express unless it says otherwise)."""
    return getattr(target, "cause_kinds", {}).get(cause, Kind.EXPRESS)


def relievable(target: Target) -> tuple[str, ...]:
    """Constraints ``lower(..., relieve=...)`` can drop."""
    return tuple(getattr(target, "relievable", ()))


def notes(target: Target) -> tuple[str, ...]:
    """Caveats the target attaches to its ranking (printed after it)."""
    fn = getattr(target, "notes", None)
    return tuple(fn()) if fn else ()


def problem_set(target: Target) -> Any:
    """The target's published problem set (a :class:`~polyjoule.search.gate.ProblemSet`)."""
    fn = getattr(target, "problem_set", None)
    if fn is None:
        raise SpecError(f"target {target.name} publishes no problem set to gate on")
    return fn()


# --- the registry

_REGISTRY: dict[str, Target] = {}
_loaded: set[str] = set()  # which provider sources have been imported


def register(target: Target) -> Target:
    """Register ``target`` under ``target.name`` (re-registering replaces it)."""
    if not isinstance(target, Target):  # a programming error, not bad input
        raise TypeError(f"{target!r} does not answer the target protocol")
    _REGISTRY[target.name] = target
    return target


def _catalogue() -> tuple[str, ...]:
    return tuple(getattr(importlib.import_module(CATALOGUE), "PROVIDERS", ()))


def _load_named(name: str) -> None:
    """Import the one provider the catalogue names for ``name``, if it names one."""
    module = getattr(importlib.import_module(CATALOGUE), "MODULES", {}).get(name)
    if module is not None:
        importlib.import_module(module)


def _entry_points() -> tuple[str, ...]:
    return tuple(ep.value.split(":")[0] for ep in entry_points(group=ENTRY_POINTS))


def providers() -> tuple[str, ...]:
    """Modules that register targets: the catalogue's list, then entry points."""
    return tuple(dict.fromkeys(_catalogue() + _entry_points()))


def _load(source: str) -> None:
    """Import the providers of ``source`` once. Entry points are scanned only when a
    name is not in the catalogue or every name is asked for (the scan costs ~0.1 s)."""
    if source not in _loaded:
        _loaded.add(source)
        for mod in _catalogue() if source == "catalogue" else _entry_points():
            importlib.import_module(mod)


def names() -> list[str]:
    """Registered target names, sorted."""
    _load("catalogue")
    _load("entry points")
    return sorted(_REGISTRY)


def default_name() -> str:
    """The catalogue's default target (``polyjoule.targets.DEFAULT``), else the first
    registered one."""
    name = getattr(importlib.import_module(CATALOGUE), "DEFAULT", None)
    if name:
        return name
    _load("catalogue")
    return next(iter(_REGISTRY), "")


def get(name: str) -> Target:
    """The registered target ``name``; :class:`UnknownNameError` lists the known ones."""
    if name not in _REGISTRY:
        _load_named(name)
    if name not in _REGISTRY:
        _load("catalogue")
    if name not in _REGISTRY:
        _load("entry points")
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown target {name!r}; registered: {', '.join(sorted(_REGISTRY))}") from None
