"""polyjoule: early design-space exploration of loop-nest accelerators."""

from __future__ import annotations

#: The version; pyproject.toml reads it from here, so ``polyjoule --version`` needs no package
#: metadata lookup (importlib.metadata costs 40-80 ms of a 300 ms start-up budget).
__version__ = "0.1.0"


def analyze(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Derive the symbolic volumes of a kernel on an array; see :func:`polyjoule.analysis.analyze`.

    The kernel is what the CLI takes: a built-in name, a PRA YAML or C file, or einsum text
    (or ``einsum=`` with ``extents=``).
    """
    from polyjoule.analysis import analyze as _analyze

    return _analyze(*args, **kwargs)


def kernel_from(*args, **kwargs):  # type: ignore[no-untyped-def]
    """The kernel of a name, file or einsum; see :func:`polyjoule.frontends.resolve.kernel_from`."""
    from polyjoule.frontends.resolve import kernel_from as _kernel_from

    return _kernel_from(*args, **kwargs)


__all__ = ["__version__", "analyze", "kernel_from"]
