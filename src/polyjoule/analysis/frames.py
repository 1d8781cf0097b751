"""Results as tables for notebooks and spreadsheets: rows of plain values, pandas optional.

The rows are the JSON's (same keys, same exact values), so a DataFrame, a CSV file and the
``--json`` output of one result agree. pandas is the ``pandas`` extra: without it,
``to_pandas`` is a :class:`~polyjoule.errors.MissingExtraError`, never an ``ImportError``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from polyjoule.errors import MissingExtraError, SpecError
from polyjoule.targets.tcpa.locations import CLASSES

if TYPE_CHECKING:
    from polyjoule.analysis.analyze import Result

VOLUME_COLUMNS = ("phase", "statement", "text", "case", "class", "formula", "value", "energy_pj")


def pandas() -> Any:
    """The pandas module, or the error that says which extra to install."""
    try:
        import pandas as pd
    except ImportError:
        raise MissingExtraError("to_pandas needs pandas: pip install 'polyjoule[pandas]'") from None
    return pd


def volume_rows(r: Result) -> list[dict[str, Any]]:
    """One row per case: the ``volumes`` of :meth:`Result.to_json`."""
    return [dict(zip(VOLUME_COLUMNS, (v.phase, v.statement, v.text, v.case, v.cls, v.formula,
                                      v.value, v.energy_pj), strict=True)) for v in r.volumes]


def totals_row(r: Result) -> dict[str, Any]:
    """The design point as one row, named as the columns of a sweep (``dse.sweep``)."""
    row: dict[str, Any] = dict(r.values)
    row.update({c: r.counts[c] for c in CLASSES})
    row.update({f"ops.{op}": n for op, n in r.counts["ops"].items()})
    row.update({f"energy.{c}": e for c, e in r.energy_pj["by_class"].items()})
    row.update({f"energy.op.{op}": e for op, e in r.energy_pj["by_op"].items()})
    row["energy.compute"] = sum(r.energy_pj["by_op"].values())
    row["energy_pj"] = r.energy_pj["dynamic"]  # as sweep writes it
    row["latency_cycles"] = r.latency_cycles
    row["utilisation"] = r.utilisation
    return row


def result_frame(r: Result, table: str = "volumes") -> Any:
    """:meth:`Result.to_pandas`: the ``volumes`` table or the one-row ``totals``."""
    if table not in ("volumes", "totals"):
        raise SpecError(f"to_pandas: table {table!r} is not volumes or totals")
    pd = pandas()
    if table == "totals":
        return pd.DataFrame([totals_row(r)])
    return pd.DataFrame(volume_rows(r), columns=list(VOLUME_COLUMNS))


def columns_frame(columns: Mapping[str, Any], meta: Mapping[str, Any]) -> Any:
    """:meth:`SweepResult.to_pandas`: one row per design point; ``attrs`` hold the metadata."""
    pd = pandas()
    df = pd.DataFrame({k: v for k, v in columns.items()})
    df.attrs.update(meta)
    return df


def volumes_csv(r: Result) -> str:
    """The per-case table as CSV text (exact integers, pJ as Python floats print them)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(VOLUME_COLUMNS)
    for row in volume_rows(r):
        w.writerow(row.values())
    return out.getvalue()
