"""The formula cache: a warm run derives nothing; corrupt or stale entries are never trusted."""

from __future__ import annotations

import json
import sqlite3

import pytest

from polyjoule.analysis.analyze import analyze, derivation_key
from polyjoule.analysis.formula import Formula
from polyjoule.dse.cache import FILENAME, FormulaCache, default_cache_dir
from polyjoule.library.kernels import get
from polyjoule.mapping.tiling import Tiling


def _key() -> str:
    pra = get("gesummv").phases[0]
    return derivation_key(pra, Tiling.of(pra, (2, 3)))


def _warm(tmp_path) -> tuple[FormulaCache, list[Formula]]:
    c = FormulaCache(tmp_path)
    a = analyze("gesummv", (2, 3), store=c)
    return c, [v.formula for v in a.phases[0].volumes]


def test_roundtrip_and_warm_run_derives_nothing(tmp_path, monkeypatch):
    c, formulas = _warm(tmp_path)
    assert c.stats.puts == 1 and c.stats.misses == 1
    assert c.get(_key()) == formulas
    import importlib

    mod = importlib.import_module("polyjoule.analysis.analyze")

    def boom(*a, **k):
        raise AssertionError("derived although cached")

    monkeypatch.setattr(mod, "derive", boom)
    c2 = FormulaCache(tmp_path)
    a = analyze("gesummv", (2, 3), store=c2)
    assert c2.stats.hits == 1 and c2.stats.misses == 0
    assert a.evaluate({"N0": 4, "N1": 5}).counts["FD"] > 0


def test_garbage_database_is_rebuilt(tmp_path):
    (tmp_path / FILENAME).write_bytes(b"this is not sqlite" * 100)
    c = FormulaCache(tmp_path)
    assert c.get(_key()) is None
    assert c.stats.rebuilt == 1
    analyze("gesummv", (2, 3), store=c)
    assert FormulaCache(tmp_path).get(_key()) is not None


def _tamper(tmp_path, sql: str, *args) -> None:
    con = sqlite3.connect(tmp_path / FILENAME)
    con.execute(sql, args)
    con.commit()
    con.close()


@pytest.mark.parametrize("how", ["checksum", "version", "json", "truncated"])
def test_untrusted_entries_are_rederived(tmp_path, how):
    c, formulas = _warm(tmp_path)
    c.close()
    if how == "checksum":
        data = json.loads(json.dumps([f.to_json() for f in formulas]))
        data[0]["pieces"][0]["terms"][0][0] += 1  # a plausible but wrong formula
        _tamper(tmp_path, "UPDATE entries SET payload=?", json.dumps(data).encode())
    elif how == "version":
        _tamper(tmp_path, "UPDATE entries SET version='0.0.0-old'")
    elif how == "json":
        import hashlib

        bad = b"{not json"
        _tamper(tmp_path, "UPDATE entries SET payload=?, checksum=?", bad, hashlib.sha256(bad).hexdigest())
    else:
        _tamper(tmp_path, "UPDATE entries SET payload=substr(payload, 1, 10)")
    c2 = FormulaCache(tmp_path)
    assert c2.get(_key()) is None
    assert c2.stats.rejected == 1
    a = analyze("gesummv", (2, 3), store=c2)  # re-derived and stored again
    assert [v.formula for v in a.phases[0].volumes] == formulas
    assert FormulaCache(tmp_path).get(_key()) == formulas


def test_wrong_schema_is_rebuilt(tmp_path):
    con = sqlite3.connect(tmp_path / FILENAME)
    con.execute("CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT)")
    con.execute("INSERT INTO meta VALUES ('schema', '999')")
    con.commit()
    con.close()
    c = FormulaCache(tmp_path)
    assert c.get(_key()) is None and c.stats.rebuilt == 1


def test_cache_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYJOULE_CACHE_DIR", str(tmp_path / "x"))
    assert default_cache_dir() == tmp_path / "x"
    monkeypatch.delenv("POLYJOULE_CACHE_DIR")
    assert "polyjoule" in str(default_cache_dir())


# --- issue 14: a live database is never discarded; a bad folder is refused up front ------


def test_a_database_locked_by_another_writer_is_left_alone(tmp_path, monkeypatch):
    import sqlite3

    from polyjoule.dse.cache import FormulaCache

    first = FormulaCache(tmp_path)
    first.put_object("k", "schedules", {"x": 1})
    first.close()
    holder = sqlite3.connect(first.path)
    holder.execute("BEGIN EXCLUSIVE")  # another process in the middle of a write
    monkeypatch.setattr(FormulaCache, "busy_timeout_s", 0.2)
    busy = FormulaCache(tmp_path)
    assert busy.get_object("k", "schedules") is None  # uncached, not corrupt
    busy.put_object("k2", "schedules", {"y": 2})
    assert busy.stats.rebuilt == 0 and any("uncached" in n for n in busy.stats.notes)
    holder.rollback()
    holder.close()
    assert not list(tmp_path.glob("*.corrupt-*"))
    again = FormulaCache(tmp_path)
    assert again.get_object("k", "schedules") == {"x": 1}  # the entry survived
    again.close()


def test_cache_dir_that_is_a_file_is_refused_before_work(tmp_path):
    import pytest

    from polyjoule.dse.cache import FormulaCache
    from polyjoule.errors import OutputPathError

    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(OutputPathError, match="afile"):
        FormulaCache(afile)
    with pytest.raises(OutputPathError, match="afile"):
        FormulaCache(afile / "sub")
