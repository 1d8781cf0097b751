"""Suite-wide settings: a wide console so rich never wraps a line a test looks for
(temporary paths differ in length from run to run), a headless matplotlib, and one formula
cache per test session (derivations reused; the user's own cache never touched)."""

import os
from pathlib import Path

import pytest

from polyjoule.dse.cache import FormulaCache

os.environ["COLUMNS"] = "240"
os.environ.setdefault("MPLBACKEND", "Agg")


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
