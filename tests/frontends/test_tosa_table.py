"""The closed primitive table: 29 prims in 8 categories, each a class in the TOSA bindings."""

from __future__ import annotations

import pytest

from polyjoule.frontends.tosa import primitive as P


def test_table_shape():
    assert len(P.PRIMS) == 29
    assert len(P.CATEGORIES) == 8
    assert {p.category for p in P.PRIMS} == set(P.CATEGORIES)
    assert len({p.tag for p in P.PRIMS}) == 29
    assert {p.tag for p in P.PRIMS if p.commutative} == {"add", "mul", "maximum", "minimum", "equal"}
    assert P.CATEGORIES["binary_shift"].quant == ("shift",)
    assert P.BESPOKE["tosa.matmul"].quant == ("a_zp", "b_zp")
    assert "tosa.rescale" in P.REFUSED and "tosa.rescale" not in P.PRIM_BY_OP


def test_every_row_names_a_class_of_the_bindings():
    pytest.importorskip("torch_mlir")
    for name in [*P.PRIM_BY_OP, *P.BESPOKE]:
        cls = P.op_class(name)
        assert cls.OPERATION_NAME == name
