"""Which code this is (polyjoule/build.py): a source change is another code id, so the
formula cache never reads back what other code of the same version number wrote."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import polyjoule
from polyjoule.build import code_id, source_digest


def test_the_digest_follows_every_source_byte_and_file(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.py").write_text("X = 1\n")
    (tmp_path / "y.py").write_text("Y = 2\n")
    (tmp_path / "notes.txt").write_text("not code\n")
    first = source_digest(tmp_path)
    assert source_digest(tmp_path) == first
    (tmp_path / "notes.txt").write_text("other\n")
    assert source_digest(tmp_path) == first  # only sources count
    (tmp_path / "a" / "x.py").write_text("X = 3\n")
    changed = source_digest(tmp_path)
    assert changed != first
    (tmp_path / "a" / "z.py").write_text("")
    assert source_digest(tmp_path) != changed  # an empty new module is another tree too
    moved = source_digest(tmp_path)
    (tmp_path / "a" / "z.py").rename(tmp_path / "z.py")
    assert source_digest(tmp_path) != moved  # a module moved is another tree


def test_the_code_id_is_the_version_and_the_deriving_code_s_digest():
    import hashlib

    from polyjoule.build import DERIVING

    version, digest = code_id().split("+")
    assert version == polyjoule.__version__
    root = Path(polyjoule.__file__).parent
    parts = "".join(source_digest(root / d) for d in DERIVING)
    assert hashlib.sha256(parts.encode()).hexdigest().startswith(digest)


def test_a_cache_written_by_other_code_of_the_same_version_is_not_read(tmp_path):
    """The failure this guards: a schedule pickled by other code (a class since changed)
    was read back and ``map`` failed with a traceback. Here a copy of the package with one
    more comment writes the cache; this package must derive afresh, not read it."""
    other = tmp_path / "other"
    shutil.copytree(Path(polyjoule.__file__).parent, other / "polyjoule",
                    ignore=shutil.ignore_patterns("__pycache__"))
    counts = other / "polyjoule" / "analysis" / "counts.py"
    counts.write_text(counts.read_text() + "\n# other code, same version number\n")
    cache = tmp_path / "cache"
    code = ("import sys; from polyjoule.dse.cache import FormulaCache;"
            "from polyjoule.analysis.analyze import analyze;"
            "c = FormulaCache(sys.argv[1]); analyze('gesummv', (2, 3), store=c);"
            "print(c.stats.hits, c.stats.puts)")
    env_other = {"PYTHONPATH": str(other)}
    run = [sys.executable, "-c", code, str(cache)]
    wrote = subprocess.run(run, env=env_other, capture_output=True, text=True, check=True)
    assert wrote.stdout.split() == ["0", "1"]
    again = subprocess.run(run, env=env_other, capture_output=True, text=True, check=True)
    assert again.stdout.split() == ["1", "0"]  # the same code reads its own entry
    from polyjoule.analysis.analyze import analyze
    from polyjoule.dse.cache import FormulaCache

    c = FormulaCache(cache)
    analyze("gesummv", (2, 3), store=c)
    assert (c.stats.hits, c.stats.puts) == (0, 1)
