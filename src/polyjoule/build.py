"""Which code this is: the version and a digest of the package's sources.

The formula cache keeps derived formulas and pickled schedules between runs. Keyed by the
version alone, an entry written by other code of the same version number was read back as
if current (a schedule class that had changed its fields made ``map`` fail), so entries are
keyed and stamped with :func:`code_id`: any change to a source file is another id.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path


def source_digest(root: Path) -> str:
    """SHA-256 of every ``.py`` file under ``root``: its path and its bytes, in path order."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


#: the packages whose code makes what the cache keeps: the model, the tiling, the counts and
#: schedules (pickled with their classes), and the targets that price and key them
DERIVING = ("model", "mapping", "analysis", "targets", "dse")


@functools.lru_cache(maxsize=1)
def code_id() -> str:
    """``VERSION+DIGEST`` of this installation's deriving code (a few ms, once per process
    that uses the cache)."""
    from polyjoule import __version__

    root = Path(__file__).parent
    digest = hashlib.sha256("".join(source_digest(root / d) for d in DERIVING).encode())
    return f"{__version__}+{digest.hexdigest()[:16]}"
