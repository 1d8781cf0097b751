"""Plots of sweep results (matplotlib, Agg backend; PNG or SVG by file extension).

* ``breakdown``: share of energy per location class (and compute), stacked, against problem
  size, with latency on a second axis; a lower panel shows absolute energies (log scale),
  since totals span orders of magnitude across sizes.
* ``pareto``: energy vs latency of every design point, coloured by array shape; the
  per-size Pareto fronts are drawn as lines.

Input is a column table (``SweepResult.columns``, or a sweep's CSV/JSON via :func:`load`).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from polyjoule.errors import InputLimitError, SpecError
from polyjoule.frontends.specfile import read_text
from polyjoule.reports.files import write_atomic
from polyjoule.targets.tcpa.locations import CLASSES

COLORS = {"RD": "#4C72B0", "FD": "#55A868", "ID": "#8172B2", "OD": "#CCB974", "IOb": "#64B5CD",
          "DR": "#C44E52", "compute": "#8C8C8C"}
_TEXT = {"array", "tile", "order", "table", "dataset"}


def load(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A sweep's CSV or JSON output as columns (and its metadata, JSON only)."""
    p = Path(path)
    if not p.is_file():
        raise SpecError(f"{p}: no such sweep file")
    text = read_text(p)
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
            rows = data["points"]
            meta = {k: v for k, v in data.items() if k != "points"}
        else:
            rows = list(csv.DictReader(io.StringIO(text, newline="")))
            meta = {}
    except (ValueError, KeyError, TypeError, csv.Error) as e:
        raise SpecError(f"{p}: not a polyjoule sweep output ({e})") from None
    except RecursionError:
        raise InputLimitError(f"{p}: nested too deeply for a sweep output") from None
    return _columns(_rows(rows, p), p), meta


def _rows(rows: Any, p: Path) -> list[dict[str, Any]]:
    """The design points: a non-empty list of records, every one with the same columns."""
    if not isinstance(rows, list) or not rows:
        raise SpecError(f"{p}: points: not a non-empty list of design points")
    for n, r in enumerate(rows):
        if not isinstance(r, dict) or None in r or None in r.values():
            raise SpecError(f"{p}: points[{n}]: not a record of the sweep's columns")
        if list(r) != list(rows[0]):
            raise SpecError(f"{p}: points[{n}]: columns differ from points[0] (a ragged row)")
    for need in ("energy_pj", "latency_cycles", "array"):
        if need not in rows[0]:
            raise SpecError(f"{p}: not a polyjoule sweep output (no column {need!r})")
    return rows


