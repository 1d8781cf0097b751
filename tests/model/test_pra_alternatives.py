"""Conditions with alternatives (``when: {any: [...]}``): split once, at load, into disjoint
conjunctive pieces that cover exactly the union; a 2-D convolution written with them has the
counts, energy and latency of its four-statement form, and validates against the simulator
and numpy."""

from __future__ import annotations

import copy
import itertools
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from polyjoule.analysis import analyze
from polyjoule.analysis import simulator as sim
from polyjoule.errors import SpecError
from polyjoule.frontends.pra_dump import kernel_data
from polyjoule.frontends.pra_outline import kernel_outline
from polyjoule.frontends.pra_yaml import load_kernel_data, load_kernel_file
from polyjoule.model.pra import PRA, Kernel

DATA = Path(__file__).parent / "data"


def conv2d_reference(t: dict[str, np.ndarray], env: dict[str, int]) -> dict[str, np.ndarray]:
    """Y[i, j] = sum_{a, b} W[a, b] X[i + a, j + b], by numpy's sliding windows."""
    k = env["K"]
    win = np.lib.stride_tricks.sliding_window_view(t["X"], (k, k))
    return {"Y": np.einsum("ijab,ab->ij", win, t["W"])}


def _kernel(name: str) -> Kernel:
    k = load_kernel_file(DATA / f"{name}.yaml")
    return replace(k, reference=conv2d_reference) if name.startswith("conv2d") else k


FOUR, ANY = _kernel("conv2d_four"), _kernel("conv2d_any")


def _points(pra: PRA, values: dict[str, int]) -> list[dict[str, int]]:
    """Every point of the iteration space (bounds evaluated outer to inner)."""
    out: list[dict[str, int]] = [dict(values)]
    for d in pra.dims:
        out = [{**e, d.name: v} for e in out
               for v in range(d.lower.evaluate(e), d.upper.evaluate(e) + 1)]
    return out


# --- the pieces ---------------------------------------------------------------------------


def test_the_disjunctive_form_has_one_input_and_one_propagation_per_direction() -> None:
    """The file has 3 statements for x where the conjunctive form needs 4 inputs and 3
    propagations; the loader's pieces name the user's statement."""
    doc = yaml.safe_load((DATA / "conv2d_any.yaml").read_text())
    x = [s for s in doc["phases"][0]["statements"] if s["var"] == "x"]
    assert [("input" in s, tuple(s.get("dep", ()))) for s in x] == [
        (True, ()), (False, (1, 0, -1, 0)), (False, (0, 1, 0, -1))]
    pieces = [s for s in ANY.phases[0].statements if s.var == "x"]
    assert {s.user_id for s in pieces} == {"X1", "X2", "X3"}
    assert [s.id for s in pieces if s.user_id == "X1"] == ["X1.1", "X1.2", "X1.3", "X1.4"]
    assert all(s.id == f"{s.origin}.{n}" for n, s in enumerate(
        [s for s in pieces if s.user_id == "X3"], 1))


@pytest.mark.parametrize("values", [{"N": 3, "M": 4, "K": 3}, {"N": 1, "M": 2, "K": 1},
                                    {"N": 4, "M": 1, "K": 2}])
def test_pieces_cover_the_union_once(values: dict[str, int]) -> None:
    """At every point, exactly one piece holds where some alternative holds, none elsewhere
    (the alternatives evaluated directly, without isl)."""
    pra = ANY.phases[0]
    for user in ("X1", "X3"):
        pieces = [s for s in pra.statements if s.user_id == user]
        alts = pieces[0].alternatives
        for env in _points(pra, values):
            want = any(all(c.holds(env) for c in a) for a in alts)
            got = sum(all(c.holds(env) for c in s.when) for s in pieces)
            assert got == int(want), (user, env)


def _random_alternatives(rng: random.Random) -> list[list[str]]:
    atoms = ["i == 0", "i >= 1", "j == 0", "j <= N - 2", "i <= j", "i + j >= N", "j == M - 1",
             "i >= 2", "2*i <= N", "i - j >= 1"]
    return [rng.sample(atoms, rng.randint(1, 3)) for _ in range(rng.randint(2, 4))]


