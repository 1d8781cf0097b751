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


def test_a_loop_and_a_tensor_must_not_share_a_name() -> None:
    w = Workload("clash", ("A", "K"), ("K",), (Tensor("a", ("A", "K")), Tensor("B", ("K",))),
                 Tensor("C", ("A",)), (("a", "B"),))
    with pytest.raises(SpecError, match="'a' names both a rank and a tensor"):
        workload_nest(w)


def test_a_rank_whose_parameter_would_be_a_tensor_s_name_is_counted_alike() -> None:
    """Batched matmul's rank ``b`` beside tensor ``B``: its parameter is ``NB``, and every
    count equals the same einsum with the rank named ``z`` (parameter ``Z``)."""
    from polyjoule.analysis import analyze

    ours = analyze(einsum="C[b,m,n] += A[b,m,k]*B[b,k,n]", extents={"b": 3, "m": 5, "n": 6, "k": 4})
    other = analyze(einsum="C[z,m,n] += A[z,m,k]*B[z,k,n]", extents={"z": 3, "m": 5, "n": 6, "k": 4})
    assert ours.kernel.phases[0].params == ("NB", "M", "N", "K")
    a = ours.evaluate({"NB": 3, "M": 5, "N": 6, "K": 4})
    b = other.evaluate({"Z": 3, "M": 5, "N": 6, "K": 4})
    assert a.counts == b.counts and a.counts["DR"] > 0
    w = Workload("case", ("m", "M"), (), (Tensor("X", ("m", "M")), Tensor("Y", ("m", "M"))),
                 Tensor("Z", ("m", "M")), (("X", "Y"),))
    with pytest.raises(SpecError, match="differ only in case"):
        workload_nest(w)
