"""The iteration-space walk (point by point) against the symbolic volumes (Barvinok): two
independent computations of how many dependence instances stay in a tile (FD) or cross one
(ID), and the geometry the report draws from the walk."""

from collections import Counter

import pytest

from polyjoule.analysis import analyze
from polyjoule.library.kernels import get
from polyjoule.reports import svg_space


def _symbolic(result, phase: str) -> Counter:
    out: Counter = Counter()
    for v in result.volumes:
        if v.phase == phase and v.cls in ("FD", "ID"):
            out[(v.statement, v.cls)] += v.value
    return out


def test_worked_example_of_the_paper():
    """GESUMMV 4 x 5, tiles 2 x 3: the propagation of y has 12 FD and 4 ID instances."""
    pra = get("gesummv").phases[0]
    arrows = svg_space.walk(pra, {"N0": 4, "N1": 5}, (2, 3))
    counts = Counter((a.statement, a.cls) for a in arrows)
    assert counts[("S10", "FD")] == 12 and counts[("S10", "ID")] == 4
    crossing = [a for a in arrows if a.statement == "S10" and a.cls == "ID"]
    assert {(a.tail[1], a.head[1]) for a in crossing} == {(2, 3)}  # the tile border i1 = 3


@pytest.mark.parametrize(("kernel", "array", "tile", "size"), [
    ("gesummv", (2, 2), None, 7),
    ("gesummv", (3, 2), (3, 4), 7),
    ("gemm", (2, 2), None, 5),
    ("2mm", (2, 3), None, 5),
    ("atax", (1, 3), None, 7),
    ("bicg", (2, 2), None, 6),
    ("covariance", (2, 2), None, 5),
    ("symm", (2, 2), None, 6),
    ("syr2k", (2, 2), None, 5),
    ("trisolv", (1, 2), None, 7),
    ("trmm", (2, 2), None, 6),
    ("gemver", (2, 2), None, 6),
])
def test_walk_equals_symbolic_volumes(kernel, array, tile, size, cache):
    k = get(kernel)
    least = {p: lo for ph in k.phases for p, lo in ph.param_min}
    values = {p: max(size + n, least.get(p, 1)) for n, p in enumerate(k.params)}
    a = analyze(k, array=array, tile=tile, values=values, store=cache)
    r = a.evaluate(values)
    seen = 0
    for ph in a.phases:
        walked = Counter((x.statement, x.cls) for x in
                         svg_space.walk(ph.pra, values, r.tile_sizes[ph.pra.name]))
        assert walked == +_symbolic(r, ph.pra.name), ph.pra.name
        seen += sum(walked.values())
    assert seen > 0


def test_panel_geometry_of_the_worked_example():
    pra = get("gesummv").phases[0]
    values, sizes = {"N0": 4, "N1": 5}, (2, 3)
    pts = svg_space.points(pra, values)
    arrows = svg_space.walk(pra, values, sizes, pts)
    s10 = next(s for s in pra.statements if s.id == "S10")
    p = svg_space.panel(pra, s10, values, sizes, pts, arrows)
    assert p.plane == ("i0", "i1") and p.fixed == ""
    assert len(p.dots) == 20 and len(p.tiles) == 4
    assert p.counts == {"FD": 12, "ID": 4}
    # the ID arrows end in the second column of tiles, the FD ones never leave their tile
    border = svg_space.MARGIN + svg_space.CELL * 3
    assert all(a["x1"] < border < a["x2"] for a in p.arrows if a["cls"] == "ID")
    assert not any(a["x1"] < border < a["x2"] for a in p.arrows if a["cls"] == "FD")


def test_three_dims_are_drawn_as_the_plane_of_the_dependence():
    """GEMM: c accumulates along k (untiled on a 2x2 array): its plane holds k."""
    pra = get("gemm").phases[0]
    values = {"NI": 4, "NJ": 4, "NK": 3}
    pts = svg_space.points(pra, values)
    arrows = svg_space.walk(pra, values, (2, 2, 3), pts)
    for s in svg_space.propagations(pra):
        p = svg_space.panel(pra, s, values, (2, 2, 3), pts, arrows)
        moved = {pra.dims[l].name for l, d in enumerate(s.dep) if d}
        assert moved <= set(p.plane), (s.id, p.plane)
        assert p.fixed.count("=") == 1
        assert sum(p.counts.values()) == len(p.arrows) > 0


def test_too_large_a_space_is_refused():
    pra = get("gemm").phases[0]
    with pytest.raises(ValueError, match="too many"):
        svg_space.points(pra, {"NI": 100, "NJ": 100, "NK": 100})
