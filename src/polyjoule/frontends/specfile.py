"""Reading a user's YAML file: one place for the errors every spec file shares."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from polyjoule.errors import SpecError


def read_yaml(path: str | Path) -> Any:
    """Parsed YAML of ``path``; unreadable or malformed -> :class:`SpecError` naming the file."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise SpecError(f"{p}: cannot read: {e.strerror}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark is not None else ""
        raise SpecError(f"{p}: not valid YAML{at}") from None


def _field_path(loc: tuple[Any, ...]) -> str:
    """``statements[1].when`` from pydantic's ``("statements", 1, "when")``.

    Validator wrappers (``function-after[...]``) are pydantic's, not the user's: left out.
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not (str(part).startswith("function-") and "[" in str(part)):
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def validation_error(e: ValidationError, where: str | Path) -> SpecError:
    """Every error of ``e`` on one line: ``FILE: field: msg; field[2].x: msg; ...``.

    The first error names the file and its field (what the CLI prints first); the others
    follow, so a user fixes a file in one round instead of one error per run.
    """
    parts = [f"{_field_path(tuple(err['loc']))}: {err['msg']}" for err in e.errors()]
    return SpecError(f"{where}: " + "; ".join(parts))
