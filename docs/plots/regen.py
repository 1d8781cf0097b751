"""Regenerate every plot in docs/ from the commands the docs show.

    python docs/plots/regen.py            # rewrite docs/img/*.png
    python docs/plots/regen.py --check    # only check that every image has its commands

A docs image ``img/NAME.png`` is made by the ``bash`` block of the Markdown files under docs/
whose ``polyjoule plot ... -o NAME.png`` writes it: the script runs that block's
``polyjoule`` commands verbatim (as ``python -m polyjoule``, with this checkout's ``src`` on
the path) in a scratch folder and copies ``NAME.png`` into ``docs/img``. So the pictures
cannot drift from the commands printed beside them, and an image no docs command makes is an
error (exit 1).
"""

# ruff: noqa: T201 - a script: it reports what it runs on stdout
from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
IMG = DOCS / "img"
_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
_IMAGE = re.compile(r"!\[[^\]]*\]\(img/([^)\s]+)\)")


def commands(block: str) -> list[list[str]]:
    """The ``polyjoule`` command lines of a bash block (continuations joined), as argv."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [shlex.split(line, comments=True) for line in joined.splitlines()
            if line.strip().startswith("polyjoule ")]


def outputs(argv: list[str]) -> list[str]:
    """The image a ``polyjoule plot`` command writes (its ``-o``/``--output``), if any."""
    if argv[:2] != ["polyjoule", "plot"]:
        return []
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-o", "--output")]


def plan(docs: Path = DOCS) -> dict[str, list[list[str]]]:
    """Image name -> the commands (one bash block) that make it, for every image the docs show."""
    shown: set[str] = set()
    makes: dict[str, list[list[str]]] = {}
    for md in sorted(docs.glob("*.md")):
        text = md.read_text(encoding="utf-8")
        shown |= set(_IMAGE.findall(text))
        for block in _BLOCK.findall(text):
            if "polyjoule plot" not in block:
                continue
            argvs = commands(block)
            for argv in argvs:
                for name in outputs(argv):
                    makes[Path(name).name] = argvs
    missing = sorted(n for n in shown | {p.name for p in IMG.glob("*")} if n not in makes)
    if missing:
        raise SystemExit(f"docs/img: {', '.join(missing)}: no polyjoule plot command in docs/ "
                         "writes it (add the commands beside the image, or delete the image)")
    return {name: makes[name] for name in sorted(shown)}


def run(argvs: list[list[str]], where: Path) -> None:
    """Run one block's commands in ``where`` with this checkout's polyjoule."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    for argv in argvs:
        print("$", shlex.join(argv), flush=True)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "polyjoule", *argv[1:]], cwd=where, env=env,
                       check=True, stdout=subprocess.DEVNULL)
        print(f"  ({time.perf_counter() - t:.1f} s)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--check", action="store_true", help="only check the plan, run nothing")
    args = ap.parse_args()
    todo = plan()
    if args.check:
        for name, argvs in todo.items():
            print(f"img/{name}: {' && '.join(shlex.join(a) for a in argvs)}")
        return
    done: dict[int, Path] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name, argvs in todo.items():
            key = id(argvs)
            if key not in done:  # a block that makes several images runs once
                done[key] = Path(scratch) / f"block{len(done)}"
                done[key].mkdir()
                run(argvs, done[key])
            shutil.copyfile(done[key] / name, IMG / name)
            print(f"wrote {(IMG / name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
