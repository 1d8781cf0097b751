"""Shared fixtures: one formula cache per test session (derivations are reused across tests,
and the user's own cache directory is never touched)."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyjoule.dse.cache import FormulaCache


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("formula-cache")


@pytest.fixture
def cache(cache_dir: Path) -> FormulaCache:
    c = FormulaCache(cache_dir)
    yield c
    c.close()


@pytest.fixture(autouse=True)
def _isolated_cache_env(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    monkeypatch.setenv("POLYJOULE_CACHE_DIR", str(cache_dir))


def _assert_validated(result, spec, k: int = 2, executor=None) -> dict:
    """Every sweep in these tests: k sampled points equal the simulator and scalar evaluation."""
    from polyjoule.dse.validate import validate

    rep = validate(result, spec, k, executor=executor, max_instances=20_000)
    assert rep["checked"] >= min(1, k), rep
    assert rep["method"].startswith("simulator"), rep["method"]
    assert rep["mismatches"] == 0, rep
    return rep


@pytest.fixture(scope="session")
def assert_validated():
    return _assert_validated
