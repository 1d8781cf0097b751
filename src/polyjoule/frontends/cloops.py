"""Loop distribution and fusion: PolyBench's loop orders -> chains of loops that localise.

The localiser reads one chain of loops per phase. PolyBench writes some kernels otherwise:
ATAX holds two ``j`` loops in its ``i`` loop (``tmp`` then ``y``), GEMM, SYRK and SYR2K scale
a row in one ``j`` loop and accumulate into it in a ``k, j`` nest. Two classical, checked
rewrites bring them into shape, as a polyhedral compiler would:

* :func:`distribute` splits a loop whose body holds several loops in sequence into one loop
  per part, when every array that two parts share (and one writes) is touched by all of them
  at the loop index in the same subscript: then iteration ``i`` of a later part only sees what
  iteration ``i`` of an earlier part made, whichever runs first;
* :func:`fuse_inits` merges a pointwise nest with the accumulation nest after it when the
  accumulation writes what the first nest wrote, at the same index: the first nest's
  statements become the chain's start (``C *= beta`` before ``for k``), and the accumulation's
  loops are reordered to the first nest's loops followed by its reduction loops (legal: every
  location it writes is written along the reduction loops only, in their order); likewise a
  pointwise nest over the outer loops of an accumulation that only updates the finished
  sums (GEMVER's ``x = x + z``) becomes the statement after the inner loop.

Anything else is left as written, and the front end refuses it with its own reason.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pycparser import c_ast

from polyjoule.model.nest import Loop, Stmt

Part = list[Any]


def _items(node: Any) -> list[Any]:
    if isinstance(node, c_ast.Compound):
        return [x for x in (node.block_items or []) if not isinstance(x, c_ast.Pragma)]
    return [node] if node is not None else []


def _var(node: c_ast.For) -> str | None:
    init = node.init
    if isinstance(init, c_ast.DeclList) and init.decls:
        return init.decls[0].name
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    return None


def _parts(items: list[Any]) -> list[Part]:
    """Statements before an inner loop go with it; those after the last loop, with the last."""
    parts: list[Part] = [[]]
    for x in items:
        parts[-1].append(x)
        if isinstance(x, c_ast.For):
            parts.append([])
    if not parts[-1]:
        parts.pop()
    elif len(parts) > 1:
        parts[-2].extend(parts.pop())
    return parts


def _accesses(node: Any, out: list[tuple[str, tuple[Any, ...], bool]], write: bool = False) -> bool:
    """Collect (array, subscripts, written) of every array reference; False on a scalar write."""
    if isinstance(node, c_ast.For):  # its own index is not a scalar the parts share
        return _accesses(node.stmt, out) if node.stmt is not None else True
    if isinstance(node, c_ast.Assignment):
        if not isinstance(node.lvalue, c_ast.ArrayRef):
            return False
        ok = _accesses(node.lvalue, out, True)
        if node.op != "=":
            _accesses(node.lvalue, out, False)
        return _accesses(node.rvalue, out) and ok
    if isinstance(node, c_ast.ArrayRef):
        subs, n = [], node
        while isinstance(n, c_ast.ArrayRef):
            subs.insert(0, n.subscript)
            _accesses(n.subscript, out)
            n = n.name
        if isinstance(n, c_ast.ID):
            out.append((n.name, tuple(subs), write))
        return True
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--") \
            and not isinstance(node.expr, c_ast.ID):
        return False
    ok = True
    for _name, child in node.children():
        ok = _accesses(child, out, False) and ok
    return ok


def _independent(parts: list[Part], var: str) -> bool:
    """Can the loop over ``var`` run each part to completion in turn?"""
    seen: list[list[tuple[str, tuple[Any, ...], bool]]] = []
    for p in parts:
        acc: list[tuple[str, tuple[Any, ...], bool]] = []
        if not all([_accesses(x, acc) for x in p]):
            return False
        seen.append(acc)
    for name in {a for acc in seen for a, _s, w in acc if w}:
        users = [acc for acc in seen if any(a == name for a, _s, _w in acc)]
        if len(users) < 2:
            continue
        subs = [s for acc in users for a, s, _w in acc if a == name]
        if not any(all(len(s) > k and isinstance(s[k], c_ast.ID) and s[k].name == var
                       for s in subs) for k in range(max(len(s) for s in subs))):
            return False
    return True


def distribute(node: c_ast.For) -> list[c_ast.For]:
    """The loop as one or several loops in sequence (innermost loops first)."""
    items: list[Any] = []
    for x in _items(node.stmt):
        items.extend(distribute(x) if isinstance(x, c_ast.For) else [x])
    node = c_ast.For(node.init, node.cond, node.next, c_ast.Compound(items, node.coord),
                     node.coord)
    var = _var(node)
    if var is None or sum(isinstance(x, c_ast.For) for x in items) < 2:
        return [node]
    parts = _parts(items)
    if not _independent(parts, var):
        return [node]
    return [c_ast.For(node.init, node.cond, node.next, c_ast.Compound(p, node.coord), node.coord)
            for p in parts]


_Found = tuple[list[Loop], list[Stmt]]


def _fusable(a: _Found, b: _Found) -> list[Loop] | None:
    """The reduction loops of ``b`` in order, when ``a`` starts ``b``'s chains; else None."""
    la, sa = a
    lb, sb = b
    by_b = {lp.name: lp for lp in lb}
    names_a = [lp.name for lp in la]
    if any(s.position != "body" for s in sa + sb) or not sa or not sb:
        return None
    if any(n not in by_b or (by_b[n].lower, by_b[n].upper) != (lp.lower, lp.upper)
           for n, lp in zip(names_a, la, strict=True)):
        return None
    extra = [lp for lp in lb if lp.name not in names_a]
    inner = {lp.name for lp in extra}
    if not extra or any((lp.lower.names() | lp.upper.names()) & inner for lp in la):
        return None
    targets_b = {s.target.key for s in sb}
    written_b = {t for t, _i in targets_b}
    if {s.target.key for s in sa} - targets_b:
        return None
    for s in sa + sb:  # what b writes is read only where it is written, by a and by b
        if any(r.tensor in written_b and r.key not in targets_b for r in s.reads):
            return None
    return extra


