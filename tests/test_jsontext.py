"""The one JSON writer: strict JSON, numpy values, exact integers; NaN is a named error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from polyjoule.errors import NonFiniteValueError
from polyjoule.jsontext import dumps


def test_numpy_and_big_integers() -> None:
    doc = {"a": np.int64(3), "b": np.float64(0.5), "c": np.array([1, 2]), "d": 2**80,
           "e": np.bool_(True)}
    assert json.loads(dumps(doc)) == {"a": 3, "b": 0.5, "c": [1, 2], "d": 2**80, "e": True}


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), np.float64("-inf")])
def test_non_finite_is_named(bad) -> None:
    with pytest.raises(NonFiniteValueError, match=r"report: rows\[1\]\.energy = "):
        dumps({"rows": [{"energy": 1.0}, {"energy": bad}]}, what="report")


def test_every_json_dumps_in_src_goes_through_the_writer() -> None:
    src = Path(__file__).resolve().parents[1] / "src" / "polyjoule"
    users = [p.relative_to(src).as_posix() for p in src.rglob("*.py")
             if re.search(r"\bjson\.dumps?\(", p.read_text()) and p.name != "jsontext.py"]
    assert users == []
