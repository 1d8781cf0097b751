"""``polyjoule tinytpu``: exact exit codes, one-line errors, nothing half-written."""

import numpy as np
import pytest
from typer.testing import CliRunner

from polyjoule.cli import app

runner = CliRunner()
MD16 = ["--config", "MAXDIM=16"]


def invoke(*args):
    return runner.invoke(app, ["tinytpu", *map(str, args)])


def one_line_error(result, *fragments):
    assert result.exit_code == 2, result.output
    err = result.stderr if hasattr(result, "stderr") else result.output
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("polyjoule: error: "), err
    assert "Traceback" not in result.output
    for f in fragments:
        assert f in lines[0]


@pytest.fixture
def gemm_file(tmp_path):
    p = tmp_path / "g.tasm"
    r = invoke("gen", "gemm", "16x16x16", "--relu", "-o", p, *MD16)
    assert r.exit_code == 0, r.output
    return p


def test_gen_check_disasm_run_cycles(gemm_file, tmp_path):
    r = invoke("check", gemm_file, *MD16)
    assert r.exit_code == 0 and "14 static instructions, 36 words" in r.output
    assert "accu_iterations  384" in r.output
    r = invoke("disasm", gemm_file, *MD16)
    assert r.exit_code == 0 and "f3 += iv0*16, f3 += iv1*4" in r.output
    out = tmp_path / "c.npy"
    r = invoke("run", gemm_file, *MD16, "--seed", 5, "--out", out)
    assert r.exit_code == 0 and "matches numpy (gemm 16x16x16 relu" in r.output
    assert np.load(out).shape == (16, 16)
    r = invoke("cycles", gemm_file, *MD16)
    assert r.exit_code == 0 and "cycles (model" in r.output


def test_run_with_npy_inputs_and_a_wrong_claim_is_exit_1(gemm_file, tmp_path):
    rng = np.random.default_rng(0)
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, rng.integers(-5, 6, (16, 16)).astype(np.int8))
    np.save(b, rng.integers(-5, 6, (16, 16)).astype(np.int8))
    r = invoke("run", gemm_file, *MD16, "--a", a, "--b", b)
    assert r.exit_code == 0
    r = invoke("run", gemm_file, *MD16, "--a", a, "--b", b, "--gemm", "16x16x16")
    assert r.exit_code == 1 and "differs from numpy" in r.output


def test_thex_image_round_trip(tmp_path):
    p = tmp_path / "g.thex"
    assert invoke("gen", "gemm", "8x8x8", "-o", p).exit_code == 0
    r = invoke("run", p)
    assert r.exit_code == 0 and "matches numpy" in r.output


def test_checker_failure_names_the_rule(tmp_path):
    p = tmp_path / "bad.tasm"
    p.write_text("dma_ld f0=2 nr=4\nmm nr=4\n")
    one_line_error(invoke("check", p), f"{p}: mem.write_before_read: instruction 1")
    one_line_error(invoke("run", p), "mem.write_before_read")


def test_loop_too_deep(tmp_path):
    p = tmp_path / "deep.tasm"
    p.write_text("loop nr=1\n" * 5 + "nop\n" + "endloop\n" * 5)
    one_line_error(invoke("check", p), "loop.depth")


def test_overflowing_field_and_unknown_opcode(tmp_path):
    p = tmp_path / "f.tasm"
    p.write_text("mm f0=4095 nr=4\n")  # the 12 bits hold it, the spare-bit rule does not
    one_line_error(invoke("check", p), "enc.field_range", "f0=4095")
    p.write_text("mm f0=4096 nr=4\n")  # no instruction word holds it: the file is malformed
    one_line_error(invoke("check", p), f"{p}:1: f0: 4096 does not fit its 12-bit field")
    p.write_text("op12 nr=4\n")
    one_line_error(invoke("check", p), "op.unknown")
    p.write_text("frob nr=4\n")
    one_line_error(invoke("disasm", p), f"{p}:1: op: unknown mnemonic")


def test_truncated_image(tmp_path):
    p = tmp_path / "g.thex"
    assert invoke("gen", "gemm", "8x8x8", "-o", p).exit_code == 0
    p.write_text("\n".join(p.read_text().splitlines()[:-3]))
    one_line_error(invoke("disasm", p), "n_instr: truncated image")


def test_gen_refusals_write_nothing(tmp_path):
    one_line_error(invoke("gen", "gemm", "16x16x16", "--flat", "--relu", "-o",
                          tmp_path / "f.thex", *MD16), "imem.overflow")
    one_line_error(invoke("gen", "gemm", "16x16x6", "-o", tmp_path / "g.tasm"), "N=6")
    one_line_error(invoke("gen", "gemm", "16x16", "-o", tmp_path / "g.tasm"), "MxKxN")
    one_line_error(invoke("gen", "gemm", "8x8x8", "-o", tmp_path / "g.txt"), "suffix")
    assert list(tmp_path.iterdir()) == []


