"""``polyjoule map --objective energy|cycles|edp`` and ``--energy-table``: both costs shown
for every candidate, the ranking by the chosen one, bad tables one line with exit 2."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.library.workloads import get
from polyjoule.reports.tables import energy
from polyjoule.search.search import Problem, search
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.target import TinyTPUTarget

runner = CliRunner()


def _json(*args):
    r = runner.invoke(app, ["map", *args, "--json", "--no-verify", "--top", "50"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _energies(wl, shape):
    """Energy and makespan of every candidate, priced on a cycles target in-process."""
    w = get(wl)
    tgt = TinyTPUTarget(Config(MAXDIM=16))
    res = search(Problem(w, dict(zip(w.ranks, shape, strict=True))), tgt)
    return {c.label: (tgt.energy_pj(c.program), c.cost["makespan"]) for c in res.candidates}


@pytest.mark.parametrize("wl,shape", [("gemm.relu", (16, 16, 16)), ("gemm", (12, 12, 12))])
def test_objective_energy_is_sorted_by_every_candidates_energy(wl, shape):
    want = _energies(wl, shape)
    doc = _json(wl, "x".join(map(str, shape)), "--objective", "energy")
    assert doc["objective"] == "energy" and doc["objectives"] == ["energy_pj", "makespan"]
    got = [c["mapping"] for c in doc["candidates"]]
    assert got == sorted(want, key=lambda k: (want[k][0], want[k][1], k))
    for c in doc["candidates"]:
        assert c["energy_pj"] == pytest.approx(want[c["mapping"]][0])
        assert c["makespan"] == want[c["mapping"]][1]
    assert doc["chosen"]["mapping"] == got[0] == doc["energy"]["mapping"]
    assert doc["energy"]["total_pj"] == pytest.approx(doc["candidates"][0]["energy_pj"])
    assert sum(doc["energy"]["pj"].values()) == pytest.approx(doc["energy"]["total_pj"])


def test_objective_edp_is_energy_times_makespan():
    want = _energies("gemm.relu", (16, 16, 16))
    doc = _json("gemm.relu", "16x16x16", "--objective", "edp")
    edps = [c["edp"] for c in doc["candidates"]]
    assert edps == sorted(edps)
    for c in doc["candidates"]:
        pj, span = want[c["mapping"]]
        assert c["edp"] == pytest.approx(pj * span) == pytest.approx(c["energy_pj"] * c["makespan"])


def test_cycles_stays_the_default_and_shows_energy_too():
    doc = _json("gemm.relu", "16x16x16")
    assert doc["objectives"] == ["makespan", "emits"] and doc["objective"] == "cycles"
    assert doc["chosen"] == {"mapping": "N4>K4", "cost": [517, 32]}
    spans = [c["makespan"] for c in doc["candidates"]]
    assert spans == sorted(spans) and all(c["energy_pj"] > 0 for c in doc["candidates"])
    r = runner.invoke(app, ["map", "gemm.relu", "16x16x16", "--no-verify"])
    assert r.exit_code == 0, r.output
    best = energy(doc["candidates"][0]["energy_pj"])  # engineering units: 218,946.4 pJ
    assert best == "219 nJ"
    assert " energy " in r.output and f" {best} " in r.output and "makespan" in r.output


def test_text_table_under_energy_shows_both():
    r = runner.invoke(app, ["map", "gemm.relu", "16x16x16", "--objective", "energy",
                            "--no-verify"])
    assert r.exit_code == 0, r.output
    assert "by energy (pJ), then modelled makespan (the ranking model's steps, not cycles)" in r.output and " energy " in r.output
    assert "517" in r.output and "energy 219 nJ, most in: dram_read" in r.output


def test_energy_table_override_changes_the_energy(tmp_path):
    f = tmp_path / "cheap_dram.yaml"
    f.write_text("name: cheap dram\nunit_pj:\n  dram_read: {pj: 64.0, bits: 32, source: test}\n")
    base = _json("gemm", "8x8x8")
    doc = _json("gemm", "8x8x8", "--objective", "energy", "--energy-table", str(f))
    assert doc["energy_table"].endswith("cheap_dram.yaml")
    b, d = base["energy"], doc["energy"]
    # only the DRAM reads (operand bursts and the imem prefetch) change, by 10x
    for ev in b["pj"]:
        scale = 0.1 if ev in ("dram_read", "imem_load") else 1.0
        assert d["pj"][ev] == pytest.approx(b["pj"][ev] * scale), ev


@pytest.mark.parametrize("text,needle", [
    ("unit_pj:\n  mac_int8: {pj: -0.3, source: x}\n", "unit_pj.mac_int8.pj"),
    ("unit_pj:\n  sram: {pj: 1, bits: 64}\n", "unit_pj.sram"),
    ("unit_pj: [1, 2\n", "not valid YAML"),
])
def test_bad_energy_table_is_one_line_exit_2(tmp_path, text, needle):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    r = runner.invoke(app, ["map", "gemm", "8x8x8", "--energy-table", str(f)])
    assert r.exit_code == 2, r.output
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("polyjoule: error: ") and needle in err[0]
    assert str(f) in err[0]


@pytest.mark.parametrize("args,needle", [
    (["gemm", "8x8x8", "--objective", "power"], "--objective: 'power'"),
    (["--gate", "--objective", "energy"], "the gate checks published makespans"),
])
def test_bad_objective_is_one_line_exit_2(args, needle):
    r = runner.invoke(app, ["map", *args])
    assert r.exit_code == 2, r.output
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_objective_is_restored_after_the_command():
    from polyjoule.search import target as targets

    _json("gemm", "8x8x8", "--objective", "edp")
    assert targets.get("tinytpu-isa").objectives == ("makespan", "emits")


def test_a_blocked_mappings_breakdown_is_summed_over_its_programs_in_text_and_json():
    r = runner.invoke(app, ["map", "gemm", "20x16x16", "--json", "--no-verify"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    best, e = doc["candidates"][0], doc["energy"]
    assert best["programs"] == e["programs"] == 2
    assert e["counts"]["mac"] == 20 * 16 * 16
    assert e["total_pj"] == pytest.approx(sum(e["pj"].values()))
    assert e["total_pj"] == pytest.approx(best["energy_pj"])
    r = runner.invoke(app, ["map", "gemm", "20x16x16", "--no-verify"])
    assert f"energy {energy(e['total_pj'])} over its 2 programs, most in: " in r.output
