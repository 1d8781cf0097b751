"""Built-in kernels: PRA files shipped as data plus their numpy reference semantics.

Adding a kernel is adding a YAML file under ``data/`` and, for validation, one reference
function here. The reference is the simulator's independent witness: it is written from the
kernel's textbook definition, never from the PRA.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from importlib import resources

import numpy as np

from polyjoule.errors import UnknownNameError
from polyjoule.pra.model import Kernel, Reference
from polyjoule.pra.spec import load_kernel_data

import yaml


def _gesummv(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    return {"Y": s["alpha"] * t["A"] @ t["X"] + s["beta"] * t["B"] @ t["X"]}


def _gemm(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    return {"C": s["alpha"] * t["A"] @ t["B"] + s["beta"] * t["C"]}


#: name -> numpy reference semantics (inputs and scalars -> outputs)
REFERENCES: dict[str, Reference] = {"gesummv": _gesummv, "gemm": _gemm}


def names() -> list[str]:
    files = resources.files("polyjoule.kernels").joinpath("data")
    return sorted(p.name[:-5] for p in files.iterdir() if p.name.endswith(".yaml"))


@cache
def get(name: str) -> Kernel:
    """The built-in kernel ``name`` (an unknown name lists the known ones)."""
    if name not in names():
        raise UnknownNameError(f"unknown kernel {name!r} (built-in: {', '.join(names())})")
    path = resources.files("polyjoule.kernels").joinpath("data", f"{name}.yaml")
    kernel = load_kernel_data(yaml.safe_load(path.read_text()), f"<built-in {name}.yaml>")
    return replace(kernel, reference=REFERENCES.get(name))
