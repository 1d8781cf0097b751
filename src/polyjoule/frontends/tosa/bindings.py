"""The one place torch-mlir's MLIR bindings are imported, lazily.

polyjoule must import without the ``tosa`` extra; only calling into this front end needs
it, and then a missing extra is a :class:`MissingExtraError` saying how to install it.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

from polyjoule.errors import MissingExtraError, MlirParseError, QuantizationError

INSTALL_HINT = "pip install 'polyjoule[tosa]'"


def ir() -> ModuleType:
    """``torch_mlir.ir``, or :class:`MissingExtraError` with the install command."""
    try:
        from torch_mlir import ir as _ir
    except ImportError as e:
        raise MissingExtraError(
            f"the TOSA front end needs torch-mlir ({e.name or 'torch_mlir'} is missing): "
            f"{INSTALL_HINT}") from None
    return _ir


def tosa_dialect() -> ModuleType:
    """``torch_mlir.dialects.tosa`` (the op classes the prim table names)."""
    ir()
    from torch_mlir.dialects import tosa as _tosa

    return _tosa


_RESOURCE_CONST = re.compile(r'(%[\w.$#-]+)\s*=\s*"tosa\.const"\(\)\s*<\{values\s*=\s*dense_resource<')
_MATMUL = re.compile(r'tosa\.matmul"?\(?\s*(%[\w.$#-]+)\s*,\s*(%[\w.$#-]+)\s*,\s*'
                     r'(%[\w.$#-]+)\s*,\s*(%[\w.$#-]+)')


def _guard(text: str, source: str) -> None:
    """Refuse a matmul whose zero-point is a dense_resource constant before parsing it.

    The bundled MLIR's ``tosa.matmul`` verifier loops forever trying to read such a
    zero-point; it is unknown to us anyway (never taken for zero), so refuse it here.
    """
    if "dense_resource<" not in text:
        return
    opaque = set(_RESOURCE_CONST.findall(text))
    for m in _MATMUL.finditer(text):
        for zp, which in ((m.group(3), "a_zp"), (m.group(4), "b_zp")):
            if zp in opaque:
                raise QuantizationError(
                    f"{source}: tosa.matmul {which} {zp} is a dense_resource constant: its "
                    "value is unknown, and unknown is never taken for zero")


def parse(text: str, source: str = "<text>") -> Any:
    """Parse MLIR text into a module; a parse or verify failure is one-line MlirParseError."""
    _ir = ir()
    _guard(text, source)
    ctx = _ir.Context()
    try:
        return _ir.Module.parse(text, ctx)
    except _ir.MLIRError as e:
        first = " ".join(str(e).split())
        raise MlirParseError(f"{source}: not valid MLIR/TOSA: {first[:300]}") from None
