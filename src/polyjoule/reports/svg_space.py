"""The tiled iteration space, walked point by point: the paper's Figure 2 as SVG geometry.

The arrows are a second, independent computation of the transport volumes: every point of
a statement's condition space gets an arrow from ``i - d`` to ``i``, classed ``FD`` when both
ends lie in one tile (``i // p`` equal in every dim) and ``ID`` when it crosses a tile border.
Nothing here uses Barvinok or the case split of ``mapping.tiling``; the report's test checks
that these counts equal the symbolic volumes.

Kernels with more than two dims are drawn as a 2-D slice: per statement the plane holds the
dims its dependence moves along (then the tiled dims), and the other dims are fixed at the
values of the most populous slice; the caption names them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product

from polyjoule.model.pra import PRA, Statement

#: Above this many points the space is not walked (nor drawn): the report says so.
MAX_POINTS = 200_000
CELL = 44  # pixels between neighbouring points
MARGIN = 56  # room for the axis labels


@dataclass(frozen=True)
class Arrow:
    """One dependence instance ``tail = i - d -> head = i`` of a transport statement."""

    statement: str
    tail: tuple[int, ...]
    head: tuple[int, ...]
    cls: str  # "FD" (same tile) or "ID" (crosses a tile border)


def points(pra: PRA, values: Mapping[str, int]) -> list[tuple[int, ...]]:
    """Every integer point of the iteration space (the extent box filtered by the bounds)."""
    extents = [d.extent.evaluate(values) for d in pra.dims]
    if _volume(extents) > MAX_POINTS:
        raise ValueError(f"{pra.name}: {_volume(extents):,} points is too many to walk")
    domain = pra.domain()
    out = []
    for i in product(*(range(e) for e in extents)):
        env = {**values, **dict(zip(pra.dim_names, i, strict=True))}
        if all(c.holds(env) for c in domain):
            out.append(i)
    return out


def _volume(extents: Sequence[int]) -> int:
    n = 1
    for e in extents:
        n *= max(e, 0)
    return n


def propagations(pra: PRA) -> list[Statement]:
    """Transport statements with a nonzero dependence: the ones that draw arrows."""
    return [s for s in pra.statements if s.kind == "transport" and any(s.dep or ())]


def walk(pra: PRA, values: Mapping[str, int], sizes: Sequence[int],
         pts: list[tuple[int, ...]] | None = None) -> list[Arrow]:
    """Every dependence instance of every propagation statement, classed by tile."""
    pts = points(pra, values) if pts is None else pts
    envs = [{**values, **dict(zip(pra.dim_names, i, strict=True))} for i in pts]
    out = []
    for s in propagations(pra):
        assert s.dep is not None
        for i, env in zip(pts, envs, strict=True):
            if not all(c.holds(env) for c in s.when):
                continue
            tail = tuple(x - d for x, d in zip(i, s.dep, strict=True))
            same = all(a // p == b // p for a, b, p in zip(tail, i, sizes, strict=True))
            out.append(Arrow(s.id, tail, i, "FD" if same else "ID"))
    return out


@dataclass(frozen=True)
class Panel:
    """Drawing of one statement's arrows in one plane: pixel geometry for the template."""

    statement: str
    text: str
    plane: tuple[str, ...]  # (row dim, column dim) or (column dim,)
    fixed: str  # "i2 = 0, ..." for the other dims, "" in 2-D
    width: int
    height: int
    tiles: list[dict]
    dots: list[dict]
    arrows: list[dict]
    labels: list[dict]
    counts: dict[str, int]


def plane_of(pra: PRA, s: Statement, tiled: Sequence[bool]) -> tuple[int, ...]:
    """Up to two dims to draw: those ``s`` moves along, then tiled dims, then the rest."""
    dep = s.dep or (0,) * pra.n
    order = sorted(range(pra.n), key=lambda l: (dep[l] == 0, not tiled[l], l))
    return tuple(sorted(order[:2]))


def _slice(pts: list[tuple[int, ...]], plane: tuple[int, ...]) -> tuple[int, ...]:
    """The other coordinates of the most populous slice (first in order on ties)."""
    rest = Counter(tuple(x for l, x in enumerate(i) if l not in plane) for i in pts)
    return max(rest, key=lambda k: (rest[k], [-x for x in k])) if rest else ()


def _xy(i: Sequence[int], plane: tuple[int, ...]) -> tuple[float, float]:
    """Pixel centre of a point: the last plane dim runs right, the first one down."""
    col = i[plane[-1]]
    row = i[plane[0]] if len(plane) == 2 else 0
    return MARGIN + CELL * (col + 0.5), MARGIN + CELL * (row + 0.5)


