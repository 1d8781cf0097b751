"""Which front end reads a kernel: the one decision every command and the Python API share.

A kernel is given as a built-in name (``gemm``), a PRA YAML file (``mv.yaml``), a C loop
nest (``mv.c``) or einsum text (``C[m,n] += A[m,k]*B[k,n]``, as ``einsum=`` or in place of
the name). :func:`source_kind` decides which from the text alone (no sympy, no isl: ``show``
of a built-in stays fast); :func:`kernel_from` reads it. Bad input is a named error: an
unknown name lists the close built-in names, an unreadable file names the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from polyjoule.errors import SpecError, UnknownNameError

if TYPE_CHECKING:
    from polyjoule.model.pra import Kernel

SourceKind = Literal["builtin", "yaml", "c", "einsum"]

YAML_SUFFIXES = (".yaml", ".yml")
C_SUFFIXES = (".c", ".h")


def looks_like_einsum(text: str) -> bool:
    """Einsum text assigns to a subscripted tensor: ``C[m,n] (+)= ...``; no name or path does."""
    head = text.split("=", 1)[0]
    return "=" in text and "[" in head and "]" in head


def source_kind(source: str | Path) -> SourceKind:
    """Which front end reads ``source``: a file by its suffix (an existing file of another
    suffix is PRA YAML), einsum text by its ``=``, anything else a built-in name."""
    if isinstance(source, Path):
        return "c" if source.suffix in C_SUFFIXES else "yaml"
    if source.endswith(C_SUFFIXES):
        return "c"
    if source.endswith(YAML_SUFFIXES):
        return "yaml"
    if looks_like_einsum(source):
        return "einsum"
    if Path(source).is_file():
        return "yaml"
    return "builtin"


def read_source(path: str | Path) -> str:
    """The text of a kernel file, through the one reading path (size limit, UTF-8 with the
    offending line and column, one line naming the file)."""
    from polyjoule.frontends.specfile import read_text

    return read_text(path)


def builtin(name: str) -> Kernel:
    """A built-in kernel; an unknown name suggests the close ones (or says it is no file)."""
    from polyjoule.library.kernels import get, names

    known = names()
    if name not in known:
        raise unknown_kernel(name, known)
    return get(name)


def builtin_outline(name: str) -> Any:
    """What ``show`` prints of a built-in kernel, read without sympy (an unknown name as in
    :func:`builtin`)."""
    from polyjoule.library.kernels import names, outline

    known = names()
    if name not in known:
        raise unknown_kernel(name, known)
    return outline(name)


def unknown_kernel(name: str, known: list[str]) -> UnknownNameError:
    """The error for a name that is no built-in kernel, einsum or existing file."""
    import difflib

    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    # a near name is the whole hint; else the list while it is short (the 26 built-ins made
    # a 300-character line: `polyjoule list` shows them)
    hint = (f"did you mean {', '.join(close)}? `polyjoule list` shows all {len(known)}" if close
            else f"built-in: {', '.join(known)}" if len(known) <= 8
            else f"`polyjoule list` shows the {len(known)} built-in ones")
    if Path(name).is_dir():
        return UnknownNameError(f"{name}: a directory; give a kernel file in it (.c or .yaml), "
                                "a built-in kernel or --einsum")
    if "/" in name or Path(name).suffix:
        return UnknownNameError(f"{name}: no such file, and not a built-in kernel ({hint})")
    return UnknownNameError(f"unknown kernel {name!r} ({hint}; "
                            f"or give a .yaml or .c file, or --einsum)")


def parse_extents(extents: Mapping[str, int] | str | None) -> dict[str, int] | None:
    """``m=4,n=4`` or a mapping -> rank extents (``None`` stays ``None``)."""
    if extents is None or isinstance(extents, Mapping):
        return None if extents is None else {k: int(v) for k, v in extents.items()}
    out: dict[str, int] = {}
    for item in (x.strip() for x in extents.split(",")):
        if not item:
            continue
        k, eq, v = item.partition("=")
        if not eq:
            raise SpecError(f"--extents: {item!r} is not RANK=VALUE")
        k = k.strip()
        try:
            n = int(v)
        except ValueError:
            raise SpecError(f"--extents: {k}: {v!r} is not an integer") from None
        if k in out:
            raise SpecError(f"--extents: rank {k} given twice ({k}={out[k]}, {k}={n})")
        if n < 1:
            raise SpecError(f"--extents: {k}={n}: an extent is at least 1")
        out[k] = n
    return out


def kernel_from(source: str | Path | Kernel | None = None, einsum: str | None = None,
                extents: Mapping[str, int] | str | None = None, *, name: str | None = None,
                dtype: str | None = None, include: Sequence[str | Path] = (),
                define: Sequence[str] = ()) -> Kernel:
    """The :class:`Kernel` of a built-in name, a PRA YAML file, a C file or einsum text.

    ``einsum`` (or einsum text as ``source``) with ``extents`` by rank: the extents become the
    kernel's ``default`` dataset. ``name`` renames a derived kernel; ``dtype`` is the element
    type of a C nest (default: its declared type) or einsum (default fp32); a YAML file and a
    built-in declare their own. ``include``/``define``: ``-I``/``-D`` of a C file.
    """
    from polyjoule.model.pra import Kernel

    if source is not None and einsum is not None:
        raise SpecError("give a kernel (name or file) or --einsum, not both")
    if source is None and einsum is None:
        raise SpecError("give either a kernel (a built-in name, a .yaml or a C file) or "
                        "--einsum")
    if isinstance(source, Kernel):
        _no_extents(extents, source.name)
        return source
    text = einsum if einsum is not None else source
    assert text is not None
    kind: SourceKind = "einsum" if einsum is not None else source_kind(text)
    if kind == "einsum":
        from polyjoule.frontends.einsum import einsum_kernel

        return einsum_kernel(str(text), parse_extents(extents), dtype or "fp32", name or "einsum")
    _no_extents(extents, str(text))
    k = _read(text, kind, dtype, include, define)
    return replace(k, name=name) if name else k


def _read(source: str | Path, kind: SourceKind, dtype: str | None,
          include: Sequence[str | Path] = (), define: Sequence[str] = ()) -> Kernel:
    if kind == "c":
        from polyjoule.frontends.cnest import c_kernel
        from polyjoule.frontends.crun import with_c_reference

        text = read_source(source)
        k = c_kernel(text, str(source), dtype, include_dirs=include, defines=define)
        return with_c_reference(k, text, str(source), include, define)  # the C's meaning
    if kind == "yaml":
        from polyjoule.frontends.pra_yaml import load_kernel_file

        return load_kernel_file(source)
    return builtin(str(source))


def _no_extents(extents: object, what: str) -> None:
    if extents:
        raise SpecError(f"--extents: only for an einsum ({what} has parameters: use --set)")
