"""Built-in kernels: PRA files shipped as data plus their numpy reference semantics.

Adding a kernel is adding a YAML file under ``data/`` and, for validation, one reference
function in :mod:`.references`. ``list`` reads a kernel's :func:`summary` and ``show`` its
:func:`outline` (PyYAML only: no sympy, pydantic or isl); :func:`get` builds the validated
:class:`Kernel`.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from polyjoule.errors import UnknownNameError

if TYPE_CHECKING:
    from polyjoule.frontends.pra_outline import KernelOutline
    from polyjoule.model.pra import Kernel


def names() -> list[str]:
    files = resources.files("polyjoule.library").joinpath("data", "kernels")
    return sorted(p.name[:-5] for p in files.iterdir() if p.name.endswith(".yaml"))


def _data(name: str) -> object:
    """The parsed YAML of the built-in kernel ``name`` (an unknown name lists the known ones)."""
    import yaml

    if name not in names():
        raise UnknownNameError(f"unknown kernel {name!r} (built-in: {', '.join(names())})")
    path = resources.files("polyjoule.library").joinpath("data", "kernels", f"{name}.yaml")
    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def summary(name: str) -> dict[str, Any]:
    """A ``polyjoule list`` row: parameters, datasets and sizes, counted from the YAML alone."""
    data: dict[str, Any] = _data(name)  # type: ignore[assignment]
    phases = data["phases"] if "phases" in data else [data]
    return {
        "name": name, "params": list(dict.fromkeys(p for ph in phases for p in ph["params"])),
        "datasets": list(data.get("datasets") or {}), "phases": len(phases),
        "statements": [len(ph["statements"]) for ph in phases],
        "dims": [len(ph["dims"]) for ph in phases], "description": data.get("description", ""),
    }


@cache
def outline(name: str) -> KernelOutline:
    """What ``list`` and ``show`` print of the built-in kernel ``name``, read without sympy."""
    from polyjoule.frontends.pra_outline import kernel_outline

    return kernel_outline(_data(name), f"<built-in {name}.yaml>")  # type: ignore[arg-type]


@cache
def get(name: str) -> Kernel:
    """The built-in kernel ``name`` (an unknown name lists the known ones)."""
    from polyjoule.frontends.pra_yaml import load_kernel_data
    from polyjoule.library.references import REFERENCES

    # the semantic checks are tests/library/test_builtin.py's, once, not every process's
    kernel = load_kernel_data(_data(name), f"<built-in {name}.yaml>", checked=False)
    return replace(kernel, reference=REFERENCES.get(name))
