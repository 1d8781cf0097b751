"""docs/plots/regen.py: every image in docs/ is made by a ``polyjoule plot`` command the docs
print beside it (the script regenerates them; here only its plan is checked, nothing runs)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def regen():
    spec = importlib.util.spec_from_file_location("regen", ROOT / "docs" / "plots" / "regen.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_docs_image_has_its_commands(regen):
    todo = regen.plan()
    assert set(todo) == {p.name for p in (ROOT / "docs" / "img").iterdir()}
    for name, argvs in todo.items():
        plots = [a for a in argvs if a[:2] == ["polyjoule", "plot"]]
        assert any(regen.outputs(a) == [name] for a in plots)
        source = next(a[2] for a in plots if regen.outputs(a) == [name])
        writers = [a for a in argvs if a[:2] == ["polyjoule", "sweep"]
                   and any(f in ("--csv", "--json") and a[i + 1] == source
                           for i, f in enumerate(a[:-1]))]
        assert writers, f"{name}: the block does not make {source}"


def test_commands_join_continuations_and_skip_other_lines(regen):
    block = ("# a comment\npolyjoule sweep gemm -s N=8 \\\n    --json s.json\n"
             "ls\npolyjoule plot s.json --kind pareto -o p.png  # the plot\n")
    argvs = regen.commands(block)
    assert argvs == [["polyjoule", "sweep", "gemm", "-s", "N=8", "--json", "s.json"],
                     ["polyjoule", "plot", "s.json", "--kind", "pareto", "-o", "p.png"]]
    assert regen.outputs(argvs[1]) == ["p.png"] and regen.outputs(argvs[0]) == []


def test_an_image_without_commands_is_an_error(regen, tmp_path, monkeypatch):
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "orphan.png").write_bytes(b"")
    (tmp_path / "a.md").write_text("![x](img/orphan.png)\n")
    monkeypatch.setattr(regen, "IMG", tmp_path / "img")
    with pytest.raises(SystemExit, match="orphan.png: no polyjoule plot command"):
        regen.plan(tmp_path)
