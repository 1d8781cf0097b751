"""Where values enter and leave a triangular domain (isl asked through analysis/_isl)."""

from __future__ import annotations

import ast
from pathlib import Path

from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.frontends.pra_dump import condition_text
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Loop, Nest

SRC = Path(__file__).resolve().parents[3] / "src" / "polyjoule"


def _triangle() -> Geometry:
    """for i in 0..N-1, for j in i..N-1 (syrk's upper triangle)."""
    i, n = Affine.of({"i": 1}), Affine.of({"N": 1}, -1)
    return Geometry(Nest("tri", ("N",), (Loop("i", Affine.of({}), n), Loop("j", i, n)), ()))


def _texts(pieces: list) -> list[list[str]]:
    return [[condition_text(c, ["i", "j"]) for c in p] for p in pieces]


def test_first_and_last_points_of_a_triangle() -> None:
    g = _triangle()
    assert _texts(g.first("j")) == [["j == i"]]
    assert _texts(g.last("j")) == [["j == N - 1"]]
    assert _texts(g.first("i")) == [["i == 0"]]  # i == 0 covers the union with i == j
    below = Constraint(Affine.of({"i": 1, "j": -1}, -1))  # j <= i - 1: outside the triangle
    assert g.empty([below]) and not g.empty(g.first("i")[0])


def test_inner_loop_of_a_triangle_is_never_empty_but_a_shifted_one_can_be() -> None:
    assert _triangle().inner_never_empty(1)
    i, n = Affine.of({"i": 1}), Affine.of({"N": 1}, -1)
    shifted = Geometry(Nest("s", ("N",), (Loop("i", Affine.of({}), n),
                                          Loop("j", i.shift(1), n)), ()))
    assert not shifted.inner_never_empty(1)  # i == N - 1 has no j


def test_maximum_over_the_nest() -> None:
    g = _triangle()
    assert str(g.maximum(Affine.of({"i": 1, "j": 1}))) == "2*N - 2"
    assert str(g.minimum(Affine.of({"j": 1}, 1))) == "1"


def test_no_front_end_imports_islpy() -> None:
    """Localisation asks its emptiness questions through ``analysis/_isl.py``; the exact
    dataflow of elimination nests (``frontends/cflow.py``) is the one exception."""
    importers = []
    for path in (SRC / "frontends").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] == "islpy" for n in names):
                importers.append(path.relative_to(SRC).as_posix())
    assert importers == ["frontends/cflow.py"]
