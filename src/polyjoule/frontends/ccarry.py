"""Values carried from one iteration to the next: DERICHE's filter states.

After scalar expansion (:mod:`.cscalars`) a filter state is a temporary indexed by the outer
loops, set before the inner loop and updated in its body after it is read::

    ym1[i] = 0.0;
    for (j = 0; j < H; j++) {
      y1[i][j] = a1 * x[i][j] + b1 * ym1[i] + b2 * ym2[i];
      ym2[i] = ym1[i];
      ym1[i] = y1[i][j];
    }

A read that comes before the body's write (in program order) sees the value of the previous
iteration, ``j - 1``, or, at the first iteration, the value set before the loop. The state
gets one element per iteration (``ym1[i][j]``, its value after iteration ``j``), every read
after the write reads that element, and every read before it reads ``ym1__prev[i][j]``: the
value the state had when iteration ``j`` started, which the localiser takes from
``ym1[i][j - 1]`` (a transport of distance 1 along ``j``) and, at the first ``j``, from the
value set before the loop (:class:`~polyjoule.model.nest.Carry`). ``ym2 = ym1`` then reads
``y1[i][j - 2]`` through two transports, as a systolic IIR filter passes it.

Checked: the inner loop holds only assignments and runs from 0 to a bound of parameters
only (a downward loop is mirrored first, :mod:`.creverse`); every access to the state inside
it has the subscripts of the write, which name no inner index; the state is set by a plain
``=`` of numbers and scalars right before the loop and touched nowhere else. Anything else
is left as written (and refused later with its own reason).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pycparser import c_ast, c_generator

from polyjoule.frontends.cexpand import _loop_var
from polyjoule.frontends.creverse import replace_child
from polyjoule.model.affine import Affine
from polyjoule.model.nest import Loop

_GEN = c_generator.CGenerator()
PREV = "__prev"


@dataclass
class CarriedState:
    """A state rewritten by :func:`carry_states`: ``prev`` names the values at the start of
    each iteration of loop ``dim``; ``init`` is the C expression set before the loop."""

    state: str
    prev: str
    dim: str
    init: Any


def _refs(node: Any, out: list[tuple[c_ast.ArrayRef, Any, str]], parent: Any = None,
          field: str = "") -> None:
    """Outermost array references with their parent and field, in C evaluation order of
    assignments (value first, then target)."""
    if isinstance(node, c_ast.ArrayRef):
        out.append((node, parent, field))
        return
    if isinstance(node, c_ast.Assignment):
        _refs(node.rvalue, out, node, "rvalue")
        _refs(node.lvalue, out, node, "lvalue")
        return
    for name, child in node.children():
        _refs(child, out, node, name)


def _name(ref: c_ast.ArrayRef) -> str | None:
    n = ref
    while isinstance(n, c_ast.ArrayRef):
        n = n.name
    return n.name if isinstance(n, c_ast.ID) else None


def _has_ref(node: Any) -> bool:
    return isinstance(node, c_ast.ArrayRef) or any(_has_ref(c) for _n, c in node.children())


def _states(body: list[Any], var: str, temporaries: set[str]) -> dict[str, str]:
    """Temporaries written in the body at subscripts without ``var``, all accesses alike,
    and read before their first write: name -> subscript text."""
    out: dict[str, str] = {}
    refs: list[tuple[c_ast.ArrayRef, Any, str]] = []
    for x in body:
        _refs(x, refs)
    for name in {_name(r) for r, _p, _f in refs} & temporaries:
        mine = [(r, p, f) for r, p, f in refs if _name(r) == name]
        texts = {_GEN.visit(r) for r, _p, _f in mine}
        writes = [k for k, (_r, p, f) in enumerate(mine) if f == "lvalue"]
        plain = all(isinstance(mine[k][1], c_ast.Assignment) and mine[k][1].op == "="
                    for k in writes)
        if len(texts) != 1 or not writes or not plain or writes[0] == 0 \
                or var in _ids(mine[0][0]):
            continue
        out[name] = texts.pop()
    return out


def _ids(node: Any) -> set[str]:
    out = {node.name} if isinstance(node, c_ast.ID) else set()
    for _n, c in node.children():
        out |= _ids(c)
    return out


def _init(block: list[Any], k: int, text: str) -> Any:
    """The statement right before the loop at ``block[k]`` that sets ``text`` to numbers and
    scalars, or None."""
    for x in reversed(block[:k]):
        if not isinstance(x, c_ast.Assignment):
            return None
        if x.op == "=" and _GEN.visit(x.lvalue) == text and not _has_ref(x.rvalue):
            return x
    return None


def _rewrite(body: list[Any], name: str, var: str, prev: str) -> None:
    """Writes and later reads of ``name`` gain the index ``var``; earlier reads read ``prev``."""
    refs: list[tuple[c_ast.ArrayRef, Any, str]] = []
    for x in body:
        _refs(x, refs)
    written = False
    for ref, parent, field in [t for t in refs if _name(t[0]) == name]:
        is_write = field == "lvalue"
        base = ref
        if not (written or is_write):
            base = _renamed(ref, prev)
        replace_child(parent, field, c_ast.ArrayRef(base, c_ast.ID(var), ref.coord))
        written = written or is_write


def _renamed(ref: c_ast.ArrayRef, new: str) -> c_ast.ArrayRef:
    out = c_ast.ArrayRef(ref.name, ref.subscript, ref.coord)
    if isinstance(out.name, c_ast.ArrayRef):
        out.name = _renamed(out.name, new)
    else:
        out.name = c_ast.ID(new, ref.coord)
    return out


def carry_states(top: c_ast.For, loop_of: Callable[[c_ast.For, list[str]], Loop],
                 shapes: dict[str, tuple[Affine, ...]], temporaries: set[str]
                 ) -> list[CarriedState]:
    """Rewrite, in place, every state carried along an innermost loop of ``top`` (see the
    module doc); ``shapes`` and ``temporaries`` gain the arrays. Returns the states."""
    found: list[CarriedState] = []
    _visit(top, [], loop_of, shapes, temporaries, found)
    return found


def _visit(node: c_ast.For, outer: list[str], loop_of: Callable[[c_ast.For, list[str]], Loop],
           shapes: dict[str, tuple[Affine, ...]], temporaries: set[str],
           found: list[CarriedState]) -> None:
    var = _loop_var(node)
    block = node.stmt.block_items if isinstance(node.stmt, c_ast.Compound) else None
    if var is None or block is None:
        return
    names = [*outer, var]
    for k, x in enumerate(block):
        if not isinstance(x, c_ast.For):
            continue
        inner = x.stmt.block_items if isinstance(x.stmt, c_ast.Compound) else [x.stmt]
        if any(isinstance(y, c_ast.For) for y in inner):
            _visit(x, names, loop_of, shapes, temporaries, found)
            continue
        _carry(x, block, k, inner, names, loop_of, shapes, temporaries, found)


def _carry(loop: c_ast.For, block: list[Any], k: int, inner: list[Any], outer: list[str],
           loop_of: Callable[[c_ast.For, list[str]], Loop],
           shapes: dict[str, tuple[Affine, ...]], temporaries: set[str],
           found: list[CarriedState]) -> None:
    """The states of the innermost ``loop`` (``block[k]`` of its parent)."""
    var = _loop_var(loop)
    if var is None or not all(isinstance(y, c_ast.Assignment) for y in inner):
        return
    bounds = loop_of(loop, outer)
    if bounds.lower != Affine.of({}) or bounds.upper.names() & {*outer, var}:
        return
    for name, text in sorted(_states(inner, var, temporaries).items()):
        init = _init(block, k, text)
        elsewhere = [y for j, y in enumerate(block) if j != k and y is not init
                     and name in {_name(r) for r, _p, _f in _all_refs(y)}]
        if init is None or elsewhere or name not in shapes:
            continue
        prev = f"{name}{PREV}"
        _rewrite(inner, name, var, prev)
        block.remove(init)
        shapes[name] = shapes[prev] = (*shapes[name], bounds.upper.shift(1))
        temporaries |= {name, prev}
        found.append(CarriedState(name, prev, var, init.rvalue))
        k = block.index(loop)


def _all_refs(node: Any) -> list[tuple[c_ast.ArrayRef, Any, str]]:
    out: list[tuple[c_ast.ArrayRef, Any, str]] = []
    _refs(node, out)
    return out
