"""``polyjoule map``: output, JSON, gate verdict, and one-line errors with exit 2."""

import json

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, ["map", *args])


def test_search_output_names_evidence_and_margin():
    r = _run("gemm.relu", "16x16x16", "--top", "3", "--census")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "gemm.relu 16x16x16 on tinytpu-isa (T=4, MAXDIM=16" in out
    assert ": 1226 nests, 5 encodable" in out
    assert "measured (cosim 750, QD=8 build)" in out and "modelled" in out
    assert "chosen: N4>K4  cost (517, 32)" in out
    assert "1.24x" in out and "beyond the error bar" in out
    assert "930" in out and "independent census" in out
    assert "M4>N4>K4" not in out  # --top 3


def test_json_output():
    r = _run("gemm.relu", "M=16,K=16,N=16", "--json", "--census")
    doc = json.loads(r.stdout)
    assert doc["nests"] == 1226 and doc["encodable"] == 5
    assert {c["cause"]: c["first"] for c in doc["census"]} == {
        "acc-split": 897, "acc-position": 253, "ar-distance": 55, "AGU_TERMS": 13,
        "LOOP_DEPTH": 3}
    assert doc["independent"]["ar-distance"] == 930
    assert doc["chosen"] == {"mapping": "N4>K4", "cost": [517, 32]}
    assert doc["candidates"][1]["mapping"] == "M2>N4>K4"
    assert doc["candidates"][0]["evidence"] == "measured (cosim 750, QD=8 build)"


def test_relieve_output():
    r = _run("gemm.relu", "16x16x16", "--relieve", "acc-position", "--json")
    doc = json.loads(r.stdout)
    assert doc["relieve"]["alone"] == 62
    assert "acc-position" not in {c["cause"] for c in doc["census"]}


def test_gate_verdict_line():
    r = _run("--gate")
    assert r.exit_code == 0, r.output
    assert r.output.strip().splitlines()[-1] == (
        "MAPPER GATE OK: 12/12 problems, every encodable mapping verified")


def test_list():
    r = _run("--list")
    assert r.exit_code == 0 and "gemm.sum.relu" in r.output and "tinytpu-isa" in r.output


@pytest.mark.parametrize("args,needle", [
    (("conv", "16x16x16"), "unknown workload 'conv'; registered: gemm, gemm.relu"),
    (("gemm", "16x16"), "2 extents for the 3 ranks"),
    (("gemm", "8x6x8"), "not a multiple of any tinytpu-isa intrinsic (K=6"),
    (("gemm", "M=8,X=8,N=8"), "gemm has no rank 'X'"),
    (("gemm", "8xfoox8"), "is not an integer"),
    (("gemm.sum", "32x32x32"), "every nest was refused"),  # gemm: host blocks
    (("gemm", "8x8x8", "--relieve", "speed"), "not a constraint tinytpu-isa can relieve"),
    (("gemm", "8x8x8", "--target", "gpu"), "unknown target 'gpu'"),
    (("gemm", "8x8x8", "--top", "-1"), "--top: -1 is not a positive"),
    ((), "give WORKLOAD and SHAPE"),
])
def test_bad_input_is_one_line_exit_2(args, needle):
    r = _run(*args)
    assert r.exit_code == 2, r.output
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("polyjoule: error: ") and needle in err[0]
    assert "Traceback" not in r.output and r.exception is None or isinstance(
        r.exception, SystemExit)


def test_json_names_the_objectives_and_the_targets_margin():
    doc = json.loads(_run("gemm", "8x8x8", "--json", "--no-verify").stdout)
    assert doc["objectives"] == ["makespan", "emits"]
    assert doc["candidates"][0]["makespan"] == doc["chosen"]["cost"][0] == 115
    m = doc["margin"]
    assert m["unit"] == "cycles" and m["exceeds_error_bar"] and "worst residual" in m["basis"]


class _Bare:
    """A target answering only the required questions (exact 2x2x2 tiles, cost = loops)."""

    name = "bare"
    objectives = ("loops",)

    def mapspace(self, workload, extents):
        from polyjoule.search.mapspace import Mapspace

        return Mapspace(({"M": 2, "K": 2, "N": 2},), exact=False)

    def lower(self, workload, extents, nest, relieve=frozenset()):
        return nest

    def price(self, program, *, charge_control=True):
        from polyjoule.search.cost import Cost, Priced

        return Priced(Cost(self.objectives, (len(program),)))

    def verify(self, workload, extents, program, seed=0):
        return True


def test_a_target_with_only_the_required_questions():
    from polyjoule.search import target

    target.register(_Bare())
    r = _run("gemm", "5x3x2", "--target", "bare", "--top", "2")
    assert r.exit_code == 0, r.output
    assert "gemm 5x3x2 on bare" in r.output and "candidates by loops" in r.output
    assert "bare has no error bar" in r.output
    r = _run("--gate", "--target", "bare")
    assert r.exit_code == 2 and "bare publishes no problem set" in r.stderr


def test_json_names_the_build_it_ran_on():
    """Every output names its machine: the default build, or the one --machine chose."""
    default = json.loads(_run("gemm.relu", "16x16x16", "--json").stdout)
    other = json.loads(_run("gemm.relu", "16x16x16", "--json", "--machine", "maxdim64").stdout)
    assert default["machine"].startswith("build maxdim16:") and "MAXDIM=16" in default["machine"]
    assert other["machine"].startswith("build maxdim64:") and "MAXDIM=64" in other["machine"]
