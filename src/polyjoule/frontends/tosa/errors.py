"""Why the TOSA front end refused something, as a class per cause (ACT's taxonomy, §13).

Every refusal is a named class plus a reason naming the operation; nothing is approximated.
``TosaFrontendError`` is ACT's ``ACTError`` under polyjoule's base, so the CLI prints
any of them as one line and exits 2. Source-dependent checks raise (never ``assert``).
"""

from __future__ import annotations

from polyjoule.errors import PolyjouleError


class TosaFrontendError(PolyjouleError):
    """Base of the TOSA front end's errors (ACT: ``ACTError``)."""


class MlirParseError(TosaFrontendError):
    """The input is not MLIR the bindings can parse, or holds no function."""


class ModelLoadError(TosaFrontendError):
    """``model.py:Module`` cannot be loaded, built or exported to TOSA."""


class CompileError(TosaFrontendError):
    """The program is valid TOSA but cannot become a workload (ACT: ``CompileError``)."""


class NoMatchError(CompileError):
    """Stage 1: an operation (or the program's shape) is not in the workload grammar."""


class ShapeError(CompileError):
    """Stage 2: extents disagree between terms, or a matmul has a non-unit batch."""


class DTypeError(CompileError):
    """Stage 2: an element type the recogniser cannot read (e.g. unsigned or 1-bit bounds)."""


class LayoutError(CompileError):
    """Stage 2: a reshape/transpose chain does not leave a plain (or transposed) matrix."""


class QuantizationError(CompileError):
    """A zero-point or shift is non-zero or unknown (only symmetric, unshifted is mapped)."""


__all__ = [
    "CompileError", "DTypeError", "LayoutError", "MlirParseError", "ModelLoadError",
    "NoMatchError", "QuantizationError", "ShapeError", "TosaFrontendError",
]
