"""Brute-force execution and counting of a PRA in plain Python: the tests' independent witness.

Points are visited in lexicographic order (every PRA dependence is lexicographically positive),
statements inside a point in the order their zero-distance reads require. Reading a value that
was never defined, or defining one twice, is an error: it means the PRA is ill-formed.
The loop nest is generated as Python source once per PRA so MINI sizes run in well under a second.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping

import numpy as np

from polyjoule.mapping.tiling import PATHS, Tiling
from polyjoule.model.pra import PRA, Kernel, Statement


class PRAError(AssertionError):
    """The PRA reads an undefined value or defines a value twice."""


def statement_order(pra: PRA) -> list[Statement]:
    """Statements sorted so that zero-distance readers come after every writer."""
    writers: dict[str, list[int]] = {}
    for k, s in enumerate(pra.statements):
        if s.kind != "output":
            writers.setdefault(s.var, []).append(k)
    deps: dict[int, set[int]] = {}
    for k, s in enumerate(pra.statements):
        need: set[int] = set()
        if s.kind == "compute" or s.kind == "output" or (s.kind == "transport" and not any(s.dep)):
            for v in s.reads:
                need |= {w for w in writers.get(v, []) if w != k}
        deps[k] = need
    order: list[int] = []
    done: set[int] = set()
    while len(order) < len(deps):
        ready = [k for k in deps if k not in done and deps[k] <= done]
        if not ready:
            raise PRAError(f"{pra.name}: cyclic zero-distance reads")
        order.extend(ready)
        done.update(ready)
    return [pra.statements[k] for k in order]


def _aff(a, env: str = "") -> str:
    parts = [f"({v})*{k}" for k, v in a.terms]
    return " + ".join([*parts, str(a.const)])


def _cond(s: Statement) -> str:
    out = []
    for c in s.when:
        out.append(f"({_aff(c.expr)}) {'==' if c.eq else '>='} 0")
    return " and ".join(out) or "True"


class _Expr(ast.NodeTransformer):
    def __init__(self, variables: set[str], params: tuple[str, ...] = ()):
        self.variables, self.params = variables, params

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.params:  # a parameter in a computation: the run's local value
            return node
        if node.id in self.variables:
            return ast.parse(f"V_{node.id}[pt]", mode="eval").body
        if node.id in ("relu", "max", "min", "sqrt", "abs"):
            return ast.parse(f"F_{node.id}", mode="eval").body
        return ast.parse(f"_S_[{node.id!r}]", mode="eval").body


def _source(pra: PRA, count: bool) -> str:
    dims = pra.dim_names
    variables = {s.var for s in pra.statements if s.kind != "output"}
    lines = ["def run(_P_, _D_, _S_, _T_, F_relu, F_max, F_min, F_sqrt, F_abs, _C_):"]
    for p in pra.params:
        lines.append(f"    {p} = _P_[{p!r}]")
    for v in sorted(variables):
        lines.append(f"    V_{v} = {{}}")
    ind = "    "
    for l, d in enumerate(pra.dims):
        lines.append(f"{ind}for {d.name} in range({_aff(d.lower)}, {_aff(d.upper)} + 1):")
        ind += "    "
        if l == 0:
            pass
    lines.append(f"{ind}pt = ({', '.join(dims)},)")
    for s in statement_order(pra):
        lines.append(f"{ind}if {_cond(s)}:")
        body = ind + "    "
        if count:
            if s.kind == "transport" and any(s.dep):
                cross = ", ".join(
                    f"(({n} // _T_[{l}]) - (({n} - ({d})) // _T_[{l}])) if _T_[{l}] else 0"
                    for l, (n, d) in enumerate(zip(dims, s.dep, strict=True)))
                lines.append(f"{body}_C_[({s.id!r}, ({cross},))] += 1")
            else:
                lines.append(f"{body}_C_[({s.id!r}, ())] += 1")
        if s.kind == "input":
            idx = ", ".join(_aff(a) for a in s.index)
            lines.append(f"{body}assert pt not in V_{s.var}, ({s.id!r}, pt)")
            lines.append(f"{body}V_{s.var}[pt] = _D_[{s.tensor!r}][{idx}]")
        elif s.kind == "transport":
            src = ", ".join(f"{n} - ({d})" for n, d in zip(dims, s.dep, strict=True))
            lines.append(f"{body}assert pt not in V_{s.var}, ({s.id!r}, pt)")
            lines.append(f"{body}V_{s.var}[pt] = V_{s.source}[({src},)]")
        elif s.kind == "compute":
            tree = _Expr(variables, pra.params).visit(ast.parse(s.expr.text, mode="eval").body)
            lines.append(f"{body}assert pt not in V_{s.var}, ({s.id!r}, pt)")
            lines.append(f"{body}V_{s.var}[pt] = {ast.unparse(tree)}")
        else:
            idx = ", ".join(_aff(a) for a in s.index)
            lines.append(f"{body}_D_[{s.tensor!r}][{idx}] = V_{s.var}[pt]")
            lines.append(f"{body}_C_[('__w', {s.tensor!r}, {idx})] += 1")
    return "\n".join(lines) + "\n"


def _compile(pra: PRA, count: bool):
    ns: dict = {}
    exec(compile(_source(pra, count), f"<pra {pra.name}>", "exec"), ns)
    return ns["run"]


def _run(pra: PRA, values: Mapping[str, int], dram: dict, scalars: Mapping[str, float],
         tiles: tuple[int, ...] | None, count: bool) -> Counter:
    fn = _compile(pra, count)
    c: Counter = Counter()
    t = tiles if tiles is not None else (0,) * pra.n
    try:
        fn(dict(values), dram, dict(scalars), t, lambda x: max(x, 0.0), max, min, np.sqrt, abs, c)
    except KeyError as e:
        raise PRAError(f"{pra.name}: read of an undefined value {e}") from None
    twice = [k for k, v in c.items() if k[0] == "__w" and v > 1]
    if twice:
        raise PRAError(f"{pra.name}: tensor element written twice: {twice[0]}")
    return c


def random_inputs(kernel: Kernel, values: Mapping[str, int], seed: int = 0) -> dict[str, np.ndarray]:
    """Random float64 contents for every input and inout tensor (well conditioned for trisolv)."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, t in kernel.tensors().items():
        if t.kind == "output" and not any(
            name in {x.name for x in ph.tensors if x.kind != "output"} for ph in kernel.phases
        ):
            continue
        shape = tuple(a.evaluate(values) for a in t.shape)
        arr = rng.uniform(0.5, 1.5, size=shape)
        if len(shape) == 2 and shape[0] == shape[1]:
            arr = arr + np.eye(shape[0]) * shape[0]  # a dominant diagonal keeps divisions tame
        out[name] = arr
    return out


