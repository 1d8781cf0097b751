"""Reading a user's input file: one place for the rules every input shares.

Every text input (YAML spec, C, einsum, MLIR, program text, plot data) comes through
:func:`read_text`: bytes decoded as UTF-8 with a named error, a size limit. YAML goes on
through :func:`load_yaml`: a nesting limit, duplicate keys refused with line and column.
Expressions pass :func:`check_expression` (length and bracket depth) before any recursive
parser sees them, so no input can end in a ``RecursionError``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from polyjoule.errors import DuplicateKeyError, InputLimitError, SpecError, UndecodableInput

MAX_BYTES = 16 * 1024 * 1024  # a spec, program or data file larger than this is refused
MAX_DEPTH = 48  # YAML nesting (mappings and sequences) and bracket depth of an expression
MAX_EXPRESSION = 4096  # characters of one expression (einsum, affine, compute, C line)
MAX_OPERATORS = 192  # operators in one expression: each can be a level of recursion
INT64_MAX = 2**63 - 1


def read_bytes(path: str | Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of ``path``: unreadable or past ``limit`` -> a one-line error naming it."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as e:
        raise SpecError(f"{p}: cannot read: {e.strerror or e}") from None
    if len(data) > limit:
        raise InputLimitError(f"{p}: larger than {limit} bytes")
    return data


def decode(data: bytes, where: str | Path) -> str:
    """``data`` as UTF-8; an undecodable byte is named with its line and column. A leading
    byte-order mark (editors on Windows write one) is no character of the text: dropped
    (the C parser called it an illegal character)."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        head = data[: e.start]
        line = head.count(b"\n") + 1
        col = e.start - (head.rfind(b"\n") + 1) + 1
        raise UndecodableInput(f"{where}:{line}:{col}: byte 0x{data[e.start]:02x} is not "
                               "UTF-8 text") from None


def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """The text of ``path``: readable, within ``limit`` bytes, UTF-8 (else one line)."""
    return decode(read_bytes(path, limit), path)


class _Loader(yaml.SafeLoader):
    """Safe YAML with a nesting limit and no repeated key (last-one-wins hides typos)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        depth = getattr(self, "_depth", 0)
        if depth >= MAX_DEPTH:
            mark = self.peek_event().start_mark
            raise InputLimitError(f"{self._where}:{mark.line + 1}:{mark.column + 1}: nested "
                                  f"deeper than {MAX_DEPTH} levels")
        self._depth = depth + 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth = depth

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                fresh = key not in seen
                seen.add(key)
            except TypeError:  # an unhashable key: SafeLoader names it below
                continue
            if not fresh:
                m = key_node.start_mark
                raise DuplicateKeyError(f"{self._where}:{m.line + 1}:{m.column + 1}: key "
                                        f"{key!r} given twice")
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str, where: str | Path) -> Any:
    """Parsed YAML ``text`` of the file ``where``; every failure one line naming it."""
    loader = _Loader(text)
    loader._where = str(where)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(e, "problem", None)  # the parser's reason: "found a tab ..."
        why = f": {' '.join(str(problem).split())}" if problem else ""
        raise SpecError(f"{where}: not valid YAML{at}{why}") from None
    finally:
        loader.dispose()


def read_yaml(path: str | Path) -> Any:
    """Parsed YAML of ``path``; unreadable or malformed -> :class:`SpecError` naming the file."""
    return load_yaml(read_text(path), Path(path))


def check_expression(text: str, where: str, limit: int = MAX_EXPRESSION) -> str:
    """``text`` unchanged if a recursive parser can take it: length, depth, operators.

    Statements (split at ``;``) are measured one by one, so a C file of many short
    statements passes while one statement of thousands of terms does not.
    """
    depth = deepest = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
    if deepest > MAX_DEPTH:
        raise InputLimitError(f"{where}: expression nested deeper than {MAX_DEPTH} levels")
    for part in text.split(";"):
        if len(part) > limit:
            raise InputLimitError(f"{where}: expression longer than {limit} characters")
        if sum(part.count(op) for op in "+-*/%<>=&|!~^?") > MAX_OPERATORS:
            raise InputLimitError(f"{where}: expression of more than {MAX_OPERATORS} "
                                  "operators")
    return text


def check_version(data: Any, where: str | Path, supported: Sequence[int] = (1,)) -> None:
    """Refuse a file whose ``version`` this build does not read (absent means 1)."""
    if isinstance(data, Mapping) and "version" in data:
        v = data["version"]
        if isinstance(v, bool) or v not in supported:
            known = ", ".join(str(s) for s in supported)
            raise SpecError(f"{where}: version: {v!r} is not a version this polyjoule reads "
                            f"({known})")


def check_number(value: float, where: str, positive: bool = False,
                 integer: bool = False) -> float:
    """``value`` if finite (and > 0, and within int64 when ``integer``), else one line."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpecError(f"{where}: {value!r} is not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise SpecError(f"{where}: {value!r} is not a finite number")
    if positive and value <= 0:
        raise SpecError(f"{where}: {value!r} must be positive")
    if integer and not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise SpecError(f"{where}: {value!r} is outside the 64-bit integer range")
    return value
