"""Energy breakdown vs problem size as SVG geometry: one 100 % stacked bar per size.

Shares rather than absolute energies, since sizes span orders of magnitude: the point of the
picture is which location class dominates where (DRAM at small sizes, registers and compute
as tiles grow). The total is written above each bar.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

BAR = 46
STEP = 84
TOP = 40
PLOT_H = 240
LEFT = 58


@dataclass(frozen=True)
class Bars:
    """Pixel geometry for the template: stacked segments, axis ticks, bar labels, legend."""

    width: int
    height: int
    segments: list[dict]
    ticks: list[dict]
    labels: list[dict]
    legend: list[dict]


def bars(sizes: Sequence[str], parts: Sequence[Mapping[str, float]], order: Sequence[str],
         total_text: Callable[[float], str], marked: int | None = None) -> Bars:
    """``parts[b][c]``: energy of class ``c`` at size ``sizes[b]``; ``order`` bottom to top."""
    segments, labels = [], []
    for b, (size, part) in enumerate(zip(sizes, parts, strict=True)):
        total = sum(part.values()) or 1.0
        x = LEFT + 20 + STEP * b
        y = TOP + PLOT_H
        for c in order:
            h = PLOT_H * part.get(c, 0.0) / total
            if h <= 0:
                continue
            y -= h
            segments.append({"x": x, "y": round(y, 2), "w": BAR, "h": round(h, 2), "cls": c,
                             "title": f"{size}: {c} {100 * part.get(c, 0.0) / total:.1f} % "
                                      f"({total_text(part.get(c, 0.0))})"})
        labels.append({"x": x + BAR / 2, "y": TOP - 8, "text": total_text(sum(part.values())),
                       "bold": b == marked})
        for k, line in enumerate(size.split(", ")):
            labels.append({"x": x + BAR / 2, "y": TOP + PLOT_H + 18 + 14 * k, "text": line,
                           "bold": b == marked})
    ticks = [{"y": TOP + PLOT_H * (1 - f / 100), "text": f"{f} %"} for f in range(0, 101, 25)]
    width = LEFT + 20 + STEP * len(sizes) + 110
    legend = [{"x": width - 96, "y": TOP + 20 * k, "cls": c} for k, c in enumerate(reversed(order))]
    lines = max((len(s.split(", ")) for s in sizes), default=1)
    return Bars(width, TOP + PLOT_H + 24 + 14 * lines, segments, ticks, labels, legend)
