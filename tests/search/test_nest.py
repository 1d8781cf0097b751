"""Nests and refusals: labels, the intrinsic band, coverage (exact and partial)."""

import pytest

from polyjoule.errors import Kind, Refused
from polyjoule.search import nest as nest_mod
from polyjoule.search.nest import (
    INTRINSIC,
    MapLoop,
    check_coverage,
    check_sequential,
    emitted_order,
    order,
    peel_intrinsic,
    refuse,
)


def test_refused_carries_every_cause_with_its_kind():
    with pytest.raises(Refused) as e:
        refuse([("acc-position", "k not innermost"), ("ar-distance", "rows 2"),
                ("acc-position", "dup")], {"ar-distance": Kind.REFUSE})
    r = e.value
    assert r.cause == "acc-position" and r.also == ("acc-position", "ar-distance")
    assert str(r) == "acc-position: k not innermost"
    assert r.kind("ar-distance") is Kind.REFUSE and r.kind() is Kind.EXPRESS
    assert r.kinds == {"acc-position": Kind.EXPRESS, "ar-distance": Kind.REFUSE}
    refuse([])  # nothing found: no raise
    assert nest_mod.Refused is Refused and nest_mod.Kind is Kind  # one class, re-exported


def test_loop_defaults_and_labels():
    lp = MapLoop("N", 4)
    assert (lp.level, lp.spatial) == ("outer", False)
    nest = (MapLoop("N", 4), MapLoop("K", 4), MapLoop("M", 16, INTRINSIC),
            MapLoop("K", 4, INTRINSIC))
    assert order(nest) == "N4>K4>M16>K4"
    assert emitted_order(nest) == "N4>K4"
    assert emitted_order(nest[2:]) == "-" and order(()) == "-"


def test_peel_intrinsic_and_checks():
    nest = (MapLoop("N", 4), MapLoop("M", 16, INTRINSIC), MapLoop("K", 4, INTRINSIC))
    emitted, tile = peel_intrinsic(nest)
    assert emitted == (MapLoop("N", 4),) and tile == {"M": 16, "K": 4}
    for bad in ((), (MapLoop("N", 4),), (MapLoop("M", 2, INTRINSIC), MapLoop("N", 4),
                                         MapLoop("K", 4, INTRINSIC))):
        with pytest.raises(Refused, match="intrinsic"):
            peel_intrinsic(bad)
    assert check_coverage(nest, {"M": 16, "K": 4, "N": 4}) == []
    assert check_coverage(nest, {"M": 16, "K": 8, "N": 4})[0][0] == "coverage"
    assert check_coverage(nest, {"M": 16, "K": 4})[0][0] == "coverage"  # unknown rank N
    assert check_sequential((MapLoop("N", 4, spatial=True),))[0][0] == "spatial"


def test_partial_coverage_accepts_a_short_last_tile_only():
    band = (MapLoop("M", 4, INTRINSIC),)
    ext = {"M": 10}
    assert check_coverage((MapLoop("M", 3), *band), ext)  # 12 != 10: exact refuses
    assert check_coverage((MapLoop("M", 3), *band), ext, exact=False) == []  # 4, 4, 2
    assert check_coverage((MapLoop("M", 2), *band), ext, exact=False)  # 8 < 10
    # 4 trips of 4 cover 16: the last trip lies wholly past 10
    assert check_coverage((MapLoop("M", 4), *band), ext, exact=False)
    assert check_coverage(band, {"M": 3}, exact=False) == []  # one tile, cut short
