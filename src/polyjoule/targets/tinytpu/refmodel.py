"""Numpy reference model of TinyTPU-isa: what a checked program computes (sheet §6, §10).

int8 operands, int32 wrapping accumulation, saturating mvout. Each dynamic issue
is one vectorised numpy step over its rows; a row-sequential fallback is used
only when an accu instruction's destination overlaps a source at an offset (then
a later row reads what an earlier row of the same instruction wrote).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from polyjoule.errors import SpecError
from polyjoule.targets.tinytpu.assembler import Issue, check_program
from polyjoule.targets.tinytpu.isa import Instr, Op
from polyjoule.targets.tinytpu.params import DEFAULT, Config


def _wrap32(x: np.ndarray) -> np.ndarray:
    """Two's-complement wrap of int64 lanes to int32 values (kept as int64)."""
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def _dram(name: str, X: np.ndarray, cfg: Config) -> np.ndarray:
    X = np.asarray(X)
    if X.shape != (cfg.MAXDIM, cfg.MAXDIM):
        raise SpecError(f"{name}: shape {X.shape} is not ({cfg.MAXDIM}, {cfg.MAXDIM}) "
                        f"(MAXDIM={cfg.MAXDIM})")
    if X.dtype != np.int8:
        if not np.issubdtype(X.dtype, np.integer) or X.min() < -128 or X.max() > 127:
            raise SpecError(f"{name}: values must be int8 (-128..127)")
        X = X.astype(np.int8)
    return X


class MachineState:
    """On-chip state: spad and vr as int8 rows, ar as int32 rows (held in int64)."""

    def __init__(self, A: np.ndarray, B: np.ndarray, C: np.ndarray, cfg: Config):
        self.cfg = cfg
        self.A = _dram("A", A, cfg)
        self.B = _dram("B", B, cfg)
        self.C = _dram("C", C, cfg).copy()
        T = cfg.T
        self.spad = np.zeros((cfg.SPAD_ROWS, T), dtype=np.int8)
        self.vr = np.zeros((cfg.NVR, T), dtype=np.int8)
        self.ar = np.zeros((cfg.NAR, T), dtype=np.int64)

    def issue(self, x: Issue) -> None:
        """Apply one resolved data issue."""
        op, nr, T = x.op, x.nr, self.cfg.T
        if op == Op.DMA_LD:
            src = self.B if x.f0 & 1 else self.A
            dst = self.vr if x.f0 & 2 else self.spad
            dst[x.f3:x.f3 + nr] = src[x.f1:x.f1 + nr, x.f2 * T:x.f2 * T + T]
        elif op == Op.VLD:
            self.vr[x.f0:x.f0 + nr] = self.spad[x.f1:x.f1 + nr]
        elif op == Op.MM:
            W = self.spad[x.f3:x.f3 + T].astype(np.int64)
            p = self.vr[x.f0:x.f0 + nr].astype(np.int64) @ W
            rows = slice(x.f1, x.f1 + nr)
            self.ar[rows] = _wrap32(self.ar[rows] + p) if x.f2 == 1 else p
        elif op in (Op.VADD, Op.VADDRELU, Op.VRELU):
            self._vector(x)
        elif op == Op.MVOUT:
            self.C[x.f1:x.f1 + nr, x.f2 * T:x.f2 * T + T] = np.clip(
                self.ar[x.f0:x.f0 + nr], -128, 127).astype(np.int8)

    def _vector(self, x: Issue) -> None:
        op, nr, d = x.op, x.nr, x.f0
        srcs = (x.f1,) if op == Op.VRELU else (x.f1, x.f2)
        if all(s == d or abs(s - d) >= nr for s in srcs):
            self.ar[d:d + nr] = self._alu(op, [self.ar[s:s + nr] for s in srcs])
        else:  # a later row reads an earlier row's result: keep row order
            for r in range(nr):
                self.ar[d + r] = self._alu(op, [self.ar[s + r] for s in srcs])

    @staticmethod
    def _alu(op: Op | int, xs: list[np.ndarray]) -> np.ndarray:
        if op == Op.VRELU:
            return np.maximum(xs[0], 0)
        y = _wrap32(xs[0] + xs[1])
        return np.maximum(y, 0) if op == Op.VADDRELU else y


def run(program: Sequence[Instr], A: np.ndarray, B: np.ndarray, C: np.ndarray,
        cfg: Config = DEFAULT) -> np.ndarray:
    """Check the program, run it over DRAM images A, B, C ((MAXDIM, MAXDIM) int8); new C.

    The check is the checker's (sheet §6: the model never invents a value for an unwritten
    row), not the image's encoding limits: a flat twin longer than IMEM_SIZE still runs
    here. The ``tinytpu run`` command asks :func:`~polyjoule.targets.tinytpu.assembler.admit`
    (checker and limits, as ``check`` does) and hands its stream to :func:`execute`.
    C bytes no mvout names keep the values passed in.
    """
    return execute(check_program(program, cfg), A, B, C, cfg)


def execute(stream: Iterable[Issue], A: np.ndarray, B: np.ndarray, C: np.ndarray,
            cfg: Config = DEFAULT) -> np.ndarray:
    """Apply an already checked stream of issues to DRAM images A, B, C; the new C."""
    m = MachineState(A, B, C, cfg)
    for x in stream:
        m.issue(x)
    return m.C


def gemm_expected(A: np.ndarray, B: np.ndarray, M: int, K: int, N: int,
                  relu: bool = False) -> np.ndarray:
    """Independent numpy GEMM with the machine's numerics: int32 wrap, relu, int8 saturate."""
    acc = A[:M, :K].astype(np.int64) @ B[:K, :N].astype(np.int64)
    acc = ((acc + (1 << 31)) % (1 << 32)) - (1 << 31)
    if relu:
        acc = np.maximum(acc, 0)
    return np.clip(acc, -128, 127).astype(np.int8)
