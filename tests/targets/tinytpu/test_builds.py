"""Builds as data: shipped build files, --machine on every command, build records."""

import pytest
from typer.testing import CliRunner

from polyjoule.cli import app
from polyjoule.errors import BuildFileError, BuildMismatchError, PolyjouleError
from polyjoule.search import target as targets
from polyjoule.targets.tinytpu import builds
from polyjoule.targets.tinytpu.params import Config
from polyjoule.targets.tinytpu.target import PUBLISHED

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [*map(str, args)])


def test_shipped_builds_and_the_default_is_the_published_mapper_build():
    assert set(builds.shipped()) >= {"maxdim16", "maxdim64", "t8", "agu4", "depth6",
                                     "agu4-depth6-imem104"}
    assert builds.load().name == "maxdim16" and builds.load().cfg == PUBLISHED
    assert builds.load("maxdim64").cfg == Config(MAXDIM=64)
    assert builds.load("t8").cfg == Config(T=8, MAXDIM=64)
    v = builds.load("agu4-depth6-imem104").cfg
    assert (v.AGU_TERMS, v.LOOP_DEPTH, v.IMEM_SIZE, v.MAX_STATIC) == (4, 6, 104, 48)
    assert builds.name_of(Config(T=8, MAXDIM=64)) == "t8"
    assert builds.name_of(Config(MAXDIM=32)) is None


@pytest.mark.parametrize("text, fragment", [
    ("T: 4\nMAXDM: 16\n", "MAXDM: unknown field (known: description, T, MAXDIM,"),
    ("T: 4\nMAXDIM: 18\n", "MAXDIM: MAXDIM=18 is not a multiple of T=4"),
    ("QD: sixteen\n", "QD: must be a whole number (got 'sixteen')"),
    ("LOOP_DEPTH: 9\n", "LOOP_DEPTH"),
    ("- 1\n", "a mapping"),
])
def test_bad_build_file_names_file_and_field(tmp_path, text, fragment):
    p = tmp_path / "b.yaml"
    p.write_text(text)
    with pytest.raises(BuildFileError, match=f"^{p}: .*") as e:
        builds.load(p)
    assert fragment in str(e.value)


def test_record_round_trips_and_a_foreign_program_is_refused(tmp_path):
    b64 = builds.load("maxdim64")
    assert builds.recorded(builds.record(b64), "x").cfg.describe() == b64.cfg.describe()
    p = tmp_path / "g.tasm"
    p.write_text(builds.record(b64) + "\nnop\n")
    builds.require_same(p, b64)
    with pytest.raises(BuildMismatchError, match="made for build maxdim64.*MAXDIM=64"):
        builds.require_same(p, builds.load())


@pytest.mark.parametrize("suffix", [".tasm", ".thex"])
def test_program_for_another_build_is_exit_2_not_priced_on_the_default(tmp_path, suffix):
    p = tmp_path / f"g{suffix}"
    r = invoke("tinytpu", "gen", "gemm", "16x16x16", "-o", p, "--machine", "maxdim64")
    assert r.exit_code == 0 and "# build maxdim64" in r.output
    for cmd in ("check", "run", "cycles", "disasm"):
        r = invoke("tinytpu", cmd, p)
        assert r.exit_code == 2 and "pass --machine maxdim64" in r.output, (cmd, r.output)
    r = invoke("tinytpu", "cycles", p, "--machine", "maxdim64")
    # the published cosim figure at MAXDIM=64, QD=16 is 868 (sheet §14)
    assert r.exit_code == 0 and "868 cycles" in r.output


def test_every_output_starts_with_the_build(tmp_path):
    p = tmp_path / "g.tasm"
    r = invoke("tinytpu", "gen", "gemm", "8x8x8", "-o", p)
    assert r.output.startswith("# build maxdim16: T=4 MAXDIM=16")
    r = invoke("tinytpu", "disasm", p, "--machine", "maxdim16")
    assert r.output.startswith("# build maxdim16") and r.exit_code == 0


