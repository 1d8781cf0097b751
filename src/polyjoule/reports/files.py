"""Writing an output file all-or-nothing: one temp file beside the target, then a rename.

An error (or Ctrl-C) while writing never leaves a half-written or stale-but-plausible file:
the temp file is removed on any exception. The destination is checked first, so a missing
folder or a directory in the way is one named error, not a traceback.

A SIGKILL cannot be caught, so its temp file stays; temp names say who wrote them
(``.NAME.polyjoule-tmp-HOST-PID-XXXX``) and the next write into that folder removes those
whose process is dead on this host. A live writer's temp (another run, right now) is never
touched, nor any file of another name.
"""

from __future__ import annotations

import os
import re
import socket
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from polyjoule.errors import OutputPathError

#: What to write: text, bytes, or a callback that writes the file at the path it is given.
Content = str | bytes | Callable[[Path], None]


def check_destination(path: str | Path) -> Path:
    """``path`` as a :class:`Path` if a file can be created there, else :class:`OutputPathError`."""
    p = Path(path)
    folder = p.parent
    if p.is_dir():
        raise OutputPathError(f"{p}: is a directory, not a file")
    for up in (folder, *folder.parents):
        if up.exists() and not up.is_dir():
            raise OutputPathError(f"{p}: {up} is a file, not a folder")
    if not folder.is_dir():
        raise OutputPathError(f"{p}: no such folder {folder}")
    return p


TEMP_TAG = ".polyjoule-tmp-"
_TEMP = re.compile(r"^\..+" + re.escape(TEMP_TAG) + r"(?P<host>[A-Za-z0-9_.]+)-(?P<pid>\d+)-[A-Za-z0-9_]+$")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_.]", "_", socket.gethostname()) or "host"


def temp_prefix(path: Path) -> str:
    """The temp file name's start for ``path``: it names this host and process."""
    return f".{path.name}{TEMP_TAG}{_host()}-{os.getpid()}-"


def _alive(pid: int) -> bool:
    """Is process ``pid`` running (or not ours to signal, so possibly running)?"""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def remove_stale_temps(folder: Path) -> list[Path]:
    """Remove the temp files in ``folder`` left by killed writers on this host; the removed."""
    gone: list[Path] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return gone
    host = _host()
    for name in names:
        m = _TEMP.match(name)
        if m is None or m["host"] != host or _alive(int(m["pid"])):
            continue
        p = folder / name
        try:
            if p.is_file() and not p.is_symlink():
                p.unlink()
                gone.append(p)
        except OSError:
            continue  # removed by another run meanwhile, or not ours to remove
    return gone


def _umask() -> int:
    um = os.umask(0)
    os.umask(um)
    return um


def stage(path: Path, content: Content) -> Path:
    """Write ``content`` to a temp file beside ``path`` (the user's umask); return the temp."""
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=temp_prefix(path))
    except OSError as e:
        raise OutputPathError(f"{path}: cannot write: {e.strerror}") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(content, str):
                fh.write(content.encode())
            elif isinstance(content, bytes):
                fh.write(content)
        if callable(content):
            content(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise OutputPathError(f"{path}: cannot write: {e.strerror or e}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _rename(tmp: Path, path: Path) -> None:
    try:
        os.replace(tmp, path)
    except OSError as e:
        raise OutputPathError(f"{path}: cannot write: {e.strerror or e}") from None


def write_all_atomic(jobs: Sequence[tuple[str | Path, Content]]) -> list[Path]:
    """Write every ``(path, content)`` or none: all are staged before any is renamed."""
    paths = [check_destination(p) for p, _ in jobs]
    for folder in dict.fromkeys(p.parent for p in paths):
        remove_stale_temps(folder)
    temps: list[Path] = []
    try:
        for path, (_, content) in zip(paths, jobs, strict=True):
            temps.append(stage(path, content))
        for tmp, path in zip(temps, paths, strict=True):
            _rename(tmp, path)
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
    return paths


def write_atomic(path: str | Path, content: Content) -> Path:
    """Write one file all-or-nothing (see :func:`write_all_atomic`)."""
    return write_all_atomic([(path, content)])[0]
