"""Producers of TOSA: a PyTorch module through torch-mlir, or MLIR text from a file.

torch and torch_mlir are imported here, lazily, and only when a model is exported; a
missing extra is a :class:`MissingExtraError` with the install command.
"""

from __future__ import annotations

import importlib.util
import inspect
import logging
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polyjoule.errors import MissingExtraError, MlirParseError, ModelLoadError
from polyjoule.frontends.tosa.bindings import INSTALL_HINT, parse

DTYPES = ("float32", "int8", "int32", "int64", "float16", "bfloat16")


def _torch() -> Any:
    try:
        import torch
        import torch_mlir.fx  # noqa: F401
    except ImportError as e:
        raise MissingExtraError(
            f"importing a PyTorch model needs torch and torch-mlir ({e.name} is missing): "
            f"{INSTALL_HINT}") from None
    return torch


def read_file(path: str | Path) -> Any:
    """Parse a TOSA MLIR file into an ``ir.Module``."""
    p = Path(path)
    from polyjoule.errors import SpecError
    from polyjoule.frontends.specfile import read_text

    try:
        text = read_text(p)
    except SpecError as e:
        raise MlirParseError(str(e)) from None
    return parse(text, str(p))


def export(module: Any, *example_inputs: Any) -> Any:
    """``nn.Module`` + example inputs -> TOSA ``ir.Module`` via ``export_and_import``."""
    _torch()
    from torch_mlir import fx

    quiet = logging.getLogger("torch")
    level = quiet.level
    try:
        quiet.setLevel(logging.CRITICAL)  # torch logs a traceback before raising
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fx.export_and_import(module, *example_inputs, output_type="tosa")
    except Exception as e:  # noqa: BLE001 - torch.export/torch-mlir raise many types
        first = " ".join(str(e).split())[:300]
        raise ModelLoadError(
            f"torch-mlir could not export {type(module).__name__} to TOSA: "
            f"{type(e).__name__}: {first}") from None
    finally:
        quiet.setLevel(level)


def load_module(spec: str) -> Any:
    """``path/model.py:Name`` -> an ``nn.Module`` (a class or factory is called with no args)."""
    torch = _torch()
    path, sep, attr = spec.rpartition(":")
    if not sep or not path or not attr:
        raise ModelLoadError(f"{spec!r}: expected FILE.py:NAME")
    p = Path(path)
    if not p.is_file():
        raise ModelLoadError(f"{spec!r}: no such file {path!r}")
    name = f"_polyjoule_model_{abs(hash(p.resolve()))}"
    try:
        mod_spec = importlib.util.spec_from_file_location(name, p)
        assert mod_spec is not None and mod_spec.loader is not None
        mod = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = mod
        mod_spec.loader.exec_module(mod)
    except Exception as e:  # noqa: BLE001 - user code may raise anything
        raise ModelLoadError(f"{path}: cannot import: {type(e).__name__}: {e}") from None
    if not hasattr(mod, attr):
        raise ModelLoadError(f"{path}: has no {attr!r}")
    obj = getattr(mod, attr)
    if isinstance(obj, torch.nn.Module):
        return obj
    if callable(obj):
        try:
            obj = obj()
        except Exception as e:  # noqa: BLE001 - user constructor
            raise ModelLoadError(f"{spec}: {attr}() failed: {type(e).__name__}: {e}") from None
        if isinstance(obj, torch.nn.Module):
            return obj
    kind = "class" if inspect.isclass(obj) else type(obj).__name__
    raise ModelLoadError(f"{spec}: {attr} ({kind}) is not an nn.Module")


def example_inputs(shapes: Sequence[Sequence[int]], dtype: str = "float32") -> tuple[Any, ...]:
    """Example tensors (zeros: values never matter, only shapes and dtype)."""
    torch = _torch()
    if dtype not in DTYPES:
        raise ModelLoadError(f"--dtype {dtype!r}: one of {', '.join(DTYPES)}")
    return tuple(torch.zeros(*s, dtype=getattr(torch, dtype)) for s in shapes)
