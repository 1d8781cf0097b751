"""nn.Linear's bias through vadd: the gemm.bias program run on the reference model vs numpy."""

import numpy as np
import pytest

from polyjoule.library.workloads import get
from polyjoule.search.search import Problem, search
from polyjoule.targets.tinytpu import builds, refmodel
from polyjoule.targets.tinytpu.isa import Op
from polyjoule.targets.tinytpu.target import TinyTPUTarget


@pytest.mark.parametrize(("build", "shape"), [("maxdim16", (4, 8, 8)),
                                              ("maxdim64", (4, 16, 16)),
                                              ("maxdim64", (8, 32, 16))])
def test_linear_with_bias_maps_through_vadd_and_equals_numpy(build, shape):
    cfg = builds.load(build).cfg
    M, K, N = shape
    res = search(Problem(get("gemm.bias"), dict(zip("MKN", shape, strict=True))),
                 TinyTPUTarget(cfg))
    prog = res.best.program
    assert any(x.op == Op.VADD for x in prog.instrs)  # the bias is summed by vadd
    rng = np.random.default_rng(7)
    x, w, b = (rng.integers(-12, 12, s) for s in ((M, K), (K, N), (N,)))
    md, T, pl = cfg.MAXDIM, cfg.T, prog.placement
    A = rng.integers(-128, 128, (md, md)).astype(np.int8)  # garbage outside the operands
    B = rng.integers(-128, 128, (md, md)).astype(np.int8)
    ones, bias = np.zeros((M, K)), np.zeros((K, N))
    ones[:, 0], bias[0] = 1, b
    for img, where, name, v in ((A, pl.acts, "A", x), (A, pl.acts, "ONES", ones),
                                (B, pl.wgts, "B", w), (B, pl.wgts, "BIAS", bias)):
        r0, cb, _ = where[name]
        img[r0:r0 + v.shape[0], cb * T:cb * T + v.shape[1]] = v
    C = refmodel.run(list(prog.instrs), A, B, np.zeros((md, md), np.int8), cfg)
    assert np.array_equal(C[:M, :N], np.clip(x @ w + b, -128, 127))


def test_a_16_wide_bias_does_not_fit_the_maxdim16_images():
    """The bias term carries the full K rank: Linear(16, 16) needs 32 weight columns."""
    res = search(Problem(get("gemm.bias"), {"M": 4, "K": 16, "N": 16}),
                 TinyTPUTarget(builds.load("maxdim16").cfg))
    assert res.best is None and "capacity" in {r.cause for r in res.census.rows()}
