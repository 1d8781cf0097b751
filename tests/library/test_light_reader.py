"""``list`` and ``show`` read built-in kernels without sympy: the same facts as the full reader.

The summary and outline come from PyYAML and a small affine parser; the kernel from pydantic,
sympy and isl. Both are asked of every built-in file.
"""

from __future__ import annotations

import pytest

from polyjoule.errors import UnknownNameError
from polyjoule.library import kernels as registry

ALL = registry.names()


@pytest.mark.parametrize("name", ALL)
def test_summary_counts_what_the_kernel_has(name: str) -> None:
    k = registry.get(name)
    assert registry.summary(name) == {
        "name": name, "params": list(k.params), "datasets": list(k.datasets),
        "phases": len(k.phases), "statements": [len(p.statements) for p in k.phases],
        "dims": [p.n for p in k.phases], "description": k.description,
    }


@pytest.mark.parametrize("name", ALL)
def test_outline_matches_the_validated_kernel(name: str) -> None:
    k, o = registry.get(name), registry.outline(name)
    assert (o.name, o.description, o.params) == (k.name, k.description, k.params)
    assert {d: dict(v) for d, v in o.datasets.items()} == {d: dict(v) for d, v in k.datasets.items()}
    assert len(o.phases) == len(k.phases)
    for op, kp in zip(o.phases, k.phases, strict=True):
        assert (op.name, op.dtype, op.params, op.param_min, op.scalars) == (
            kp.name, kp.dtype, kp.params, kp.param_min, kp.scalars)
        assert [(d.name, d.lower, d.upper, d.extent) for d in op.dims] == [
            (d.name, d.lower, d.upper, d.extent) for d in kp.dims]
        assert [(t.name, t.shape, t.kind) for t in op.tensors] == [
            (t.name, t.shape, t.kind) for t in kp.tensors]
        assert [(s.id, s.kind, s.text, s.when) for s in op.statements] == [
            (s.id, s.kind, s.text, s.when) for s in kp.statements]


def test_unknown_name_lists_the_known_ones() -> None:
    for read in (registry.summary, registry.outline, registry.get):
        with pytest.raises(UnknownNameError, match="gemm"):
            read("gemmm")
