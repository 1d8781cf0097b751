"""TOSA front end: real PyTorch models (via torch-mlir) and TOSA MLIR into mapper workloads.

Recognition is fail-safe: an op earns a meaning only when every part of it is accounted
for; anything else is refused by a named error (the "TOSA front end" block of
:mod:`polyjoule.errors`) with its reason. Needs the ``tosa`` extra (``pip install 'polyjoule[tosa]'``); nothing heavy is imported until a
function here is called.

    from polyjoule.frontends import tosa
    model = tosa.from_torch(net, torch.zeros(4, 16))       # Model: .layers, each mapped or refused
    model = tosa.from_file("net.mlir")
    rec = tosa.workload_from_tosa(text)                    # one function = exactly one workload

Modules: ``primitive`` (the closed op table), ``recognize`` (one op's meaning),
``layout`` (reshape/transpose normalisation), ``builder`` (grammar, layers),
``producer`` (torch export, files), ``layers`` (per-layer searches and PRAs, as data).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from polyjoule.errors import (
    CompileError,
    DTypeError,
    LayoutError,
    MlirParseError,
    ModelLoadError,
    NoMatchError,
    QuantizationError,
    ShapeError,
    TosaFrontendError,
)

if TYPE_CHECKING:
    from polyjoule.frontends.tosa.builder import Model, Recognized


def _module(source: Any) -> Any:
    from polyjoule.frontends.tosa.bindings import parse

    return parse(source) if isinstance(source, str) else source


def workload_from_tosa(source: Any, function: str | None = None) -> Recognized:
    """MLIR text or ``ir.Module`` whose function is exactly one workload (strict)."""
    from polyjoule.frontends.tosa.builder import function as pick
    from polyjoule.frontends.tosa.builder import workload_from_function

    module = _module(source)  # keep alive: its operations die with it
    rec = workload_from_function(pick(module, function))
    return replace(rec, ops=())


def from_module(source: Any, function: str | None = None) -> Model:
    """MLIR text or ``ir.Module`` -> its layers, each recognised or refused."""
    from polyjoule.frontends.tosa.builder import function as pick
    from polyjoule.frontends.tosa.builder import model_from_function

    module = _module(source)  # keep alive: its operations die with it
    return model_from_function(pick(module, function))


def from_file(path: str, function: str | None = None) -> Model:
    """A TOSA MLIR file -> its layers."""
    from polyjoule.frontends.tosa.producer import read_file

    return from_module(read_file(path), function)


def from_torch(module: Any, *example_inputs: Any) -> Model:
    """An ``nn.Module`` and example inputs -> TOSA via torch-mlir -> its layers."""
    from polyjoule.frontends.tosa.producer import export

    return from_module(export(module, *example_inputs))


__all__ = [
    "CompileError", "DTypeError", "LayoutError", "MlirParseError", "ModelLoadError",
    "NoMatchError", "QuantizationError", "ShapeError", "TosaFrontendError", "from_file",
    "from_module", "from_torch", "workload_from_tosa",
]