def execute(kernel: Kernel, values: Mapping[str, int],
            inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run every phase in order through DRAM; returns the final contents of every tensor."""
    dram = {k: np.array(v, dtype=float) for k, v in inputs.items()}
    for name, t in kernel.tensors().items():
        if name not in dram:
            dram[name] = np.full(tuple(a.evaluate(values) for a in t.shape), np.nan)
    for ph in kernel.phases:
        _run(ph, values, dram, dict(ph.scalars), None, count=False)
    return dram


def env(kernel: Kernel, values: Mapping[str, int]) -> dict[str, float]:
    """What a reference is called with: every phase's scalars plus the parameter values."""
    out: dict[str, float] = {}
    for ph in kernel.phases:
        out.update(dict(ph.scalars))
    out.update(values)
    return out


def counts(pra: PRA, values: Mapping[str, int], array: tuple[int, int] = (1, 1),
           tile: tuple[int, ...] | None = None) -> dict[str, Counter]:
    """Per-class accesses, ops and per-kind instance counts of one phase under a tiling."""
    tiling = Tiling.of(pra, array, tile)
    p = tiling.sizes(pra, values)
    tiles = tuple(p[l] if tiling.tiled(l) else 0 for l in range(pra.n))
    shapes = {t.name: tuple(a.evaluate(values) for a in t.shape) for t in pra.tensors}
    dram = {k: np.ones(v) for k, v in shapes.items()}
    with np.errstate(all="ignore"):  # ones in every input: LU's pivots become 0; only counts matter
        raw = _run(pra, values, dram, dict(pra.scalars), tiles, count=True)
    by_id = {s.id: s for s in pra.statements}
    cls: Counter = Counter()
    ops: Counter = Counter()
    kinds: Counter = Counter()
    per_case: Counter = Counter()
    for key, n in raw.items():
        if key[0] == "__w":
            continue
        s = by_id[key[0]]
        crossing = key[1]
        kinds[s.kind] += n
        if s.kind == "compute":
            acc = {"RD": len(s.expr.operands) + 1}
            for op, m in s.expr.ops:
                ops[op] += m * n
        elif s.kind in ("input", "output"):
            acc = PATHS[s.kind]
        elif not any(s.dep):
            acc = PATHS["zero"]
        else:
            acc = PATHS["inter" if any(crossing) else "intra"]
            kinds["inter" if any(crossing) else "intra"] += n
            per_case[(s.id, "inter" if any(crossing) else "intra")] += n
        for c, m in acc.items():
            cls[c] += m * n
    return {"classes": cls, "ops": ops, "kinds": kinds, "cases": per_case}


def kernel_counts(kernel: Kernel, values: Mapping[str, int], array: tuple[int, int] = (1, 1),
                  tile: tuple[int, ...] | None = None) -> dict[str, Counter]:
    """Counts summed over phases (phases add)."""
    total: dict[str, Counter] = {"classes": Counter(), "ops": Counter(), "kinds": Counter(),
                                 "cases": Counter()}
    for n, ph in enumerate(kernel.phases):
        c = counts(ph, values, array, tile)
        c["cases"] = Counter({(n, *k): v for k, v in c["cases"].items()})
        for k in total:
            total[k].update(c[k])
    return total
