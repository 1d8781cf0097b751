"""Localisation: an affine loop nest with broadcasts and reductions -> a uniform PRA.

Both front ends (einsum, C) describe what they read as a :class:`Nest`: loops with inclusive
affine bounds and statements ``T[f] op= E`` at some depth. :func:`localize` turns a sequence
of nests (phases that communicate through DRAM) into PRA YAML data, as a systolic-array
designer would (method sheet §2):

* an operand ``X[g]`` that does not depend on some loop indices (a broadcast) enters from
  DRAM at the first point along those indices and is propagated along them by transports
  ``x[i] = x[i - e_b]``; every value is read from DRAM exactly once per phase;
* an accumulation ``T[f] += E`` over the loop ``r`` missing from ``f`` becomes a chain along
  ``r``: the product of its array operands is computed once per point, the running sum is
  passed along ``r`` and leaves for DRAM at the last point (over several loops: partial
  sums along the innermost, finished ones chained along the next, outwards);
* triangular bounds are handled with isl: "the first point along ``b``" is where
  ``p - e_b`` leaves the domain, split into disjoint conjunctions;
* statements at an outer depth before the inner loop initialise the chain (``C *= beta``,
  ``tmp = 0``); after it they combine finished chains (``y = alpha*tmp + beta*y``) at the
  chain's last point.

What cannot be made uniform this way is refused with :class:`NotUniformError` naming the
access and the reason, never mapped wrongly: a read of an array the nest also writes at a
different index (an in-place update such as ``lu``, ``floyd-warshall``), reuse along a
direction that is not a loop axis (``A[i+j]``), a reduction over coupled loops, a statement
around an inner loop that can be empty.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from polyjoule.errors import NotUniformError, SpecError
from polyjoule.frontends.pra_yaml import load_kernel_data
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.pra import Kernel

#: Values given to scalars that the source does not initialise (the PolyBench defaults).
DEFAULT_SCALARS = {"alpha": 1.5, "beta": 1.2}


@dataclass(frozen=True)
class Access:
    """An array reference ``T[f(i)]`` with affine subscripts; ``where`` is its source place."""

    tensor: str
    index: tuple[Affine, ...]
    where: str = ""

    @property
    def key(self) -> tuple[str, tuple[Affine, ...]]:
        return (self.tensor, self.index)

    def __str__(self) -> str:
        return f"{self.tensor}[{']['.join(str(a) for a in self.index)}]"


@dataclass(frozen=True)
class Loop:
    """``for name in lower..upper`` (inclusive bounds, affine in parameters and outer loops)."""

    name: str
    lower: Affine
    upper: Affine
    where: str = ""


@dataclass(frozen=True)
class Stmt:
    """``target op expr`` at ``depth`` (number of enclosing loops).

    ``expr`` is a Python ``ast`` expression whose array reads are the names ``__r0``,
    ``__r1``, ... standing for ``reads[0]``, ``reads[1]``, ...; other names are scalars.
    ``position`` is ``body`` (innermost), ``pre`` (before the inner loop) or ``post``.
    """

    target: Access
    op: str  # "=", "+=", "-=", "*=", "/="
    expr: Any
    reads: tuple[Access, ...]
    depth: int
    position: str = "body"
    where: str = ""


@dataclass
class Nest:
    """One perfectly chained loop nest (a phase) as the front ends see it."""

    name: str
    params: tuple[str, ...]
    loops: tuple[Loop, ...]
    stmts: tuple[Stmt, ...]
    shapes: dict[str, tuple[Affine, ...]] = field(default_factory=dict)
    scalars: dict[str, float] = field(default_factory=dict)
    zero_init: frozenset[str] = frozenset()
    temporaries: frozenset[str] = frozenset()
    dtype: str = "fp32"


def _read_name(k: int) -> str:
    return f"__r{k}"


def _is_read(node: Any) -> int | None:
    if isinstance(node, ast.Name) and node.id.startswith("__r"):
        return int(node.id[3:])
    return None


def _fmt_index(idx: Sequence[Affine]) -> str:
    return ", ".join(str(a) for a in idx)


def check_uniform(nest: Nest) -> None:
    """Refuse reads of an array that the nest writes at a different index (in-place updates).

    A distance that depends on the loop indices (``lu``: ``A[i][k]`` against ``A[i][j]``) is
    reported first; a constant distance in place (a stencil updating its own array) second.
    """
    written: dict[str, Stmt] = {}
    for s in nest.stmts:
        written.setdefault(s.target.tensor, s)
    constant: str | None = None
    for s in nest.stmts:
        for r in s.reads:
            w = written.get(r.tensor)
            if w is None or r.index == w.target.index:
                continue
            if len(r.index) != len(w.target.index):
                raise NotUniformError(f"{r.where}: {r} and {w.target} index {r.tensor} differently")
            dist = [f - g for f, g in zip(w.target.index, r.index, strict=True)]
            text = ", ".join(str(d) for d in dist)
            if any(d.terms for d in dist):
                raise NotUniformError(
                    f"{r.where}: {r} reads {r.tensor}, which {w.target} ({w.where}) writes in "
                    f"the same nest: the dependence distance ({text}) depends on the loop "
                    f"indices, so it is not uniform and cannot be localised"
                )
            if constant is None:
                constant = (
                    f"{r.where}: {r} reads {r.tensor} in place while {w.target} ({w.where}) "
                    f"writes it: the distance ({text}) is constant but whether the old or the new "
                    f"value is read depends on the iteration order; rename the array into single "
                    f"assignment first"
                )
    if constant is not None:
        raise NotUniformError(constant)


def _rank(rows: list[list[int]]) -> int:
    """Rank of a small integer matrix (fraction-free Gaussian elimination)."""
    m = [r[:] for r in rows]
    rank, ncols = 0, len(m[0]) if m else 0
    for c in range(ncols):
        piv = next((r for r in range(rank, len(m)) if m[r][c] != 0), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        for r in range(len(m)):
            if r != rank and m[r][c] != 0:
                a, b = m[rank][c], m[r][c]
                m[r] = [a * x - b * y for x, y in zip(m[r], m[rank], strict=True)]
        rank += 1
    return rank


class _Phase:
    """Builds the statement list of one phase."""

    def __init__(self, nest: Nest, reserved: set[str]):
        self.nest = nest
        self.dims = [lp.name for lp in nest.loops]
        self.out: list[dict[str, Any]] = []
        self.used: set[str] = set(reserved) | set(self.dims) | set(nest.params) | set(nest.scalars)
        self.vars: dict[tuple[str, tuple[Affine, ...]], str] = {}  # localised inputs (body)
        self.point_vars: dict[tuple[Any, ...], str] = {}  # inputs read at one boundary point
        self.tensors: dict[str, dict[str, Any]] = {}
        self.extents: dict[str, Affine] = {}

    # -- helpers --------------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        base = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in base.lower()) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, k = base, 1
        while name in self.used or name in {"relu", "max", "min", "sqrt"}:
            k += 1
            name = f"{base}{k}"
        self.used.add(name)
        return name

    def emit(self, var: str, kind: str, value: Any, when: Sequence[Constraint] = (),
             dep: Sequence[int] | None = None) -> None:
        st: dict[str, Any] = {"id": f"S{len(self.out) + 1}", "var": var}
        if kind == "from":
            st["from"] = value
            st["dep"] = list(dep or ())
        else:
            st[kind] = value
        texts = list(dict.fromkeys(condition_text(c, self.dims) for c in self.prune(when)))
        if texts:
            st["when"] = texts if len(texts) > 1 else texts[0]
        self.out.append(st)

    def loop(self, name: str) -> Loop:
        return self.nest.loops[self.dims.index(name)]

    # -- the domain and its boundaries, for rectangular and triangular nests -------------
    def domain(self) -> list[Constraint]:
        out: list[Constraint] = []
        for lp in self.nest.loops:
            x = Affine.of({lp.name: 1})
            out += [Constraint(x - lp.lower), Constraint(lp.upper - x)]
        return out

    def empty(self, conds: Sequence[Constraint], dims: Sequence[str] | None = None) -> bool:
        """Is ``domain and conds`` empty for every parameter value (params >= 1)?"""
        return self._isl(conds, dims).is_empty()

    def _isl(self, conds: Sequence[Constraint], dims: Sequence[str] | None = None) -> Any:
        import islpy as isl

        params = ", ".join(self.nest.params)
        body = " and ".join([*(f"{p} >= 1" for p in self.nest.params),
                             *(c.isl() for c in (*self.domain(), *conds))]) or "true"
        out = isl.Set(f"[{params}] -> {{ [{', '.join(self.dims)}] : {body} }}")
        if dims is not None:  # project onto the given leading dims
            keep = len(dims)
            out = out.project_out(isl.dim_type.set, keep, len(self.dims) - keep)
        return out

    def inner_never_empty(self, depth: int) -> bool:
        """Does every point of the outer ``depth`` loops have at least one inner point?"""
        import islpy as isl

        outer = self.dims[:depth]
        cons = []
        for lp in self.nest.loops[:depth]:
            x = Affine.of({lp.name: 1})
            cons += [Constraint(x - lp.lower).isl(), Constraint(lp.upper - x).isl()]
        body = " and ".join([*(f"{p} >= 1" for p in self.nest.params), *cons]) or "true"
        want = isl.Set(f"[{', '.join(self.nest.params)}] -> {{ [{', '.join(outer)}] : {body} }}")
        return self._isl([], outer).is_equal(want)

    def prune(self, conds: Sequence[Constraint]) -> list[Constraint]:
        """Drop conditions that the domain and the other conditions already imply."""
        keep = list(dict.fromkeys(conds))
        for c in list(keep):
            if c.eq:
                continue
            rest = [x for x in keep if x is not c]
            if self.empty([*rest, Constraint((-c.expr).shift(-1))]):
                keep = rest
        return keep

    def _boundary(self, d: str, sign: int) -> list[list[Constraint]]:
        """Disjoint pieces of the domain where ``p - sign * e_d`` leaves it (the first points
        along ``d`` for sign +1, the last ones for -1), each a conjunction."""
        cands = []
        for c in self.domain():
            a = c.expr.coeffs.get(d, 0) * sign
            if a <= 0:
                continue
            if a != 1:
                raise NotUniformError(f"{self.loop(d).where}: loop bounds scale {d} by {a}: not "
                                      f"supported")
            cands.append(c)
        pieces: list[list[Constraint]] = []
        for k, c in enumerate(cands):
            piece = [Constraint(c.expr, eq=True)]
            piece += [Constraint(e.expr.shift(-1)) for e in cands[:k]]
            if not self.empty(piece):
                pieces.append(piece)
        if len(pieces) > 1:  # one equality may cover the union (syrk: i == 0 implies i == j)
            union = None
            for pc in pieces:
                u = self._isl(pc)
                union = u if union is None else union.union(u)
            for c in cands:
                single = [Constraint(c.expr, eq=True)]
                if self._isl(single).is_equal(union):
                    return [single]
        return pieces

    def first(self, d: str) -> list[list[Constraint]]:
        return self._boundary(d, 1)

    def last(self, d: str) -> list[list[Constraint]]:
        return self._boundary(d, -1)

    def after_first(self, d: str) -> list[Constraint]:
        """Where ``p - e_d`` stays in the domain (the region of a transport along ``d``)."""
        return [Constraint(c.expr.shift(-c.expr.coeffs[d])) for c in self.domain()
                if c.expr.coeffs.get(d, 0) > 0]

    def combos(self, dims: Sequence[str], which: str) -> list[list[Constraint]]:
        """Conjunctions of first (or last) pieces of several dims, the empty ones dropped."""
        out: list[list[Constraint]] = [[]]
        for d in dims:
            pieces = self.first(d) if which == "first" else self.last(d)
            out = [a + b for a in out for b in pieces]
        return [c for c in out if not c or not self.empty(c)]

    def maximum(self, x: Affine) -> Affine:
        """Largest value of ``x`` over the nest, as an affine function of the parameters."""
        out = Affine.of({}, x.const)
        for name, c in x.terms:
            if name in self.dims:
                lp = self.loop(name)
                out = out + _scale(self.maximum(lp.upper) if c > 0 else self.minimum(lp.lower), c)
            else:
                out = out + Affine.of({name: c})
        return out

    def minimum(self, x: Affine) -> Affine:
        return -self.maximum(-x)

    def unit(self, d: str) -> list[int]:
        return [1 if x == d else 0 for x in self.dims]

    def tensor(self, a: Access, kind: str) -> None:
        shape = self.nest.shapes.get(a.tensor)
        if shape is None:
            shape = tuple(self._extent(x, a) for x in a.index)
        if len(shape) != len(a.index):
            raise SpecError(f"{a.where}: {a} has {len(a.index)} subscripts, {a.tensor} has "
                            f"{len(shape)} dimensions")
        prev = self.tensors.get(a.tensor)
        if prev is not None and prev["kind"] != kind:
            kind = "inout"
        self.tensors[a.tensor] = {"shape": [str(x) for x in shape], "kind": kind}

    def _extent(self, x: Affine, a: Access) -> Affine:
        """Largest value of a subscript over the nest, plus one."""
        return self.maximum(x).shift(1)

    # -- inputs ---------------------------------------------------------------------------
    def body_input(self, a: Access) -> str:
        """A body read of an input tensor: localised once, propagated along its broadcasts."""
        if a.key in self.vars:
            return self.vars[a.key]
        used = [d for d in self.dims if any(d in x.names() for x in a.index)]
        rows = [[x.coeffs.get(d, 0) for d in used] for x in a.index]
        if used and _rank(rows) < len(used):
            raise NotUniformError(
                f"{a.where}: {a}: the same element is reused along a direction that is not a "
                f"loop axis, so it cannot be propagated by a constant dependence"
            )
        var = self.fresh(a.tensor)
        self.vars[a.key] = var
        self.tensor(a, "input")
        bcast = [d for d in self.dims if d not in used]
        ref = f"{a.tensor}[{_fmt_index(a.index)}]"
        for piece in self.combos(bcast, "first"):
            self.emit(var, "input", ref, piece)
        for r, b in enumerate(bcast):
            for piece in self.combos(bcast[r + 1:], "first"):
                when = self.after_first(b) + piece
                if not self.empty(when):
                    self.emit(var, "from", var, when, self.unit(b))
        return var

    def point_input(self, a: Access, when: tuple[Constraint, ...]) -> str:
        """A read at one boundary point set (pre/post statements): straight from DRAM."""
        if a.key in self.vars:
            return self.vars[a.key]
        key = (a.key, when)
        if key not in self.point_vars:
            var = self.fresh(a.tensor)
            self.point_vars[key] = var
            self.tensor(a, "input")
            self.emit(var, "input", f"{a.tensor}[{_fmt_index(a.index)}]", list(when))
        return self.point_vars[key]


def _scale(a: Affine, c: int) -> Affine:
    return Affine.of({k: v * c for k, v in a.terms}, a.const * c)


def condition_text(c: Constraint, dims: Sequence[str]) -> str:
    """``i - j - 1 >= 0`` -> ``i >= j + 1``: the innermost loop index on the left, as people
    write bounds (used for generated YAML and for ``polyjoule show``)."""
    e = c.expr
    positive = [k for k in dims if e.coeffs.get(k, 0) > 0]
    lead = positive[-1] if positive else next((k for k in dims if k in e.coeffs), None)
    if lead is None:
        lead = e.terms[0][0] if e.terms else None
    rel = "==" if c.eq else ">="
    if lead is not None and e.coeffs[lead] < 0:
        e = -e
        rel = "==" if c.eq else "<="
    lhs = Affine.of({k: v for k, v in e.terms if v > 0 and k == lead})
    rhs = lhs - e
    return f"{lhs} {rel} {rhs}"


def _render(expr: Any, names: Mapping[int, str]) -> str:
    class _Sub(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> Any:
            k = _is_read(node)
            return ast.Name(id=names[k], ctx=ast.Load()) if k is not None else node

    return ast.unparse(_Sub().visit(ast.parse(ast.unparse(expr), mode="eval").body))


def _factors(expr: Any) -> list[Any]:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return _factors(expr.left) + _factors(expr.right)
    return [expr]


def _has_op(expr: Any) -> bool:
    return not isinstance(expr, ast.Name)


def _split_accumulation(s: Stmt) -> tuple[str, Any] | None:
    """``T += E`` / ``T -= E`` / ``T = T + E`` / ``T = E + T`` / ``T = T - E`` -> (op, E)."""
    if s.op in ("+=", "-="):
        return s.op[0], s.expr
    if s.op != "=" or not isinstance(s.expr, ast.BinOp):
        return None

    def is_target(node: Any) -> bool:
        k = _is_read(node)
        return k is not None and s.reads[k].key == s.target.key

    e = s.expr
    if isinstance(e.op, ast.Add) and is_target(e.left):
        return "+", e.right
    if isinstance(e.op, ast.Add) and is_target(e.right):
        return "+", e.left
    if isinstance(e.op, ast.Sub) and is_target(e.left):
        return "-", e.right
    return None


def _reads_in(expr: Any) -> list[int]:
    return [k for n in ast.walk(expr) if (k := _is_read(n)) is not None]


def _localize_phase(nest: Nest, reserved: set[str]) -> tuple[dict[str, Any], _Phase]:
    check_uniform(nest)
    ph = _Phase(nest, reserved)
    n = len(nest.loops)
    names_set = set(ph.dims)
    for lp in nest.loops:
        if ph.minimum(lp.lower).terms or ph.minimum(lp.lower).const < 0:
            raise SpecError(f"{lp.where}: loop {lp.name}: lower bound {lp.lower} can be negative "
                            f"or depends on a parameter; loops must start at 0 or at an outer index")
        if (lp.lower.names() | lp.upper.names()) & names_set:
            ph.extents[lp.name] = ph.maximum(lp.upper).shift(1)
    body = [s for s in nest.stmts if s.position == "body"]
    pre = [s for s in nest.stmts if s.position == "pre"]
    post = [s for s in nest.stmts if s.position == "post"]
    for s in (*pre, *post):
        if not ph.inner_never_empty(s.depth):
            raise NotUniformError(
                f"{s.where}: the loops inside {', '.join(ph.dims[:s.depth])} are empty for some "
                f"of its values, so this statement {'before' if s in pre else 'after'} them "
                f"has no iteration to live in (extend the inner range, as the built-in trmm does)"
            )
    if not body:
        raise SpecError(f"{nest.name}: the innermost loop has no statement")
    for s in nest.stmts:
        for x in s.target.index:
            if len(x.terms) != 1 or x.const != 0 or x.terms[0][1] != 1 \
                    or x.terms[0][0] not in ph.dims:
                raise NotUniformError(
                    f"{s.where}: {s.target}: every subscript of a written array must be a loop "
                    f"index, {x} is not"
                )
        if len({x.terms[0][0] for x in s.target.index}) != len(s.target.index):
            raise NotUniformError(f"{s.where}: {s.target}: a loop index appears twice")

    chains: dict[tuple[str, tuple[Affine, ...]], dict[str, Any]] = {}
    pointwise: dict[tuple[str, tuple[Affine, ...]], str] = {}
    for s in body:
        if s.depth != n:
            raise SpecError(f"{s.where}: statement is not in the innermost loop")
        tdims = [x.terms[0][0] for x in s.target.index]
        red = [d for d in ph.dims if d not in tdims]
        if s.target.key in chains or s.target.key in pointwise:
            raise NotUniformError(f"{s.where}: {s.target} is written by two statements")
        acc = _split_accumulation(s)
        if len(red) > 1:
            params = set(nest.params)
            coupled = [lp.name for lp in nest.loops
                       if (lp.name in red and not (lp.lower.names() | lp.upper.names()) <= params)
                       or ((lp.lower.names() | lp.upper.names()) & set(red))]
            if coupled:
                raise NotUniformError(
                    f"{s.where}: {s.target} is reduced over {len(red)} loops ({', '.join(red)}) "
                    f"whose bounds are coupled (loop {coupled[0]}); the front end nests partial "
                    f"sums over rectangular reduction loops only"
                )
        if red and acc is None:
            raise NotUniformError(
                f"{s.where}: {s.target} does not depend on loop {red[0]} and is overwritten, not "
                f"accumulated, along it"
            )
        op, expr = acc if acc is not None else ("=", s.expr)
        # operand variables of the statement's right-hand side
        names: dict[int, str] = {}
        for k in _reads_in(expr):
            r = s.reads[k]
            if r.key == s.target.key:
                if red:
                    raise NotUniformError(f"{r.where}: {r} is read again inside its own update")
                names[k] = ph.body_input(r)  # a pointwise update reads the old value
                ph.tensors[r.tensor]["kind"] = "inout"
                continue
            if r.key in pointwise:
                names[k] = pointwise[r.key]
            elif r.key in chains:
                raise NotUniformError(
                    f"{r.where}: {r} reads a partial sum of a reduction in the same loop body"
                )
            elif any(t.target.tensor == r.tensor for t in nest.stmts):
                raise NotUniformError(f"{r.where}: {r} is read before it is written in the body")
            else:
                names[k] = ph.body_input(r)
        if not red:
            if op != "=" or s.op in ("*=", "/="):
                c = ph.body_input(s.target)
                ph.tensors[s.target.tensor]["kind"] = "inout"
                sym = {"+=": "+", "-=": "-", "*=": "*", "/=": "/"}.get(s.op, op)
                rhs = _render(expr, names)
                text = f"{c} {sym} ({rhs})" if _has_op(expr) else f"{c} {sym} {rhs}"
                var = ph.fresh(s.target.tensor + "_v")
                ph.emit(var, "compute", text)
            elif _has_op(expr):
                var = ph.fresh(s.target.tensor + "_v")
                ph.emit(var, "compute", _render(expr, names))
            else:
                var = _render(expr, names)
            pointwise[s.target.key] = var
            continue
        # the product of the array operands once per point; scalar factors stay in the chain
        facs = _factors(expr)
        arr = [f for f in facs if _reads_in(f)]
        sca = [f for f in facs if not _reads_in(f)]
        if len(facs) > 1 and arr and sca:
            prod_expr: Any = arr[0]
            for f in arr[1:]:
                prod_expr = ast.BinOp(prod_expr, ast.Mult(), f)
            scale = " * ".join(ast.unparse(f) for f in sca)
        else:
            prod_expr, scale = expr, ""
        if _has_op(prod_expr):
            p = ph.fresh(s.target.tensor + "_p")
            ph.emit(p, "compute", _render(prod_expr, names))
        else:
            p = _render(prod_expr, names)
        inc = f"{scale} * {p}" if scale else p
        chains[s.target.key] = {"stmt": s, "dim": red[0], "dims": red, "op": op, "inc": inc,
                                "var": None}

    # chains: initialisation from pre statements, zero, or the tensor's own value
    inits: dict[tuple[str, tuple[Affine, ...]], Stmt] = {}
    for s in pre:
        if s.target.key not in chains:
            raise NotUniformError(
                f"{s.where}: {s.target} is set before the inner loop but not accumulated in it"
            )
        if s.target.key in inits:
            raise NotUniformError(f"{s.where}: {s.target} is initialised twice")
        inits[s.target.key] = s
    for key, ch in chains.items():
        s, r, op, inc = ch["stmt"], ch["dim"], ch["op"], ch["inc"]
        init = inits.get(key)
        if init is not None and r not in ph.dims[init.depth:]:
            raise NotUniformError(
                f"{init.where}: {init.target} is reset inside the loop {r} that accumulates it"
            )
        # several reduction loops: partial sums along the inner ones, innermost first, each
        # finished at its last point and passed outwards (a sum reassociated per loop)
        red = ch["dims"]
        for level in range(len(red) - 1, 0, -1):
            rl = red[level]
            region = ph.combos(red[level + 1:], "last")[0]
            part = ph.fresh(s.target.tensor + "_part")
            for piece in ph.first(rl):
                ph.emit(part, "compute", inc, piece + region)
            prev = ph.fresh(s.target.tensor + "_pin")
            ph.emit(prev, "from", part, ph.after_first(rl) + region, ph.unit(rl))
            ph.emit(part, "compute", f"{prev} + {inc}", ph.after_first(rl) + region)
            inc = part
        outer_region = ph.combos(red[1:], "last")[0]
        var = ph.fresh(s.target.tensor + "_acc")
        ch["var"] = var
        for piece in ph.first(r):
            start = tuple(piece + outer_region)
            first: str | None
            if init is not None and init.op == "=" and isinstance(init.expr, ast.Constant) \
                    and init.expr.value == 0:
                first = None
            elif init is not None:
                names = {}
                for k in _reads_in(init.expr):
                    names[k] = ph.point_input(init.reads[k], start)
                if init.op in ("*=", "/=", "+=", "-="):
                    c = ph.point_input(init.target, start)
                    ph.tensors[init.target.tensor]["kind"] = "inout"
                    rhs = _render(init.expr, names)
                    if _has_op(init.expr):
                        rhs = f"({rhs})"
                    first = f"{c} {init.op[0]} {rhs}"
                else:
                    first = _render(init.expr, names)
            elif s.target.tensor in nest.zero_init:
                first = None
            else:
                first = ph.point_input(s.target, start)
                ph.tensors[s.target.tensor]["kind"] = "inout"
            if first is None:
                text = inc if op == "+" else (f"-{inc}" if " " not in inc else f"-({inc})")
            else:
                text = f"{first} {op} {inc}"
            ph.emit(var, "compute", text, start)
        prev = ph.fresh(s.target.tensor + "_in")
        ph.emit(prev, "from", var, ph.after_first(r) + outer_region, ph.unit(r))
        ph.emit(var, "compute", f"{prev} {op} {inc}", ph.after_first(r) + outer_region)

    # post statements: combine finished chains at the chain's last point
    finals: dict[tuple[str, tuple[Affine, ...]], str] = {}
    post_targets = {s.target.key for s in post}
    for s in post:
        tdims = [x.terms[0][0] for x in s.target.index]
        inner = ph.dims[s.depth:]
        if sorted(tdims) != sorted(ph.dims[:s.depth]):
            raise NotUniformError(f"{s.where}: {s.target} after the inner loop must be indexed "
                                  f"by the enclosing loops")
        pieces = ph.combos(inner, "last")
        if len(pieces) != 1:
            raise NotUniformError(f"{s.where}: the inner loops end on {len(pieces)} different "
                                  f"faces; a statement after them has no single place")
        when = tuple(pieces[0])
        names = {}
        for k in _reads_in(s.expr):
            ra = s.reads[k]
            if ra.key in finals:
                names[k] = finals[ra.key]
            elif ra.key in chains:
                if not set(chains[ra.key]["dims"]) <= set(inner):
                    raise NotUniformError(f"{ra.where}: {ra} is not finished at this point")
                names[k] = chains[ra.key]["var"]
            elif ra.key in pointwise:
                names[k] = pointwise[ra.key]
            elif any(t.target.tensor == ra.tensor for t in nest.stmts):
                raise NotUniformError(f"{ra.where}: {ra} is not a finished value at this point")
            else:
                names[k] = ph.point_input(ra, when)
        if s.op != "=":
            if s.target.key not in chains:
                raise NotUniformError(f"{s.where}: {s.op} on {s.target} after the inner loop")
            if not set(chains[s.target.key]["dims"]) <= set(inner):
                raise NotUniformError(f"{s.where}: {s.target} is not finished at this point")
            base = finals.get(s.target.key, chains[s.target.key]["var"])
            rhs = _render(s.expr, names)
            text = f"{base} {s.op[0]} ({rhs})" if _has_op(s.expr) else f"{base} {s.op[0]} {rhs}"
        else:
            text = _render(s.expr, names)
        var = ph.fresh(s.target.tensor + "_out")
        ph.emit(var, "compute", text, when)
        finals[s.target.key] = var
    for key, var in finals.items():
        s = next(t for t in reversed(post) if t.target.key == key)
        if s.target.tensor not in nest.temporaries:
            ph.tensor(s.target, "output")
            ph.emit(var, "output", f"{s.target.tensor}[{_fmt_index(s.target.index)}]",
                    ph.combos(ph.dims[s.depth:], "last")[0])
    for key, ch in chains.items():
        s = ch["stmt"]
        if key in post_targets or s.target.tensor in nest.temporaries:
            continue
        ph.tensor(s.target, "output")
        for piece in ph.combos(ch["dims"], "last"):
            ph.emit(ch["var"], "output", f"{s.target.tensor}[{_fmt_index(s.target.index)}]",
                    piece)
    for key, var in pointwise.items():
        s = next(t for t in body if t.target.key == key)
        if s.target.tensor in nest.temporaries:
            continue
        ph.tensor(s.target, "output")
        ph.emit(var, "output", f"{s.target.tensor}[{_fmt_index(s.target.index)}]")
    for t in nest.temporaries:
        ph.tensors.pop(t, None)

    data: dict[str, Any] = {
        "name": nest.name,
        "dtype": nest.dtype,
        "params": {p: 1 for p in nest.params},
        "dims": [{"name": lp.name, "lower": _yaml_affine(lp.lower),
                  "upper": _yaml_affine(lp.upper),
                  **({"extent": _yaml_affine(ph.extents[lp.name])}
                     if lp.name in ph.extents else {})} for lp in nest.loops],
        "tensors": ph.tensors,
        "statements": ph.out,
    }
    words = {w for o in ph.out for w in re.findall(r"[A-Za-z_][A-Za-z_0-9]*",
                                                    str(o.get("compute", "")))}
    used_scalars = {k: v for k, v in nest.scalars.items() if k in words}
    if used_scalars:
        data["scalars"] = used_scalars
    return data, ph


def _yaml_affine(a: Affine) -> int | str:
    return a.const if not a.terms else str(a)


def localize(nests: Sequence[Nest], name: str, description: str = "",
             datasets: Mapping[str, Mapping[str, int]] | None = None) -> dict[str, Any]:
    """PRA YAML data (a kernel of phases) for the nests, in order; validated by loading it."""
    if not nests:
        raise SpecError(f"{name}: no loop nest to localise")
    phases = []
    for k, nest in enumerate(nests):
        if len(nests) > 1 and nest.name == name:
            nest.name = f"{name}.{k + 1}"
        data, _ = _localize_phase(nest, set())
        phases.append(data)
    out: dict[str, Any] = {"version": 1, "name": name}
    if description:
        out["description"] = description
    if datasets:
        out["datasets"] = {k: dict(v) for k, v in datasets.items()}
    out["phases"] = phases
    to_kernel(out)  # every derived PRA passes the same validation as a hand-written one
    return out


def to_kernel(data: Mapping[str, Any]) -> Kernel:
    """Load derived PRA data as a :class:`Kernel`."""
    return load_kernel_data(dict(data), f"<derived {data.get('name', '?')}>")
