"""C preprocessing for the C front end: a PolyBench/C file as distributed -> the kernel's text.

Read as Pluto and PPCG read PolyBench: the preprocessor (``pcpp``, a C99 preprocessor in pure
Python) removes comments, follows ``#include "gemm.h"`` and ``#include <polybench.h>`` through
the include folders (``-I``; ``polybench.h`` is also found in the ``utilities/`` folder of
the suite tree that holds the file), and expands the benchmark macros (``POLYBENCH_2D``, ``_PB_N``,
``DATA_TYPE``, ``SCALAR_VAL``, ``SQRT_FUN``). System headers (``<stdio.h>``...) are not
needed: an angle include that no folder holds is dropped, as PPCG does with its minimal
headers; only the function around ``#pragma scop`` is parsed, and only its scop region is
localised. Why pcpp and not libclang: the front end needs the macros *unexpanded in one
place* (the dataset sizes stay symbolic parameters, see below) and no system headers, which a
preprocessor in Python gives directly; libclang stops at the first missing system header and
expands every size to the dataset's number; the parse itself stays with pycparser.

The dataset sizes stay symbolic: every ``_PB_X`` macro names a size ``X``; the file is
preprocessed once per PolyBench dataset to read ``X``'s value (``datasets``), and once more
with ``X`` defined as itself, so ``_PB_N`` becomes the parameter ``N`` (the header's own
``#if !defined(N)`` lets a user fix the sizes the same way). ``#line`` directives keep every
position in the original file.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pcpp import Preprocessor
from pcpp.preprocessor import Action, OutputDirective

from polyjoule.errors import CIncludeError, SpecError

#: The PolyBench dataset presets, each selected by ``-D<NAME>_DATASET``.
DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")
#: C element types -> PRA dtypes.
C_TYPES = {"double": "fp64", "float": "fp32", "int": "int32", "short": "int16", "char": "int8"}


class _Pre(Preprocessor):  # type: ignore[misc]
    """pcpp that drops missing system headers and raises on every other problem."""

    def __init__(self, filename: str, include_dirs: Sequence[str]):
        super().__init__()
        self.filename = filename
        self.line_directive = "#line"
        self.errors: list[str] = []
        self.where = filename
        for d in include_dirs:
            self.add_path(str(d))

    def on_directive_handle(self, directive: Any, toks: Any, ifpassthru: Any,
                            precedingtoks: Any) -> Any:
        self.where = f"{directive.source or self.filename}:{directive.lineno}"
        name = toks[0].value if toks else ""
        if directive.value == "define" and name.startswith("_PB_") and len(name) > 4:
            # a loop bound is the size itself, whatever POLYBENCH_LOOP_BOUND selects
            self.define(f"{name} {name[4:]}")
            raise OutputDirective(Action.IgnoreAndRemove)
        return super().on_directive_handle(directive, toks, ifpassthru, precedingtoks)

    def on_include_not_found(self, is_malformed: bool, is_system_include: bool, curdir: str,
                             includepath: str) -> None:
        if is_system_include and includepath != "polybench.h":
            raise OutputDirective(Action.IgnoreAndRemove)
        if includepath == "polybench.h" and (found := _suite_utilities(curdir)) is not None \
                and found not in self.path:
            return found  # pcpp adds the folder and looks again
        folders = ", ".join(self.path) or "none given"
        hint = " (the PolyBench utilities/ folder)" if includepath == "polybench.h" else ""
        raise CIncludeError(f"{self.where}: #include {includepath!r} not found in the include "
                            f"folders ({folders}): pass -I DIR{hint}")

    def on_error(self, file: str, line: int, msg: str) -> None:
        self.errors.append(f"{file}:{line}: {msg}")

    def on_comment(self, tok: Any) -> bool:
        return False


def _suite_utilities(folder: str) -> str | None:
    """The suite's ``utilities/`` folder above a kernel's folder, if there is one (the
    distributed tree: ``linear-algebra/blas/gemm/gemm.c`` beside ``utilities/``)."""
    here = Path(folder or ".").resolve()
    for d in [here, *here.parents][:5]:
        if (d / "utilities" / "polybench.h").is_file():
            return str(d / "utilities")
    return None


def _run(text: str, filename: str, include_dirs: Sequence[str],
         defines: Sequence[str]) -> _Pre:
    pre = _Pre(filename, include_dirs)
    for d in defines:
        if not re.fullmatch(r"[A-Za-z_]\w*(\([\w\s,]*\))?([= ].*)?", d, re.DOTALL):
            raise SpecError(f"-D {d}: not NAME or NAME=VALUE (a macro name is a C identifier)")
        pre.define(d.replace("=", " ", 1))
    pre.parse(text, filename)
    out = io.StringIO()
    pre.write(out)
    if pre.errors:
        raise SpecError(f"{pre.errors[0]}: preprocessor error")
    pre.output = out.getvalue()
    return pre


def _macro_text(pre: _Pre, name: str) -> str | None:
    m = pre.macros.get(name)
    if m is None or m.arglist is not None:
        return None
    return "".join(t.value for t in m.value).strip()


def _sizes(pre: _Pre) -> list[str]:
    """The size names ``X`` of the ``_PB_X`` loop-bound macros, in definition order."""
    return [n[4:] for n in pre.macros if n.startswith("_PB_") and len(n) > 4]


def _datasets(text: str, filename: str, include_dirs: Sequence[str], defines: Sequence[str],
              sizes: list[str]) -> dict[str, dict[str, int]]:
    """Each PolyBench dataset's size values, read by preprocessing with its define."""
    out: dict[str, dict[str, int]] = {}
    for ds in DATASETS:
        pre = _run(text, filename, include_dirs, [*defines, f"{ds}_DATASET"])
        vals = {x: _macro_text(pre, x) for x in sizes}
        if all(v is not None and re.fullmatch(r"\d+", v) for v in vals.values()):
            out[ds] = {x: int(v) for x, v in vals.items() if v is not None}
    return out


