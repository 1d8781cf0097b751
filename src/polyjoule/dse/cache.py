"""The formula cache: derived formulas (and schedules) in SQLite, so a re-run derives nothing.

Entries are keyed by ``derivation_key`` (kernel content, mapping, the code's id: version and
source digest, :func:`polyjoule.build.code_id`). The cache is an optimisation, never a
source of truth: every entry carries the code id and a SHA-256 checksum of its payload, and
an entry that fails to parse, was written by other code or fails its checksum is deleted and
reported as a miss. A file that is not a usable
SQLite database (truncated, garbage, wrong schema) is moved aside and recreated.

Location: ``--cache-dir``, else ``$POLYJOULE_CACHE_DIR``, else the platform's user cache
directory (``platformdirs.user_cache_dir("polyjoule")``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyjoule.analysis.counts import paused_gc
from polyjoule.analysis.formula import Formula
from polyjoule.errors import OutputPathError
from polyjoule.jsontext import dumps

SCHEMA = 1
FILENAME = "formulas.sqlite"


def default_cache_dir() -> Path:
    """``$POLYJOULE_CACHE_DIR`` or the user cache directory of polyjoule."""
    env = os.environ.get("POLYJOULE_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("polyjoule"))


def _version() -> str:
    from polyjoule.build import code_id

    return code_id()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class CacheStats:
    """What the cache did during one run (reported by the CLI and the benchmarks)."""

    hits: int = 0
    misses: int = 0
    puts: int = 0
    rejected: int = 0  # entries found but not trusted (bad JSON, version, checksum)
    rebuilt: int = 0  # database files that were unusable and recreated
    notes: list[str] = field(default_factory=list)


class FormulaCache:
    """A :class:`polyjoule.analysis.analyze.FormulaStore` backed by one SQLite file."""

    busy_timeout_s = 10.0  # wait this long for another process's lock, then run uncached

    def __init__(self, directory: str | Path | None = None):
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.path = self.directory / FILENAME
        self.stats = CacheStats()
        self._conn: sqlite3.Connection | None = None
        self._uncached = False  # the database is busy or the folder unusable: run without
        self._check_directory(explicit=directory is not None)

    def _check_directory(self, explicit: bool) -> None:
        """Before any work: a folder we can create and write (``--cache-dir afile`` is an
        error naming it; an unusable default folder just means an uncached run)."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ok = os.access(self.directory, os.W_OK | os.X_OK)
            why = "not writable"
        except OSError as e:
            ok, why = False, e.strerror or str(e)
        if ok:
            return
        if explicit:
            raise OutputPathError(f"--cache-dir {self.directory}: cannot hold the cache ({why})")
        self._go_uncached(f"folder {self.directory} {why}")

    def _go_uncached(self, why: str) -> None:
        if not self._uncached:
            self._uncached = True
            self.stats.notes.append(f"formula cache {self.path}: {why}; this run is uncached")

    def _failed(self, e: sqlite3.Error, why: str) -> None:
        """A database error: a live database another process holds is left alone (this run
        goes uncached); anything else is an unusable file, moved aside and rebuilt."""
        text = str(e).lower()
        if self._uncached or "locked" in text or "busy" in text:
            self._go_uncached(f"busy ({e})")
        else:
            self._rebuild(f"{why} ({e})")

    # ------------------------------------------------------------------ connection
    def _open(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        if self._uncached:
            raise sqlite3.OperationalError("cache busy: this run is uncached")
        try:
            conn = self._connect()
        except sqlite3.DatabaseError as e:
            self._failed(e, "unusable cache database")
            if self._uncached:
                raise
            conn = self._connect()
        self._conn = conn
        return conn

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout_s)
        try:
            conn.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)")
            row = conn.execute("SELECT v FROM meta WHERE k='schema'").fetchone()
            if row is None:
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
            elif row[0] != str(SCHEMA):
                raise sqlite3.DatabaseError(f"schema {row[0]}, expected {SCHEMA}")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS entries (key TEXT, kind TEXT, version TEXT, "
                "checksum TEXT, payload BLOB, created REAL, PRIMARY KEY (key, kind))")
            conn.execute("SELECT key, kind, version, checksum, payload FROM entries LIMIT 1").fetchall()
            conn.commit()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _rebuild(self, why: str) -> None:
        """Move an unusable database aside (kept for inspection) and start afresh."""
        self.stats.rebuilt += 1
        self.stats.notes.append(f"formula cache {self.path}: {why}; rebuilt")
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
        for suffix in ("", "-journal", "-wal", "-shm"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                if suffix:
                    p.unlink()
                else:
                    p.replace(p.with_name(p.name + f".corrupt-{int(time.time())}"))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # ------------------------------------------------------------------ raw entries
    def _get_raw(self, key: str, kind: str) -> bytes | None:
        try:
            conn = self._open()
            row = conn.execute("SELECT version, checksum, payload FROM entries WHERE key=? AND kind=?",
                               (key, kind)).fetchone()
        except sqlite3.DatabaseError as e:
            self._failed(e, "unreadable")
            self.stats.misses += 1
            return None
        if row is None:
            self.stats.misses += 1
            return None
        version, checksum, payload = row
        if isinstance(payload, str):
            payload = payload.encode()
        if version != _version() or not isinstance(payload, bytes) or _digest(payload) != checksum:
            self._reject(key, kind, "stale version" if version != _version() else "checksum mismatch")
            return None
        return payload

    def _reject(self, key: str, kind: str, why: str) -> None:
        self.stats.rejected += 1
        self.stats.misses += 1
        self.stats.notes.append(f"formula cache: entry {key[:12]} ({kind}) {why}; re-derived")
        try:
            conn = self._open()
            conn.execute("DELETE FROM entries WHERE key=? AND kind=?", (key, kind))
            conn.commit()
        except sqlite3.DatabaseError as e:
            self._failed(e, "unwritable")

    def _put_raw(self, key: str, kind: str, payload: bytes) -> None:
        try:
            conn = self._open()
            conn.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?)",
                         (key, kind, _version(), _digest(payload), payload, time.time()))
            conn.commit()
        except sqlite3.DatabaseError as e:
            self._failed(e, "unwritable")
            return
        self.stats.puts += 1

    # ------------------------------------------------------------------ FormulaStore
    def get(self, key: str) -> list[Formula] | None:
        """The formulas derived for ``key``, or ``None`` (absent or not trustworthy)."""
        payload = self._get_raw(key, "formulas")
        if payload is None:
            return None
        try:
            with paused_gc():  # many small objects: a full collection would cost more than the read
                data = json.loads(payload)
                formulas = [Formula.from_json(f) for f in data]
        except (ValueError, KeyError, TypeError) as e:
            self._reject(key, "formulas", f"bad JSON ({e})")
            return None
        self.stats.hits += 1
        return formulas

    def put(self, key: str, formulas: list[Formula]) -> None:
        self._put_raw(key, "formulas", dumps([f.to_json() for f in formulas]).encode())

    # ------------------------------------------------------------------ schedules
    def get_object(self, key: str, kind: str) -> Any | None:
        """A pickled object (schedules); only our own checksummed payloads are unpickled."""
        payload = self._get_raw(key, kind)
        if payload is None:
            return None
        try:
            obj = pickle.loads(payload)  # noqa: S301 - checksummed entry we wrote ourselves
        except Exception as e:  # noqa: BLE001 - any unpickling failure means "re-derive"
            self._reject(key, kind, f"unreadable ({type(e).__name__})")
            return None
        self.stats.hits += 1
        return obj

    def put_object(self, key: str, kind: str, obj: Any) -> bool:
        """Store ``obj`` if it pickles (schedules with per-point isl terms do not)."""
        try:
            payload = pickle.dumps(obj)
        except Exception:  # noqa: BLE001 - unpicklable objects are simply not cached
            return False
        self._put_raw(key, kind, payload)
        return True

    def contains(self, key: str, kind: str = "formulas") -> bool:
        """Is there an entry for ``key`` (not yet verified; ``get`` verifies)?"""
        try:
            row = self._open().execute("SELECT 1 FROM entries WHERE key=? AND kind=?",
                                       (key, kind)).fetchone()
        except sqlite3.DatabaseError:
            return False
        return row is not None

    def entries(self) -> int:
        try:
            return int(self._open().execute("SELECT COUNT(*) FROM entries").fetchone()[0])
        except sqlite3.DatabaseError:
            return 0


class MemoryStore:
    """A dict-backed FormulaStore: records what a (remote) derivation produced."""

    def __init__(self, data: dict[str, list[dict[str, Any]]] | None = None):
        self.data: dict[str, list[dict[str, Any]]] = dict(data or {})

    def get(self, key: str) -> list[Formula] | None:
        d = self.data.get(key)
        return None if d is None else [Formula.from_json(f) for f in d]

    def put(self, key: str, formulas: list[Formula]) -> None:
        self.data[key] = [f.to_json() for f in formulas]
