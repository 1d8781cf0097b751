"""Einsum front end: ``C[m,n] += A[m,k]*B[k,n]`` (or a :class:`Workload`) -> a PRA.

The einsum is a :class:`Workload`, whose loop nest (:func:`polyjoule.model.nest.workload_nest`)
has the result ranks outermost (in the result's order) and reduced ranks innermost, with
the result zero-initialised. Each rank ``m`` becomes a loop ``m`` over ``0..M-1`` with the
parameter ``M`` (its extent). Localisation (see
:mod:`polyjoule.frontends.localize`) turns each operand's missing ranks into propagations and
the reduction into an accumulation chain; a pointwise epilogue (``relu``) is applied where
the chain ends.

Text form: ``RESULT[r,..] += X[..]*Y[..] (+ X2[..]*Y2[..] ...)``, optionally wrapped in an
epilogue call: ``C[m,n] = relu(A[m,k]*B[k,n])``; ``=`` and ``+=`` mean the same (the sum
over the ranks missing from the result, starting from zero).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from polyjoule.errors import SpecError, UnknownNameError
from polyjoule.frontends.localize import localize
from polyjoule.frontends.specfile import check_expression
from polyjoule.model.nest import workload_names, workload_nest
from polyjoule.model.pra import Kernel, Reference
from polyjoule.model.workload import POINTWISE, Tensor, Workload

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _tensor(node: Any, text: str) -> Tensor:
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        raise SpecError(f"einsum {text!r}: {ast.unparse(node)!r} is not a tensor like A[m,k]")
    sl = node.slice
    items = sl.elts if isinstance(sl, ast.Tuple) else [sl]
    ranks = []
    for it in items:
        if not isinstance(it, ast.Name):
            raise SpecError(f"einsum {text!r}: {ast.unparse(node)}: subscripts must be rank "
                            f"names, {ast.unparse(it)!r} is not")
        ranks.append(it.id)
    for name in (node.value.id, *ranks):
        if not _NAME.fullmatch(name):
            raise SpecError(f"einsum {text!r}: {name!r} is not an ASCII name "
                            "(letters, digits, '_')")
    return Tensor(node.value.id, tuple(ranks))


def _statement(text: str) -> ast.Assign | ast.AugAssign:
    """The one assignment ``C[..] (+)= ...`` of the text."""
    check_expression(text, f"einsum {text[:40]!r}")
    try:
        tree = ast.parse(text.strip(), mode="exec")
    except SyntaxError as e:
        raise SpecError(f"einsum {text!r}: cannot parse: {e.msg} (column {e.offset})") from None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign | ast.AugAssign):
        raise SpecError(f"einsum {text!r}: expected one 'C[m,n] += A[m,k]*B[k,n]'")
    st = tree.body[0]
    if isinstance(st, ast.AugAssign) and not isinstance(st.op, ast.Add):
        raise SpecError(f"einsum {text!r}: only '=' and '+=' are einsums")
    return st


def _epilogue(value: Any, text: str) -> tuple[Any, tuple[str, ...]]:
    """Unwrap pointwise calls (``relu(...)``): the sum inside and the calls, innermost first."""
    epilogue: list[str] = []
    while isinstance(value, ast.Call):
        fn = value.func.id if isinstance(value.func, ast.Name) else ast.unparse(value.func)
        if fn not in POINTWISE or len(value.args) != 1:
            raise UnknownNameError(f"einsum {text!r}: unknown pointwise epilogue {fn!r} "
                                   f"(known: {', '.join(POINTWISE)})")
        epilogue.insert(0, fn)
        value = value.args[0]
    return value, tuple(epilogue)


def _summands(node: Any) -> list[Any]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _summands(node.left) + _summands(node.right)
    return [node]


def _contractions(value: Any, text: str) -> tuple[dict[str, Tensor], list[tuple[str, str]]]:
    """The operands (each indexed one way) and the products of the sum."""
    operands: dict[str, Tensor] = {}
    contractions: list[tuple[str, str]] = []
    for t in _summands(value):
        if not (isinstance(t, ast.BinOp) and isinstance(t.op, ast.Mult)):
            raise SpecError(f"einsum {text!r}: {ast.unparse(t)!r} is not a product of two "
                            f"tensors")
        pair = (_tensor(t.left, text), _tensor(t.right, text))
        for x in pair:
            prev = operands.setdefault(x.name, x)
            if prev.ranks != x.ranks:
                raise SpecError(f"einsum {text!r}: {x.name} is indexed as both "
                                f"[{','.join(prev.ranks)}] and [{','.join(x.ranks)}]")
        contractions.append((pair[0].name, pair[1].name))
    return operands, contractions


def _check_extents(text: str, tensors: list[Tensor], ranks: list[str],
                   extents: Mapping[str, int]) -> None:
    for x in tensors:
        for r in x.ranks:
            if r not in extents:
                raise UnknownNameError(
                    f"einsum {text!r}: rank {r!r} of {x.name}[{','.join(x.ranks)}] has no "
                    f"extent (given: {', '.join(extents) or 'none'})"
                )
    for r in extents:
        if r not in ranks:
            raise UnknownNameError(f"--extents: {r!r} is not a rank of the einsum "
                                   f"(ranks: {', '.join(ranks)})")


def parse_einsum(text: str, extents: Mapping[str, int] | None = None,
                 name: str = "einsum") -> Workload:
    """Parse the text form into a :class:`Workload`; with ``extents`` every rank is checked."""
    st = _statement(text)
    result = _tensor(st.target if isinstance(st, ast.AugAssign) else st.targets[0], text)
    value, epilogue = _epilogue(st.value, text)
    operands, contractions = _contractions(value, text)
    ranks: list[str] = list(result.ranks)
    for x in operands.values():
        ranks += [r for r in x.ranks if r not in ranks]
    if extents is not None:
        _check_extents(text, [result, *operands.values()], ranks, extents)
    reduce = tuple(r for r in ranks if r not in result.ranks)
    return Workload(name, tuple(ranks), reduce, tuple(operands.values()), result,
                    tuple(contractions), epilogue)


def _reference(w: Workload) -> Reference:
    """The workload's own numpy semantics, in floating point: the simulator's witness."""

    def reference(tensors: Mapping[str, np.ndarray], env: Mapping[str, int]) -> dict[str, np.ndarray]:
        return {w.result.name: w.evaluate(tensors, np.float64)}

    return reference


def einsum_kernel(spec: Workload | str, extents: Mapping[str, int] | None = None,
                  dtype: str = "fp32", name: str = "einsum") -> Kernel:
    """The derived PRA of an einsum (text or :class:`Workload`) as a :class:`Kernel`;
    ``extents`` (by rank) become its ``default`` dataset, the workload's numpy einsum is its
    reference."""
    w = parse_einsum(spec, extents, name) if isinstance(spec, str) else spec
    datasets = None
    if extents is not None:
        w.check_extents(extents)
        _, params = workload_names(w)
        datasets = {"default": {params[r]: int(v) for r, v in extents.items()}}
    k = localize([workload_nest(w, dtype)], w.name,
                  f"einsum {w.result.name} from {', '.join(t.name for t in w.operands)}",
                  datasets)
    return replace(k, reference=_reference(w))
