"""One atomic file writer: destination checked first, user's umask, no temp file left."""

from __future__ import annotations

import os

import pytest

from polyjoule.errors import OutputPathError
from polyjoule.reports.files import write_all_atomic, write_atomic


def test_text_bytes_and_callback(tmp_path):
    write_atomic(tmp_path / "a.txt", "héllo\n")
    write_atomic(tmp_path / "b.bin", b"\x00\x01")
    write_atomic(tmp_path / "c.txt", lambda p: p.write_text("from callback"))
    assert (tmp_path / "a.txt").read_text() == "héllo\n"
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert (tmp_path / "c.txt").read_text() == "from callback"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.bin", "c.txt"]


def test_users_umask(tmp_path):
    old = os.umask(0o027)
    try:
        p = write_atomic(tmp_path / "u.txt", "x")
    finally:
        os.umask(old)
    assert p.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("where,needle", [
    ("missing/out.csv", "no such folder"),
    ("adir", "is a directory"),
    ("afile/out.csv", "is a file, not a folder"),
    ("afile/deeper/out.csv", "is a file, not a folder"),
])
def test_bad_destination_is_named(tmp_path, where, needle):
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("keep")
    dest = tmp_path / where
    with pytest.raises(OutputPathError, match=needle) as e:
        write_atomic(dest, "x")
    assert str(dest) in str(e.value)
    assert (tmp_path / "afile").read_text() == "keep"


def test_failing_writer_leaves_nothing(tmp_path):
    (tmp_path / "old.csv").write_text("previous")

    def boom(path):
        path.write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_all_atomic([(tmp_path / "new.csv", "complete"), (tmp_path / "old.csv", boom)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.csv"]
    assert (tmp_path / "old.csv").read_text() == "previous"
