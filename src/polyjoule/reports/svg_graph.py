"""The reduced dependence graph of a PRA as SVG geometry: statements and external tensors
as nodes, dependences as edges labelled by their vector and coloured by location class.

A simple layered layout (no graph library: the graphs have tens of nodes): dependences at
distance zero form a DAG inside one iteration, so a node's layer is its longest zero-distance
path from the inputs; loop-carried edges (nonzero ``d``) are drawn as arcs on top. Node order
within a layer follows the mean position of its predecessors (two barycentre sweeps).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from polyjoule.model.pra import PRA, Statement

ROW = 92  # pixels between layers
GAP = 28  # pixels between nodes of one layer
CHAR = 7.2  # width of one monospace character at the node font size
HEIGHT = 30


@dataclass(frozen=True)
class Edge:
    """``source -> target`` carrying a value at distance ``dep`` in location class ``cls``."""

    source: str
    target: str
    dep: tuple[int, ...] | None
    cls: str
    what: str  # the variable or tensor the edge carries


def _writers(pra: PRA) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for s in pra.statements:
        if s.kind != "output":
            out.setdefault(s.var, []).append(s.id)
    return out


def _classes(s: Statement, tiled: Sequence[bool]) -> list[str]:
    """Where a transport's value lives: RD at distance 0, FD inside a tile, ID across one."""
    dep = s.dep or ()
    if not any(dep):
        return ["RD"]
    return ["FD", "ID"] if any(d and tiled[l] for l, d in enumerate(dep)) else ["FD"]


def edges(pra: PRA, tiled: Sequence[bool]) -> list[Edge]:
    """Every dependence edge of ``pra``; ``tiled[l]``: is dim ``l`` spread over PEs?"""
    writers = _writers(pra)
    out = []
    for s in pra.statements:
        if s.kind == "input":
            out.append(Edge(f"in:{s.tensor}", s.id, None, "DR", str(s.tensor)))
            continue
        if s.kind == "output":
            out.append(Edge(s.id, f"out:{s.tensor}", None, "DR", str(s.tensor)))
        classes = _classes(s, tiled) if s.kind == "transport" else ["RD"]
        dep = s.dep if s.kind == "transport" else None
        for v in s.reads:
            for w in writers.get(v, []):
                out.extend(Edge(w, s.id, dep, c, v) for c in classes)
    return out


def _layers(names: list[str], es: list[Edge]) -> dict[str, int]:
    """Longest path over zero-distance edges (Kahn's order; leftovers go last)."""
    flat = [e for e in es if not any(e.dep or ())]
    preds: dict[str, set[str]] = {n: set() for n in names}
    for e in flat:
        preds[e.target].add(e.source)
    layer: dict[str, int] = {}
    todo = list(names)
    while todo:
        ready = [n for n in todo if preds[n] <= layer.keys()]
        if not ready:  # a zero-distance cycle: not a valid PRA, but still draw it
            ready = todo[:1]
        for n in ready:
            layer[n] = 1 + max((layer[p] for p in preds[n] if p in layer), default=-1)
            todo.remove(n)
    outputs = [n for n in names if n.startswith("out:")]
    last = max(layer.values(), default=0)
    for n in outputs:
        layer[n] = last + 1 if any(layer[m] == last and m not in outputs for m in names) else last
    return layer


@dataclass(frozen=True)
class Graph:
    """Pixel geometry of the graph for the template."""

    width: int
    height: int
    nodes: list[dict]
    edges: list[dict]


def _barycentre(n: str, es: list[Edge], pos: dict[str, int]) -> float:
    ps = [pos[e.source] for e in es if e.target == n and e.source in pos]
    return sum(ps) / len(ps) if ps else pos[n]


def _order(by_layer: list[list[str]], es: list[Edge]) -> None:
    """Two barycentre sweeps: each node under the mean position of its predecessors."""
    for _ in range(2):
        pos = {n: k for row in by_layer for k, n in enumerate(row)}
        for row in by_layer[1:]:
            row.sort(key=lambda n, pos=pos: _barycentre(n, es, pos))
            pos.update({n: k for k, n in enumerate(row)})


