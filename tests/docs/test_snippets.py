"""The docs are true: every command and snippet of README.md and docs/*.md runs (issue 13).

Each doc's code blocks are extracted and run in document order in one temporary directory
(a later block may read the files an earlier one wrote) that stands in for the checkout's
root (``tests/`` and ``src/`` linked, ``docs/`` and ``benchmarks/`` copied), with the
worktree's polyjoule: a ``polyjoule`` on PATH that is ``sys.executable -m polyjoule``. One
test per doc, each in its own directory. What counts as a block:

* a fenced ``sh``/``bash``/``console``/``shell`` block, an unlabeled fenced block whose first
  line is a command (``polyjoule``, ``pip``, ``python`` or ``$ ``), and an indented block
  whose first line is ``polyjoule ...``: every command line (``\\`` continuations joined,
  ``a && b`` run as two commands; in a block with ``$ `` prompts only the prompted lines,
  the rest is output) runs through ``bash`` and must exit 0, or the status its trailing
  comment states (``# exit 2``);
* a fenced ``python`` block: runs as a script and must exit 0; a top-level expression whose
  comment is a Python literal (``res.best.label, res.best.cost  # 'N4>K4', (517, 32)``)
  must equal it.

Every command line (run or not) and every inline ```polyjoule ...``` span of the prose is
also held against ``--help``: its command (and subcommand) exist and every ``--option`` it
names is one of that command's options. Every ```polyjoule.module.Name``` a doc writes
imports, and every checkout or package path it names (```tests/library/```) exists. The
``analyze --json`` schema a doc shows names only keys ``analyze`` prints, and every key it
prints at the top level.

Markers (HTML comments, invisible in the rendered doc) on the line before a block:

* ``<!-- doc-test: synopsis -->`` the block is a usage synopsis (placeholders, ``[...]``):
  checked against ``--help`` only;
* ``<!-- doc-test: file NAME -->`` the block is the content of file NAME (written, not run);
* ``<!-- doc-test: sub OLD => NEW -->`` run the block with OLD replaced by NEW (a smaller
  size for CI; the doc shows the real one).

:data:`NOT_RUN` is the short list of commands not run, each with its reason;
:data:`INLINE_RUN` the commands the prose names in full, run after the doc's blocks.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
#: the checkout's paths a doc's commands may name (``polyjoule import tests/...``): the run
#: directory links these (read from) and copies those (a command may write into them)
LINKED, COPIED = ("tests", "src"), ("docs", "benchmarks")
SHELL_LANGS = {"sh", "bash", "console", "shell"}
COMMAND_START = ("polyjoule ", "pip ", "python ", "$ ")
MARKER = re.compile(r"<!--\s*doc-test:\s*(\w+)\s*(.*?)\s*-->")
EXIT = re.compile(r"#\s*exit (\d+)\b")
#: commands not run (prefix of the command as the doc writes it) -> why
NOT_RUN: dict[str, str] = {
    "pip install .": "the install itself: CI installs the package before the tests (.ci/run)",
    "pip install '.[test,dask,tosa,pandas]'": "CI's own install step (.ci/run), same extras",
    "pip install 'polyjoule[tosa]'": "the tosa extra, installed by CI with the others (.ci/run)",
    "python -m pytest": "the test suite itself, which holds this test (CI runs it: .ci/run)",
}
#: commands the prose names in full (``polyjoule ...`` spans without placeholders), run after
#: the doc's blocks; the rest of the prose's spans are synopses, checked against --help
INLINE_RUN: dict[str, tuple[str, ...]] = {
    "README.md": ("polyjoule list", "polyjoule judge --list", "polyjoule judge --corpus",
                  "polyjoule map gesummv --target tcpa --set N=64:256:8 --census"),
    "docs/kernels.md": (
        'polyjoule localize --einsum "C[m,n] += A[m,k]*B[k,n]" --extents m=64,n=64,k=64',
        'polyjoule analyze --einsum "C[m,n] += A[m,k]*B[k,n]" --extents m=64,n=64,k=64 '
        "--array 4x4"),
}
TIMEOUT = 600


@dataclass(frozen=True)
class DocBlock:
    """One code block of a doc: where it is, what kind, its text, its marker."""

    doc: str
    line: int
    kind: str  # "shell", "python", "synopsis", "file"
    text: str
    arg: str = ""


@dataclass(frozen=True)
class DocCommand:
    """One command line of a shell block, as the doc writes it and as the test runs it."""

    line: int
    shown: str
    status: int
    output: tuple[str, ...] = ()


def _is_command(text: str) -> bool:
    return text.lstrip().startswith(COMMAND_START)


def _kind(lang: str, body: list[str], marker: tuple[str, str] | None) -> tuple[str, str] | None:
    """What a fenced block is, and its marker's argument (None: output, a schema or data)."""
    word, arg = marker or ("", "")
    if word in ("synopsis", "file"):
        return word, arg
    if lang in ("python", "py"):
        return "python", arg
    first = next((b for b in body if b.strip()), "")
    if (lang in SHELL_LANGS or not lang) and _is_command(first):
        return "shell", arg
    return None


