"""Plots of sweep results (matplotlib, Agg backend; PNG, SVG or PDF by file extension).

* ``breakdown``: per array shape, the share of dynamic energy per location class (and
  compute) stacked against problem size, latency on a second axis; a last panel shows the
  absolute energies on a log scale (:mod:`polyjoule.reports.plots_breakdown`).
* ``pareto``: energy vs latency of every design point, a panel per problem size (at most
  nine), colour by array shape, marker by scanning order or tile, each size's Pareto front
  outlined (:mod:`polyjoule.reports.plots_pareto`).

Input is a column table (``SweepResult.columns``, or a sweep's CSV/JSON via :func:`load`,
which refuses malformed files: :mod:`polyjoule.reports.plots_input`); ``where`` selects
points (:mod:`polyjoule.reports.plots_select`: OR within a key, AND across keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from polyjoule.reports.plots_breakdown import breakdown_figure
from polyjoule.reports.plots_input import load
from polyjoule.reports.plots_pareto import pareto_figure
from polyjoule.reports.plots_select import Where, parse_where
from polyjoule.reports.plots_style import CLASS_COLOURS as COLORS
from polyjoule.reports.plots_style import pyplot, save

__all__ = ["COLORS", "breakdown", "breakdown_figure", "load", "pareto", "pareto_figure",
           "parse_where"]


def breakdown(cols: Mapping[str, np.ndarray], out: str | Path, x: str | None = None,
              where: Where | None = None, title: str | None = None,
              kernel: str | None = None) -> Path:
    """Draw :func:`breakdown_figure` into ``out`` (written atomically)."""
    fig = breakdown_figure(cols, x=x, where=where, title=title, kernel=kernel)
    try:
        return save(fig, out)
    finally:
        pyplot().close(fig)


def pareto(cols: Mapping[str, np.ndarray], out: str | Path, where: Where | None = None,
           title: str | None = None, kernel: str | None = None) -> Path:
    """Draw :func:`pareto_figure` into ``out`` (written atomically)."""
    fig = pareto_figure(cols, where=where, title=title, kernel=kernel)
    try:
        return save(fig, out)
    finally:
        pyplot().close(fig)
