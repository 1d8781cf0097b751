"""What a model's layers become: a mapper search per layer, or a PRA per layer.

A recognised layer is an einsum :class:`~polyjoule.model.workload.Workload`; the mapper
searches it on the TinyTPU (:func:`map_model`), and localisation turns the same object into
a PRA for a processor array (:func:`layer_kernel`). Everything here returns data; the CLI
(:mod:`polyjoule.cli.tosa`) prints it and chooses the exit code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from polyjoule.errors import PolyjouleError
from polyjoule.frontends.tosa.builder import Layer, Model
from polyjoule.model.pra import Kernel

TARGET = "tinytpu-isa"


@dataclass(frozen=True)
class LayerMapping:
    """A layer and its search result (or why it could not be searched)."""

    layer: Layer
    result: Any | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.best is not None


def registered_name(workload: Any) -> str | None:
    """The registry entry equal to ``workload``, if any."""
    from polyjoule.library import workloads as registry

    for name in registry.names():
        if registry.get(name) == workload:
            return name
    return None


def map_model(model: Model, target: str = TARGET, slots: int = 2) -> list[LayerMapping]:
    """Search every recognised layer on ``target``; refused layers are carried through."""
    from polyjoule.search import search
    from polyjoule.search import target as targets

    tgt = targets.get(target)
    out = []
    for layer in model.layers:
        rec = layer.recognized
        if rec is None:
            out.append(LayerMapping(layer))
            continue
        try:
            res = search.search(search.Problem(rec.workload, rec.extents), tgt, slots=slots)
        except PolyjouleError as e:
            out.append(LayerMapping(layer, error=f"{type(e).__name__}: {e}"))
            continue
        err = "" if res.best else f"every one of {res.considered} nests was refused"
        out.append(LayerMapping(layer, res, err))
    return out


def _cand(c: Any) -> dict[str, Any]:
    return {"mapping": c.label, **c.priced.cost.asdict()}


def as_json(model: Model, maps: list[LayerMapping], top: int, source: str) -> dict[str, Any]:
    """The report as plain data (what ``--json`` prints)."""
    layers = []
    for lm in maps:
        layer, rec = lm.layer, lm.layer.recognized
        d: dict[str, Any] = {"layer": layer.index, "value": layer.anchor, "ops": list(layer.ops)}
        if rec is None:
            d.update(status="refused", error=type(layer.error).__name__, reason=str(layer.error))
        else:
            wl = rec.workload
            d.update(status="mapped" if lm.ok else "unmapped", workload=wl.name,
                     registered=registered_name(wl), extents=rec.extents,
                     operands={t.name: list(t.ranks) for t in wl.operands},
                     sources=rec.sources, dtypes=rec.dtypes)
            if lm.result is not None:
                d["nests"] = lm.result.considered
                d["encodable"] = len(lm.result.candidates)
                d["census"] = {r.cause: r.first for r in lm.result.census.rows()}
                d["candidates"] = [_cand(c) for c in lm.result.candidates[:top]]
            if lm.error:
                d["reason"] = lm.error
        layers.append(d)
    return {"source": source, "function": model.function, "target": TARGET, "layers": layers}


def layer_kernel(layer: Layer) -> Kernel:
    """The PRA of a recognised layer (its workload localised, extents as the ``default``
    dataset): the same path as an einsum given as text."""
    from polyjoule.frontends.einsum import einsum_kernel

    rec = layer.recognized
    assert rec is not None, "only recognised layers have a kernel"
    return einsum_kernel(rec.workload, rec.extents)