def blocks(path: Path) -> list[DocBlock]:
    """The checked code blocks of one markdown file, in order."""
    lines = path.read_text().splitlines()
    doc = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
    found: list[DocBlock] = []
    marker: tuple[str, str] | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := MARKER.search(line):
            assert m.group(1) in ("synopsis", "file", "sub"), f"{doc}:{i + 1}: unknown marker"
            marker = (m.group(1), m.group(2))
        elif line.lstrip().startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].lstrip().startswith("```"))
            body = lines[i + 1:end]
            kind = _kind(line.strip()[3:].strip(), body, marker)
            if kind:
                found.append(DocBlock(doc, i + 2, kind[0], "\n".join(body), kind[1]))
            marker, i = None, end
        elif line.startswith("    polyjoule ") and (i == 0 or not lines[i - 1].strip()):
            end = next((j for j in range(i, len(lines)) if not lines[j].startswith("    ")),
                       len(lines))
            kind = "synopsis" if marker and marker[0] == "synopsis" else "shell"
            found.append(DocBlock(doc, i + 1, kind, "\n".join(x[4:] for x in lines[i:end])))
            marker, i = None, end - 1
        elif line.strip():
            marker = None if not line.lstrip().startswith("<!--") else marker
        i += 1
    return found


def _logical_lines(block: DocBlock) -> list[list]:
    """``[line, command, output lines]`` per command: continuations (a line ending in ``\\``
    or an indented line) joined; in a block with ``$ `` prompts only the prompted lines are
    commands and the lines after each are its output."""
    lines = block.text.splitlines()
    prompted = any(raw.startswith("$ ") for raw in lines)
    logical: list[list] = []
    for k, raw in enumerate(lines):
        text = raw[2:] if raw.startswith("$ ") else raw
        going_on = bool(logical) and logical[-1][1].endswith("\\")
        if not text.strip():
            continue
        if going_on or (logical and not prompted and text[0].isspace()):
            logical[-1][1] = f"{logical[-1][1].removesuffix(chr(92)).rstrip()} {text.strip()}"
        elif prompted and not raw.startswith("$ "):
            if logical:
                logical[-1][2].append(text)
        elif not text.lstrip().startswith("#"):
            logical.append([block.line + k, text.rstrip(), []])
    return logical


def commands(block: DocBlock) -> list[DocCommand]:
    """The command lines of a shell block (``&&`` chains split), each with its status: 0, or
    the ``# exit N`` of its comment; and the output the doc shows for it (``...`` elides)."""
    out = []
    for n, whole, shown in _logical_lines(block):
        status = int(m.group(1)) if (m := EXIT.search(whole)) else 0
        parts = whole.split(" && ")
        out += [DocCommand(n, part.strip(), status) for part in parts[:-1]]
        output = tuple(" ".join(x.split()) for x in shown if x.strip() not in ("", "..."))
        out.append(DocCommand(n, parts[-1].strip(), status, output))
    return out


