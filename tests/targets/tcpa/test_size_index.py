"""The search ranks mappings per size: each point's size index, computed by mixed radix over
each parameter's distinct values, equals a row sort of the points' sizes (``np.unique`` over
rows, what it replaced), on dense and sparse grids."""

from __future__ import annotations

import types

import numpy as np
import pytest

from polyjoule.targets.tcpa.target import _size_index


def _block(values: dict[str, np.ndarray], shape: tuple[int, int]) -> types.SimpleNamespace:
    return types.SimpleNamespace(mapping=types.SimpleNamespace(values=values),
                                 price={"latency": np.zeros(shape)})


@pytest.mark.parametrize("top", [10, 10**6])  # dense table, sparse keys
def test_size_index_equals_a_row_sort(top: int) -> None:
    rng = np.random.default_rng(top)
    for _ in range(60):
        params = ["N", "M", "K"][:int(rng.integers(1, 4))]
        blocks = []
        for _ in range(int(rng.integers(1, 4))):
            shape = (int(rng.integers(1, 6)), int(rng.integers(1, 4)))
            blocks.append(_block({p: rng.integers(1, top, size=(shape[0], 1)) for p in params},
                                 shape))
        size, uniq = _size_index(blocks, params)
        rows = np.stack([np.concatenate([
            np.broadcast_to(b.mapping.values[p], b.price["latency"].shape).reshape(-1)
            for b in blocks]) for p in params], axis=1)
        want_uniq, want_size = np.unique(rows, axis=0, return_inverse=True)
        assert np.array_equal(uniq, want_uniq)
        assert np.array_equal(size, want_size.reshape(-1))
