"""Placements: which dims the array axes take, as a renaming the whole pipeline accepts."""

from __future__ import annotations

import pytest

from polyjoule.analysis.analyze import analyze
from polyjoule.analysis.simulator import simulate
from polyjoule.errors import SpecError, UnknownNameError
from polyjoule.library.kernels import get
from polyjoule.mapping.placement import parse_axes, place, place_kernel, placements


def test_place_moves_named_dims_first_with_their_dependences() -> None:
    pra = get("jacobi-1d").phases[0]  # dims t, i
    moved = place(pra, ("i",))
    assert moved.dim_names == ("i", "t")
    for a, b in zip(pra.statements, moved.statements, strict=True):
        assert (a.dep is None) == (b.dep is None)
        if a.dep is not None:
            assert b.dep == (a.dep[1], a.dep[0])
    assert place(pra, ("t",)) is pra


def test_counts_are_invariant_under_renaming_but_the_tiling_is_not() -> None:
    """Same mapping written two ways: t on the array of a 1-D array is the default of
    jacobi-1d; i on it is a different tiling (different FD and I/O counts), and both agree
    with the simulator (the independent witness)."""
    k = get("jacobi-1d")
    v = {"TSTEPS": 6, "N": 12}
    a_t = analyze(k, (1, 4)).evaluate(v)
    a_t2 = analyze(place_kernel(k, ("t",)), (1, 4)).evaluate(v)
    assert a_t.counts == a_t2.counts
    a_i = analyze(place_kernel(k, ("i",)), (1, 4)).evaluate(v)
    assert a_i.counts["ops"] == a_t.counts["ops"]
    assert a_i.counts != a_t.counts
    sim = simulate(place_kernel(k, ("i",)), (1, 4), values=v)
    assert sim.ok
    assert {c: sim.counts[c] for c in ("RD", "FD", "ID", "OD", "IOb", "DR")} == \
        {c: a_i.counts[c] for c in ("RD", "FD", "ID", "OD", "IOb", "DR")}


def test_placements_of_single_and_multi_phase_kernels() -> None:
    assert placements(get("gemm"), 2) == [("i", "j"), ("i", "k"), ("j", "k")]
    assert placements(get("gemm"), 1) == [("i",), ("j",), ("k",)]
    multi = placements(get("atax"), 2)  # phases (i, j) and (i, j): the leading dims once
    assert multi == [()]
    cov = placements(get("covariance"), 2)  # mean (j, i), centre (i, j): j,i renames centre
    assert cov == [(), ("j", "i")]


def test_bad_axes_are_named_errors() -> None:
    k = get("gemm")
    with pytest.raises(UnknownNameError, match="no dim 'x'"):
        place_kernel(k, ("x",))
    with pytest.raises(SpecError, match="named twice"):
        place_kernel(k, ("i", "i"))
    with pytest.raises(SpecError, match="two axes"):
        place_kernel(k, ("i", "j", "k"))
    with pytest.raises(SpecError, match="names no dim"):
        parse_axes(" , ")
