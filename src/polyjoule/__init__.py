"""polyjoule: early design-space exploration of loop-nest accelerators."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("polyjoule")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+local"


def analyze(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Derive the symbolic volumes of a kernel on an array; see :func:`polyjoule.analysis.analyze`."""
    from polyjoule.analysis import analyze as _analyze

    return _analyze(*args, **kwargs)


__all__ = ["__version__", "analyze"]