def not_run(command: str) -> str | None:
    """Why a command is not run, or None."""
    return next((why for pre, why in NOT_RUN.items() if command.startswith(pre)), None)


# ----------------------------------------------------------------------------- running


def _workdir(tmp: Path) -> dict[str, str]:
    """The environment of a doc's run: ``polyjoule`` and ``python`` are this worktree's."""
    bin_dir = tmp / ".bin"
    bin_dir.mkdir()
    for name, argv in (("polyjoule", "-m polyjoule "), ("python", "")):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" {argv}"$@"\n')
        script.chmod(0o755)
    for name in LINKED:
        (tmp / name).symlink_to(ROOT / name)
    for name in COPIED:
        shutil.copytree(ROOT / name, tmp / name, ignore=shutil.ignore_patterns("__pycache__"))
    src = str(ROOT / "src")
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": src + (os.pathsep + path if path else ""), "COLUMNS": "100"}


def _where(block: DocBlock, line: int, shown: str) -> str:
    return f"{block.doc}:{line}: {shown}"


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def _failure(where: str, want: int, r: subprocess.CompletedProcess,
             missing: list[str] | None = None) -> str:
    tail = lambda s: "\n".join(s.rstrip().splitlines()[-15:])  # noqa: E731
    absent = "".join(f"\n  output the doc shows, not printed: {x}" for x in missing or ())
    return (f"\n{where}\n  exit {r.returncode}, the doc expects {want}{absent}\n"
            f"--- stdout (end)\n{tail(r.stdout)}\n--- stderr (end)\n{tail(r.stderr)}")


def _substituted(block: DocBlock, text: str) -> str:
    if not block.arg:
        return text
    old, new = (s.strip() for s in block.arg.split("=>"))
    assert old in text, f"{block.doc}:{block.line}: marker 'sub {old}' matches nothing"
    return text.replace(old, new)


SHOWN = re.compile(r"^(?P<expr>[^\s#][^#]*?)\s+#\s*(?P<shown>.+?)\s*$")


def checked_python(block: DocBlock) -> str:
    """The block's script, each ``EXPR  # LITERAL`` line made ``assert EXPR == LITERAL``."""
    out = []
    for k, line in enumerate(block.text.splitlines()):
        m = SHOWN.match(line)
        try:
            shown = ast.literal_eval(m.group("shown")) if m else None
            ast.parse(m.group("expr"), mode="eval") if m else None
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            m = None
        if m:
            where = f"{block.doc}:{block.line + k}"
            line = (f"assert ({m['expr']}) == ({m['shown']}), "
                    f"{where + ': shown ' + repr(shown) + ', got '!r} + repr(({m['expr']}))")
        out.append(line)
    return "\n".join(out)


def run_block(block: DocBlock, cwd: Path, env: dict[str, str]) -> list[str]:
    """Run one block; the failures, each naming doc, line and command."""
    if block.kind == "file":
        (cwd / block.arg).write_text(block.text + "\n")
        return []
    if block.kind == "python":
        script = cwd / f"_snippet_{block.line}.py"
        script.write_text(_substituted(block, checked_python(block)) + "\n")
        r = _run([sys.executable, script.name], cwd, env)
        where = _where(block, block.line, "```python block")
        return [] if r.returncode == 0 else [_failure(where, 0, r)]
    failures = []
    for c in commands(block):
        if block.kind != "shell" or not_run(c.shown):
            continue
        r = _run(["bash", "-o", "pipefail", "-c", _substituted(block, c.shown)], cwd, env)
        printed = " ".join(r.stdout.split())
        missing = [x for x in c.output if x not in printed]
        if r.returncode != c.status or missing:
            failures.append(_failure(_where(block, c.line, c.shown), c.status, r, missing))
    return failures


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_doc_runs(doc: Path, tmp_path: Path) -> None:
    """Every block of the doc, in order, in one directory: each command's exit status as the
    doc states it (0 unless ``# exit N``), each Python block exit 0."""
    env = _workdir(tmp_path)
    failures = [f for b in blocks(doc) for f in run_block(b, tmp_path, env)]
    name = str(doc.relative_to(ROOT))
    lines = dict((shown, n) for n, shown in _inline_commands(doc))
    inline = [DocBlock(name, lines.get(c, 0), "shell", c) for c in INLINE_RUN.get(name, ())]
    failures += [f for b in inline for f in run_block(b, tmp_path, env)]
    assert not failures, "".join(failures)


