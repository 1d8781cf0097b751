"""The einsum workload model shared by the mapper, the localisation and TOSA front ends."""

from polyjoule.workload.einsum import POINTWISE, Tensor, Workload

__all__ = ["POINTWISE", "Tensor", "Workload"]
