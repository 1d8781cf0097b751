"""Which write a read sees (frontends/localize/dataflow.py), on nests built from C."""

from __future__ import annotations

from polyjoule.frontends.cnest import _Ctx, _nest, _parse
from polyjoule.frontends.cpre import strip_directives as _strip
from polyjoule.frontends.localize.dataflow import (
    INPUT,
    Finished,
    only_false_conflicts,
    source_of,
)
from polyjoule.frontends.localize.geometry import Geometry
from polyjoule.model.affine import Affine
from polyjoule.model.nest import Nest


def _of(body: str) -> Nest:
    fn = _parse(_strip("void f(void) {\n" + body + "}\n"), "x.c").ext[0]
    ctx = _Ctx("x.c")
    loops, stmts = _nest(fn.body.block_items[0], ctx)
    return Nest("x", tuple(ctx.params), tuple(loops), tuple(stmts))


def _read(nest: Nest, text: str):  # type: ignore[no-untyped-def]
    return next(r for s in nest.stmts for r in s.reads if str(r) == text)


def test_a_value_finished_by_an_earlier_outer_iteration() -> None:
    n = _of("for (i = 0; i < N; i++) { x[i] = b[i];\n"
            " for (j = 0; j < i; j++) x[i] -= L[i][j] * x[j]; }\n")
    src = source_of(n, Geometry(n), _read(n, "x[j]"))
    assert isinstance(src, Finished) and src.at == {"i": Affine.of({"j": 1})}


def test_a_value_overwritten_only_later_is_the_input() -> None:
    n = _of("for (i = 0; i < M; i++) for (j = 0; j < N; j++) {\n"
            " for (k = i + 1; k < M; k++) B[i][j] += A[k][i] * B[k][j]; }\n")
    assert source_of(n, Geometry(n), _read(n, "B[k][j]")) == INPUT


def test_the_same_outer_iteration_is_not_decided() -> None:
    n = _of("for (i = 0; i < N; i++) for (j = 0; j < N; j++) A[i][j] = A[i][0] + 1.0;\n")
    assert source_of(n, Geometry(n), _read(n, "A[i][0]")) is None
    assert not only_false_conflicts(n)


def test_a_conflict_that_never_meets_is_false() -> None:
    """corr[i][j], j > i, never names corr[i][i] (correlation's diagonal)."""
    n = _of("for (i = 0; i < M - 1; i++) { corr[i][i] = 1.0;\n"
            " for (j = i + 1; j < M; j++) corr[i][j] = corr[i][j] + d[j]; }\n")
    assert only_false_conflicts(n)
