"""The sweep JSON: every key once; the count is ``n_points``, the rows are ``points``."""

from __future__ import annotations

import json

import pytest

from polyjoule.dse import space
from polyjoule.dse.sweep import SweepSpec, run_sweep
from polyjoule.errors import OutputPathError
from polyjoule.library.kernels import get
from polyjoule.reports.output import write_outputs


def _no_repeats(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"repeated key in {keys}"
    return dict(pairs)


@pytest.fixture(scope="module")
def result(cache_dir):
    from polyjoule.dse.cache import FormulaCache

    k = get("gemm")
    spec = SweepSpec(k, space.size_grid(k, ["N=8:16:8"]), space.mappings([(4, 4)], [None], [None]))
    return run_sweep(spec, store=FormulaCache(cache_dir))


def test_json_has_every_key_once(tmp_path, result):
    p = tmp_path / "s.json"
    write_outputs(result, None, p)
    data = json.loads(p.read_text(), object_pairs_hook=_no_repeats)
    assert data["n_points"] == len(data["points"]) == len(result) == 2
    assert result.meta["points"] == 2  # the in-memory metadata is unchanged


def test_all_or_nothing_when_a_destination_is_bad(tmp_path, result):
    with pytest.raises(OutputPathError, match="no such folder"):
        write_outputs(result, tmp_path / "s.csv", tmp_path / "nope" / "s.json")
    assert list(tmp_path.iterdir()) == []


# --- issue 14: JSON never holds NaN/Infinity --------------------------------------------


def _with(result, col, value):
    import copy

    import numpy as np

    r = copy.copy(result)
    r.columns = dict(result.columns)
    r.columns[col] = np.array(result.columns[col], dtype=np.float64)
    r.columns[col][1] = value
    return r


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_energy_is_a_named_error_and_nothing_written(tmp_path, result, value):
    from polyjoule.errors import NonFiniteValueError

    p = tmp_path / "s.json"
    with pytest.raises(NonFiniteValueError, match=r"point 1: energy_pj = (nan|inf|-inf)"):
        write_outputs(_with(result, "energy_pj", value), None, p)
    assert not p.exists() and list(tmp_path.iterdir()) == []


def test_energy_per_op_without_operations_is_null(tmp_path, result):
    p = tmp_path / "s.json"
    c = tmp_path / "s.csv"
    write_outputs(_with(result, "energy_per_op_pj", float("nan")), c, p)
    text = p.read_text()
    assert "NaN" not in text and json.loads(text)["points"][1]["energy_per_op_pj"] is None
    assert ",," in c.read_text().splitlines()[2] or c.read_text().splitlines()[2].endswith(",")
