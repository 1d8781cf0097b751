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