@pytest.mark.parametrize("seed", range(12))
def test_random_unions_split_exactly(seed: int) -> None:
    """Random unions of conjunctions on a 2-D space: the pieces partition the union."""
    rng = random.Random(seed)
    alts = _random_alternatives(rng)
    doc = {"name": "u", "params": {"N": 1, "M": 1},
           "dims": [{"name": "i", "lower": 0, "upper": "N - 1"},
                    {"name": "j", "lower": 0, "upper": "M - 1"}],
           "tensors": {"X": {"shape": ["N", "M"], "kind": "input"}},
           "statements": [{"id": "S1", "var": "x", "input": "X[i, j]", "when": {"any": alts}}]}
    pra = load_kernel_data(doc, "u.yaml").phases[0]
    pieces = pra.statements
    assert all(s.user_id == "S1" for s in pieces)
    for n, m in itertools.product(range(1, 6), range(1, 5)):
        for env in _points(pra, {"N": n, "M": m}):
            want = any(all(c.holds(env) for c in a) for a in pieces[0].alternatives)
            assert sum(all(c.holds(env) for c in s.when) for s in pieces) == int(want), env


# --- load checks with unions ------------------------------------------------------------


def _any_doc() -> dict:
    return yaml.safe_load((DATA / "conv2d_any.yaml").read_text())


def test_overlapping_writer_with_alternatives_is_refused_naming_both() -> None:
    """An input for x where one alternative overlaps the propagation X2."""
    doc = _any_doc()
    st = doc["phases"][0]["statements"]
    st[0]["when"] = {"any": [["i == 0", "j == 0"], ["a == 0", "i >= 1"]]}
    with pytest.raises(SpecError) as e:
        load_kernel_data(doc, "c.yaml")
    msg = str(e.value)
    assert "c.yaml" in msg and "statements[0] (X1, piece X1." in msg
    assert "statements[1] (X2)" in msg and "both write 'x'" in msg


def test_alternative_reading_outside_the_written_points_is_refused() -> None:
    """A copy whose alternative ``j == 0`` reads x at j - 1 = -1: outside the domain."""
    doc = _any_doc()
    doc["phases"][0]["statements"].append(
        {"id": "Q", "var": "q", "from": "x", "dep": [0, 1, 0, 0],
         "when": {"any": ["j >= 2", ["j == 0", "i >= 1"]]}})
    with pytest.raises(SpecError, match=r"c\.yaml: phases\[0\]: statements\[13\] \(Q, piece "
                                        r"Q\.\d\)\.dep: \[0, 1, 0, 0\] reads 'x' outside"):
        load_kernel_data(doc, "c.yaml")


def test_a_piece_id_taken_by_another_statement_is_refused() -> None:
    doc = _any_doc()
    doc["phases"][0]["statements"][3]["id"] = "X1.2"
    with pytest.raises(SpecError, match=r"id 'X1\.2' is given twice"):
        load_kernel_data(doc, "c.yaml")


def test_alternatives_that_never_hold_keep_the_statement_with_zero_count() -> None:
    doc = copy.deepcopy(_any_doc())
    doc["phases"][0]["statements"].append(
        {"id": "Z", "var": "q", "compute": "x", "when": {"any": ["i >= N", "a <= -1"]}})
    pra = load_kernel_data(doc, "c.yaml").phases[0]
    (z,) = [s for s in pra.statements if s.user_id == "Z"]
    r = analyze(Kernel("z", (pra,)), array=(2, 2)).evaluate({"N": 4, "M": 3, "K": 2})
    assert z.id == "Z" and all(v.statement != "Z" or v.value == 0 for v in r.volumes)