def test_gen_flat_never_writes_a_program_check_refuses(tmp_path):
    p = tmp_path / "f.tasm"
    r = invoke("tinytpu", "gen", "gemm", "16x16x16", "--flat", "-o", p)
    assert r.exit_code == 2 and "imem.overflow" in r.output and not p.exists()
    r = invoke("tinytpu", "gen", "gemm", "16x16x16", "--flat", "-o", p, "--machine",
               "agu4-depth6-imem104")
    # 28 flat instructions fit the 48 of IMEM_SIZE=104, and check accepts what gen wrote
    assert r.exit_code == 0 and p.exists()
    r = invoke("tinytpu", "check", p, "--machine", "agu4-depth6-imem104")
    assert r.exit_code == 0 and "28 static instructions" in r.output


def test_map_machine_runs_the_search_on_that_build_and_restores_the_default():
    r = invoke("map", "gemm", "16x16x16", "--machine", "agu4", "--top", "1", "--no-verify")
    assert r.exit_code == 0 and "AGU_TERMS=4" in r.output
    assert targets.get("tinytpu-isa").cfg == PUBLISHED
    r = invoke("map", "gemm", "32x32x32", "--top", "1", "--no-verify")
    assert r.exit_code == 0 and "chosen: M4>N4" in r.output  # 32 > MAXDIM=16: host blocks
    r = invoke("map", "gemm", "32x32x32", "--machine", "maxdim64", "--top", "1", "--no-verify")
    assert r.exit_code == 0 and "MAXDIM=64" in r.output and "chosen: N8>K8" in r.output


def test_unknown_machine_is_one_line_exit_2():
    r = invoke("map", "gemm", "4x4x4", "--machine", "nosuch")
    assert r.exit_code == 2 and "neither a shipped build" in r.output


def test_map_prints_its_build_first_and_json_stays_json():
    import json

    r = invoke("map", "gemm", "4x4x4", "--no-verify", "--top", "1")
    assert r.exit_code == 0 and r.output.startswith("# build maxdim16: T=4 MAXDIM=16")
    r = invoke("map", "gemm", "4x4x4", "--no-verify", "--top", "1", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["encodable"] >= 1


M32 = """func.func @main(%a: tensor<1x32x32xi8>, %b: tensor<1x32x32xi8>) -> tensor<1x32x32xi32> {
    %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.matmul %a, %b, %z, %z : (tensor<1x32x32xi8>, tensor<1x32x32xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x32x32xi32>
    return %0 : tensor<1x32x32xi32>
}"""


def test_map_tosa_machine_maps_in_one_program_a_layer_the_default_build_blocks(tmp_path):
    p = tmp_path / "m32.mlir"
    p.write_text(M32)
    r = invoke("map", "--tosa", p)  # 32 > MAXDIM=16: host blocks, 16 programs
    assert r.exit_code == 0 and "1 mapped" in r.output and "best M4>N4" in r.output
    r = invoke("map", "--tosa", p, "--machine", "maxdim64")
    assert r.exit_code == 0 and "1 mapped" in r.output and "best N8>K8" in r.output
    assert r.output.startswith("# build maxdim64")


def test_a_program_for_an_unnamed_build_says_which_parameters_differ(tmp_path):
    p = tmp_path / "g.tasm"
    r = invoke("tinytpu", "gen", "gemm", "8x8x8", "-o", p, "--config", "QD=8")
    assert r.exit_code == 0 and "# build maxdim16+QD=8" in r.output
    r = invoke("tinytpu", "cycles", p)
    assert r.exit_code == 2 and "QD=8 (tool: 16)" in r.output and "--machine FILE.yaml" in r.output
    b = tmp_path / "qd8.yaml"
    b.write_text("MAXDIM: 16\nQD: 8\n")
    assert invoke("tinytpu", "cycles", p, "--machine", b).exit_code == 0
    assert invoke("tinytpu", "cycles", p, "--config", "QD=8").exit_code == 0


def test_depth6_builds_nest_six_loops_and_encode_levels_4_and_5():
    from polyjoule.targets.tinytpu.asmfile import parse_tasm
    from polyjoule.targets.tinytpu.assembler import assemble
    from polyjoule.targets.tinytpu.isa import decode

    text = "loop nr=1\n" * 6 + "dma_ld f0=2 nr=4  f3 += iv5*4\n" + "endloop\n" * 6
    prog = parse_tasm(text)
    cfg = builds.load("depth6").cfg
    words = assemble(prog, cfg)
    assert decode(words[8 + 12], words[8 + 13], cfg) == prog[6]
    for name in ("maxdim16", "agu4"):
        with pytest.raises(PolyjouleError, match="loop.depth"):
            assemble(prog, builds.load(name).cfg)