@dataclass(frozen=True)
class CSource:
    """The preprocessed text for the parser and what the macros said about the kernel."""

    text: str
    datasets: dict[str, dict[str, int]] = field(default_factory=dict)
    data_type: str | None = None
    live_out: frozenset[str] | None = None  # the arrays print_array dumps (None: no such)
    size_scalars: dict[str, str] = field(default_factory=dict)  # float_n -> N (harness_sizes)


def _symbolic(text: str, filename: str, dirs: list[str],
              defines: Sequence[str]) -> tuple[_Pre, list[str]]:
    """The text preprocessed with every size ``X`` of a ``_PB_X`` macro defined as itself
    (a size the user set stays set), and those sizes."""
    first = _run(text, filename, dirs, defines)
    given = {re.split(r"[= (]", d, maxsplit=1)[0] for d in defines}
    sizes = [x for x in _sizes(first) if x not in given]
    pre = _run(text, filename, dirs, [*defines, *(f"{x} {x}" for x in sizes)]) if sizes \
        else first
    return pre, sizes


def scop_text(text: str, filename: str = "<c>", include_dirs: Sequence[str | Path] = (),
              defines: Sequence[str] = ()) -> str:
    """The scop function's text with every size macro ``_PB_X`` as the name ``X``: what
    :func:`preprocess` gives, without the passes that read each dataset's sizes (the C
    reference run, :mod:`.crun`, takes the sizes from the kernel)."""
    pre, _ = _symbolic(text, filename, [str(d) for d in include_dirs], defines)
    return scop_function(pre.output, filename)


def preprocess(text: str, filename: str = "<c>", include_dirs: Sequence[str | Path] = (),
               defines: Sequence[str] = ()) -> CSource:
    """Preprocess C text; with a ``#pragma scop`` region, keep only its function and region."""
    dirs = [str(d) for d in include_dirs]
    pre, sizes = _symbolic(text, filename, dirs, defines)
    datasets = _datasets(text, filename, dirs, defines, sizes) if sizes else {}
    dt = _macro_text(pre, "DATA_TYPE")
    return CSource(scop_function(pre.output, filename), datasets,
                   C_TYPES.get(dt) if dt else None, live_out(pre.output),
                   harness_sizes(pre.output, sizes))


def size_scalars(text: str, filename: str = "<c>", include_dirs: Sequence[str | Path] = (),
                 defines: Sequence[str] = ()) -> dict[str, str]:
    """:func:`harness_sizes` of a C file (what :func:`preprocess` records)."""
    pre, sizes = _symbolic(text, filename, [str(d) for d in include_dirs], defines)
    return harness_sizes(pre.output, sizes)


