"""Reading a user's YAML file: one place for the errors every spec file shares."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

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