# ----------------------------------------------------------------------- against --help


@functools.cache
def help_text(path: tuple[str, ...]) -> str:
    """``polyjoule PATH --help`` (the worktree's), or '' if that command does not exist."""
    env = {**os.environ, "COLUMNS": "200"}
    r = subprocess.run([sys.executable, "-m", "polyjoule", *path, "--help"], env=env,
                       capture_output=True, text=True, check=False)
    return r.stdout if r.returncode == 0 else ""


def _command_names(text: str) -> set[str]:
    section = text.split("Commands:", 1)[1] if "Commands:" in text else ""
    return {ln.split()[0] for ln in section.splitlines() if ln.startswith("  ") and ln.split()}


def usage_problems(shown: str) -> list[str]:
    """What ``shown`` (``polyjoule CMD [SUB] --opt ...``) names that ``--help`` does not."""
    words = shown.replace("\\|", "|").split()
    if not words or words[0] != "polyjoule" or len(words) == 1 or words[1].startswith("-"):
        return [] if len(words) < 2 or words[1] in help_text(()) else [f"no option {words[1]}"]
    path: tuple[str, ...] = ()
    for word in words[1:]:
        names = _command_names(help_text(path))
        alternatives = word.split("|")
        if not names or word.startswith("-"):
            break
        missing = [a for a in alternatives if a not in names]
        if missing:
            return [f"no command {' '.join([*path, *missing])!s}"]
        path = (*path, alternatives[0])
    text = help_text(path)
    options = re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", shown.split(" ", 1)[1])
    return [f"{' '.join(path)}: no option {o}" for o in dict.fromkeys(options)
            if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text)]