def harness_sizes(text: str, sizes: Sequence[str]) -> dict[str, str]:
    """The scalars PolyBench's harness sets to a size: ``main`` declares ``int n = N;`` and
    passes ``n`` and ``&float_n`` to ``init_array``, which sets ``*float_n = (DATA_TYPE)n;`` (or ``= (DATA_TYPE)N``);
    ``main`` then passes ``float_n`` to the kernel, whose ``float_n`` is the size ``N`` in
    every dataset. Arguments pass by name, as in every PolyBench file; ``text`` is the whole
    preprocessed file with the sizes symbolic."""
    if not sizes:
        return {}
    alt = "|".join(re.escape(s) for s in sizes)
    local = dict(re.findall(rf"\bint\s+(\w+)\s*=\s*({alt})\s*;", text))
    local |= {s: s for s in sizes}  # or the size itself (correlation: (DATA_TYPE)N)
    out = {}
    for name, value in re.findall(r"\*\s*(\w+)\s*=\s*(?:\(\s*[\w\s]+\)\s*)?(\w+)\s*;", text):
        if value in local:
            out[name] = local[value]
    return out


def live_out(text: str) -> frozenset[str] | None:
    """The array parameters of ``print_array``: PolyBench's live-out data ("All live-out data
    must be printed by the function call in argument", every ``main``)."""
    m = re.search(r"\bprint_array\s*\(([^)]*)\)\s*\{", text)
    return frozenset(re.findall(r"(\w+)\s*\[", m.group(1))) if m else None


_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[{};]|^[ \t]*#[^\n]*', re.M)


def _blank(text: str) -> str:
    """Every character but newlines as a space (keeps line numbers and columns)."""
    return re.sub(r"[^\n]", " ", text)


def scop_function(text: str, filename: str) -> str:
    """The function holding ``#pragma scop``: its header, its declarations and the scop region.

    Everything else becomes blank (line structure kept) except ``#line`` directives, so the
    parser's positions are the file's. Text without a scop region is returned unchanged.
    """
    begin = re.search(r"^[ \t]*#[ \t]*pragma[ \t]+scop\b[^\n]*$", text, re.M)
    if begin is None:
        return text
    end = re.search(r"^[ \t]*#[ \t]*pragma[ \t]+endscop\b[^\n]*$", text[begin.end():], re.M)
    if end is None:
        raise SpecError(f"{filename}: '#pragma scop' without '#pragma endscop'")
    stop = begin.end() + end.end()
    depth, item_start, body_open = 0, 0, -1
    typedefs: list[tuple[int, int]] = []
    for m in _TOKENS.finditer(text, 0, begin.start()):
        tok = m.group()
        if tok == "{":
            if depth == 0:
                body_open = m.start()
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0:
                item_start = m.end()
        elif tok == ";" and depth == 0:
            item = re.sub(r"^[ \t]*#[^\n]*", "", text[item_start:m.end()], flags=re.M)
            if item.lstrip().startswith("typedef"):
                typedefs.append((item_start, m.end()))
            item_start = m.end()
    if depth != 1 or body_open < item_start:
        raise SpecError(f"{filename}: '#pragma scop' is not directly inside a function body")
    keep = [*typedefs, (item_start, begin.start()), (begin.start(), stop)]
    out = _keep(text, keep, stop)
    return out + "\n}\n"


def _keep(text: str, spans: list[tuple[int, int]], stop: int) -> str:
    """``text[:stop]`` with only ``spans`` and ``#line`` directives kept."""
    pieces, pos = [], 0
    for a, b in sorted(spans):
        pieces.append(_blank_but_lines(text[pos:a]))
        pieces.append(text[a:b])
        pos = b
    pieces.append(_blank_but_lines(text[pos:stop]))
    return "".join(pieces)


def _blank_but_lines(text: str) -> str:
    return "\n".join(ln if re.match(r"[ \t]*#[ \t]*line\b", ln) else _blank(ln)
                     for ln in text.split("\n"))


def strip_directives(text: str) -> str:
    """Blank out preprocessor lines but ``#line`` (keeping line numbers) and expand the
    PolyBench macros that no header defined."""
    lines = ["" if ln.lstrip().startswith("#") and not re.match(r"\s*#\s*line\b", ln) else ln
             for ln in text.splitlines()]
    out = "\n".join(lines)
    out = re.sub(r"\b_PB_([A-Za-z_0-9]+)", r"\1", out)
    out = re.sub(r"\bSCALAR_VAL\s*\(", "(", out)
    out = re.sub(r"\bDATA_TYPE\b", "double", out)
    out = re.sub(r"\b(SQRT|EXP|POW)_FUN\b", lambda m: m.group(1).lower(), out)
    return out
