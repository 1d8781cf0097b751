"""Banded nests (coupled dims of different extents) against the brute-force walker.

A seeded generator writes C loop nests whose inner bound follows the outer index: bands
``j = i + c .. i + c + w - 1`` (``w`` a constant or a parameter ``W``), shifted and
clipped bands, upper triangles ``j = i + c .. N + b``, trapezoids ``j < i + M + b``, 2-D and
3-D (a free dim, or a chain ``k = j .. j + v - 1``), matrix-vector shapes with the
dependence along either dim; and PRA files from them with extra statements whose ``when``
names a parameter beside a dim (``j <= i + W - 2``). Every volume that
``analyze(...).evaluate`` gives, and every per-class count of the compiled evaluation
(``counts_many``), must equal the walk of the tiled iteration space
(``conftest.brute_counts``). ``python tests/analysis/test_counts_band.py --kernels 300``
runs the whole fuzz; the test runs a fixed subset.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from polyjoule.analysis import analyze
from polyjoule.errors import ParameterRangeError, PolyjouleError
from polyjoule.frontends.resolve import kernel_from
from polyjoule.mapping.tiling import Tiling
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.pra import PRA

ARRAYS = [(1, 4), (2, 2), (3, 2), (2, 3), (4, 4), (8, 8)]


def _off(c: int) -> str:
    return "" if c == 0 else f" + {c}" if c > 0 else f" - {-c}"


@dataclass
class Nest:
    """A generated kernel: its C text and what it is (for reports)."""

    name: str
    text: str
    params: list[str] = field(default_factory=list)


def _inner(rng: random.Random, outer: str, params: list[str]) -> tuple[str, str, str, str]:
    """Bounds of the inner loop over ``outer``: (lower, comparison, upper) and its kind."""
    kind = rng.choice(["band", "band", "band", "upper", "trapezoid", "lower"])
    c = rng.randint(0, 3)
    if kind == "band":
        if rng.random() < 0.5:
            w = str(rng.randint(1, 6))
        else:
            if "W" not in params:
                params.append("W")
            e = rng.randint(-3, 3)
            w = f"W{_off(e)}"
        lo = f"{outer}{_off(c)}"
        if rng.random() < 0.5:
            return lo, "<", f"{outer}{_off(c)} + {w}", kind
        return lo, "<=", f"{outer}{_off(c)} + {w} - 1", kind
    if kind == "upper":
        return f"{outer}{_off(c)}", "<", f"N{_off(rng.randint(-1, 3))}", kind
    if kind == "trapezoid":
        if "M" not in params:
            params.append("M")
        return "0", "<", f"{outer} + M{_off(rng.randint(-3, 3))}", kind
    return "0", "<=", f"{outer}{_off(rng.randint(0, 3))}", kind  # lower triangle (with a band above)


def band_nest(rng: random.Random, n: int) -> Nest:
    """One random banded C kernel (2 or 3 dims, a matrix-vector or reduction shape)."""
    params = ["N"]
    a = rng.randint(-3, 3)
    lo, cmp, hi, kind = _inner(rng, "i", params)
    three = rng.random() < 0.35
    shape = rng.choice(["mv", "mv", "tmv", "both"])
    size = lambda: " + ".join(f"2 * {p}" for p in params) + " + 16"  # noqa: E731 (large enough)
    loops = [f"for (i = 0; i < N{_off(a)}; i++)", f"for (j = {lo}; j {cmp} {hi}; j++)"]
    if not three:
        body = {"mv": "y[i] += A[i][j] * x[j];", "tmv": "z[j] += A[i][j] * x[i];",
                "both": "y[i] += A[i][j] * x[j];\n      z[j] += A[i][j] * x[i];"}[shape]
        init = "y[i] = 0.0;" if shape != "tmv" and rng.random() < 0.5 else ""
        decls = ["double A[S][S]", "double x[S]", "double y[S]", "double z[S]"]
    elif rng.random() < 0.5:  # a free third dim l
        free = rng.choice(["K", "2", "3"])
        if free == "K":
            params.append("K")
        where = rng.randint(0, 2)
        loops.insert(where, f"for (l = 0; l < {free}; l++)")
        body = {"mv": "y[i][l] += A[i][j][l] * x[j][l];", "tmv": "z[j][l] += A[i][j][l] * x[i][l];",
                "both": "y[i][l] += A[i][j][l] * B[j][l];\n      z[j][l] += A[i][j][l] * B[i][l];"}[shape]
        init = ""
        decls = ["double A[S][S][S]", "double B[S][S]", "double x[S][S]", "double y[S][S]",
                 "double z[S][S]"]
        kind += f"+free{where}"
    else:  # a chain: l follows j
        lo2, cmp2, hi2, kind2 = _inner(rng, "j", params)
        loops.append(f"for (l = {lo2}; l {cmp2} {hi2}; l++)")
        body = {"mv": "y[i][j] += A[i][j][l] * x[l];", "tmv": "z[j][l] += A[i][j][l] * x[i];",
                "both": "y[i][j] += A[i][j][l] * x[l];\n      z[i][l] += A[i][j][l] * x[j];"}[shape]
        init = ""
        decls = ["double A[S][S][S]", "double x[S]", "double y[S][S]", "double z[S][S]"]
        kind += f"+chain-{kind2}"
    s = size()
    sig = ", ".join([f"int {p}" for p in params] + [d.replace("S", s) for d in decls])
    lines = [f"void k{n}({sig}) {{", "  int i, j, l;"]
    for d, x in enumerate(loops):
        lines.append(f"  {'  ' * d}{x} {{")
        if d == 0 and init:
            lines.append(f"    {init}")
    pad = "  " * (len(loops) + 1)
    lines += [pad + b.strip() for b in body.split("\n")]
    lines += [f"  {'  ' * d}}}" for d in reversed(range(len(loops)))]
    lines.append("}")
    return Nest(f"k{n}_{kind}_{shape}", "\n".join(lines) + "\n", params)


def _shifted(c: Constraint, pra: PRA, dep: tuple[int, ...]) -> Constraint:
    """``c`` at the source ``i - dep`` of a transport."""
    return Constraint(c.expr.substitute({d.name: Affine.of({d.name: 1}, -x)
                                         for d, x in zip(pra.dims, dep, strict=True) if x}), c.eq)


def _condition(rng: random.Random, pra: PRA) -> str:
    """A condition naming a parameter beside a dim (or two dims), offsets in -3..3."""
    dims = pra.dim_names
    others = [p for p in pra.params if p != "N"] or ["N"]
    q = rng.choice(others + ["N"])
    a, b = rng.sample(dims, 2) if len(dims) > 1 else (dims[0], dims[0])
    c = _off(rng.randint(-3, 3))
    return rng.choice([
        f"{a} <= {b} + {q}{c}", f"{a} >= {b} + {q}{c}", f"{a} == {b} + {q}{c}",
        f"{a} >= {b} - {q}{c}", f"{a} <= {q}{c}", f"{a} >= {q}{c}", f"{a} == {q}{c}",
        f"{a} <= {b}{c}", f"{a} >= {b}{c}", f"{a} + {b} <= {q}{c}",
    ])


def with_conditions(data: dict, pra: PRA, rng: random.Random, k: int = 3) -> dict:
    """A kernel's YAML data with ``k`` more statements conditioned beside a parameter: zero
    -dependence computes and transports of ``a`` (its source inside the iteration space)."""
    stmts = data["phases"][0]["statements"]
    writer = next(s for s in stmts if "input" in s)
    a_var, a_when = writer["var"], writer.get("when", [])
    a_when = [a_when] if isinstance(a_when, str) else list(a_when)  # (a compute reads it there only)
    dims = pra.dim_names
    for m in range(k):
        conds = [_condition(rng, pra) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.5:
            stmts.append({"id": f"X{m}", "var": f"e{m}", "compute": f"{a_var} + {a_var}", "when": conds + a_when})
            continue
        dep = tuple(rng.choice([(1, 0), (0, 1), (1, 1), (2, 0), (0, 2), (0, -1)]) + (0,) * (len(dims) - 2))
        if len(dims) == 3 and rng.random() < 0.5:
            dep = (dep[0], 0, dep[1])
        from polyjoule.frontends.pra_dump import condition_text

        conds += [condition_text(_shifted(c, pra, dep), dims) for c in pra.domain()]
        stmts.append({"id": f"X{m}", "var": f"f{m}", "from": a_var, "dep": list(dep), "when": conds})
    return data


def _nonempty(pra: PRA, sid: str) -> bool:
    """Does statement ``sid`` (all pieces) run at some point for some small sizes?"""
    import itertools

    lows = dict(pra.param_min)
    stmts = [s for s in pra.statements if s.id == sid or s.origin == sid]
    for v in (3, 6, 10):
        values = {p: max(v, lows.get(p, 1)) for p in pra.params}
        ranges = [range(int(d.extent.evaluate(values))) for d in pra.dims]
        for point in itertools.product(*ranges):
            env = values | dict(zip(pra.dim_names, point, strict=True))
            if all(c.holds(env) for c in pra.domain()) and any(
                    all(c.holds(env) for c in s.when) for s in stmts):
                return True
    return False


def observed(result) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for v in result.volumes:
        if v.value:
            out[(v.statement, v.case)] = out.get((v.statement, v.case), 0) + v.value
    return out


def class_counts(pra: PRA, tiling: Tiling, cases: dict[tuple[str, str], int]) -> dict[str, int]:
    """Per-class counts from per-case counts (the witness of ``counts_many``)."""
    from polyjoule.mapping.tiling import cases as all_cases

    acc = {(c.statement.id, c.name): c.accesses for c in all_cases(pra, tiling)}
    out: dict[str, int] = {}
    for key, n in cases.items():
        for cls, m in acc[key].items():
            out[cls] = out.get(cls, 0) + n * m
    return out


@dataclass
class Outcome:
    points: int = 0
    refused: int = 0
    mismatches: list[str] = field(default_factory=list)
    mode: str = ""
    why: str = ""  # fixed mode: the rewrite's reason


def check(kernel, array: tuple[int, int], tile: tuple[int, ...] | None,
          points: list[dict[str, int]], brute, skip_empty: bool = False) -> Outcome:
    """Symbolic volumes (scalar and compiled) against the walk at every legal point."""
    from polyjoule.errors import InfeasibleMapping

    out = Outcome()
    pra = kernel.phases[0]
    try:
        an = analyze(kernel, array=array, tile=tile)
    except InfeasibleMapping:
        return out
    out.mode = an.phases[0].mode
    if out.mode == "fixed":
        from polyjoule.analysis.counts import NotSymbolic, derive

        try:
            derive(pra, an.phases[0].tiling)
        except NotSymbolic as e:
            out.why = str(e)
    legal = []
    for values in points:
        want = brute(pra, array, values, tile)
        if skip_empty and not any(kind == "compute" for _, kind in want):
            continue  # an empty nest: see test_empty_nest_evaluates
        try:
            got = observed(an.evaluate(values))
        except PolyjouleError:
            out.refused += 1
            continue
        out.points += 1
        legal.append((values, want))
        if got != want:
            diff = {k: (got.get(k, 0), want.get(k, 0)) for k in sorted(set(got) | set(want))
                    if got.get(k, 0) != want.get(k, 0)}
            out.mismatches.append(f"evaluate {array} tile={tile} {values}: (got, want) {diff}")
    if legal and out.mode == "symbolic":
        cols = {p: np.asarray([v[p] for v, _ in legal]) for p in pra.params}
        many = an.counts_many(cols)
        tiling = an.phases[0].tiling
        for i, (values, want) in enumerate(legal):
            wc = class_counts(pra, tiling, want)
            gc = {c: int(many[c][i]) for c in wc}
            extra = {c: int(many[c][i]) for c in ("RD", "FD", "ID", "OD", "IOb", "DR")
                     if c in many and c not in wc and int(many[c][i])}
            if gc != wc or extra:
                out.mismatches.append(f"counts_many {array} tile={tile} {values}: got {gc | extra} want {wc}")
    return out


def random_points(rng: random.Random, params: list[str], n: int) -> list[dict[str, int]]:
    return [{p: rng.randint(1, 14) for p in params} for _ in range(n)]


def build(nest: Nest, folder: Path, rng: random.Random | None = None, empty_statements: bool = False):
    """The kernel of ``nest`` (from its C file; with ``rng``, from a PRA file with extra
    conditioned statements, those that never run dropped unless ``empty_statements``), or
    ``None`` when the front end refuses it."""
    import yaml

    from polyjoule.frontends.pra_dump import kernel_data

    path = folder / f"{nest.name}.c"
    path.write_text(nest.text)
    try:
        k = kernel_from(str(path))
    except PolyjouleError:
        return None
    if rng is None:
        return k
    data = with_conditions(kernel_data(k), k.phases[0], rng)
    ypath = folder / f"{nest.name}.yaml"
    ypath.write_text(yaml.safe_dump(data, sort_keys=False))
    try:
        k = kernel_from(str(ypath))
    except PolyjouleError:
        return None
    if empty_statements:
        return k
    stmts = data["phases"][0]["statements"]
    data["phases"][0]["statements"] = [s for s in stmts if not s["id"].startswith("X")
                                       or _nonempty(k.phases[0], s["id"])]
    ypath.write_text(yaml.safe_dump(data, sort_keys=False))
    return kernel_from(str(ypath))


def _points_for(kernel, rng: random.Random, n: int, array: tuple[int, int],
                tile: tuple[int, ...] | None) -> list[dict[str, int]]:
    """``n`` points the tiling takes (at least every parameter's minimum), of 40 drawn."""
    pra = kernel.phases[0]
    lows = dict(pra.param_min)
    tiling = Tiling.of(pra, array, tile)
    out = []
    for pt in random_points(rng, pra.params, 40):
        values = {p: max(v, lows.get(p, 1)) for p, v in pt.items()}
        try:
            tiling.sizes(pra, values)
        except PolyjouleError:
            continue
        out.append(values)
        if len(out) == n:
            break
    return out


#: the fixed subset: generator seeds (two kernels each, one C and one PRA file with
#: conditioned statements)
SEEDS = (1, 2, 3, 4, 6, 8, 9, 10, 11, 12)


@pytest.mark.parametrize("seed", SEEDS)
def test_band_volumes_equal_walk(seed, tmp_path, brute_counts):
    rng = random.Random(seed)
    kernels = []
    n = 0
    while len(kernels) < 2 and n < 40:
        nest = band_nest(rng, n)
        n += 1
        k = build(nest, tmp_path, rng if len(kernels) == 1 else None)
        if k is not None:
            kernels.append((nest, k))
    assert kernels, "the generator gave no kernel the front end takes"
    checked = 0
    for nest, k in kernels:
        for array in (rng.choice(ARRAYS[:4]), (4, 4)):
            for tile in (None, tuple(rng.randint(1, 5) for _ in range(k.phases[0].n))):
                o = check(k, array, tile, _points_for(k, rng, 3, array, tile), brute_counts, skip_empty=True)
                assert not o.mismatches, f"{nest.name}\n{nest.text}\n" + "\n".join(o.mismatches)
                checked += o.points
    assert checked > 0


DIAGONAL = """void k(int N, double A[N][N], double x[N], double y[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    for (j = i; j < i + 1; j++)
      y[i] += A[i][j] * x[j];
  }
}
"""


def test_width_one_band(tmp_path, brute_counts):
    """A statement that never runs (the accumulation of a width-1 band) counts 0."""
    path = tmp_path / "diag.c"
    path.write_text(DIAGONAL)
    k = kernel_from(str(path))
    o = check(k, (2, 2), None, [{"N": 5}], brute_counts)
    assert o.points == 1 and not o.mismatches


def test_anti_diagonal_condition_on_band(tmp_path, brute_counts):
    """``i + j <= N`` on a band: a floor inside a floor in the count, folded into one."""
    path = tmp_path / "anti.yaml"
    path.write_text("""version: 1
name: anti
params: {N: 1}
dims:
  - {name: i, lower: 0, upper: N - 1}
  - {name: j, lower: i, upper: i + 2, extent: N + 2}
tensors:
  A: {shape: [N + 3, N + 3], kind: input}
statements:
  - {id: S1, var: a, input: 'A[i, j]'}
  - {id: S2, var: e, compute: a + a, when: i + j <= N}
""")
    o = check(kernel_from(str(path)), (1, 4), None, [{"N": n} for n in range(1, 9)], brute_counts)
    assert o.points == 8 and not o.mismatches


def test_empty_nest_is_refused_by_name(tmp_path):
    """A nest with no iteration at legal sizes (N = 1 here) is refused, not divided by 0."""
    path = tmp_path / "strict.c"
    path.write_text(DIAGONAL.replace("j = i; j < i + 1", "j = i + 1; j < N").replace("    y[i] = 0.0;\n", ""))
    a = analyze(kernel_from(str(path)), array=(2, 2))
    with pytest.raises(ParameterRangeError, match="runs no iteration at N=1"):
        a.evaluate({"N": 1})
    assert a.evaluate({"N": 3}).iterations == 3


def test_extended_row_outside_the_box_is_refused(tmp_path):
    """The front end puts the init of an empty last row at ``j = i - 1``, which reaches
    ``j = -1`` at ``i = 0``: a point outside the tiling box that the walker and the simulator
    skip and a count would not. Refused by name instead of counted wrongly."""
    from polyjoule.errors import SpecError

    path = tmp_path / "ext.c"
    path.write_text(DIAGONAL.replace("i < N;", "i < N + 1;").replace("j < i + 1", "j < N")
                    .replace("A[N][N]", "A[N + 1][N]").replace("y[N]", "y[N + 1]"))
    with pytest.raises(SpecError, match=r"ext\.c: k: dims\[1\] \(j\): i - 1 \.\. N - 1 leaves its extent"):
        kernel_from(str(path))


def main() -> None:
    """The whole fuzz: ``--kernels`` nests, every array, default and random tiles."""
    import argparse
    import json
    import signal
    import tempfile

    def _late(*_):
        raise TimeoutError("over --limit seconds")

    signal.signal(signal.SIGALRM, _late)

    sys.path.insert(0, str(Path(__file__).parent))
    from conftest import brute_counts

    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--tiles", type=int, default=2)
    ap.add_argument("--points", type=int, default=6)
    ap.add_argument("--yaml", type=float, default=0.4, help="share of PRA files with conditions")
    ap.add_argument("--empty", action="store_true", help="keep conditioned statements that never run")
    ap.add_argument("--limit", type=int, default=120, help="seconds per (kernel, array, tile)")
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    out = sys.stdout if args.out == "-" else open(args.out, "w")  # noqa: SIM115
    folder = Path(tempfile.mkdtemp())
    rng = random.Random(args.seed)
    n = made = 0
    while made < args.kernels:
        nest = band_nest(rng, n)
        n += 1
        yaml_rng = random.Random(rng.random()) if rng.random() < args.yaml else None
        try:
            k = build(nest, folder, yaml_rng, args.empty)
        except Exception as e:  # noqa: BLE001 (a traceback of the front end is a finding)
            print(json.dumps({"kernel": nest.name, "text": nest.text, "error": repr(e)}), file=out, flush=True)
            continue
        if k is None:
            continue
        made += 1
        for array in ARRAYS:
            tiles = [None] + [tuple(rng.randint(1, 5) for _ in range(k.phases[0].n)) for _ in range(args.tiles)]
            for tile in tiles:
                signal.alarm(args.limit)
                try:
                    o = check(k, array, tile, _points_for(k, rng, args.points, array, tile), brute_counts)
                except Exception as e:  # noqa: BLE001
                    import traceback

                    where = traceback.format_exc().strip().splitlines()[-4:]
                    o = Outcome(mismatches=[f"exception {array} tile={tile}: {e!r} at {where}"], mode="error")
                finally:
                    signal.alarm(0)
                print(json.dumps({"kernel": nest.name, "yaml": yaml_rng is not None,
                                  "file": str(folder / (nest.name + (".yaml" if yaml_rng else ".c"))),
                                  "array": array, "tile": tile, "mode": o.mode, "why": o.why, "points": o.points,
                                  "refused": o.refused, "mismatches": o.mismatches}), file=out, flush=True)


if __name__ == "__main__":
    main()