def _inline_commands(doc: Path) -> list[tuple[int, str]]:
    """The ```polyjoule ...``` spans of the prose (outside code blocks, a span may wrap a
    line), with their line and their words joined by single spaces."""
    text = doc.read_text()
    prose = re.sub(r"```.*?```", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    return [(prose[:m.start()].count("\n") + 1, " ".join(m.group(1).split()))
            for m in re.finditer(r"`(polyjoule [^`]+)`", prose)]


def _shown_commands(doc: Path) -> list[tuple[int, str]]:
    cmds = [(c.line, c.shown) for b in blocks(doc) if b.kind in ("shell", "synopsis")
            for c in commands(b) if c.shown.startswith("polyjoule")]
    return cmds + _inline_commands(doc)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_doc_commands_exist(doc: Path) -> None:
    """Every command a doc names (in blocks and in the prose) exists with the options it
    uses: a renamed command or option fails here even where the doc only describes it."""
    problems = [f"\n{doc.relative_to(ROOT)}:{n}: {shown}\n  {p}"
                for n, shown in _shown_commands(doc) for p in usage_problems(shown)]
    assert not problems, "".join(problems)


def test_every_doc_is_read_and_the_not_run_list_is_used() -> None:
    """The extraction finds the blocks it should, and every NOT_RUN entry still names a
    command of some doc (the list cannot outlive its reason)."""
    every = [c.shown for d in DOCS for b in blocks(d) if b.kind == "shell" for c in commands(b)]
    assert sum(1 for c in every if c.startswith("polyjoule ")) >= 20
    unused = [pre for pre in NOT_RUN if not any(c.startswith(pre) for c in every)]
    assert not unused, f"NOT_RUN entries that no doc shows any more: {unused}"
    gone = [(d, c) for d, cs in INLINE_RUN.items() for c in cs
            if c not in {shown for _, shown in _inline_commands(ROOT / d)}]
    assert not gone, f"INLINE_RUN commands that their doc no longer shows: {gone}"
    assert not any(c.split()[0] == "cd" for c in every), "a doc changes directory"


SAMPLE = """# sample

```bash
polyjoule --version
polyjoule show nosuch                  # exit 2
polyjoule sweep gemm \\
    -s N=8 && polyjoule list
```

<!-- doc-test: synopsis -->
```
polyjoule map WORKLOAD [--json]
```

    polyjoule list
        --wide

```console
$ polyjoule --version
polyjoule 1.0
$ polyjoule sweep gemm \\
    -s N=8
  output, indented
```
"""


def test_the_extraction_and_the_exit_marker(tmp_path: Path) -> None:
    """Blocks, continuations, ``&&`` and ``# exit N`` as documented; a command whose status
    differs from the doc's is reported with doc, line and command."""
    doc = tmp_path / "sample.md"
    doc.write_text(SAMPLE)
    found = blocks(doc)
    assert [(b.line, b.kind) for b in found] == [(4, "shell"), (12, "synopsis"), (15, "shell"),
                                                 (19, "shell")]
    assert [(c.line, c.shown, c.status) for c in commands(found[0])] == [
        (4, "polyjoule --version", 0), (5, "polyjoule show nosuch                  # exit 2", 2),
        (6, "polyjoule sweep gemm -s N=8", 0), (6, "polyjoule list", 0)]
    assert [c.shown for c in commands(found[2])] == ["polyjoule list --wide"]
    assert [(c.line, c.shown, c.output) for c in commands(found[3])] == [
        (19, "polyjoule --version", ("polyjoule 1.0",)),
        (21, "polyjoule sweep gemm -s N=8", ("output, indented",))]
    env = _workdir(tmp_path)
    ok = DocBlock("sample.md", 4, "shell", "polyjoule --version\npolyjoule show nosuch  # exit 2")
    assert run_block(ok, tmp_path, env) == []
    smaller = DocBlock("sample.md", 7, "shell", "polyjoule show nosuch", "nosuch => gemm")
    assert run_block(smaller, tmp_path, env) == []
    wrong = run_block(DocBlock("sample.md", 7, "shell", "polyjoule show nosuch"), tmp_path, env)
    assert len(wrong) == 1 and "sample.md:7: polyjoule show nosuch" in wrong[0]
    assert "exit 2, the doc expects 0" in wrong[0] and "unknown kernel" in wrong[0]
    shows = "$ polyjoule show gemm\n...\nparameters:  NI, NJ, NK\n"
    assert run_block(DocBlock("sample.md", 8, "shell", shows), tmp_path, env) == []
    drift = run_block(DocBlock("sample.md", 8, "shell", shows.replace("NK", "NL")), tmp_path, env)
    assert len(drift) == 1 and "not printed: parameters: NI, NJ, NL" in drift[0]


def test_a_python_block_s_shown_value_is_checked(tmp_path: Path) -> None:
    """``EXPR  # LITERAL`` is asserted; a comment that is not a literal is a comment."""
    env = _workdir(tmp_path)
    good = DocBlock("sample.md", 3, "python", "x = 2\nx + 1, 'a'  # 3, 'a'\nx  # the input")
    assert run_block(good, tmp_path, env) == []
    bad = run_block(DocBlock("sample.md", 3, "python", "x = 2\nx + 1  # 4"), tmp_path, env)
    assert len(bad) == 1 and "sample.md:4: shown 4, got 3" in bad[0]


# ------------------------------------------------------------------ names of the package


def resolves(dotted: str) -> bool:
    """``polyjoule.a.b.Name`` is a module or an attribute of one (imported, not guessed)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError as e:
            if not f"{'.'.join(parts[:i])}.".startswith(f"{e.name}."):
                raise  # the module exists and misses one of its own imports
            continue
        return all((obj := getattr(obj, a, None)) is not None for a in parts[i:])
    return False


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_doc_package_names_resolve(doc: Path) -> None:
    """Every ```polyjoule.module.Name``` a doc writes is importable: a moved module or a
    renamed function fails here (issue 13: ``polyjoule.dse.compiled`` lived elsewhere)."""
    text = doc.read_text()
    names = dict.fromkeys(re.findall(r"`(polyjoule(?:\.[A-Za-z_]\w*)+)", text))
    missing = [f"\n{doc.relative_to(ROOT)}:{text[:text.index(n)].count(chr(10)) + 1}: {n}"
               for n in names if not resolves(n)]
    assert not missing, "names that do not resolve:" + "".join(missing)


#: where a doc's path may point: the checkout, and the package (``library/data/...``)
PATH_ROOTS = (ROOT, ROOT / "src" / "polyjoule")
PATH_NAMED = re.compile(r"`((?:tests|src|benchmarks|docs|\.ci|library|cli|frontends|model|"
                        r"mapping|analysis|search|dse|reports|targets)/[\w./-]*)")
#: written by a run, not kept in the checkout
GENERATED = ("benchmarks/out/",)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_doc_paths_exist(doc: Path) -> None:
    """Every checkout or package path a doc names (```tests/library/```,
    ```library/data/tinytpu_energy.yaml```) exists: a moved file fails here."""
    missing = [f"\n{doc.relative_to(ROOT)}:{n}: {p}"
               for n, line in enumerate(doc.read_text().splitlines(), 1)
               for p in PATH_NAMED.findall(line)
               if not p.startswith(GENERATED) and not any((r / p).exists() for r in PATH_ROOTS)]
    assert not missing, "paths that do not exist:" + "".join(missing)


# ------------------------------------------------------------------ the analyze --json schema


@functools.cache
def analyze_json_keys() -> tuple[set[str], set[str]]:
    """Every key (top level, and all) of ``analyze --json --latex`` on the README's example."""
    r = subprocess.run([sys.executable, "-m", "polyjoule", "analyze", "gesummv", "--array", "8x8",
                        "--set", "N0=1024,N1=1024", "--json", "--latex"],
                       capture_output=True, text=True, check=True, timeout=TIMEOUT)
    data, found, todo = json.loads(r.stdout), set(), []
    todo.append(data)
    while todo:
        x = todo.pop()
        found |= set(x) if isinstance(x, dict) else set()
        todo += list(x.values()) if isinstance(x, dict) else x if isinstance(x, list) else []
    return set(data), found


def documented_keys(block: str) -> tuple[set[str], set[str]]:
    """The quoted names a schema block gives as keys: at the top level, and all."""
    code = "\n".join(line.split("#")[0] for line in block.splitlines())
    code = re.sub(r'(:|\|)\s*"[^"]*"', r"\1", code)  # "modes": {p: "symbolic" | "fixed"}
    depth, top = 0, set()
    for m in re.finditer(r'[{}\[\]]|"(\w+)"\s*:', code):
        depth += {"{": 1, "[": 1, "}": -1, "]": -1}.get(m.group(0), 0)
        top |= {m.group(1)} if m.group(1) and depth == 1 else set()
    return top, set(re.findall(r'"(\w+)"', code))


SCHEMAS = [(d, m.group(1)) for d in DOCS
           for m in re.finditer(r"```\n(\{\n.*?)```", d.read_text(), flags=re.S)
           if '"counts"' in m.group(1) and '"energy_pj"' in m.group(1)]


@pytest.mark.parametrize(("doc", "block"), SCHEMAS, ids=[d.name for d, _ in SCHEMAS])
def test_the_json_schema_a_doc_shows_is_what_analyze_prints(doc: Path, block: str) -> None:
    """Every key the doc's ``analyze --json`` schema names is printed, and every top-level key
    printed is in the doc."""
    top, every = documented_keys(block)
    printed_top, printed = analyze_json_keys()
    assert not every - printed, f"{doc.name}: keys the doc shows, not printed: {every - printed}"
    assert not printed_top - top, f"{doc.name}: printed, not in the doc: {printed_top - top}"
