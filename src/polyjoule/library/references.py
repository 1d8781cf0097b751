"""Numpy reference semantics of the built-in kernels: the simulator's independent witness.

Each is written from the kernel's textbook definition, never from its PRA;
:func:`polyjoule.library.kernels.get` attaches it to the kernel of the same name.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from polyjoule.model.pra import Reference


def _gesummv(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    return {"Y": s["alpha"] * t["A"] @ t["X"] + s["beta"] * t["B"] @ t["X"]}


def _gemm(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    return {"C": s["alpha"] * t["A"] @ t["B"] + s["beta"] * t["C"]}


def _bicg(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    return {"s": t["A"].T @ t["r"], "q": t["A"] @ t["p"]}


def _syrk(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    low = np.tril(np.ones(t["C"].shape, dtype=bool))
    upd = s["beta"] * t["C"] + s["alpha"] * t["A"] @ t["A"].T
    return {"C": np.where(low, upd, t["C"])}


def _syr2k(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    a, b = t["A"], t["B"]
    low = np.tril(np.ones(t["C"].shape, dtype=bool))
    upd = s["beta"] * t["C"] + s["alpha"] * (a @ b.T + b @ a.T)
    return {"C": np.where(low, upd, t["C"])}


def _trmm(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    # unit lower-triangular A: B := alpha * (I + strict_lower(A))^T B
    strict = np.tril(t["A"], -1)
    return {"B": s["alpha"] * (t["B"] + strict.T @ t["B"])}


def _trisolv(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    low, b = t["L"], t["b"]
    x = np.zeros_like(b, dtype=np.result_type(low, b))
    for i in range(len(b)):  # forward substitution in PolyBench order
        acc = b[i]
        for j in range(i):
            acc = acc - low[i, j] * x[j]
        x[i] = acc / low[i, i]
    return {"x": x}


def _symm(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    a = t["A"]
    sym = np.tril(a) + np.tril(a, -1).T  # only the lower triangle of A is read
    return {"C": s["beta"] * t["C"] + s["alpha"] * sym @ t["B"]}


def _jacobi_1d(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    steps = int(s["TSTEPS"])
    a, b = np.array(t["A"], dtype=float), np.array(t["B"], dtype=float)
    for _ in range(steps):
        b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
        a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])
    return {"A": a}


def _jacobi_2d(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    steps = int(s["TSTEPS"])
    a, b = np.array(t["A"], dtype=float), np.array(t["B"], dtype=float)
    for _ in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1]
                               + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1]
                               + b[:-2, 1:-1])
    return {"A": a}


def _2mm(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    tmp = s["alpha"] * t["A"] @ t["B"]
    return {"tmp": tmp, "D": tmp @ t["C"] + s["beta"] * t["D"]}


def _atax(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    tmp = t["A"] @ t["x"]
    return {"tmp": tmp, "y": t["A"].T @ tmp}


def _mvt(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    return {"x1": t["x1"] + t["A"] @ t["y_1"], "x2": t["x2"] + t["A"].T @ t["y_2"]}


def _3mm(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    e, f = t["A"] @ t["B"], t["C"] @ t["D"]
    return {"E": e, "F": f, "G": e @ f}


def _gemver(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    a = t["A"] + np.outer(t["u1"], t["v1"]) + np.outer(t["u2"], t["v2"])
    x = t["x"] + s["beta"] * a.T @ t["y"] + t["z"]
    return {"A": a, "x": x, "w": t["w"] + s["alpha"] * a @ x}


def _doitgen(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    out = np.einsum("rqs,sp->rqp", t["A"], t["C4"])
    return {"A": out, "sum": out}


def _seidel_2d(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    a = np.array(t["A"], dtype=float)
    n = a.shape[0]
    for _ in range(int(s["TSTEPS"])):  # in place, in PolyBench order
        for i in range(1, n - 1):
            up, row, down = a[i - 1], a[i], a[i + 1]
            for j in range(1, n - 1):
                row[j] = (up[j - 1] + up[j] + up[j + 1] + row[j - 1] + row[j] + row[j + 1]
                          + down[j - 1] + down[j] + down[j + 1]) / 9.0
    return {"A": a}


def _heat_3d(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    a, b = np.array(t["A"], dtype=float), np.array(t["B"], dtype=float)

    def sweep(src: np.ndarray, dst: np.ndarray) -> None:
        c = src[1:-1, 1:-1, 1:-1]
        dst[1:-1, 1:-1, 1:-1] = (
            0.125 * (src[2:, 1:-1, 1:-1] - 2.0 * c + src[:-2, 1:-1, 1:-1])
            + 0.125 * (src[1:-1, 2:, 1:-1] - 2.0 * c + src[1:-1, :-2, 1:-1])
            + 0.125 * (src[1:-1, 1:-1, 2:] - 2.0 * c + src[1:-1, 1:-1, :-2]) + c)

    for _ in range(int(s["TSTEPS"])):
        sweep(a, b)
        sweep(b, a)
    return {"A": a}


def _covariance(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    data = np.array(t["data"], dtype=float)
    mean = data.sum(axis=0) / s["N"]
    data = data - mean
    return {"mean": mean, "data": data, "cov": data.T @ data / (s["N"] - 1.0)}


def _fdtd_2d(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    ex, ey, hz = (np.array(t[n], dtype=float) for n in ("ex", "ey", "hz"))
    for step in range(int(s["TMAX"])):
        ey[0, :] = t["fict"][step]
        ey[1:, :] = ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] = hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return {"ex": ex, "ey": ey, "hz": hz}


def _deriche(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    img = np.array(t["imgIn"], dtype=float)
    w, h = img.shape

    def causal(x: np.ndarray, a: float, b: float) -> np.ndarray:  # along axis 1, upward
        y = np.zeros_like(x)
        xm1 = ym1 = ym2 = np.zeros(x.shape[0])
        for j in range(x.shape[1]):
            y[:, j] = a * x[:, j] + b * xm1 + s["b1"] * ym1 + s["b2"] * ym2
            xm1, ym2, ym1 = x[:, j], ym1, y[:, j]
        return y

    def anticausal(x: np.ndarray, a: float, b: float) -> np.ndarray:  # along axis 1, downward
        y = np.zeros_like(x)
        xp1 = xp2 = yp1 = yp2 = np.zeros(x.shape[0])
        for j in range(x.shape[1] - 1, -1, -1):
            y[:, j] = a * xp1 + b * xp2 + s["b1"] * yp1 + s["b2"] * yp2
            xp2, xp1, yp2, yp1 = xp1, x[:, j], yp1, y[:, j]
        return y

    y1, y2 = causal(img, s["a1"], s["a2"]), anticausal(img, s["a3"], s["a4"])
    out = s["c1"] * (y1 + y2)
    y1 = causal(out.T, s["a5"], s["a6"]).T
    y2 = anticausal(out.T, s["a7"], s["a8"]).T
    assert y1.shape == (w, h)
    return {"y1": y1, "y2": y2, "imgOut": s["c2"] * (y1 + y2)}


#: name -> numpy reference semantics. Called as ``ref(tensors, env)``: ``tensors`` holds every
#: input and inout tensor, ``env`` the scalars of all phases merged with the parameter values
#: (time-iterated stencils need ``TSTEPS``). Returns every output and inout tensor; an inout
#: tensor is returned whole (elements the kernel does not write keep their input value).
REFERENCES: dict[str, Reference] = {
    "gesummv": _gesummv, "gemm": _gemm, "bicg": _bicg, "syrk": _syrk, "syr2k": _syr2k,
    "trmm": _trmm, "trisolv": _trisolv, "symm": _symm, "jacobi-1d": _jacobi_1d,
    "jacobi-2d": _jacobi_2d, "2mm": _2mm, "atax": _atax, "mvt": _mvt, "3mm": _3mm,
    "gemver": _gemver, "doitgen": _doitgen, "seidel-2d": _seidel_2d, "heat-3d": _heat_3d,
    "covariance": _covariance, "fdtd-2d": _fdtd_2d, "deriche": _deriche,
}


def _minus_in_order(x: float, products: np.ndarray) -> float:
    """``x -= p`` for each product in turn, rounding as the C loop does."""
    for p in products:
        x = x - p
    return x


def _lu(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    """PolyBench's loops (i, j, k), no pivoting: L below the diagonal, U on and above it."""
    a = np.array(t["A"], dtype=np.float64)
    n = a.shape[0]
    for i in range(n):
        for j in range(i):
            a[i, j] = _minus_in_order(a[i, j], a[i, :j] * a[:j, j]) / a[j, j]
        for j in range(i, n):
            a[i, j] = _minus_in_order(a[i, j], a[i, :i] * a[:i, j])
    return {"A": a}