def _number(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise SpecError(f"{where}: {v!r} is not a number")
    try:
        x = float(v)
    except (ValueError, OverflowError):
        raise SpecError(f"{where}: {v!r} is not a number") from None
    if not math.isfinite(x):
        raise SpecError(f"{where}: {v!r} is not a finite number")
    return x


def _columns(rows: list[dict[str, Any]], p: Path) -> dict[str, np.ndarray]:
    """Columns by kind: text, Pareto flags, numbers (energy and latency finite, >= 0)."""
    cols: dict[str, np.ndarray] = {}
    for k in rows[0]:
        vals = [r[k] for r in rows]
        if k in _TEXT:
            cols[k] = np.asarray([str(v) for v in vals], dtype=object)
        elif k == "pareto":
            cols[k] = np.asarray([v in (True, "True", "true", "1", 1) for v in vals])
        elif k in ("energy_pj", "latency_cycles"):
            cols[k] = np.asarray([_number(v, f"{p}: points[{n}].{k}")
                                  for n, v in enumerate(vals)])
            if (cols[k] < 0).any():
                raise SpecError(f"{p}: {k}: a negative value")
        else:
            try:
                cols[k] = np.asarray([float(v) for v in vals])
            except (TypeError, ValueError, OverflowError):
                cols[k] = np.asarray(vals, dtype=object)
    return cols


def _params(cols: Mapping[str, np.ndarray]) -> list[str]:
    """Problem-size parameter columns: between ``dataset`` and the first count column."""
    keys = list(cols)
    if "dataset" in keys and "RD" in keys:
        return keys[keys.index("dataset") + 1: keys.index("RD")]
    return []


def _select(cols: Mapping[str, np.ndarray], where: Mapping[str, str]) -> np.ndarray:
    n = len(cols["energy_pj"])
    mask = np.ones(n, dtype=bool)
    for k, v in where.items():
        if k not in cols:
            raise SpecError(f"--where: no column {k!r}")
        c = cols[k]
        if c.dtype.kind in "OUS":
            mask &= c.astype(str) == v
        else:
            try:
                mask &= np.isclose(c.astype(float), float(v))
            except ValueError:
                raise SpecError(f"--where: {k}={v!r}: {k} is numeric") from None
    if not mask.any():
        raise SpecError(f"--where: no design point matches {dict(where)}")
    return mask


def _save(fig: Any, out: str | Path) -> Path:
    """Write atomically (:mod:`polyjoule.reports.files`) in the format of the extension."""
    out = Path(out)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise SpecError(f"-o: {out}: unsupported format (use .png, .svg or .pdf)")
    return write_atomic(out, lambda tmp: fig.savefig(tmp, format=fmt, dpi=130, bbox_inches="tight"))


def breakdown(cols: Mapping[str, np.ndarray], out: str | Path, x: str | None = None,
              where: Mapping[str, str] | None = None, title: str | None = None) -> Path:
    """Energy share per class stacked against problem size, latency on a second axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    where = dict(where or {})
    # one mapping and table: the first row's unless chosen
    for k in ("array", "tile", "order", "table"):
        if k in cols and k not in where:
            where[k] = str(cols[k][0])
    mask = _select(cols, where)
    params = _params(cols)
    if x is None:
        varying = [p for p in params if len(np.unique(cols[p][mask])) > 1]
        x = varying[0] if varying else (params[0] if params else None)
        if x is None:
            raise SpecError("breakdown: the sweep has no problem-size column")
    if x not in cols:
        raise SpecError(f"--x: no column {x!r}")
    xs = cols[x][mask].astype(float)
    order = np.argsort(xs, kind="stable")
    xs = xs[order]
    if len(np.unique(xs)) != len(xs):
        raise SpecError(f"breakdown: several points share {x}; fix the other sizes with --where "
                        f"(e.g. --where {next((p for p in params if p != x), 'NK')}=...)")
    parts = {c: cols[f"energy.{c}"][mask][order].astype(float) for c in CLASSES}
    parts["compute"] = cols["energy.compute"][mask][order].astype(float)
    total = cols["energy_pj"][mask][order].astype(float)
    lat = cols["latency_cycles"][mask][order].astype(float)
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(9, 7.5), sharex=True,
                                  gridspec_kw={"height_ratios": [3, 2]})
    idx = np.arange(len(xs))
    bottom = np.zeros(len(xs))
    for c, v in parts.items():
        share = 100 * v / np.where(total > 0, total, 1)
        ax.bar(idx, share, bottom=bottom, color=COLORS[c], label=c, width=0.85)
        bottom += share
    ax.set_ylabel("share of energy (%)")
    ax.set_ylim(0, 100)
    axl = ax.twinx()
    axl.plot(idx, lat, "k-o", ms=3, label="latency")
    axl.set_yscale("log")
    axl.set_ylabel("latency (cycles, log)")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = axl.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper left", bbox_to_anchor=(1.08, 1.0), fontsize=8)
    for c, v in parts.items():
        if np.any(v > 0):
            ax2.plot(idx, v, "-o", ms=2.5, color=COLORS[c], label=c)
    ax2.plot(idx, total, "k--", lw=1.2, label="total")
    ax2.set_yscale("log")
    ax2.set_ylabel("energy (pJ, log)")
    ax2.legend(loc="upper left", bbox_to_anchor=(1.08, 1.0), fontsize=8)
    step = max(1, len(xs) // 16)
    ax2.set_xticks(idx[::step])
    ax2.set_xticklabels([f"{int(v)}" for v in xs[::step]], rotation=45)
    tied = [p for p in params if p != x and np.array_equal(cols[p][mask][order].astype(float), xs)]
    ax2.set_xlabel(f"N = {' = '.join([x, *tied])}" if tied else x)
    sel = ", ".join(f"{k}={v}" for k, v in where.items() if k != "table")
    ax.set_title(title or f"energy breakdown vs {x} ({sel})")
    path = _save(fig, out)
    plt.close(fig)
    return path


def pareto(cols: Mapping[str, np.ndarray], out: str | Path, where: Mapping[str, str] | None = None,
           title: str | None = None) -> Path:
    """Energy vs latency of every point, coloured by array shape, Pareto fronts drawn.

    Up to six problem sizes get one panel each (their energies differ by orders of
    magnitude); more share one panel.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mask = _select(cols, dict(where or {}))
    params = _params(cols)
    idx = np.flatnonzero(mask)
    keys = np.asarray(["|".join(f"{p}={int(float(cols[p][i]))}" for p in params) for i in idx])
    sizes = list(dict.fromkeys(keys.tolist()))
    panels = sizes if 1 < len(sizes) <= 6 else [None]
    ncols = min(3, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.5 * ncols, 5 * nrows), squeeze=False)
    arrays_all = cols["array"][idx].astype(str)
    shapes = sorted(set(arrays_all), key=lambda s: [int(x) for x in s.split("x")])
    cmap = plt.get_cmap("viridis")
    for n, size in enumerate(panels):
        ax = axes[n // ncols][n % ncols]
        sel = idx if size is None else idx[keys == size]
        e = cols["total_pj" if "total_pj" in cols else "energy_pj"][sel].astype(float)  # the front's energy
        lat = cols["latency_cycles"][sel].astype(float)
        arrays = cols["array"][sel].astype(str)
        front = cols["pareto"][sel].astype(bool) if "pareto" in cols else np.zeros(len(e), dtype=bool)
        for i, s in enumerate(shapes):
            m = arrays == s
            if m.any():
                ax.scatter(lat[m], e[m], s=14, color=cmap(i / max(1, len(shapes) - 1)), alpha=0.75, label=s)
        if front.any():
            ax.scatter(lat[front], e[front], s=34, facecolors="none", edgecolors="k", lw=0.8,
                       label="Pareto front")
            sk = keys[np.isin(idx, sel)] if size is None else np.full(len(sel), size)
            for kk in np.unique(sk[front]):
                m = front & (sk == kk)
                o = np.argsort(lat[m])
                ax.step(lat[m][o], e[m][o], "k-", where="post", lw=0.6, alpha=0.6)
        ax.set_xscale("log")
        ax.set_xlabel("latency (cycles)")
        ax.set_ylabel("energy (pJ)")
        ax.grid(True, which="both", lw=0.3, alpha=0.5)
        if size is not None:
            ax.set_title(size.replace("|", ", "), fontsize=9)
        else:
            ax.set_yscale("log")
    handles: dict[str, Any] = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    order = [s for s in shapes if s in handles] + [k for k in handles if k not in shapes]
    axes[0][0].legend([handles[k] for k in order], order, fontsize=8, title="array")
    for n in range(len(panels), nrows * ncols):
        axes[n // ncols][n % ncols].axis("off")
    fig.suptitle(title or "energy vs latency across array shapes")
    path = _save(fig, out)
    plt.close(fig)
    return path
