"""Registered workloads by name: adding a workload is adding one entry to ``_SPECS``."""

from __future__ import annotations

from polyjoule.errors import UnknownNameError
from polyjoule.model.workload import Tensor, Workload

_A = Tensor("A", ("M", "K"))
_B = Tensor("B", ("K", "N"))
_B2 = Tensor("B2", ("K", "N"))
_C = Tensor("C", ("M", "N"))
_GEMM = dict(ranks=("M", "K", "N"), reduce=("K",), result=_C)

_SPECS: dict[str, Workload] = {
    w.name: w for w in (
        Workload("gemm", operands=(_A, _B), contractions=(("A", "B"),), **_GEMM),
        Workload("gemm.relu", operands=(_A, _B), contractions=(("A", "B"),),
                 epilogue=("relu",), **_GEMM),
        Workload("gemm.sum", operands=(_A, _B, _B2),
                 contractions=(("A", "B"), ("A", "B2")), **_GEMM),
        Workload("gemm.sum.relu", operands=(_A, _B, _B2),
                 contractions=(("A", "B"), ("A", "B2")), epilogue=("relu",), **_GEMM),
    )
}


def names() -> list[str]:
    """Registered workload names, in registration order."""
    return list(_SPECS)


def get(name: str) -> Workload:
    """The workload ``name``; :class:`UnknownNameError` lists the registered names."""
    try:
        return _SPECS[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown workload {name!r}; registered: {', '.join(_SPECS)}") from None
