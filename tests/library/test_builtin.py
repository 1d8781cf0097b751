"""Every built-in kernel: its PRA, executed by brute force, computes its numpy reference."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import polybench_facts  # noqa: E402
from pra_brute import env, execute, kernel_counts, random_inputs  # noqa: E402

from polyjoule.library import kernels as registry  # noqa: E402

POLYBENCH = polybench_facts.load()  # PolyBench/C 4.2.1 facts, inside the repository

REQUIRED = {"gemm", "gesummv", "bicg", "syrk", "syr2k", "trmm", "trisolv", "symm",
            "jacobi-1d", "jacobi-2d", "2mm", "atax", "mvt"}
MULTI_PHASE = {"2mm", "atax", "mvt", "3mm", "gemver", "doitgen"}
ALL = sorted(registry.names())


def _check(name: str, values: dict[str, int], seed: int = 0) -> None:
    k = registry.get(name)
    inputs = random_inputs(k, values, seed)
    out = execute(k, values, inputs)
    assert k.reference is not None
    ref = k.reference(inputs, env(k, values))
    written = {t.name for ph in k.phases for t in ph.tensors if t.kind != "input"}
    assert set(ref) <= written, f"{name}: reference returns tensors the PRA never writes"
    for t in ref:
        np.testing.assert_allclose(out[t], ref[t], rtol=1e-10, atol=1e-10, err_msg=f"{name}: {t}")


def test_registry_has_every_required_kernel() -> None:
    assert REQUIRED <= set(registry.names())
    for n in registry.names():
        k = registry.get(n)
        assert k.reference is not None, n
        assert list(k.datasets) == ["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"], n
        assert set(k.datasets["MINI"]) == set(k.params), n
    for n in MULTI_PHASE:
        assert len(registry.get(n).phases) >= 2


@pytest.mark.parametrize("name", ALL)
def test_pra_computes_reference_at_mini(name: str) -> None:
    _check(name, dict(registry.get(name).datasets["MINI"]))


@pytest.mark.parametrize("name", ALL)
def test_pra_at_smallest_and_odd_parameters(name: str) -> None:
    """Parameter minima and small, unequal sizes: boundary cases of every condition space."""
    k = registry.get(name)
    mins = {p: lo for ph in k.phases for p, lo in ph.param_min}
    _check(name, mins, seed=1)
    odd = {p: mins[p] + 2 + 3 * i for i, p in enumerate(k.params)}
    _check(name, odd, seed=2)


def test_datasets_match_polybench() -> None:
    data = POLYBENCH
    for n in set(ALL) - {"gesummv"}:  # gesummv uses independent N0, N1 (Nirmala et al.)
        for ds, vals in registry.get(n).datasets.items():
            assert vals == {p: v[ds] for p, v in data[n]["params"].items()}, (n, ds)


#: multiplications / divisions the PRA saves against PolyBench's C, with the reason
OP_DELTA = {
    # alpha factored out of the two products: alpha*(A B^T + B A^T) per point
    "syr2k": {"mul": lambda v: -v["M"] * v["N"] * (v["N"] + 1) // 2},
    # at i == 0 temp2 is 0: the diagonal statement drops its alpha*temp2 product
    "symm": {"mul": lambda v: -v["N"]},
    # coefficients are immediates (C: 11 mul + 1 div once); the first points of each filter
    # drop the products with states that are still 0.0 (4+5 per row and per column)
    "deriche": {"mul": lambda v: -9 * v["W"] - 9 * v["H"] - 11, "div": lambda v: -1},
}


@pytest.mark.parametrize("name", ALL)
def test_operation_counts_match_polybench(name: str) -> None:
    """mul/div counts equal PolyBench's ops x dynamic instances (polybench_facts.json, MINI)."""
    data = POLYBENCH[name]
    values = {p: v["MINI"] for p, v in data["params"].items()}
    if name == "gesummv":
        values = {"N0": values["N"], "N1": values["N"]}
    want: dict[str, int] = {}
    for st in data["statements"]:
        for op, n in st["ops"].items():
            want[op] = want.get(op, 0) + n * st["instances_MINI"]
    got = kernel_counts(registry.get(name), values)["ops"]
    delta = OP_DELTA.get(name, {})
    for op in ("mul", "div"):
        assert got[op] == want.get(op, 0) + delta.get(op, lambda v: 0)(values), op


@pytest.mark.parametrize("name", ["gesummv", "syrk", "jacobi-1d"])
def test_tiled_transport_split(name: str) -> None:
    """Every transport instance lands in exactly one of intra / inter, whatever the tiling."""
    k = registry.get(name)
    v = dict(k.datasets["MINI"])
    base = kernel_counts(k, v)
    for array in ((2, 2), (1, 4), (3, 2)):
        c = kernel_counts(k, v, array)
        assert c["kinds"]["intra"] + c["kinds"]["inter"] == base["kinds"]["intra"]
        assert c["ops"] == base["ops"]


def test_gesummv_worked_example() -> None:
    """Sheet §3: y propagation on a 4x5 space with 2x3 tiles: 12 intra, 4 inter."""
    from pra_brute import counts

    pra = registry.get("gesummv").phases[0]
    c = counts(pra, {"N0": 4, "N1": 5}, (2, 2), (2, 3))
    assert c["cases"][("S10", "intra")] == 12
    assert c["cases"][("S10", "inter")] == 4


@pytest.mark.parametrize("name", registry.names())
def test_builtin_passes_the_semantic_checks(name: str) -> None:
    """Built-ins load without the loader's semantic checks (one writer per point, shapes,
    subscripts, transports' sources, computes' operands: 50-200 ms of isl a kernel); this
    runs them once: a built-in loads the same with them."""
    from polyjoule.frontends.pra_yaml import load_kernel_data

    checked = load_kernel_data(registry._data(name), f"<built-in {name}.yaml>", checked=True)
    assert checked.phases == registry.get(name).phases
