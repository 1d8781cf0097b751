"""Where the energy goes as the problem grows: per array shape, the share of dynamic energy per
location class (and compute) stacked against problem size, latency on a second axis; a last
panel shows the absolute energies on a log scale (they span orders of magnitude).

One mapping per array is drawn (one tile, one scanning order, one energy table): a sweep over
several is refused with the values there are, never reduced silently to its first row's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from polyjoule.errors import PlotSelectionError, SpecError
from polyjoule.reports.plots_select import (
    Where,
    listing,
    numbers,
    one_value,
    params,
    select,
    too_many,
    values,
)
from polyjoule.reports.plots_style import (
    CLASS_COLOURS,
    array_colours,
    energy_log_ticks,
    plain_ticks,
    pyplot,
    shape_order,
)
from polyjoule.targets.tcpa.locations import CLASSES

#: most array shapes in one breakdown (a share panel each)
MAX_ARRAYS = 4
_PARTS = (*CLASSES, "compute")
_DASHES = ("-o", "--s", ":^", "-.D")


def _x_axis(cols: Mapping[str, np.ndarray], mask: np.ndarray, names: Sequence[str],
            x: str | None) -> str:
    """The size on the x axis: ``--x``, else the first parameter that varies."""
    if x is not None:
        if x not in cols or numbers(cols[x]) is None:
            raise SpecError(f"--x: no numeric column {x!r} (sizes: {', '.join(names) or 'none'})")
        return x
    if not names:
        raise SpecError("breakdown: the sweep has no problem-size column")
    return next((p for p in names if len(values(cols[p], mask)) > 1), names[0])


def _group(cols: Mapping[str, np.ndarray], mask: np.ndarray, x: str, names: Sequence[str],
           array: str) -> np.ndarray:
    """The points of one array, by increasing ``x``; two at one ``x`` are refused."""
    idx = np.flatnonzero(mask)
    idx = idx[np.argsort(cols[x][idx].astype(float), kind="stable")]
    if len(np.unique(cols[x][idx])) != len(idx):
        other = next((p for p in names if p != x and len(values(cols[p], mask)) > 1), None)
        hint = (f"; {other} takes {listing(values(cols[other], mask), 6)}: fix it with "
                f"--where {other}={values(cols[other], mask)[0]}" if other else "")
        raise PlotSelectionError(f"breakdown: several points of array {array} share one {x}"
                                 f"{hint}")
    return idx


def _ticks(xs: np.ndarray, most: int = 16) -> list[int]:
    """Which bars get a label: all of up to ``most``; else the first and those at round
    values (multiples of 1, 2, 2.5 or 5 x 10^k), at most ``most``."""
    if len(xs) <= most:
        return list(range(len(xs)))
    for k in range(int(np.log10(max(float(xs[-1]), 1.0))) + 1):
        for n in (1, 2, 2.5, 5):
            at = [i for i, v in enumerate(xs) if i == 0 or float(v) % (n * 10**k) == 0]
            if len(at) <= most:
                return at if len(at) >= 4 else list(range(0, len(xs), -(-len(xs) // most)))
    return list(range(0, len(xs), -(-len(xs) // most)))


def _tied(cols: Mapping[str, np.ndarray], mask: np.ndarray, x: str, names: Sequence[str]) -> str:
    """The x label: ``N = NI = NJ = NK`` when the sizes move together, else ``x``."""
    tied = [p for p in names if p != x
            and np.array_equal(cols[p][mask].astype(float), cols[x][mask].astype(float))]
    return f"N = {' = '.join([x, *tied])}" if tied else x


def breakdown_figure(cols: Mapping[str, np.ndarray], x: str | None = None,
                     where: Where | None = None, title: str | None = None,
                     kernel: str | None = None) -> Any:
    """The figure (matplotlib ``Figure``): a share panel per array shape (at most
    :data:`MAX_ARRAYS`), then the energies of every array on one log-scale panel."""
    missing = [f"energy.{c}" for c in _PARTS if f"energy.{c}" not in cols]
    if missing:
        raise SpecError(f"breakdown: the sweep has no column {missing[0]!r}")
    mask = select(cols, where)
    fixed = [one_value(cols, mask, k, what, "breakdown") for k, what in
             (("tile", "tiles"), ("order", "scanning orders"), ("table", "energy tables"))]
    arrays = cols["array"].astype(str)
    shapes = shape_order(values(cols["array"], mask))
    too_many(len(shapes), "array shapes", "array", shapes, "breakdown", MAX_ARRAYS)
    names = params(cols)
    x = _x_axis(cols, mask, names, x)
    groups = {a: _group(cols, mask & (arrays == a), x, names, a) for a in shapes}
    xs = np.unique(cols[x][mask].astype(float))
    pos = {float(v): i for i, v in enumerate(xs)}
    plt = pyplot()
    fig, axes = plt.subplots(len(shapes) + 1, 1, sharex=True,
                             figsize=(9, 2.5 * len(shapes) + 3.0),
                             gridspec_kw={"height_ratios": [3] * len(shapes) + [2.6]})
    twins = []
    for n, a in enumerate(shapes):
        at = np.asarray([pos[float(v)] for v in cols[x][groups[a]]])
        twins.append(_shares(axes[n], cols, groups[a], at, a, legend=n == 0))
    for twin in twins[1:]:  # one latency scale: arrays compare at a glance
        twin.sharey(twins[0])
    lat = cols["latency_cycles"][mask].astype(float)
    if lat.min() > 0:
        twins[0].set_ylim(lat.min() / 1.5, lat.max() * 1.5)
    for twin in twins:
        plain_ticks(twin)
    _energies(axes[-1], cols, groups, pos, x)
    ticks = _ticks(xs)
    axes[-1].set_xticks(ticks)
    axes[-1].set_xticklabels([f"{xs[i]:g}" for i in ticks], rotation=45)
    xname = _tied(cols, mask, x, names)
    axes[-1].set_xlabel(xname)
    mapping = ", ".join(f"{k} {v}" for k, v in zip(("tile", "order"), fixed[:2], strict=True)
                        if v is not None)
    what = f"{kernel}: " if kernel else ""
    fig.suptitle(title or f"{what}share of dynamic energy per location class and latency vs "
                 f"{xname.split(' = ')[0]}" + (f" ({mapping})" if mapping else ""), fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def _shares(ax: Any, cols: Mapping[str, np.ndarray], idx: np.ndarray, at: np.ndarray,
            array: str, legend: bool) -> Any:
    """One array: stacked shares of dynamic energy, latency (log) on a twin axis (returned)."""
    total = cols["energy_pj"][idx].astype(float)
    bottom = np.zeros(len(idx))
    for c in _PARTS:
        share = 100 * cols[f"energy.{c}"][idx].astype(float) / np.where(total > 0, total, 1)
        ax.bar(at, share, bottom=bottom, color=CLASS_COLOURS[c], label=c, width=0.85)
        bottom += share
    ax.set_ylim(0, 100)
    ax.set_ylabel("share of dynamic\nenergy (%)")
    ax.set_title(f"array {array}", fontsize=9, loc="left")
    ax.set_label(f"share:{array}")
    twin = ax.twinx()
    twin.plot(at, cols["latency_cycles"][idx].astype(float), "k-o", ms=3, label="latency")
    twin.set_yscale("log")
    twin.set_ylabel("latency (cycles)")
    twin.set_label(f"latency:{array}")
    if legend:
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = twin.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, loc="upper left", bbox_to_anchor=(1.15, 1.0), fontsize=8,
                  title="location class")
    return twin


def _energies(ax: Any, cols: Mapping[str, np.ndarray], groups: Mapping[str, np.ndarray],
              pos: Mapping[float, int], x: str) -> None:
    """Absolute dynamic energies: per class for one array, the totals per array for several;
    they span many decades, so each tick names its unit."""
    def at(g: np.ndarray) -> np.ndarray:
        return np.asarray([pos[float(v)] for v in cols[x][g]])

    if len(groups) == 1:
        (g,) = groups.values()
        for c in _PARTS:
            v = cols[f"energy.{c}"][g].astype(float)
            if np.any(v > 0):
                ax.plot(at(g), v, "-o", ms=2.5, color=CLASS_COLOURS[c], label=c)
        ax.plot(at(g), cols["energy_pj"][g], "k--", lw=1.2, label="sum")
        legend_title = "dynamic energy"
    else:
        colours = array_colours(list(groups))
        for n, (a, g) in enumerate(groups.items()):  # dashes: lines that coincide stay seen
            ax.plot(at(g), cols["energy_pj"][g], _DASHES[n % len(_DASHES)],
                    ms=3 if len(pos) <= 40 else 0,
                    lw=2.4 - 0.5 * n, color=colours[a], label=a)
        legend_title = "dynamic energy per array"
    ax.set_yscale("log")
    energy_log_ticks(ax)
    ax.set_ylabel("dynamic energy\n(log scale)")
    ax.set_label("energy")
    ax.grid(True, which="major", lw=0.3, alpha=0.5)
    ax.legend(loc="upper left", bbox_to_anchor=(1.15, 1.0), fontsize=8, title=legend_title)
