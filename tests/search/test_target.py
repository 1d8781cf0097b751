"""The target protocol and registry: structural, optional questions, providers."""

import pathlib
import re

import pytest

import polyjoule
from polyjoule.errors import Kind, SpecError, UnknownNameError
from polyjoule.search import target


def test_registry_and_protocol(toy):
    tgt = target.register(toy)
    assert target.get("toy") is tgt and "toy" in target.names()
    assert isinstance(tgt, target.Target)  # structural: no base class needed
    with pytest.raises(UnknownNameError, match="registered: .*tinytpu-isa"):
        target.get("nope")
    with pytest.raises(TypeError, match="target protocol"):
        target.register(object())


def test_optional_questions_have_defaults(toy):
    assert target.describe(toy) == "toy" and target.report(toy, ()) == {}
    assert target.measured(toy, None, {}, ()) is None
    assert target.margin(toy, (1,), (2,)) is None and target.notes(toy) == ()
    assert target.kind(toy, "deep") is Kind.REFUSE and target.kind(toy, "x") is Kind.EXPRESS
    assert target.relievable(toy) == ("k-first",)
    with pytest.raises(SpecError, match="publishes no problem set"):
        target.problem_set(toy)


def test_providers_are_declared_outside_search():
    import polyjoule.targets as catalogue

    assert set(catalogue.PROVIDERS) <= set(target.providers())
    assert target.default_name() == catalogue.DEFAULT in target.names()


TARGET_WORDS = re.compile(r"tinytpu|tiny_tpu|tpu\b|MAXDIM|QD=|cosim|sequencer", re.I)


def test_core_knows_no_target():
    root = pathlib.Path(polyjoule.__file__).parent
    modules = [*sorted((root / "search").glob("*.py")), root / "analysis" / "machine.py",
               root / "analysis" / "steps.py", root / "cli" / "mapper.py"]
    assert len(modules) >= 11
    for py in modules:
        text = py.read_text()
        assert not re.search(r"^\s*(from|import)\s+polyjoule\.targets", text, re.M), py
        assert not TARGET_WORDS.search(text), (py, TARGET_WORDS.search(text))
