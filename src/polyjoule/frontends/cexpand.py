"""Array expansion (privatisation) of scratch arrays, as a polyhedral compiler does it.

DOITGEN reuses one scratch vector ``sum[p]`` for every ``(r, q)``: each iteration of the
``r, q`` loops first overwrites ``sum[p]`` and then reads only what it wrote. The reuse is a
storage choice, not a dependence, but it ties the two ``p`` loops together (the second reads
what the first wrote, at a subscript without ``r`` and ``q``), so the nest can be neither
distributed nor localised. Expanded to ``sum[r][q][p]``, the two ``p`` loops distribute into
two phases (an accumulation, a copy) that pass ``sum`` through DRAM.

:func:`expand_scratch` rewrites the syntax tree of a top-level loop in place. An array is
expanded by the loops that enclose all its accesses and that its subscripts do not use,
when it is scratch (no caller reads it after the kernel), is touched by no other top-level
statement, every access has the same subscripts under loops of the same range, and the first
access in program order is a plain ``=`` write: then no value crosses an iteration of the
enclosing loops, and giving each iteration its own copy changes nothing but storage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pycparser import c_ast, c_generator

from polyjoule.model.affine import Affine
from polyjoule.model.nest import Loop

_GEN = c_generator.CGenerator()


@dataclass
class _Site:
    """One access of an array: its innermost ArrayRef, the enclosing loops, how it is used."""

    ref: c_ast.ArrayRef
    loops: list[c_ast.For]
    subscripts: str
    names: set[str]  # the names the subscripts use
    plain_write: bool


@dataclass
class _Scan:
    sites: dict[str, list[_Site]] = field(default_factory=dict)


def _loop_var(node: c_ast.For) -> str | None:
    init = node.init
    if isinstance(init, c_ast.DeclList) and init.decls:
        return str(init.decls[0].name)
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return str(init.lvalue.name)
    return None


def _base(ref: c_ast.ArrayRef) -> tuple[c_ast.ArrayRef, str | None, list[Any]]:
    """The innermost ArrayRef of ``A[i][j]``, the array's name and the subscripts."""
    subs, node = [], ref
    while isinstance(node.name, c_ast.ArrayRef):
        subs.insert(0, node.subscript)
        node = node.name
    subs.insert(0, node.subscript)
    return node, node.name.name if isinstance(node.name, c_ast.ID) else None, subs


def _scan(node: Any, loops: list[c_ast.For], out: _Scan, plain: bool = False) -> None:
    if isinstance(node, c_ast.For):
        if node.stmt is not None:
            _scan(node.stmt, [*loops, node], out)
        return
    if isinstance(node, c_ast.Assignment):  # the value first, then the target (C order)
        _scan(node.rvalue, loops, out)
        if node.op != "=":
            _scan(node.lvalue, loops, out)
        _scan(node.lvalue, loops, out, plain=node.op == "=")
        return
    if isinstance(node, c_ast.ArrayRef):
        inner, name, subs = _base(node)
        if name is not None:
            text = "][".join(_GEN.visit(s) for s in subs)
            names = {n for s in subs for n in id_names(s)}
            out.sites.setdefault(name, []).append(_Site(inner, loops, text, names, plain))
        for s in subs:
            _scan(s, loops, out)
        return
    for _name, child in node.children():
        _scan(child, loops, out)


def id_names(node: Any) -> set[str]:
    """Every identifier named in a C syntax tree."""
    found = {node.name} if isinstance(node, c_ast.ID) else set()
    for _name, child in node.children():
        found |= id_names(child)
    return found


def _header(loop: c_ast.For) -> str:
    return _GEN.visit(loop.init) + ";" + _GEN.visit(loop.cond)


def _privatisable(sites: list[_Site]) -> list[c_ast.For]:
    """The enclosing loops to expand by, or [] when the array is not private to them."""
    common: list[c_ast.For] = []
    for k, lp in enumerate(sites[0].loops):
        if all(len(s.loops) > k and s.loops[k] is lp for s in sites):
            common.append(lp)
        else:
            break
    subs_vars = {n for s in sites for n in s.names}
    outer = [lp for lp in common if _loop_var(lp) not in subs_vars]
    if not outer or outer != common[:len(outer)]:  # the expanded indices lead
        return []
    if not sites[0].plain_write or len({s.subscripts for s in sites}) != 1:
        return []  # the first access must overwrite what every later one touches
    ranges = {tuple(_header(lp) for lp in s.loops[len(common):] if _loop_var(lp) in subs_vars)
              for s in sites}
    return outer if len(ranges) == 1 else []


def expand_scratch(top: c_ast.For, scratch: set[str], elsewhere: set[str],
                   loop_of: Callable[[c_ast.For, list[str]], Loop],
                   shapes: dict[str, tuple[Affine, ...]]) -> None:
    """Expand every privatisable scratch array of ``top`` by the loops around its uses.

    ``elsewhere``: arrays other top-level statements touch; ``loop_of`` reads a loop header
    (bounds as affine forms); ``shapes`` gains the expanded arrays' leading extents.
    """
    scan = _Scan()
    _scan(top, [], scan)
    for name, sites in scan.sites.items():
        if name not in scratch or name in elsewhere or name not in shapes:
            continue
        outer = _privatisable(sites)
        names = [str(_loop_var(lp)) for lp in outer]
        bounds = [loop_of(lp, names[:k]) for k, lp in enumerate(outer)]
        if not bounds or any(b.lower != Affine.of({}) or b.upper.names() & set(names)
                             for b in bounds):
            continue  # expanded extents must be the loops' own: rectangular from 0
        for s in {id(s.ref): s for s in sites}.values():  # A[p] -> A[r][q][p]
            base: Any = c_ast.ID(name, s.ref.name.coord)
            for var in names:
                base = c_ast.ArrayRef(base, c_ast.ID(var, s.ref.coord), s.ref.coord)
            s.ref.name = base
        shapes[name] = (*(b.upper.shift(1) for b in bounds), *shapes[name])


def arrays_in(node: Any) -> set[str]:
    """The arrays a statement or loop touches."""
    scan = _Scan()
    _scan(node, [], scan)
    return set(scan.sites)
