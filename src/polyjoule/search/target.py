"""The target protocol ("the five questions") and the target registry.

A target turns a nest into a program for its machine or refuses it with every cause.
The search and census only ever talk to a target through this protocol.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from polyjoule.analysis.machine import Step
from polyjoule.errors import UnknownNameError
from polyjoule.model.workload import Workload
from polyjoule.search.nest import Kind, Nest

Program = Any  # a target's program; opaque to the search


class Target:
    """Base class: subclasses answer intrinsics, lower, steps, emits, verify (and report)."""

    name: str = ""
    #: kind of every cause this target can name
    cause_kinds: Mapping[str, Kind] = {}

    def intrinsics(self, workload: Workload, extents: Mapping[str, int]
                   ) -> Iterable[Mapping[str, int]]:
        """Innermost tiles one instruction performs, in the order the mapspace uses them."""
        raise NotImplementedError

    def lower(self, workload: Workload, extents: Mapping[str, int], nest: Nest,
              relieve: frozenset[str] = frozenset()) -> Program:
        """A program for ``nest``, or raise :class:`~polyjoule.search.nest.Refused`.

        ``relieve`` names constraints not to check (relieve-and-re-census).
        """
        raise NotImplementedError

    def steps(self, program: Program) -> Sequence[Step]:
        """The program's fetches as machine steps, in fetch order."""
        raise NotImplementedError

    def emits(self, program: Program) -> int:
        """Dynamic data issues (the cost tie-break)."""
        raise NotImplementedError

    def verify(self, workload: Workload, extents: Mapping[str, int], program: Program,
               seed: int = 0) -> bool:
        """Does the program compute the workload (on the target's reference model)?"""
        raise NotImplementedError

    def report(self, program: Program) -> dict[str, int]:
        """Optional counts for display (static, words, ...)."""
        return {}

    def refusals(self, workload: Workload, extents: Mapping[str, int],
                 nest: Nest) -> list[tuple[str, str]]:
        """Structural causes of ``nest`` alone, without raising (independent census)."""
        return []

    def measured(self, workload: Workload, extents: Mapping[str, int],
                 program: Program) -> int | None:
        """Published measured cycles of exactly this program, if any."""
        return None

    def describe(self) -> str:
        """One line naming the build (for headers and listings)."""
        return self.name

    def kind(self, cause: str) -> Kind:
        return self.cause_kinds.get(cause, Kind.EXPRESS)


_REGISTRY: dict[str, Target] = {}
#: modules that register targets when imported (loaded on the first lookup)
PROVIDERS: tuple[str, ...] = ("polyjoule.targets.tinytpu.target",)
_loaded = False


def register(target: Target) -> Target:
    """Register ``target`` under ``target.name`` (re-registering replaces it)."""
    _REGISTRY[target.name] = target
    return target


def _load_providers() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for mod in PROVIDERS:
            importlib.import_module(mod)


def names() -> list[str]:
    """Registered target names, sorted."""
    _load_providers()
    return sorted(_REGISTRY)


def get(name: str) -> Target:
    """The registered target ``name``; :class:`UnknownNameError` lists the known ones."""
    _load_providers()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown target {name!r}; registered: {', '.join(sorted(_REGISTRY))}") from None
