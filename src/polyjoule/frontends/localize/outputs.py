"""Pass 5: statements after the inner loop and output emission.

A statement after the inner loops (``y = alpha*tmp + beta*y``) combines finished chains at
the chain's last point; every value that is not a temporary then leaves for DRAM there.
"""

from __future__ import annotations

from dataclasses import replace

from polyjoule.errors import NotUniformError
from polyjoule.frontends.cflow import covers
from polyjoule.frontends.localize.body import Body, Key
from polyjoule.frontends.localize.exprs import has_op, reads_in, render
from polyjoule.frontends.localize.inputs import point_input
from polyjoule.frontends.localize.phase import Phase
from polyjoule.frontends.localize.uniform import written_dim
from polyjoule.model.affine import Affine, Constraint
from polyjoule.model.nest import Nest, Stmt
from polyjoule.model.pra import PRA


def _post_place(ph: Phase, s: Stmt) -> tuple[Constraint, ...]:
    """The single face where the loops inside a post statement end."""
    tdims = [written_dim(x, ph.dims) for x in s.target.index]
    if sorted(tdims) != sorted(ph.dims[:s.depth]):
        raise NotUniformError(f"{s.where}: {s.target} after the inner loop must be indexed "
                              f"by the enclosing loops")
    pieces = ph.geo.combos(ph.dims[s.depth:], "last")
    if len(pieces) != 1:
        raise NotUniformError(f"{s.where}: the inner loops end on {len(pieces)} different "
                              f"faces; a statement after them has no single place")
    return tuple(pieces[0])


def _post_operands(ph: Phase, s: Stmt, body: Body, finals: dict[Key, str],
                   when: tuple[Constraint, ...]) -> dict[int, str]:
    """The variable of every read of a post statement: a finished value or a DRAM read."""
    inner = set(ph.dims[s.depth:])
    names: dict[int, str] = {}
    for k in reads_in(s.expr):
        ra = s.reads[k]
        if ra.key in finals:
            names[k] = finals[ra.key]
        elif ra.key in body.chains:
            if not set(body.chains[ra.key].dims) <= inner:
                raise NotUniformError(f"{ra.where}: {ra} is not finished at this point")
            names[k] = body.chains[ra.key].var
        elif ra.key in body.pointwise:
            names[k] = body.pointwise[ra.key]
        elif any(t.target.tensor == ra.tensor for t in ph.nest.stmts):
            raise NotUniformError(f"{ra.where}: {ra} is not a finished value at this point")
        else:
            names[k] = point_input(ph, ra, when)
    return names


def _post_text(ph: Phase, s: Stmt, body: Body, finals: dict[Key, str],
               names: dict[int, str]) -> str:
    if s.op == "=":
        return render(s.expr, names)
    chain = body.chains.get(s.target.key)
    if chain is None:
        raise NotUniformError(f"{s.where}: {s.op} on {s.target} after the inner loop")
    if not set(chain.dims) <= set(ph.dims[s.depth:]):
        raise NotUniformError(f"{s.where}: {s.target} is not finished at this point")
    base = finals.get(s.target.key, chain.var)
    rhs = render(s.expr, names)
    return f"{base} {s.op[0]} ({rhs})" if has_op(s.expr) else f"{base} {s.op[0]} {rhs}"


def localize_post(ph: Phase, body: Body) -> dict[Key, str]:
    """Emit the statements after the inner loops; return the final variable per target."""
    finals: dict[Key, str] = {}
    for s in (t for t in ph.nest.stmts if t.position == "post"):
        when = _post_place(ph, s)
        names = _post_operands(ph, s, body, finals, when)
        text = _post_text(ph, s, body, finals, names)
        if s.op == "=" and not has_op(s.expr):  # a copy (cov[j][i] = cov[i][j]): no operation
            finals[s.target.key] = text
            continue
        var = ph.fresh(s.target.tensor + "_out")
        ph.compute(var, text, when)
        finals[s.target.key] = var
    return finals


def _apart(ph: Phase, s: Stmt, earlier: list[Stmt]) -> list[Constraint]:
    """Where a mirrored write (``cov[j][i] = cov[i][j]``) does not hit an element an earlier
    write of the tensor already stores: on the diagonal ``j == i`` both name one element,
    which must leave for DRAM once. Handles subscripts that differ by one affine ``d`` (up
    to sign) that the domain keeps non-negative: the write keeps ``d >= 1``."""
    out: list[Constraint] = []
    for e in (t for t in earlier if t.target.tensor == s.target.tensor):
        diffs = {x - y for x, y in zip(s.target.index, e.target.index, strict=True)}
        diffs = [d for d in diffs if d.terms or d.const]
        for d in diffs:
            same = all(x == d or x == -d for x in diffs)
            if same and d.terms and ph.geo.empty([Constraint((-d).shift(-1))]):
                out.append(Constraint(d.shift(-1)))  # d >= 0 everywhere: keep d >= 1
                break
    return out


def emit_outputs(ph: Phase, body: Body, finals: dict[Key, str]) -> None:
    """Every finished value that is not a temporary leaves for DRAM where it is finished."""
    post = [t for t in ph.nest.stmts if t.position == "post"]
    temporaries = ph.nest.temporaries
    done: list[Stmt] = []
    for key, var in finals.items():
        s = next(t for t in reversed(post) if t.target.key == key)
        if s.target.tensor not in temporaries:
            ph.tensor(s.target, "output")
            last = ph.geo.combos(ph.dims[s.depth:], "last")[0]
            ph.output(var, s.target, [*last, *_apart(ph, s, done)])
            done.append(s)
    post_targets = {s.target.key for s in post}
    for key, ch in body.chains.items():
        s = ch.stmt
        if key in post_targets or s.target.tensor in temporaries:
            continue
        ph.tensor(s.target, "output")
        for piece in ph.geo.combos(ch.dims, "last"):
            ph.output(ch.var, s.target, piece)
    for key, var in body.pointwise.items():
        s = next(t for t in ph.nest.stmts if t.position == "body" and t.target.key == key)
        if s.target.tensor not in temporaries:
            ph.tensor(s.target, "output")
            ph.output(var, s.target)



def _partly_written(nest: Nest) -> set[str]:
    """The declared arrays whose writes miss some of their elements for some parameters."""
    out = set()
    for name in {s.target.tensor for s in nest.stmts} & set(nest.shapes):
        writes = []
        for s in (s for s in nest.stmts if s.target.tensor == name):
            loops = nest.loops[:s.depth]
            domain = [c for lp in loops for c in (
                Constraint(Affine.of({lp.name: 1}) - lp.lower),
                Constraint(lp.upper - Affine.of({lp.name: 1})))]
            writes.append(([lp.name for lp in loops], domain, s.target.index))
        dims = {lp.name for lp in nest.loops}
        params = {n for _d, dom, ix in writes for x in (*ix, *(c.expr for c in dom))
                  for n in x.names()} | {n for x in nest.shapes[name] for n in x.names()}
        if len(nest.shapes[name]) == len(writes[0][2]) and \
                not covers(sorted(params - dims), nest.shapes[name], writes):
            out.add(name)
    return out


def keep_unwritten(pra: PRA, nest: Nest) -> PRA:
    """An output array the nest writes only in part keeps its other elements from DRAM: it
    is ``inout``, so no one claims the unwritten elements as results."""
    partial = {t.name for t in pra.tensors if t.kind == "output"} & _partly_written(nest)
    if not partial:
        return pra
    return replace(pra, tensors=tuple(replace(t, kind="inout") if t.name in partial else t
                                      for t in pra.tensors))