def _cholesky(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    """PolyBench's loops (i, j, k) on the lower triangle; the upper one keeps its input."""
    a = np.array(t["A"], dtype=np.float64)
    for i in range(a.shape[0]):
        for j in range(i):
            a[i, j] = _minus_in_order(a[i, j], a[i, :j] * a[j, :j]) / a[j, j]
        a[i, i] = np.sqrt(_minus_in_order(a[i, i], a[i, :i] * a[i, :i]))
    return {"A": a}


REFERENCES.update({"lu": _lu, "cholesky": _cholesky})


def _floyd_warshall(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    """PolyBench's in-place loops (k, i, j), one row at a time."""
    p = np.array(t["path"], dtype=np.float64)
    for k in range(p.shape[0]):
        for i in range(p.shape[0]):
            p[i, :] = np.minimum(p[i, :], p[i, k] + p[k, :])
    return {"path": p}


REFERENCES["floyd-warshall"] = _floyd_warshall


def _ludcmp(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    """PolyBench's three loops: LU in place, then forward and backward substitution."""
    a = _lu({"A": t["A"]}, s)["A"]
    n, b = a.shape[0], np.asarray(t["b"], dtype=np.float64)
    y, x = np.zeros(n), np.zeros(n)
    for i in range(n):
        y[i] = _minus_in_order(b[i], a[i, :i] * y[:i])
    for i in range(n - 1, -1, -1):
        x[i] = _minus_in_order(y[i], a[i, i + 1:] * x[i + 1:]) / a[i, i]
    return {"A": a, "y": y, "x": x}


REFERENCES["ludcmp"] = _ludcmp


def _correlation(t: Mapping[str, np.ndarray], s: Mapping[str, float]) -> dict[str, np.ndarray]:
    """Pearson correlation with PolyBench's guard: a near-constant column divides by 1."""
    data = np.array(t["data"], dtype=np.float64)
    n = s["N"]
    mean = data.sum(axis=0) / n
    std = np.sqrt(((data - mean) ** 2).sum(axis=0) / n)
    std = np.where(std <= s["eps"], 1.0, std)
    data = (data - mean) / (np.sqrt(n) * std)
    corr = data.T @ data
    np.fill_diagonal(corr, 1.0)
    return {"mean": mean, "stddev": std, "data": data, "corr": corr}


REFERENCES["correlation"] = _correlation
