"""``polyjoule map --target tcpa``: rankings per problem size, energies with the digits
the ranking needs, relieved runs that say what their empty tables mean."""

import json

from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.cli.mapper import energy_format

runner = CliRunner()


def _map(*args):
    r = runner.invoke(app, ["map", *args, "--no-verify"])
    assert r.exit_code == 0, r.output
    return r.output


def test_several_sizes_are_ranked_each_against_its_own_size():
    doc = json.loads(_map("gesummv", "--target", "tcpa", "--set", "N=64:256:64", "--top",
                          "3", "--json"))
    sizes = [s["values"]["N0"] for s in doc["sizes"]]
    assert sizes == [64, 128, 192, 256]
    for s in doc["sizes"]:
        rows = [c for c in doc["candidates"] if c["values"] == s["values"]]
        assert len(rows) == min(3, s["encodable"]) > 0
        keys = [(c["energy_pj"], c["latency"]) for c in rows]
        assert keys == sorted(keys)
        assert s["chosen"]["mapping"] == rows[0]["mapping"]
        assert 0 < s["encodable"] <= s["nests"]
    assert sum(s["nests"] for s in doc["sizes"]) == doc["nests"]
    assert sum(s["encodable"] for s in doc["sizes"]) == doc["encodable"]
    # the absolute ranking would list only N=64 mappings: the per-size one lists all four
    assert {c["values"]["N0"] for c in doc["candidates"]} == set(sizes)


def test_several_sizes_text_has_a_best_per_size_table():
    out = _map("gesummv", "--target", "tcpa", "--set", "N=64:256:64", "--top", "2",
               "--wide")
    assert "best at each problem size" in out
    for n in (64, 128, 192, 256):
        assert f"at N0={n},N1={n} by" in out


def test_one_size_keeps_one_ranking():
    out = _map("gemm", "--target", "tcpa", "--top", "3", "--wide")
    assert "best at each problem size" not in out and "top 3 of 174 by" in out


def test_ranked_energies_read_distinct():
    """gemm's top 8 on tcpa differ by under 0.1%: three digits would show 1.81 uJ for all."""
    doc = json.loads(_map("gemm", "--target", "tcpa", "--json"))
    energies = [c["energy_pj"] for c in doc["candidates"]]
    assert len(set(energies)) == len(energies) == 8
    out = _map("gemm", "--target", "tcpa", "--wide")
    fmt = energy_format(energies)
    shown = [fmt(e) for e in energies]
    assert len(set(shown)) == 8 and all(s in out for s in shown)
    for s, e in zip(shown, energies, strict=True):  # the text is the value, rounded
        assert abs(float(s.split()[0]) * 1e6 - e) <= 0.5 * 10 ** -len(s.split()[0].split(".")[1]) * 1e6


def test_energy_format_adds_digits_only_when_needed():
    assert energy_format([1806549.251, 2_500_000.0])(1806549.251) == "1.81 uJ"
    assert energy_format([1806549.251, 1806659.38])(1806549.251) == "1.8065 uJ"
    assert energy_format([1.004, 1.001])(1.004) == "1.004 pJ"  # pJ to 3 decimals, as --json
    assert energy_format([1.0004, 1.0001])(1.0004) == "1.000 pJ"
    assert energy_format([5.0, 5.0])(5.0) == "5.00 pJ"


def test_relieved_census_says_why_it_is_empty():
    out = _map("gemm", "--target", "tcpa", "--relieve", "fd-depth", "--census", "--top", "1",
               "--wide")
    assert "refusals: none once fd-depth is relieved" in out
    assert "independent census: no predicate refuses any nest once fd-depth" in out
    assert "no other constraint refuses the mappings fd-depth refused" in out
    assert "what binds the rest next: -" not in out


def test_a_relieved_mapping_failing_simulation_says_it_is_expected():
    r = runner.invoke(app, ["map", "gemm", "--target", "tcpa", "--relieve", "fd-depth",
                            "--top", "1", "--wide"])
    assert r.exit_code == 0, r.output
    assert "FAILS (expected: it needs what --relieve fd-depth set aside" in r.output
    doc = json.loads(_map("gemm", "--target", "tcpa", "--relieve", "fd-depth", "--top", "1",
                          "--json"))
    assert doc["candidates"][0]["relieved"] == ["fd-depth"]  # why the simulation refuses it
    plain = json.loads(_map("gemm", "--target", "tcpa", "--top", "1", "--json"))
    assert plain["candidates"][0]["relieved"] == []


def test_latencies_past_2_53_rank_as_the_integers_they_are():
    """jacobi-1d at TSTEPS = 2^60 has latencies past int64 four cycles apart: ranked as
    floats they tied and came out of order (the top mapping was the slowest shown)."""
    doc = json.loads(_map("jacobi-1d", "--target", "tcpa", "--objective", "latency", "--set",
                          f"TSTEPS={2**60},N=64", "--top", "8", "--json"))
    lat = [c["latency"] for c in doc["candidates"]]
    assert len(lat) == 8 and min(lat) > 2**63 and len(set(lat)) == 8
    keys = [(c["latency"], c["energy_pj"]) for c in doc["candidates"]]
    assert keys == sorted(keys)
    best = json.loads(_map("jacobi-1d", "--target", "tcpa", "--objective", "latency", "--set",
                           f"TSTEPS={2**60},N=64", "--top", "100", "--json"))
    assert lat[0] == min(c["latency"] for c in best["candidates"])  # the fastest of all


def test_energy_format_gives_every_value_three_significant_digits():
    fmt = energy_format([356904.0, 1193424.0])  # map gemm 20x16x16: 0.36 uJ before
    assert fmt(356904.0) == "0.357 uJ" and fmt(1193424.0) == "1.193 uJ"


def _table_head(text):
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("───")
                and lines[i - 1].startswith("mapping"))
    return lines[rule - 1].split()


def test_the_ranking_at_80_columns_keeps_every_header_whole():
    r = CliRunner().invoke(app, ["map", "gemm", "8x8x8"], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    heads = _table_head(r.output)
    assert heads == ["mapping", "rows", "static", "words", "makespan", "emits", "energy",
                     "cycles", "evidence"]
    r = CliRunner().invoke(app, ["map", "gemm", "8x8x8"], env={"COLUMNS": "200"})
    assert "bottleneck" in _table_head(r.output)  # where it fits whole


def test_map_names_the_makespan_a_ranking_model_and_its_cycles_are_tinytpu_cycles(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["map", "gemm", "8x8x8", "--json"])
    best = json.loads(r.stdout)["candidates"][0]
    assert best["mapping"] == "N2>K2" and best["measured_cycles"] == 262
    prog = tmp_path / "g8.tasm"  # the shipped program: what the mapper's best re-emits
    assert runner.invoke(app, ["tinytpu", "gen", "gemm", "8x8x8", "-o", str(prog)]).exit_code == 0
    r = runner.invoke(app, ["tinytpu", "cycles", str(prog)])
    assert f"{best['cycles']} cycles (model" in r.output  # 261, the event model on both
    r = runner.invoke(app, ["map", "gemm", "8x8x8"], env={"COLUMNS": "80"})
    assert "makespan (cycles)" not in r.output
    assert "by modelled makespan (the ranking model's steps, not" in r.output
    assert "cycles: the event model's estimate on this build" in r.output
    r = runner.invoke(app, ["map", "gemm", "8x8x8", "--wide"])
    assert "measured (cosim 262, QD=8 build)" in r.output
