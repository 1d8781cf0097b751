"""Distributed execution on a local in-process Dask cluster; missing extra; bad address."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from polyjoule.dse import space
from polyjoule.dse.cache import FormulaCache
from polyjoule.dse.distributed import DaskExecutor, SchedulerUnreachable, executor_for
from polyjoule.dse.sweep import SweepSpec, run_sweep
from polyjoule.errors import MissingExtraError
from polyjoule.library.kernels import get

pytestmark = pytest.mark.dask


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_sweep_on_cluster(client, tmp_path, assert_validated):
    k = get("gesummv")
    spec = SweepSpec(k, space.size_grid(k, ["N=6:12:3"]),
                     space.mappings([(2, 3), (3, 3)], [None], [None]))
    ex = DaskExecutor(client)
    store = FormulaCache(tmp_path)
    r = run_sweep(spec, store=store, executor=ex)
    assert store.stats.puts >= 2  # derivations came back from the cluster into the cache
    local = run_sweep(spec, store=FormulaCache(tmp_path / "local"))
    for key in ("RD", "FD", "ID", "DR", "latency_cycles"):
        assert np.array_equal(r.columns[key], local.columns[key])
    assert_validated(r, spec, 2, executor=ex)  # simulations run on the cluster too


def test_unreachable_scheduler_is_one_clear_error():
    t0 = time.perf_counter()
    with pytest.raises(SchedulerUnreachable, match="cannot reach a Dask scheduler"):
        executor_for("tcp://127.0.0.1:9", timeout=1.0)
    assert time.perf_counter() - t0 < 15


def test_missing_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(MissingExtraError, match=r"polyjoule\[dask\]"):
        executor_for("tcp://127.0.0.1:9")
