"""Normalise the reshapes and transposes that bracket a matmul operand.

torch-mlir wraps every matmul operand in layout ops: ``reshape`` to add the unit batch
(``[4,16] -> [1,4,16]``), to merge leading dims (``[2,4,16] -> [1,8,16]``), and a
``transpose`` for ``b.T``. Instead of rewriting the IR (ACT's ``normalize_source``), we
trace the chain back to its source and compute the net effect: the operand is the
source's memory read as a row-major (rows, cols) matrix, or as its transpose, or the
chain is refused with :class:`LayoutError`.

Rule: a TOSA reshape never moves data, so a chain of reshapes alone is always a plain
view. With a transpose in the chain we label each dim with the matrix axis it belongs
to (``r``/``c``; unit dims carry nothing) and propagate labels back exactly: a reshape
may only regroup dims of one label, a transpose may not reorder dims of one label, and
at the source each label's dims must be contiguous. The source is then (r, c) or (c, r).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from polyjoule.errors import LayoutError, NoMatchError
from polyjoule.frontends.tosa.bindings import ir
from polyjoule.frontends.tosa.recognize import producer


def shape(value: Any) -> tuple[int, ...]:
    """Static shape of a ranked tensor value; dynamic dims are refused by the caller."""
    return tuple(ir().ShapedType(value.type).shape)


@dataclass(frozen=True)
class Source:
    """Where a matmul operand comes from: ``value`` read plain or ``flipped`` (transposed)."""

    value: Any
    flipped: bool
    path: tuple[Any, ...]  # the layout ops walked through, matmul side first


def _reshape_back(xs: tuple[int, ...], ys: tuple[int, ...], ly: list[str | None]
                  ) -> list[str | None]:
    """Labels of a reshape's input from its output's; only same-label regrouping allowed."""
    xi = [i for i, d in enumerate(xs) if d != 1]
    yi = [j for j, d in enumerate(ys) if d != 1]
    lx: list[str | None] = [None] * len(xs)
    i = j = 0
    while i < len(xi) or j < len(yi):
        if i >= len(xi) or j >= len(yi):
            raise LayoutError(f"tosa.reshape {list(xs)} -> {list(ys)}: sizes do not regroup")
        gx, gy = [xi[i]], [yi[j]]
        px, py = xs[xi[i]], ys[yi[j]]
        i, j = i + 1, j + 1
        while px != py:
            if px < py:
                if i >= len(xi):
                    raise LayoutError(f"tosa.reshape {list(xs)} -> {list(ys)}: sizes do not regroup")
                gx.append(xi[i])
                px *= xs[xi[i]]
                i += 1
            else:
                if j >= len(yi):
                    raise LayoutError(f"tosa.reshape {list(xs)} -> {list(ys)}: sizes do not regroup")
                gy.append(yi[j])
                py *= ys[yi[j]]
                j += 1
        labels = {ly[k] for k in gy}
        if len(labels) != 1:
            raise LayoutError(
                f"tosa.reshape {list(xs)} -> {list(ys)} mixes matrix rows and columns "
                "around a transpose")
        for k in gx:
            lx[k] = ly[gy[0]]
    return lx


def _transpose_back(perms: list[int], ly: list[str | None]) -> list[str | None]:
    """Labels of a transpose's input; dims of one label must keep their relative order."""
    lx: list[str | None] = [None] * len(perms)
    for i, p in enumerate(perms):
        lx[p] = ly[i]
    for lab in ("r", "c"):
        src = [perms[i] for i in range(len(perms)) if ly[i] == lab]
        if src != sorted(src):
            raise LayoutError(f"tosa.transpose perms {perms} reorders dims within one matrix axis")
    return lx


def trace(value: Any) -> Source:
    """Walk a 3-D matmul operand back through reshapes/transposes to its source."""
    _ir = ir()
    path: list[Any] = []
    v = value
    while True:
        op = producer(v)
        if op is None or op.name not in ("tosa.reshape", "tosa.transpose"):
            break
        allowed = ("perms",) if op.name == "tosa.transpose" else ()
        extra = [str(a) for a in op.attributes if str(a) not in allowed]
        if extra:
            raise NoMatchError(f"{op.name}: unaccounted attribute {extra[0]!r}")
        path.append(op)
        v = op.operands[0]
    if not any(op.name == "tosa.transpose" for op in path):
        return Source(v, False, tuple(path))
    _, rows, cols = shape(value)
    labels: list[str | None] = [None, "r" if rows != 1 else None, "c" if cols != 1 else None]
    for op in path:
        xs, ys = shape(op.operands[0]), shape(op.results[0])
        if op.name == "tosa.reshape":
            labels = _reshape_back(xs, ys, labels)
        else:
            perms = list(_ir.DenseI32ArrayAttr(op.attributes["perms"]))
            labels = _transpose_back(perms, labels)
    order: list[str] = []
    for lab in labels:
        if lab is None or (order and order[-1] == lab):
            continue
        if lab in order:
            raise LayoutError(f"source {list(shape(v))}: matrix axis {lab} is not contiguous")
        order.append(lab)
    return Source(v, order == ["c", "r"], tuple(path))
