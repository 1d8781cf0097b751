"""``map --tosa`` / ``import``: per-layer energy and cycles, summed into a total line and
JSON totals that equal ``polyjoule map`` run on each layer's workload alone."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.reports.tables import energy

runner = CliRunner()

TWO = """func.func @main(%a: tensor<1x4x16xi8>, %b: tensor<1x16x8xi8>, %c: tensor<1x8x16xi8>, %d: tensor<1x16x4xi8>) -> (tensor<1x4x8xi32>, tensor<1x8x4xi32>) {
    %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.matmul %a, %b, %z, %z : (tensor<1x4x16xi8>, tensor<1x16x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x8xi32>
    %1 = tosa.matmul %c, %d, %z, %z : (tensor<1x8x16xi8>, tensor<1x16x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x4xi32>
    return %0, %1 : tensor<1x4x8xi32>, tensor<1x8x4xi32>
}"""


def _alone(shape, *extra):
    r = runner.invoke(app, ["map", "gemm", shape, "--json", "--no-verify", *extra])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    return doc["candidates"][0]["makespan"], doc["energy"]["total_pj"]


@pytest.mark.parametrize("objective", [None, "energy"])
def test_totals_sum_the_layers_as_mapped_alone(tmp_path, objective):
    pytest.importorskip("torch_mlir")
    f = tmp_path / "two.mlir"
    f.write_text(TWO)
    extra = [] if objective is None else ["--objective", objective]
    layers = [_alone("4x16x8", *extra), _alone("8x16x4", *extra)]
    r = runner.invoke(app, ["map", "--tosa", str(f), "--json", *extra])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    t = doc["totals"]
    assert (t["layers"], t["mapped"]) == (2, 2)
    assert t["makespan"] == sum(m for m, _ in layers)
    assert t["energy_pj"] == pytest.approx(sum(e for _, e in layers))
    for layer, (m, e) in zip(doc["layers"], layers, strict=True):
        assert layer["candidates"][0]["makespan"] == m
        assert layer["candidates"][0]["energy_pj"] == pytest.approx(e)
    r = runner.invoke(app, ["map", "--tosa", str(f), *extra])
    assert r.exit_code == 0, r.output
    last = r.output.strip().splitlines()[-1]
    assert last == (f"total over 2 mapped layer(s): modelled makespan {t['makespan']:,} "
                    f"(ranking steps), {t['cycles']:,} cycles (event model), "
                    f"energy {energy(t['energy_pj'])}")


@pytest.mark.parametrize("args,needle", [
    (["--objective", "power"], "--objective: 'power'"),
    (["--target", "tcpa", "--objective", "energy"], "the mapper's options"),
])
def test_import_refuses_a_bad_objective_before_exporting(tmp_path, args, needle):
    # the module file does not exist: the objective must fail first
    r = runner.invoke(app, ["import", f"{tmp_path / 'none.py'}:M", "-i", "4x16", *args])
    assert r.exit_code == 2, r.output
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


BLOCKED = """func.func @main(%a: tensor<1x4x12xi8>, %b: tensor<1x12x20xi8>) -> tensor<1x4x20xi32> {
    %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.matmul %a, %b, %z, %z : (tensor<1x4x12xi8>, tensor<1x12x20xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x20xi32>
    return %0 : tensor<1x4x20xi32>
}"""


def test_a_blocked_layers_makespan_is_summed_over_its_blocks_everywhere(tmp_path):
    pytest.importorskip("torch_mlir")
    f = tmp_path / "blocked.mlir"
    f.write_text(BLOCKED)
    r = runner.invoke(app, ["map", "gemm", "4x12x20", "--json", "--no-verify"])
    alone = json.loads(r.stdout)["candidates"][0]
    assert alone["programs"] == 5  # N=20 > MAXDIM=16: five 4x12x4 host blocks
    r = runner.invoke(app, ["map", "--tosa", str(f), "--json"])
    doc = json.loads(r.stdout)
    cand = doc["layers"][0]["candidates"][0]
    assert cand["makespan"] == doc["totals"]["makespan"] == alone["makespan"]
    assert cand["cycles"] == doc["totals"]["cycles"] == alone["cycles"]
    assert cand["energy_pj"] == pytest.approx(alone["energy_pj"])
    r = runner.invoke(app, ["map", "--tosa", str(f)])
    assert f"cost (makespan {alone['makespan']}, emits {alone['emits']})" in r.output
    assert f"modelled makespan {alone['makespan']:,} (ranking steps)" in r.output
