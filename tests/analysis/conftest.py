"""An independent witness for symbolic volumes: walk the tiled iteration space."""

from __future__ import annotations

import itertools

import pytest

from polyjoule.mapping.tiling import Tiling
from polyjoule.model.pra import PRA


def brute_counts(pra: PRA, array: tuple[int, int], values: dict[str, int],
                 tile: tuple[int, ...] | None = None) -> dict[tuple[str, str], int]:
    """Count every (statement, case) by walking the iteration space point by point."""
    tiling = Tiling.of(pra, array, tile)
    p = tiling.sizes(pra, values)
    out: dict[tuple[str, str], int] = {}
    ranges = []
    for d in pra.dims:
        ranges.append(range(0, d.extent.evaluate(values)))
    for point in itertools.product(*ranges):
        env = dict(values)
        env.update({d.name: x for d, x in zip(pra.dims, point, strict=True)})
        if not all(c.holds(env) for c in pra.domain()):
            continue
        for s in pra.statements:
            if not all(c.holds(env) for c in s.when):
                continue
            if s.kind in ("input", "output", "compute"):
                key = (s.id, s.kind)
            elif not any(s.dep):
                key = (s.id, "zero")
            else:
                crossed = [pra.dims[l].name for l, d in enumerate(s.dep)
                           if d and not 0 <= point[l] % p[l] - d < p[l]]
                key = (s.id, f"inter({','.join(crossed)})" if crossed else "intra")
            out[key] = out.get(key, 0) + 1
    return out


@pytest.fixture(name="brute_counts")
def _brute_counts_fixture():
    return brute_counts