# --- the front ends agree -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["conv2d_any", "maxpool_abs"])
def test_round_trip_gives_the_same_pieces(name: str) -> None:
    k = load_kernel_file(DATA / f"{name}.yaml")
    again = load_kernel_data(kernel_data(k), name)
    strip = [replace(p, statements=tuple(replace(s, text="") for s in p.statements))
             for p in k.phases]
    assert strip == [replace(p, statements=tuple(replace(s, text="") for s in p.statements))
                     for p in again.phases]
    users = [s["id"] for s in kernel_data(k)["phases"][0]["statements"]]
    assert users == list(dict.fromkeys(s.user_id for s in k.phases[0].statements))


@pytest.mark.parametrize("name", ["conv2d_any", "conv2d_four", "maxpool_abs"])
def test_outline_reads_what_the_full_reader_reads(name: str) -> None:
    """The light reader keeps the user's statements with their alternatives; the full
    reader's pieces, grouped by user statement, carry the same alternatives."""
    data = yaml.safe_load((DATA / f"{name}.yaml").read_text())
    o, k = kernel_outline(data, name), load_kernel_file(DATA / f"{name}.yaml")
    for op, kp in zip(o.phases, k.phases, strict=True):
        first = {}
        for s in kp.statements:
            first.setdefault(s.user_id, s)
        assert [(s.id, s.kind, s.text, s.alternatives or (s.when,)) for s in op.statements] == [
            (u, s.kind, s.text, s.alternatives or (s.when,)) for u, s in first.items()]


# --- the 2-D convolution: both forms, several sizes, tiles and arrays ------------------------

MAPPINGS = [((1, 4), None), ((2, 2), None), ((3, 2), None), ((2, 2), (3, 3, 1, 1)),
            ((4, 4), (2, 2, 1, 1))]  # --tile: the entries of untiled dims are not used
SIZES = [{"N": 6, "M": 5, "K": 3}, {"N": 7, "M": 4, "K": 2}, {"N": 4, "M": 8, "K": 1},
         {"N": 5, "M": 5, "K": 4}]


@pytest.mark.parametrize("array, tile", MAPPINGS)
def test_disjunctive_and_four_statement_forms_count_alike(array, tile) -> None:
    """Counts (every class and op), energy and latency of the two forms, at several sizes."""
    a_four = analyze(FOUR, array=array, tile=tile)
    a_any = analyze(ANY, array=array, tile=tile)
    fits = [v for v in SIZES if tile is None or all(  # more tiles than PEs: refused
        -(-v[n] // p) <= t for n, p, t in zip("NM", tile, array, strict=False))]
    assert len(fits) >= 2
    for values in fits:
        r4, ra = a_four.evaluate(values), a_any.evaluate(values)
        assert ra.counts == r4.counts, values
        assert ra.energy_pj["dynamic"] == pytest.approx(r4.energy_pj["dynamic"], rel=1e-12)
        assert ra.energy_pj["by_class"] == pytest.approx(r4.energy_pj["by_class"], rel=1e-12)
        assert ra.latency_cycles == r4.latency_cycles, values
        # the pieces of X1 add up to the four inputs of x
        dr = {v.statement: v.value for v in ra.volumes if v.cls == "DR"}
        d4 = {v.statement: v.value for v in r4.volumes if v.cls == "DR"}
        assert sum(n for s, n in dr.items() if s.startswith("X1")) == sum(
            d4[s] for s in ("S1", "S2", "S3", "S4"))
        assert sum(n for s, n in dr.items() if s.startswith("X1")) == (
            (values["N"] + values["K"] - 1) * (values["M"] + values["K"] - 1))


@pytest.mark.parametrize("array, tile", [((1, 4), None), ((2, 2), None), ((3, 2), None),
                                         ((2, 2), (3, 2, 1, 1))])
def test_disjunctive_conv2d_validates_against_the_simulator_and_numpy(array, tile) -> None:
    a = analyze(ANY, array=array, tile=tile)
    for values in ({"N": 6, "M": 4, "K": 3}, {"N": 5, "M": 3, "K": 2}):
        s = sim.simulate(ANY, array, tile=tile, values=values)
        assert s.ok and s.checks["outputs_match_reference"], (s.checks, s.violations)
        r = a.evaluate(values)
        assert r.counts == s.counts, values
        assert r.latency_cycles == s.makespan, values
