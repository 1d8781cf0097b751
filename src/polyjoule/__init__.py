"""polyjoule: early design-space exploration of loop-nest accelerators."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def _version() -> str:
    """The installed distribution's version; read on demand (importlib.metadata costs ~40 ms)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("polyjoule")
    except PackageNotFoundError:  # running from a source tree without installation
        return "0.0.0+local"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    raise AttributeError(f"module 'polyjoule' has no attribute {name!r}")


def analyze(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Derive the symbolic volumes of a kernel on an array; see :func:`polyjoule.analysis.analyze`."""
    from polyjoule.analysis import analyze as _analyze

    return _analyze(*args, **kwargs)


__all__ = ["__version__", "analyze"]
