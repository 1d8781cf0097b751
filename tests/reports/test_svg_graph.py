"""The reduced dependence graph: edges from the PRA, layers that put every value after its
writer within an iteration."""

from polyjoule.library.kernels import get
from polyjoule.reports import svg_graph


def test_gesummv_edges():
    pra = get("gesummv").phases[0]
    edges = svg_graph.edges(pra, [True, True])
    got = {(e.source, e.target, e.cls, e.dep) for e in edges}
    assert ("in:X", "S1", "DR", None) in got and ("S14", "out:Y", "DR", None) in got
    # y propagates along i1 (tiled): from both writers of y, inside a tile or across one
    for writer in ("S11", "S12"):
        assert {(writer, "S10", c, (0, 1)) for c in ("FD", "ID")} <= got
    assert ("S5", "S9", "RD", None) in got  # t read at distance zero
    # on a 1 x 1 array nothing crosses a tile: no ID edge at all
    assert {e.cls for e in svg_graph.edges(pra, [False, False])} == {"DR", "RD", "FD"}


def test_layers_follow_zero_distance_edges():
    for name in ("gesummv", "gemm", "jacobi-2d", "trisolv"):
        pra = get(name).phases[0]
        g = svg_graph.layout(pra, [True] * min(2, pra.n) + [False] * (pra.n - 2))
        y = {n["id"]: n["y"] for n in g.nodes}
        for e in svg_graph.edges(pra, [True] * pra.n):
            if not any(e.dep or ()):
                assert y[e.source] < y[e.target], (name, e)
        assert len({(n["x"], n["y"]) for n in g.nodes}) == len(g.nodes)  # no two on one spot
        assert all(0 <= n["x"] and n["x"] + n["w"] <= g.width for n in g.nodes)