def _tiles(extents: Sequence[int], sizes: Sequence[int], plane: tuple[int, ...]) -> list[dict]:
    """One rectangle per tile of the plane, clipped to the space, labelled by its ``k``."""
    rows = plane[0] if len(plane) == 2 else None
    col = plane[-1]
    nrow = -(-extents[rows] // sizes[rows]) if rows is not None else 1
    ncol = -(-extents[col] // sizes[col])
    out = []
    for kr, kc in product(range(nrow), range(ncol)):
        r0 = kr * sizes[rows] if rows is not None else 0
        r1 = min((kr + 1) * sizes[rows], extents[rows]) if rows is not None else 1
        c0, c1 = kc * sizes[col], min((kc + 1) * sizes[col], extents[col])
        label = f"k = ({kr}, {kc})" if rows is not None else f"k = {kc}"
        out.append({"x": MARGIN + CELL * c0 + 3, "y": MARGIN + CELL * r0 + 3,
                    "w": CELL * (c1 - c0) - 6, "h": CELL * (r1 - r0) - 6, "label": label})
    return out


def _arrow_xy(a: Arrow, plane: tuple[int, ...]) -> dict:
    """A segment from tail to head, shortened so it starts and ends beside the dots."""
    (x0, y0), (x1, y1) = _xy(a.tail, plane), _xy(a.head, plane)
    length = max(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5, 1e-9)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    gap = 8.0
    return {"x1": round(x0 + ux * gap, 1), "y1": round(y0 + uy * gap, 1),
            "x2": round(x1 - ux * (gap + 2), 1), "y2": round(y1 - uy * (gap + 2), 1),
            "cls": a.cls, "statement": a.statement,
            "title": f"{a.statement}: {a.tail} -> {a.head} ({a.cls})"}


def _start(i: Sequence[int], sizes: Sequence[int], schedule: Mapping | None) -> str:
    """`` · starts at cycle c`` from the schedule's ``lambda_J . j + lambda_K . k``."""
    if not schedule:
        return ""
    c = sum(lj * (x % p) + lk * (x // p) for x, p, lj, lk in
            zip(i, sizes, schedule["lambda_J"], schedule["lambda_K"], strict=True))
    return f" · starts at cycle {c}"


def panel(pra: PRA, s: Statement, values: Mapping[str, int], sizes: Sequence[int],
          pts: list[tuple[int, ...]], arrows: list[Arrow], schedule: Mapping | None = None) -> Panel:
    """The drawing of statement ``s``: points, tile borders and its arrows in its plane."""
    extents = [d.extent.evaluate(values) for d in pra.dims]
    plane = plane_of(pra, s, [-(-e // p) > 1 for e, p in zip(extents, sizes, strict=True)])
    other = _slice(pts, plane)

    def shown(i: tuple[int, ...]) -> bool:
        return tuple(x for l, x in enumerate(i) if l not in plane) == other

    dots = []
    for i in filter(shown, pts):
        x, y = _xy(i, plane)
        tile = tuple(v // p for v, p in zip(i, sizes, strict=True))
        dots.append({"x": x, "y": y, "title": f"i = {i} · tile k = {tile}{_start(i, sizes, schedule)}"})
    mine = [a for a in arrows if a.statement == s.id and shown(a.head) and shown(a.tail)]
    names = pra.dim_names
    ncol = extents[plane[-1]]
    nrow = extents[plane[0]] if len(plane) == 2 else 1
    labels = [{"x": _xy((0,) * pra.n, plane)[0] + CELL * c, "y": MARGIN - 10, "text": str(c),
               "anchor": "middle"} for c in range(ncol)]
    labels += [{"x": MARGIN - 10, "y": MARGIN + CELL * (r + 0.5) + 4, "text": str(r), "anchor": "end"}
               for r in range(nrow) if len(plane) == 2]
    labels.append({"x": MARGIN + CELL * ncol / 2, "y": 18, "text": f"{names[plane[-1]]} →",
                   "anchor": "middle"})
    if len(plane) == 2:
        labels.append({"x": 20, "y": MARGIN + CELL * nrow / 2, "text": f"{names[plane[0]]} ↓",
                       "anchor": "middle"})
    fixed = ", ".join(f"{names[l]} = {v}" for l, v in
                      zip([l for l in range(pra.n) if l not in plane], other, strict=True))
    return Panel(s.id, s.text, tuple(names[l] for l in plane), fixed,
                 MARGIN + CELL * ncol + 12, MARGIN + CELL * nrow + 12,
                 _tiles(extents, sizes, plane), dots, [_arrow_xy(a, plane) for a in mine],
                 labels, dict(Counter(a.cls for a in mine)))
