"""Energy against latency of every design point: a panel per problem size (energies of
different sizes differ by orders of magnitude, and a Pareto front compares one size only),
colour by array shape, marker by scanning order (or tile), each panel's front outlined."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from polyjoule.reports.plots_select import (
    MAX_PANELS,
    Where,
    one_value,
    params,
    select,
    size_label,
    too_many,
    values,
)
from polyjoule.reports.plots_style import (
    array_colours,
    energy_unit,
    marker_map,
    plain_ticks,
    pyplot,
    shape_order,
)


def _energy(cols: Mapping[str, np.ndarray]) -> tuple[str, str]:
    """The energy the Pareto flags rank by: the total (dynamic + static) when the sweep has it."""
    if "total_pj" in cols:
        return "total_pj", "total energy"
    return "energy_pj", "energy"


def _marker_keys(cols: Mapping[str, np.ndarray], mask: np.ndarray) -> list[str]:
    """The mapping columns that vary among the points: markers tell them apart."""
    return [k for k in ("order", "tile") if k in cols and len(values(cols[k], mask)) > 1]


def _marks(cols: Mapping[str, np.ndarray], idx: np.ndarray, keys: Sequence[str]) -> np.ndarray:
    if not keys:
        return np.full(len(idx), "", dtype=object)
    return np.asarray([" / ".join(str(cols[k][i]) for k in keys) for i in idx], dtype=object)


def pareto_figure(cols: Mapping[str, np.ndarray], where: Where | None = None,
                  title: str | None = None, kernel: str | None = None) -> Any:
    """The figure (matplotlib ``Figure``): one panel per problem size, at most
    :data:`~polyjoule.reports.plots_select.MAX_PANELS`; more sizes are chosen with ``--where``."""
    mask = select(cols, where)
    one_value(cols, mask, "table", "energy tables", "pareto")
    idx = np.flatnonzero(mask)
    names = params(cols)
    labels = np.asarray([size_label(cols, i, names) for i in idx], dtype=object)
    sizes = list(dict.fromkeys(labels.tolist()))
    # the --where to suggest: the size with the most values here
    size_key = max(names, key=lambda p: len(values(cols[p], mask)), default="dataset")
    if size_key in cols:
        too_many(len(sizes), "problem sizes", size_key, values(cols[size_key], mask), "pareto",
                 MAX_PANELS)
    keys = _marker_keys(cols, mask)
    marks = _marks(cols, idx, keys)
    style = (array_colours(cols["array"][idx].astype(str).tolist()),
             marker_map(marks.tolist(), " / ".join(keys) or "marker"))
    plt = pyplot()
    ncols = min(3, len(sizes))
    nrows = -(-len(sizes) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.8 * ncols + 0.6, 3.9 * nrows + 0.5),
                             squeeze=False)
    ekey, ename = _energy(cols)
    for n, size in enumerate(sizes):
        here = labels == size
        _panel(axes.flat[n], cols, idx[here], marks[here], ekey, ename, style)
        axes.flat[n].set_title(size, fontsize=9)
        axes.flat[n].set_label(f"size:{size}")
    for ax in axes.flat[len(sizes):]:
        ax.remove()
    _legend(fig, style, keys, "pareto" in cols and bool(cols["pareto"][idx].any()))
    what = f"{kernel}: " if kernel else ""
    fig.suptitle(title or f"{what}{ename} vs latency, a panel per problem size")
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return fig


def _panel(ax: Any, cols: Mapping[str, np.ndarray], sel: np.ndarray, marks: np.ndarray,
           ekey: str, ename: str, style: tuple[dict[str, Any], dict[str, str]]) -> None:
    """One problem size: a point per mapping, its Pareto front outlined and joined."""
    colours, markers = style
    energy = cols[ekey][sel].astype(float)
    unit, scale = energy_unit(float(energy.max()))
    e = energy / scale
    lat = cols["latency_cycles"][sel].astype(float)
    arrays = cols["array"][sel].astype(str)
    for a in shape_order(arrays.tolist()):
        for m, glyph in markers.items():
            hit = (arrays == a) & (marks == m)
            if hit.any():
                # hollow: mappings that land on one spot stay visible, one inside the other
                ax.scatter(lat[hit], e[hit], s=30, facecolors="none", edgecolors=[colours[a]],
                           marker=glyph, linewidths=1.1, label=f"{a} | {m}", zorder=2)
    front = cols["pareto"][sel].astype(bool) if "pareto" in cols else np.zeros(len(sel), bool)
    if front.any():
        o = np.argsort(lat[front], kind="stable")
        ax.step(lat[front][o], e[front][o], "k-", where="post", lw=0.7, alpha=0.7, zorder=1)
        ax.scatter(lat[front], e[front], s=110, facecolors="none", edgecolors="k", lw=0.8,
                   zorder=3, label="Pareto front")
    if lat.min() > 0 and lat.max() > 20 * lat.min():
        ax.set_xscale("log")
    plain_ticks(ax, "x")
    ax.set_xlabel("latency (cycles)")
    ax.set_ylabel(f"{ename} ({unit})")
    ax.grid(True, which="both", lw=0.3, alpha=0.5)


def _legend(fig: Any, style: tuple[dict[str, Any], dict[str, str]], keys: Sequence[str],
            front: bool) -> None:
    """One legend for the figure, in sections that say what colour and marker mean."""
    from matplotlib.lines import Line2D

    colours, markers = style
    blank = Line2D([], [], linestyle="none")
    handles: list[Any] = [blank]
    labels = ["colour: array"]
    for a, c in colours.items():
        handles.append(Line2D([], [], linestyle="none", marker="s", color=c, markersize=7))
        labels.append(a)
    if keys:
        handles.append(blank)
        labels.append(f"marker: {' / '.join('scanning order' if k == 'order' else k for k in keys)}")
        for m, glyph in markers.items():
            handles.append(Line2D([], [], linestyle="none", marker=glyph, color="0.25",
                                  markerfacecolor="none", markersize=6))
            labels.append(m)
    if front:
        handles.append(Line2D([], [], color="k", lw=0.7, marker="o", markerfacecolor="none",
                              markersize=8))
        labels.append("Pareto front")
    fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.93), fontsize=8,
               frameon=False)
