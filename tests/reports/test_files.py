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


# --- issue 14: temp files of a killed writer are removed by the next write -----------------

_CHILD = """
import sys, time
from pathlib import Path
from polyjoule.reports.files import write_atomic

def slow(tmp: Path) -> None:
    with tmp.open("w") as fh:
        fh.write("half")
        fh.flush()
        print("writing", flush=True)
        time.sleep(120)

write_atomic(sys.argv[1], slow)
"""


def _writer(target):
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(target)], stdout=subprocess.PIPE,
                             text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "writing"
    return child


def _temps(folder):
    from polyjoule.reports.files import TEMP_TAG

    return sorted(p.name for p in folder.iterdir() if TEMP_TAG in p.name)


def test_killed_writer_temp_removed_by_next_run_live_one_kept(tmp_path):
    import signal

    dead = _writer(tmp_path / "dead.csv")
    live = _writer(tmp_path / "live.csv")
    try:
        dead.send_signal(signal.SIGKILL)
        dead.wait(30)
        assert len(_temps(tmp_path)) == 2  # SIGKILL cannot clean up after itself
        (tmp_path / "other.txt").write_text("not ours")
        write_atomic(tmp_path / "next.csv", "x")  # the next run writing into this folder
        left = _temps(tmp_path)
        assert len(left) == 1 and left[0].startswith(".live.csv.") and str(live.pid) in left[0]
        assert not (tmp_path / "dead.csv").exists()
        assert (tmp_path / "other.txt").read_text() == "not ours"
    finally:
        live.kill()
        live.wait(30)
    write_atomic(tmp_path / "next.csv", "y")
    assert _temps(tmp_path) == []


def test_stale_temp_of_dead_pid_removed_other_hosts_kept(tmp_path):
    import subprocess
    import sys

    from polyjoule.reports.files import remove_stale_temps, temp_prefix

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(gone.stdout)
    mine = temp_prefix(tmp_path / "r.json")
    stale = tmp_path / mine.replace(f"-{os.getpid()}-", f"-{dead_pid}-")
    stale = stale.with_name(stale.name + "abc_12")
    stale.write_text("{")
    elsewhere = tmp_path / f".r.json.polyjoule-tmp-otherhost-{dead_pid}-abc_12"
    elsewhere.write_text("{")
    own = tmp_path / (mine + "zz")
    own.write_text("{")  # this process: alive
    assert remove_stale_temps(tmp_path) == [stale]
    assert elsewhere.exists() and own.exists()