def _is_tensor(name: str) -> bool:
    """Tensor nodes are ``in:A`` and ``out:C`` (an inout tensor is both, on either side)."""
    return name.startswith(("in:", "out:"))


def _label(pra: PRA, name: str) -> str:
    if _is_tensor(name):
        return name.split(":", 1)[1]
    s = next(s for s in pra.statements if s.id == name)
    return f"{s.id}: {s.text}"


def _curve(a: dict, b: dict, bend: float) -> dict:
    """A quadratic arc from node ``a`` to node ``b`` bent sideways by ``bend`` pixels."""
    down = b["y"] > a["y"]
    x1, y1 = a["cx"], a["y"] + (HEIGHT if down else 0)
    x2, y2 = b["cx"], b["y"] + (0 if down else HEIGHT)
    if a["y"] == b["y"]:
        y1 = y2 = a["y"] + HEIGHT
        bend = bend or 40
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    dx, dy = x2 - x1, y2 - y1
    n = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    cx, cy = mx - dy / n * bend, my + dx / n * bend
    at = 0.8  # the label sits near the reader, where the edges of one statement meet

    def on(a: float, c: float, b: float) -> float:
        return (1 - at) ** 2 * a + 2 * (1 - at) * at * c + at * at * b

    return {"d": f"M {x1:.1f} {y1:.1f} Q {cx:.1f} {cy:.1f} {x2:.1f} {y2:.1f}",
            "lx": on(x1, cx, x2), "ly": on(y1, cy, y2) + 4}


def _merged(es: list[Edge]) -> dict[tuple[str, str], list[Edge]]:
    """Edges between one pair of nodes drawn as one (an FD/ID transport: a two-tone line)."""
    out: dict[tuple[str, str], list[Edge]] = {}
    for e in es:
        out.setdefault((e.source, e.target), []).append(e)
    return out


def layout(pra: PRA, tiled: Sequence[bool]) -> Graph:
    """Nodes placed by layer and order; edges as arcs (loop-carried ones bent aside)."""
    es = edges(pra, tiled)
    names = list(dict.fromkeys([f"in:{s.tensor}" for s in pra.statements if s.kind == "input"]
                               + [s.id for s in pra.statements]
                               + [f"out:{s.tensor}" for s in pra.statements if s.kind == "output"]))
    layer = _layers(names, es)
    by_layer = [[n for n in names if layer[n] == k] for k in range(max(layer.values()) + 1)]
    _order(by_layer, es)
    widths = {n: len(_label(pra, n)) * CHAR + 20 for n in names}
    full = max(sum(widths[n] for n in row) + GAP * (len(row) - 1) for row in by_layer)
    nodes: dict[str, dict] = {}
    for k, row in enumerate(by_layer):
        x = 20 + (full - sum(widths[n] for n in row) - GAP * (len(row) - 1)) / 2
        for n in row:
            nodes[n] = {"id": n, "x": x, "y": 20 + ROW * k, "w": widths[n], "cx": x + widths[n] / 2,
                        "label": _label(pra, n), "tensor": _is_tensor(n)}
            x += widths[n] + GAP
    drawn, labelled = [], set()
    for (source, target), group in _merged(es).items():
        e = group[0]
        carried = any(e.dep or ())
        geo = _curve(nodes[source], nodes[target], 28 if carried else 0)
        label = f"d = {e.dep}" if carried and target not in labelled else ""
        if label:
            labelled.add(target)
        classes = [x.cls for x in group]
        drawn.append({**geo, "cls": classes[0], "also": classes[1:], "label": label,
                      "source": source, "target": target,
                      "title": f"{source} -> {target}: {e.what}"
                               f"{' at distance ' + str(e.dep) if e.dep else ''} ({' or '.join(classes)})"})
    return Graph(int(full + 40), int(40 + ROW * (len(by_layer) - 1) + HEIGHT), list(nodes.values()), drawn)
