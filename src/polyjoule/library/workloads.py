"""Registered workloads by name: adding a workload is adding one entry to ``_SPECS``."""

from __future__ import annotations

from polyjoule.errors import UnknownNameError
from polyjoule.model.workload import Tensor, Workload

_A = Tensor("A", ("M", "K"))
_B = Tensor("B", ("K", "N"))
_B2 = Tensor("B2", ("K", "N"))
_C = Tensor("C", ("M", "N"))
_GEMM = dict(ranks=("M", "K", "N"), reduce=("K",), result=_C)
#: nn.Linear's bias as a second contraction summed by vadd: a host ones column in ONES,
#: the bias in row 0 of BIAS (frontends/tosa/builder.py)
_BIAS = (Tensor("ONES", ("M", "K")), Tensor("BIAS", ("K", "N")))
#: the corpus classes the TinyTPU mapper reduces to a GEMM (targets/tinytpu/specmap.py):
#: a batch rank B; relu of X as X's T-column blocks (rank B) against an identity I(J, N);
#: a row sum as X against a ones column (N = 1). Results are C, as in every einsum text.
_BMM = dict(ranks=("B", "M", "K", "N"), reduce=("K",), result=Tensor("C", ("B", "M", "N")),
            operands=(Tensor("X", ("B", "M", "K")), Tensor("W", ("B", "K", "N"))),
            contractions=(("X", "W"),))
_RELU = dict(ranks=("M", "B", "J", "N"), reduce=("J",), result=Tensor("C", ("M", "B", "N")),
             operands=(Tensor("X", ("M", "B", "J")), Tensor("I", ("J", "N"))),
             contractions=(("X", "I"),), epilogue=("relu",))
_ROWSUM = dict(ranks=("M", "K", "N"), reduce=("K",), result=_C,
               operands=(Tensor("X", ("M", "K")), Tensor("ones", ("K", "N"))),
               contractions=(("X", "ones"),))

_SPECS: dict[str, Workload] = {
    w.name: w for w in (
        Workload("gemm", operands=(_A, _B), contractions=(("A", "B"),), **_GEMM),
        Workload("gemm.relu", operands=(_A, _B), contractions=(("A", "B"),),
                 epilogue=("relu",), **_GEMM),
        Workload("gemm.sum", operands=(_A, _B, _B2),
                 contractions=(("A", "B"), ("A", "B2")), **_GEMM),
        Workload("gemm.sum.relu", operands=(_A, _B, _B2),
                 contractions=(("A", "B"), ("A", "B2")), epilogue=("relu",), **_GEMM),
        Workload("gemm.bias", operands=(_A, _B, *_BIAS), contractions=(("A", "B"),
                                                                       ("ONES", "BIAS")),
                 **_GEMM),
        Workload("gemm.bias.relu", operands=(_A, _B, *_BIAS),
                 contractions=(("A", "B"), ("ONES", "BIAS")), epilogue=("relu",), **_GEMM),
        Workload("bmm", **_BMM),
        Workload("relu", **_RELU),
        Workload("rowsum", **_ROWSUM),
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
