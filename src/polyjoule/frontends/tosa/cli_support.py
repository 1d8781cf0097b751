"""Print a model's layers, each recognised workload with its best mapping, for the CLI.

The only module of the front end that prints. ``map_tosa_file`` is the hook behind
``polyjoule map --tosa FILE``; ``report`` is shared with ``polyjoule import``.
Exit codes: 0 every layer recognised and mapped, 1 some layer refused or unmappable,
2 bad input (raised as a :class:`PolyjouleError` for the CLI to print as one line).
"""

from __future__ import annotations

import json as _json
from dataclasses import dataclass
from typing import Any

from polyjoule.errors import PolyjouleError
from polyjoule.frontends.tosa.builder import Layer, Model

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
    return {"mapping": c.label, "makespan": c.priced.cost[0], "emits": c.priced.cost[1]}


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


def lines(model: Model, maps: list[LayerMapping], top: int, source: str) -> list[str]:
    """The human report, one block per layer."""
    n_ok = sum(lm.ok for lm in maps)
    out = [f"{source} @{model.function}: {len(maps)} layer(s), {n_ok} mapped on {TARGET}"]
    for lm in maps:
        layer, rec = lm.layer, lm.layer.recognized
        head = f"layer {layer.index} ({layer.anchor}; {' '.join(layer.ops)})"
        if rec is None:
            out.append(f"{head}: refused, {layer.cause}")
            continue
        wl = rec.workload
        reg = registered_name(wl)
        ops = ", ".join(f"{t.name}({','.join(t.ranks)})={rec.sources[t.name]}"
                        for t in wl.operands)
        out.append(f"{head}: {wl.name} {rec.shape_text}"
                   f"{' [registered]' if reg else ' [not registered]'}")
        out.append(f"    operands: {ops}; dtypes {', '.join(f'{k}={v}' for k, v in rec.dtypes.items())}")
        res = lm.result
        if res is None:
            out.append(f"    not mapped: {lm.error}")
            continue
        out.append(f"    {res.considered} nests, {len(res.candidates)} encodable")
        if res.best is None:
            causes = ", ".join(f"{r.cause} {r.first}" for r in res.census.rows())
            out.append(f"    not mapped: {lm.error} (first causes: {causes})")
            continue
        for i, c in enumerate(res.candidates[:top]):
            mark = "best" if i == 0 else f"#{i + 1}"
            out.append(f"    {mark:>4} {c.label:<14} cost (makespan {c.priced.cost[0]}, "
                       f"emits {c.priced.cost[1]})")
    return out


def report(model: Model, source: str, top: int = 1, json: bool = False) -> int:
    """Map every layer, print the report, return the exit code (0 all mapped, else 1)."""
    maps = map_model(model)
    if json:
        print(_json.dumps(as_json(model, maps, top, source), indent=2))  # noqa: T201
    else:
        print("\n".join(lines(model, maps, top, source)))  # noqa: T201
    return 0 if maps and all(lm.ok for lm in maps) else 1


def map_tosa_file(path: str, top: int = 1, json: bool = False) -> int:
    """``polyjoule map --tosa FILE``: read the file, print per layer, return the exit code."""
    from polyjoule.frontends.tosa import from_file

    return report(from_file(path), path, top=top, json=json)
