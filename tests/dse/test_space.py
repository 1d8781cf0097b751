"""Parsing the design space: ranges, lists, tied sizes, presets, mappings."""

from __future__ import annotations

import numpy as np
import pytest

from polyjoule.dse import space
from polyjoule.errors import SpecError, UnknownNameError
from polyjoule.library.kernels import get


def test_ranges_lists_geometric():
    assert space.parse_values("8:32:8", "x").tolist() == [8, 16, 24, 32]
    assert space.parse_values("3:5", "x").tolist() == [3, 4, 5]
    assert space.parse_values("8:1024:*2", "x").tolist() == [8, 16, 32, 64, 128, 256, 512, 1024]
    assert space.parse_values("20, 60,200", "x").tolist() == [20, 60, 200]


@pytest.mark.parametrize("bad", ["9:8", "8:1024:0", "1:2:3:4", "a:b", "", "4:16:*1"])
def test_empty_or_malformed_range(bad):
    with pytest.raises(SpecError):
        space.parse_values(bad, "--size N")


def test_tied_sizes_and_product():
    k = get("gemm")
    g = space.size_grid(k, ["N=8:16:8", "NK=4,5,6"])
    assert len(g) == 6
    assert np.array_equal(g.values["NI"], g.values["NJ"])
    assert sorted(set(g.values["NK"].tolist())) == [4, 5, 6]


def test_datasets_add_points():
    k = get("gemm")
    g = space.size_grid(k, [], ["MINI", "SMALL"])
    assert g.values["NI"].tolist() == [20, 60] and g.labels.tolist() == ["MINI", "SMALL"]
    assert len(space.size_grid(k, [], ["all"])) == len(k.datasets)


def test_bad_names():
    k = get("gemm")
    with pytest.raises(UnknownNameError):
        space.size_grid(k, ["NX=4"])
    with pytest.raises(SpecError, match="not set"):
        space.size_grid(k, ["NI=4"])
    with pytest.raises(SpecError, match="no problem sizes"):
        space.size_grid(k, [])


def test_mappings():
    k = get("gemm")
    assert space.parse_arrays("4x4, 8x8,1x16") == [(4, 4), (8, 8), (1, 16)]
    assert space.parse_arrays("16,2x2") == [(1, 16), (2, 2)]  # docs/dse.md: C is 1xC
    with pytest.raises(SpecError, match="--arrays: .16y. is not ROWSxCOLS"):
        space.parse_arrays("16y")
    with pytest.raises(SpecError):
        space.parse_arrays("0x4")
    assert space.parse_tiles(["auto", "4,4,1"]) == [None, (4, 4, 1)]
    assert space.parse_orders(k, "auto,ijk,k/j/i") == [None, ("i", "j", "k"), ("k", "j", "i")]
    assert len(space.parse_orders(k, "all")) == 6
    with pytest.raises(SpecError):
        space.parse_orders(k, "ijx")
    assert space.parse_orders(k, "ijk,") == [("i", "j", "k")]  # a trailing comma is no order
    for blank in ("", ",", " , "):  # were read as auto
        with pytest.raises(SpecError, match="names no order"):
            space.parse_orders(k, blank)
    ms = space.mappings([(4, 4), (8, 8)], [None], [None, ("i", "j", "k")])
    assert len(ms) == 4 and ms[1].order_text == "i/j/k"


@pytest.mark.parametrize("joined,apart", [
    (["N0=64,N1=8"], ["N0=64", "N1=8"]),
    (["N0=4,8, N1=2:8:2"], ["N0=4,8", "N1=2:8:2"]),
    (["N0=16,32"], ["N0=16,32"]),
])
def test_one_spec_may_name_several_parameters(joined, apart):
    """``--set N0=64,N1=8`` as analyze takes it: a comma before ``NAME=`` starts the next
    parameter; a comma before a number is the next value of the same one."""
    k = get("gesummv")
    a, ta = space.parse_size_specs(k, joined + (["N1=5"] if "N1" not in joined[0] else []))
    b, tb = space.parse_size_specs(k, apart + (["N1=5"] if "N1" not in joined[0] else []))
    assert ta == tb and a.keys() == b.keys()
    assert all(a[p].tolist() == b[p].tolist() for p in a)


def test_sweep_dataset_all_without_presets_says_so():
    from polyjoule.frontends.einsum import einsum_kernel

    k = einsum_kernel("C[i] += A[i,k]*B[k]")
    with pytest.raises(SpecError, match="--dataset all: einsum has no dataset presets"):
        space.size_grid(k, [], ["all"])


def test_a_size_names_its_parameter_in_either_case():
    from polyjoule.frontends.einsum import einsum_kernel

    k = einsum_kernel("C[i,j] += A[i,k]*B[k,j]")
    given, tied = space.parse_size_specs(k, ["i=4,8", "N=3"])
    assert list(given["I"]) == [4, 8] and list(given["K"]) == [3] and tied == ["J", "K"]


def test_sizes_overlay_a_base_as_set_overlays_einsum_extents():
    from polyjoule.frontends.einsum import einsum_kernel

    k = einsum_kernel("C[i,j] += A[i,k]*B[k,j]", {"i": 5, "j": 7, "k": 3})
    g = space.size_grid(k, ["i=4,8"], [], k.datasets["default"])
    assert list(g.values["I"]) == [4, 8] and list(g.values["J"]) == [7, 7]
    tied = space.size_grid(k, ["i=4,8", "N=2"], [], k.datasets["default"])
    assert list(tied.values["J"]) == [2, 2] and list(tied.values["K"]) == [2, 2]


def test_n_that_sets_nothing_is_refused():
    """``N`` sets every parameter not given; with every one given it would be ignored."""
    from polyjoule.dse.space import parameter_names
    from polyjoule.errors import SpecError
    from polyjoule.library.kernels import get

    k = get("gesummv")
    assert parameter_names(k, {"N": 4, "N0": 8}, "--set") == {"N": 4, "N0": 8}
    with pytest.raises(SpecError, match="N sets nothing here"):
        parameter_names(k, {"N0": 8, "N1": 8, "N": 16}, "--set")
