"""The one kernel-input resolver: which front end reads a source, and its named errors."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from polyjoule.errors import SpecError, UnknownNameError
from polyjoule.frontends.einsum import einsum_kernel
from polyjoule.frontends.resolve import kernel_from, looks_like_einsum, source_kind
from polyjoule.library import kernels as registry
from polyjoule.model.pra import Kernel

MV_C = """
void mv(int N, int M, float A[N][M], float x[M], float y[N]) {
  for (int i = 0; i < N; i++) {
    y[i] = 0;
    for (int j = 0; j < M; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""


@pytest.mark.parametrize("source, kind", [
    ("gemm", "builtin"), ("jacobi-2d", "builtin"), ("gemm.relu", "builtin"),
    ("mv.yaml", "yaml"), ("dir/mv.yml", "yaml"), ("mv.c", "c"), (Path("x.c"), "c"),
    (Path("x.yaml"), "yaml"), ("C[m,n] += A[m,k]*B[k,n]", "einsum"),
    ("y[i] = relu(A[i,j]*x[j])", "einsum"), ("N=4", "builtin"),
])
def test_source_kind(source: str | Path, kind: str) -> None:
    assert source_kind(source) == kind


def test_an_existing_file_without_suffix_is_yaml(tmp_path: Path) -> None:
    f = tmp_path / "kernel"
    f.write_text(resources.files("polyjoule.library").joinpath("data", "kernels",
                                                               "gesummv.yaml").read_text())
    assert source_kind(str(f)) == "yaml"
    assert kernel_from(str(f)).phases == registry.get("gesummv").phases


def test_every_source_reads_to_the_same_model(tmp_path: Path) -> None:
    """A YAML file holding the built-in reads to the built-in's PRA; einsum text as the source
    and as ``einsum=`` read alike, to what the einsum front end derives."""
    yml = tmp_path / "gemm.yaml"
    yml.write_text(resources.files("polyjoule.library").joinpath("data", "kernels",
                                                                 "gemm.yaml").read_text())
    assert kernel_from(yml).phases == kernel_from("gemm").phases == registry.get("gemm").phases
    assert kernel_from(str(yml)).phases == registry.get("gemm").phases
    text = "C[m,n] += A[m,k]*B[k,n]"
    a = kernel_from(text, extents="m=2,n=3,k=4")
    b = kernel_from(einsum=text, extents={"m": 2, "n": 3, "k": 4})
    c = einsum_kernel(text, {"m": 2, "n": 3, "k": 4})
    assert a.phases == b.phases == c.phases
    assert a.datasets == b.datasets == {"default": {"M": 2, "N": 3, "K": 4}}
    k = registry.get("atax")
    assert kernel_from(k) is k


def test_c_file_name_and_dtype(tmp_path: Path) -> None:
    c = tmp_path / "mv.c"
    c.write_text(MV_C)
    k = kernel_from(str(c), name="mine", dtype="int8")
    assert k.name == "mine" and k.params == ("N", "M")
    assert {ph.dtype for ph in k.phases} == {"int8"}


def test_unknown_name_suggests_close_ones() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown kernel 'gemmm' \(did you mean gemm"):
        kernel_from("gemmm")
    from polyjoule.library.kernels import names

    with pytest.raises(UnknownNameError, match=rf"unknown kernel 'qqq' \(`polyjoule list` shows "
                       rf"the {len(names())} built-in ones; or give a \.yaml or \.c file, or --einsum\)$"):
        kernel_from("qqq")
    with pytest.raises(UnknownNameError, match=r"^some/dir: no such file"):
        kernel_from("some/dir")


def test_unreadable_files_are_named(tmp_path: Path) -> None:
    for name in ("missing.c", "missing.yaml"):
        with pytest.raises(SpecError, match=rf"{name}: cannot read"):
            kernel_from(str(tmp_path / name))
    d = tmp_path / "folder.c"
    d.mkdir()
    with pytest.raises(SpecError, match=r"folder\.c: cannot read"):
        kernel_from(str(d))
    b = tmp_path / "binary.c"
    b.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(SpecError, match=r"binary\.c:1:1: byte 0xff is not UTF-8"):
        kernel_from(str(b))


@pytest.mark.parametrize("kwargs, pattern", [
    ({}, r"give either a kernel"),
    ({"source": "gemm", "einsum": "C[m] += A[m,k]*B[k]"}, r"not both"),
    ({"source": "gemm", "extents": "m=2"}, r"--extents: only for an einsum"),
    ({"einsum": "C[m] += A[m,k]*B[k]", "extents": "m=2,k"}, r"'k' is not RANK=VALUE"),
    ({"einsum": "C[m] += A[m,k]*B[k]", "extents": "m=2"}, r"rank 'k' .* has no extent"),
])
def test_bad_requests_are_named(kwargs: dict[str, str], pattern: str) -> None:
    with pytest.raises(SpecError, match=pattern):
        kernel_from(**kwargs)  # type: ignore[arg-type]


def test_looks_like_einsum_needs_a_subscripted_target() -> None:
    assert looks_like_einsum("C[m] = A[m,k]*B[k]")
    assert not looks_like_einsum("NI=4")
    assert not looks_like_einsum("gemm")


def test_resolves_to_kernels() -> None:
    assert isinstance(kernel_from("trisolv"), Kernel)
