"""Tile sizes as they take effect: a user's size beyond its dim is one tile of the extent,
and the symbolic numbers at such a size are the simulator's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.frontends.resolve import kernel_from
from polyjoule.mapping.tiling import Tiling

runner = CliRunner()
TRI = """void tri(int N, float A[N][N], float x[N], float y[N]) {
  for (int i = 0; i < N; i++) {
    y[i] = 0;
    for (int j = 0; j <= i; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""
#: coupled dims of different extents: i over N, j over N + W - 1
BAND = """void band(int N, int W, float A[N][N + W - 1], float x[N + W - 1], float y[N]) {
  for (int i = 0; i < N; i++) {
    y[i] = 0;
    for (int j = i; j < i + W; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""


def _file(tmp_path: Path, name: str, text: str) -> str:
    src = tmp_path / name
    src.write_text(text)
    return str(src)


def _json(args: list[str]) -> dict:
    r = runner.invoke(app, [*args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_a_tile_beyond_its_dim_is_one_tile_of_the_extent(tmp_path: Path) -> None:
    """``--tile 1000,1000`` at N=10 on 4x4 gave 9,012 cycles (the schedule stepped over
    the tile's empty rows) where ``10,10``, the same one tile per dim, gives 102; the
    simulator ran the large tile the same way, so both now take the extent."""
    src = _file(tmp_path, "tri.c", TRI)
    base = ["--array", "4x4", "--set", "N=10"]
    big, exact = (_json(["analyze", src, *base, "--tile", t]) for t in ("1000,1000", "10,10"))
    assert big["tile_sizes"] == exact["tile_sizes"] == {"tri": [10, 10]}
    assert (big["latency_cycles"], big["counts"]) == (exact["latency_cycles"], exact["counts"])
    sim = _json(["simulate", src, *base, "--tile", "1000,1000"])
    assert sim["makespan_cycles"] == big["latency_cycles"] == 102
    assert {c: sim["counts"][c] for c in ("RD", "FD", "ID", "OD", "IOb", "DR")} == {
        c: big["counts"][c] for c in ("RD", "FD", "ID", "OD", "IOb", "DR")}


@pytest.mark.parametrize("tile, array, sizes", [
    ("1000,1000", "4x4", "N=5,W=3"), ("6,1000", "2x2", "N=7,W=2"), ("1000,4", "2x3", "N=4,W=4"),
    ("9,9", "2x2", "N=6,W=4"),
])
def test_band_tiles_beyond_a_dim_agree_with_the_simulator(tmp_path: Path, tile: str,
                                                          array: str, sizes: str) -> None:
    """One size given to dims of different extents keeps being one size (the counts share
    its ``p``): cut to the larger extent. ``validate`` compares the symbolic counts, energy
    and latency with the simulator's."""
    src = _file(tmp_path, "band.c", BAND)
    r = runner.invoke(app, ["validate", src, "--array", array, "--set", sizes, "--tile", tile])
    assert r.exit_code == 0, r.output
    assert "DIFFERS" not in r.output


def test_sizes_take_the_extent_only_for_a_users_tiles(tmp_path: Path) -> None:
    pra = kernel_from(_file(tmp_path, "band.c", BAND)).phases[0]
    vals = {"N": 5, "W": 3}  # extents 5 (i) and 7 (j)
    assert [int(p) for p in Tiling.of(pra, (4, 4), (1000, 1000)).sizes_many(pra, vals)] == [7, 7]
    assert [int(p) for p in Tiling.of(pra, (4, 4), (1000, 6)).sizes_many(pra, vals)] == [5, 6]
    # a tiling the mapspace builds is taken as given
    assert [int(p) for p in Tiling((4, 4), (4, 4), (1000, 6)).sizes_many(pra, vals)] == [1000, 6]


def test_a_dim_off_the_array_takes_a_size_at_least_its_extent(tmp_path: Path) -> None:
    """``--tile 3,11`` for j of extent 9 off a 1x4 array was refused ("give 9"); a size
    beyond the extent is that one tile, as on a tiled dim. A smaller one is still refused."""
    src = _file(tmp_path, "tri.c", TRI)
    base = ["analyze", src, "--array", "1x4", "--set", "N=9"]
    big, exact = _json([*base, "--tile", "3,11"]), _json([*base, "--tile", "3,9"])
    assert (big["latency_cycles"], big["counts"]) == (exact["latency_cycles"], exact["counts"])
    r = runner.invoke(app, [*base, "--tile", "3,5"])
    assert r.exit_code == 2 and "--tile: 5 for j, which is not on the array" in r.output
