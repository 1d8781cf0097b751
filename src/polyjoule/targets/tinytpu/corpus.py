"""The judge's corpus: the 22 workload specs shipped with the package.

The mapper's pick for a spec is :func:`polyjoule.targets.tinytpu.specmap.map_spec`
(re-exported here): every corpus class reduced to a searched GEMM.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from polyjoule.errors import UnknownNameError
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.spec import WorkloadSpec, load_spec, parse_spec
from polyjoule.targets.tinytpu.specmap import Mapped, map_spec, reduction

__all__ = ["Mapped", "gemm_shape", "load", "map_spec", "names"]


def _data() -> resources.abc.Traversable:
    return resources.files("polyjoule.library") / "data" / "specs"


def names() -> list[str]:
    """Names of the corpus specs, sorted."""
    return sorted(p.name[:-5] for p in _data().iterdir() if p.name.endswith(".json"))


def load(name_or_path: str | Path) -> WorkloadSpec:
    """A corpus spec by name, or a spec JSON by path."""
    import json

    text = str(name_or_path)
    if text in names():
        return parse_spec(json.loads((_data() / f"{text}.json").read_text()), f"{text}.json")
    if not Path(text).suffix and not Path(text).exists():
        raise UnknownNameError(f"spec: {text!r} is neither a corpus spec nor a file "
                               "(see polyjoule judge --list)")
    return load_spec(text)


def gemm_shape(spec: WorkloadSpec, cfg: Config | None = None
               ) -> tuple[int, int, int, bool] | None:
    """(M, K, N, relu) when the spec is exactly a registered GEMM (no padding, no
    retired rows) at the mapper's placement."""
    try:
        red = reduction(spec, cfg or Config())
    except ValueError:
        return None
    if red.workload not in ("gemm", "gemm.relu") or red.shape != (
            spec.dims["m"], spec.dims["k"], spec.dims["n"]):
        return None
    return (*red.shape, red.workload == "gemm.relu")
