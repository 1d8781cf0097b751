"""A Workload's loop nest: the one path from the mapper's workloads to a PRA."""

from __future__ import annotations

import ast

import pytest

from polyjoule.errors import SpecError
from polyjoule.frontends.einsum import einsum_kernel
from polyjoule.library import workloads
from polyjoule.model.affine import Affine
from polyjoule.model.nest import Loop, read_index, read_name, workload_nest
from polyjoule.model.workload import Tensor, Workload


def test_gemm_relu_nest_has_result_ranks_outside_and_the_relu_after() -> None:
    nest = workload_nest(workloads.get("gemm.relu"))
    assert [lp.name for lp in nest.loops] == ["m", "n", "k"]
    assert nest.loops[2] == Loop("k", Affine.of({}), Affine.of({"K": 1}, -1), "rank K")
    assert nest.params == ("M", "N", "K")
    body, post = nest.stmts
    assert (body.op, body.position, body.depth) == ("+=", "body", 3)
    assert [r.tensor for r in body.reads] == ["A", "B"]
    assert (post.op, post.position, post.depth) == ("=", "post", 2)
    assert ast.unparse(post.expr) == f"relu({read_name(0)})"
    assert nest.zero_init == frozenset({"C"})
    assert nest.shapes["B"] == (Affine.of({"K": 1}), Affine.of({"N": 1}))


def test_read_placeholders_round_trip() -> None:
    assert read_index(ast.Name(id=read_name(7))) == 7
    assert read_index(ast.Name(id="alpha")) is None


@pytest.mark.parametrize("name", workloads.names())
def test_registered_workload_and_its_text_reach_the_same_pra(name: str) -> None:
    """The mapper's workload object and the einsum written as text localise identically."""
    w = workloads.get(name)
    terms = " + ".join(f"{a}[{','.join(w.tensor(a).ranks)}]*{b}[{','.join(w.tensor(b).ranks)}]"
                       for a, b in w.contractions)
    for op in w.epilogue:
        terms = f"{op}({terms})"
    text = f"C[{','.join(w.result.ranks)}] = {terms}"
    assert einsum_kernel(w).phases == einsum_kernel(text, name=name).phases


def test_rank_and_tensor_names_must_not_clash() -> None:
    w = Workload("clash", ("A", "K"), ("K",), (Tensor("A", ("A", "K")), Tensor("B", ("K",))),
                 Tensor("C", ("A",)), (("A", "B"),))
    with pytest.raises(SpecError, match="names both a rank and a tensor"):
        workload_nest(w)
    w = Workload("case", ("m", "M"), (), (Tensor("X", ("m", "M")), Tensor("Y", ("m", "M"))),
                 Tensor("Z", ("m", "M")), (("X", "Y"),))
    with pytest.raises(SpecError, match="differ only in case"):
        workload_nest(w)