def test_bad_config(gemm_file):
    one_line_error(invoke("check", gemm_file, "--config", "Q=3"), "--config: Q")
    one_line_error(invoke("check", gemm_file, "--config", "T=2"), "--config: T:")
    one_line_error(invoke("check", gemm_file, "--config", "T=four"), "--config")


def test_missing_file(tmp_path):
    one_line_error(invoke("cycles", tmp_path / "none.tasm"), "cannot read")


@pytest.mark.parametrize("claim, over", [("32x32x32", "M=32, K=32, N=32"), ("16x32x16", "K=32"),
                                         ("8x8x17", "N=17")])
def test_run_gemm_claim_past_maxdim_is_bad_input(gemm_file, claim, over):
    """--gemm claims the GEMM the program computes; A, B, C are MAXDIM x MAXDIM images."""
    one_line_error(invoke("run", gemm_file, *MD16, "--gemm", claim),
                   f"--gemm {claim}", over, "MAXDIM=16")


def test_run_gemm_claim_within_maxdim_is_still_a_verdict(gemm_file):
    r = invoke("run", gemm_file, *MD16, "--gemm", "16x16x16", "--relu")
    assert r.exit_code == 0 and "matches numpy" in r.output
    r = invoke("run", gemm_file, *MD16, "--gemm", "16x8x16", "--relu")
    assert r.exit_code == 1 and "differs from numpy" in r.output


@pytest.mark.parametrize("opt", ["--a", "--b"])
def test_run_operand_that_is_not_npy_names_option_and_file(gemm_file, tmp_path, opt):
    good = tmp_path / "ok.npy"
    np.save(good, np.zeros((16, 16), np.int8))
    other = "--b" if opt == "--a" else "--a"
    r = invoke("run", gemm_file, *MD16, opt, gemm_file, other, good)
    one_line_error(r, f"{opt}: {gemm_file} is not a .npy array")
    assert "pickle" not in r.output


def test_run_operand_truncated_or_missing_names_option(gemm_file, tmp_path):
    good, cut = tmp_path / "ok.npy", tmp_path / "cut.npy"
    np.save(good, np.zeros((16, 16), np.int8))
    cut.write_bytes(good.read_bytes()[:20])
    one_line_error(invoke("run", gemm_file, *MD16, "--a", good, "--b", cut),
                   f"--b: {cut} is not a readable .npy array")
    one_line_error(invoke("run", gemm_file, *MD16, "--a", tmp_path / "no.npy", "--b", good),
                   "--a: ", "no.npy: cannot read")


@pytest.mark.parametrize("extra,moot,says", [
    (["--relu"], 1, ("--relu without --gemm",)),
    (["--seed", "3", "--a", "A.npy", "--b", "A.npy"], 2, ("--seed with --a and --b",)),
    (["--full-range", "--a", "A.npy", "--b", "A.npy"], 1, ("--full-range with --a and --b",)),
])
def test_run_refuses_an_option_it_would_ignore_naming_both(tmp_path, monkeypatch, extra, moot,
                                                          says):
    monkeypatch.chdir(tmp_path)
    np.save("A.npy", np.ones((16, 16), np.int8))
    r = invoke("gen", "gemm", "8x8x8", "-o", "g8.tasm", *MD16)
    assert r.exit_code == 0, r.output
    one_line_error(invoke("run", "g8.tasm", *MD16, *extra), *says)
    r = invoke("run", "g8.tasm", *MD16, *extra[moot:])
    assert r.exit_code == 0, r.output  # without the moot option the run is fine


def test_gen_names_the_workload_it_cannot_generate():
    one_line_error(invoke("gen", "gemm", "6x8x8", "-o", "g6.tasm", *MD16),
                   "gen gemm 6x8x8: M=6: the shipped GEMM needs")


def test_a_byte_order_mark_before_a_tasm_file_is_accepted(tmp_path):
    p = tmp_path / "g.tasm"
    assert invoke("gen", "gemm", "8x8x8", "-o", p, *MD16).exit_code == 0
    bom = tmp_path / "bom.tasm"
    bom.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    plain, marked = invoke("run", p, *MD16), invoke("run", bom, *MD16)
    assert marked.exit_code == 0, marked.output
    assert marked.output.replace(str(bom), str(p)) == plain.output
    assert invoke("cycles", bom, *MD16).output.replace(str(bom), str(p)) == invoke(
        "cycles", p, *MD16).output
