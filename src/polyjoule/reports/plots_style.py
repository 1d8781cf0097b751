"""One look for every sweep plot: colours per array shape and per location class, markers per
scanning order or tile, energies in a named unit (pJ, nJ, µJ, mJ, J), matplotlib's Agg
backend (no display needed), atomic files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polyjoule.errors import PlotSelectionError, SpecError
from polyjoule.reports.files import write_atomic

#: a colour per location class (and compute) in the breakdown
CLASS_COLOURS = {"RD": "#4C72B0", "FD": "#55A868", "ID": "#8172B2", "OD": "#CCB974",
                 "IOb": "#64B5CD", "DR": "#C44E52", "compute": "#8C8C8C"}
#: markers for scanning orders or tiles, in the order the values first appear
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "p", "h", "*")
#: a colour per array shape: tab10, then tab20 for more shapes
_QUALITATIVE = ("tab10", "tab20")
_UNITS = (("J", 1e12), ("mJ", 1e9), ("µJ", 1e6), ("nJ", 1e3), ("pJ", 1.0))


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (imported on first use: the CLI starts fast)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def energy_unit(largest_pj: float) -> tuple[str, float]:
    """The unit in which ``largest_pj`` reads as 1 ... 999: ``("µJ", 1e6)`` for 4.6e8 pJ."""
    return next(((u, s) for u, s in _UNITS if largest_pj >= s), _UNITS[-1])


def shape_order(shapes: Sequence[str]) -> list[str]:
    """Array shapes by PE count, then rows: ``2x2, 4x4, 1x64, 8x8, 4x16 ...``."""
    def key(s: str) -> tuple[int, ...]:
        try:
            dims = [int(x) for x in s.split("x")]
        except ValueError:
            return (1 << 62, 0)
        pes = 1
        for d in dims:
            pes *= d
        return (pes, *dims)

    return sorted(dict.fromkeys(shapes), key=key)


def array_colours(shapes: Sequence[str]) -> dict[str, Any]:
    """A distinct colour per array shape, the same shape the same colour in every panel."""
    plt = pyplot()
    ordered = shape_order(shapes)
    cmap = plt.get_cmap(_QUALITATIVE[0] if len(ordered) <= 10 else _QUALITATIVE[1])
    return {s: cmap(i % cmap.N) for i, s in enumerate(ordered)}


def marker_map(keys: Sequence[str], what: str) -> dict[str, str]:
    """A marker per scanning order (or tile); more values than markers are refused."""
    distinct = list(dict.fromkeys(keys))
    if len(distinct) > len(MARKERS):
        raise PlotSelectionError(f"pareto: {len(distinct)} values of {what}, at most "
                                 f"{len(MARKERS)} markers; choose some with --where")
    return {k: MARKERS[i] for i, k in enumerate(distinct)}


def _plain(v: float, _pos: object = None) -> str:
    """A tick as people read it: ``300``, ``0.01``, ``25k``, ``4M``."""
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e4:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def plain_ticks(ax: Any, axis: str = "y") -> None:
    """Ticks as plain numbers (``300``, ``25k``), not ``3 x 10^2`` or ``200000``; on a log
    scale within two decades the 2s and 5s are labelled too (call it once the limits are
    final)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    which = ax.yaxis if axis == "y" else ax.xaxis
    lo, hi = ax.get_ylim() if axis == "y" else ax.get_xlim()
    which.set_major_formatter(FuncFormatter(_plain))
    if which.get_scale() != "log":
        return
    if 0 < lo and hi / lo < 100 and axis == "y":
        which.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        which.set_minor_formatter(FuncFormatter(_plain))
    else:
        which.set_minor_formatter(NullFormatter())


def energy_tick(pj: float, _pos: object = None) -> str:
    """An energy tick in its own unit: ``100 pJ``, ``10 nJ``, ``2.5 mJ``."""
    unit, scale = energy_unit(pj)
    return f"{pj / scale:g} {unit}"


def energy_log_ticks(ax: Any) -> None:
    """A log-scale energy axis in pJ whose ticks name their unit (it spans several)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(energy_tick))
    ax.yaxis.set_minor_formatter(NullFormatter())


def save(fig: Any, out: str | Path) -> Path:
    """Write atomically (:mod:`polyjoule.reports.files`) in the format of the extension."""
    out = Path(out)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg", "pdf"):
        raise SpecError(f"-o: {out}: unsupported format (use .png, .svg or .pdf)")
    return write_atomic(out, lambda tmp: fig.savefig(tmp, format=fmt, dpi=130,
                                                     bbox_inches="tight"))