def _finishes(a: _Found, b: _Found) -> bool:
    """Does pointwise ``b`` only update what accumulation ``a`` finishes, over a's outer loops?"""
    la, sa = a
    lb, sb = b
    n = len(lb)
    if not sa or not sb or n >= len(la) or any(s.position != "body" for s in sa + sb):
        return False
    if [(x.name, x.lower, x.upper) for x in la[:n]] != [(x.name, x.lower, x.upper) for x in lb]:
        return False
    targets_a = {s.target.key for s in sa}
    if {s.target.key for s in sb} - targets_a:
        return False
    written = {t for t, _i in targets_a}
    return all(r.key in targets_a for s in sa + sb for r in s.reads if r.tensor in written)


def _fuse_pair(a: _Found, b: _Found) -> _Found | None:
    """``a`` and ``b`` as one nest (``a`` starts or ``b`` finishes a chain), or None."""
    (la, sa), (_lb, sb) = a, b
    if (extra := _fusable(a, b)) is not None:
        n = len(la)
        pre = [replace(s, depth=n, position="pre") for s in sa]
        return [*la, *extra], pre + [replace(s, depth=n + len(extra)) for s in sb]
    if _finishes(a, b):
        return list(la), [*sa, *(replace(s, position="post") for s in sb)]
    return None


def fuse_inits(found: list[_Found]) -> list[_Found]:
    """Merge a pointwise nest into the accumulation nest next to it (see module doc):
    before it as the chains' start, after it as their end (``x = x + z`` in GEMVER)."""
    out: list[_Found] = []
    for nest in found:
        fused = _fuse_pair(out[-1], nest) if out else None
        if fused is not None:
            out[-1] = fused
        else:
            out.append(nest)
    return out
