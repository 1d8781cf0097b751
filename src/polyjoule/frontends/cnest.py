"""C front end: a PolyBench-style affine loop nest in C -> a PRA (parsed with pycparser).

Accepted input: a function definition or bare statements. Inside it:

* declarations: ``double alpha = 1.5;`` sets a scalar's value (PolyBench's alpha/beta
  default to 1.5/1.2, any other scalar to 1.0); arrays declared in the body are
  temporaries (never read from or written to DRAM); array parameters give tensor shapes;
* loops ``for (i = LB; i < UB; i++)`` (also ``<=``, ``++i``, ``i += 1``) with bounds affine in
  parameters and outer indices; each loop holds statements and at most one inner loop, so
  every top-level nest is a single chain of loops;
* a top-level nest that only assigns ``0`` marks those arrays as zero-initialised;
  every other top-level nest becomes one phase, in order (phases communicate via DRAM);
* statements ``T[f] = E``, ``T[f] op= E`` with affine subscripts; ``E`` uses ``+ - * /``,
  ``sqrt``, ``fabs``/``abs``, ``fmax``/``max``, ``fmin``/``min`` (and their ``f``/``l``
  variants), numbers and scalars.

The text is preprocessed first (:mod:`.cpre`): comments, ``#include`` through the include
folders, the PolyBench macros; in a file with a ``#pragma scop`` region only that region (and
its function's declarations) is read. Without the headers, ``_PB_N``, ``SCALAR_VAL(x)``,
``DATA_TYPE`` are still understood. The element type of the arrays (``double``) gives the
PRA's dtype (``fp64``) unless one is asked for. Errors name the file, line and column.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pycparser import c_ast, c_generator, c_parser

from polyjoule.errors import NotAffineError, NotUniformError, SpecError
from polyjoule.frontends.cbounds import (
    check_in_bounds,
    check_int64,
    check_int_constant,
    check_pointers,
)
from polyjoule.frontends.ccarry import carry_states
from polyjoule.frontends.cexpand import arrays_in, expand_scratch, id_names
from polyjoule.frontends.cloops import distribute, fuse_inits
from polyjoule.frontends.cphases import Phase, phases_of
from polyjoule.frontends.cplace import join_after
from polyjoule.frontends.cpre import C_TYPES, CSource, preprocess, strip_directives
from polyjoule.frontends.cprologue import Sized, fold_prologue
from polyjoule.frontends.creorder import in_steps
from polyjoule.frontends.creverse import reverse_downward
from polyjoule.frontends.cscalars import expand_scalars
from polyjoule.frontends.localize import check_uniform, localize
from polyjoule.frontends.localize.closing import plan
from polyjoule.frontends.localize.dataflow import only_false_conflicts
from polyjoule.frontends.specfile import check_expression
from polyjoule.model.affine import Affine, parse_affine
from polyjoule.model.nest import Access, Carry, Loop, Nest, Stmt, read_name
from polyjoule.model.pra import Kernel

_GEN = c_generator.CGenerator()

#: Values given to scalars that the source does not initialise (the PolyBench defaults).
DEFAULT_SCALARS = {"alpha": 1.5, "beta": 1.2}
# C math functions -> the model's operations (float and long double variants included:
# PolyBench's SQRT_FUN is sqrtf under DATA_TYPE_IS_FLOAT).
_CALLS = {"sqrt": "sqrt", "max": "max", "min": "min", "relu": "relu", "abs": "abs"}
_CALLS |= {f"{c}{t}": m for c, m in (("sqrt", "sqrt"), ("fabs", "abs"), ("fmax", "max"),
                                      ("fmin", "min")) for t in ("", "f", "l")}
_COMPARE = {"<": ast.Lt(), "<=": ast.LtE(), ">": ast.Gt(), ">=": ast.GtE(), "==": ast.Eq(),
            "!=": ast.NotEq()}


def _parse(text: str, filename: str) -> c_ast.FileAST:
    bare = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    check_expression(bare, filename)  # before pycparser and our recursive walkers
    def attempt(src: str) -> tuple[c_ast.FileAST | None, str | None]:
        parser = c_parser.CParser()
        try:
            return parser.parse(src, filename=filename), None
        except c_parser.ParseError as e:
            msg = str(e)
            if not re.match(rf"{re.escape(filename)}:\d+", msg):
                tok = None
                try:
                    tok = parser._tokens.peek(1)  # the token the parser stopped at
                except Exception:  # noqa: BLE001 - private API; fall back to no position
                    tok = None
                detail = msg.split(": ", 1)[-1]
                if tok is not None and getattr(tok, "lineno", None):
                    msg = f"{filename}:{tok.lineno}:{tok.column}: {detail} before {tok.value!r}"
                else:
                    msg = f"{filename}: {detail} (at the end of the input)"
            return None, msg

    tree, err = attempt(text)
    if tree is not None and any(isinstance(x, c_ast.FuncDef) for x in tree.ext):
        return tree
    wrapped, err2 = attempt("void __kernel(void) {" + text + "\n}")
    if wrapped is not None:
        return wrapped
    looks_like_function = re.search(r"^\s*[A-Za-z_][\w\s\*]*\([^;{]*\)\s*\{", text, re.M)
    msg = (err if looks_like_function else err2) or err or filename
    m = re.match(rf"({re.escape(filename)}(?::\d+)*): (.*)$", msg, re.S)
    where, detail = (m.group(1), m.group(2)) if m else (filename, msg)
    raise SpecError(f"{where}: C does not parse: {detail}")


def _one_line(node: Any) -> str:
    """C text of a node on one line (for messages)."""
    return " ".join(_GEN.visit(node).split())


def _where(node: Any, filename: str) -> str:
    c = getattr(node, "coord", None)
    if c is None or not getattr(c, "line", None):
        return filename
    return f"{filename}:{c.line}:{c.column}" if c.column else f"{filename}:{c.line}"


@dataclass
class _Ctx:
    filename: str
    params: dict[str, None] = field(default_factory=dict)
    arrays: set[str] = field(default_factory=set)
    shapes: dict[str, tuple[Affine, ...]] = field(default_factory=dict)
    scalars: dict[str, float] = field(default_factory=dict)
    temporaries: set[str] = field(default_factory=set)
    declared_scalars: set[str] = field(default_factory=set)
    types: dict[str, str] = field(default_factory=dict)  # array -> C element type
    int_args: set[str] = field(default_factory=set)  # int function arguments
    pointers: dict[str, tuple[str, str]] = field(default_factory=dict)  # -> (where, C type)
    bound_names: set[str] = field(default_factory=set)  # names bounds and subscripts use
    size_scalars: dict[str, str] = field(default_factory=dict)  # float_n -> N (cpre)
    carried: dict[str, Carry] = field(default_factory=dict)  # ym1__prev -> ym1 (ccarry)
    sized: dict[str, Any] = field(default_factory=dict)  # DX -> 1.0 / N (cprologue.Sized)
    defines: dict[str, str] = field(default_factory=dict)  # -D NAME=VALUE, as given
    lines: list[str] = field(default_factory=list)  # the file as written (macros unexpanded)


def _array_ref(node: c_ast.ArrayRef, where: str = "") -> tuple[str, list[Any]]:
    """Array name and subscripts of ``A[i][j]``; ``where`` (file:line:col) names errors."""
    subs: list[Any] = []
    while isinstance(node, c_ast.ArrayRef):
        subs.insert(0, node.subscript)
        node = node.name
    if not isinstance(node, c_ast.ID):
        at = f"{where}: " if where else ""
        raise SpecError(f"{at}unsupported array expression {_GEN.visit(node)!r}")
    return node.name, subs


def _affine(node: Any, ctx: _Ctx, loops: list[str], what: str, where: str) -> Affine:
    """A C expression as an affine function of parameters and the given loop indices."""
    if any(isinstance(n, c_ast.ArrayRef) for _, n in _walk(node)):
        arr = next(n for _, n in _walk(node) if isinstance(n, c_ast.ArrayRef))
        raise NotAffineError(
            f"{where}: {what} {_GEN.visit(node)!r} depends on data (reads "
            f"{_array_ref(arr, where)[0]}): only affine expressions in parameters and loop indices"
        )
    if any(isinstance(n, c_ast.FuncCall) for _, n in _walk(node)):
        raise NotAffineError(f"{where}: {what} {_GEN.visit(node)!r} calls a function: not affine")
    text = _GEN.visit(node)
    names = id_names(node)
    ctx.bound_names |= names
    for n in names:
        if n not in loops and n not in ctx.params:
            if n in ctx.declared_scalars or n in ctx.arrays:
                raise NotAffineError(f"{where}: {what} {text!r} depends on the variable {n!r}, "
                                     f"not only on parameters and loop indices")
            ctx.params[n] = None
    if re.search(r"[%<>?&|^~!]", text):
        raise NotAffineError(f"{where}: {what} {text!r} is not affine")
    return check_int64(parse_affine(text, set(loops) | set(ctx.params), f"{where}: {what}"),
                       what, where)


def _outer_refs(node: Any) -> list[c_ast.ArrayRef]:
    """Array references in an expression, outermost only (``A[i][k]``, not ``A[i]``)."""
    if isinstance(node, c_ast.ArrayRef):
        return [node]
    out: list[c_ast.ArrayRef] = []
    for _name, child in node.children():
        out.extend(_outer_refs(child))
    return out


def _walk(node: Any) -> list[tuple[str, Any]]:
    out = [("", node)]
    for _name, child in node.children():
        out.extend(_walk(child))
    return out


def _loop(node: c_ast.For, ctx: _Ctx, outer: list[str]) -> Loop:
    where = _where(node, ctx.filename)
    init = node.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        var, lb = init.decls[0].name, init.decls[0].init
    elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        var, lb = init.lvalue.name, init.rvalue
    else:
        raise SpecError(f"{where}: for loop: expected 'i = lower' as the initialisation")
    if lb is None:
        raise SpecError(f"{where}: for loop: {var} has no initial value")
    nxt = node.next
    step_ok = (
        isinstance(nxt, c_ast.UnaryOp) and nxt.op in ("p++", "++")
        and isinstance(nxt.expr, c_ast.ID) and nxt.expr.name == var
    ) or (
        isinstance(nxt, c_ast.Assignment) and nxt.op == "+=" and isinstance(nxt.lvalue, c_ast.ID)
        and nxt.lvalue.name == var and isinstance(nxt.rvalue, c_ast.Constant)
        and nxt.rvalue.value == "1"
    )
    if not step_ok:
        step = _GEN.visit(nxt) if nxt is not None else "nothing"
        raise SpecError(f"{where}: for loop over {var}: step {step!r}; only {var}++ (step +1) "
                        f"is supported")
    cond = node.cond
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=")
            and isinstance(cond.left, c_ast.ID) and cond.left.name == var):
        text = _GEN.visit(cond) if cond is not None else "nothing"
        raise SpecError(f"{where}: for loop over {var}: condition {text!r}; expected "
                        f"'{var} < upper' or '{var} <= upper'")
    lower = _affine(lb, ctx, outer, f"lower bound of {var}", where)
    upper = _affine(cond.right, ctx, outer, f"upper bound of {var}", where)
    if cond.op == "<":
        upper = upper.shift(-1)
    if not lower.terms and not upper.terms and upper.const < lower.const:
        raise SpecError(f"{where}: the loop over {var} is empty ({lower.const} <= {var} <= "
                        f"{upper.const}): a size is zero or negative{_sizes_set(node, ctx)}")
    return Loop(var, lower, upper, where)


def _sizes_set(node: c_ast.For, ctx: _Ctx) -> str:
    """`` (-D NI=0)``: the ``-D`` sizes the loop's line names (``NI`` or ``_PB_NI``), else
    every ``-D`` that sets a size below one; empty when no ``-D`` did."""
    line = getattr(getattr(node, "coord", None), "line", 0) or 0
    text = ctx.lines[line - 1] if 0 < line <= len(ctx.lines) else ""
    words = {w[4:] if w.startswith("_PB_") else w for w in re.findall(r"\w+", text)}
    named = [n for n in ctx.defines if n in words]
    if not named:
        named = [n for n, v in ctx.defines.items() if re.fullmatch(r"\s*-?\d+\s*", v)
                 and int(v) < 1]
    return f" ({', '.join(f'-D {n}={ctx.defines[n]}' for n in named)})" if named else ""


class _ExprConv:
    """C expression -> Python ast with array reads as placeholders ``__rK``."""

    def __init__(self, ctx: _Ctx, loops: list[str], where: str):
        self.ctx, self.loops, self.where = ctx, loops, where
        self.reads: list[Access] = []

    def access(self, node: c_ast.ArrayRef) -> Access:
        w = _where(node, self.ctx.filename)
        name, subs = _array_ref(node, w)
        self.ctx.arrays.add(name)
        idx = tuple(_affine(s, self.ctx, self.loops, f"subscript of {name}", w) for s in subs)
        return Access(name, idx, w)

    def name(self, node: c_ast.ID, w: str) -> Any:
        """A scalar, a size (an immediate of the run), or a prologue value of the sizes."""
        if node.name in self.loops:
            raise SpecError(f"{w}: the loop index {node.name} is used as a value; only array "
                            f"elements, numbers and scalars can be operands")
        if node.name in self.ctx.params and node.name in self.ctx.int_args \
                and node.name not in self.ctx.bound_names:
            del self.ctx.params[node.name]  # an int argument used as a value (alpha)
        if node.name in self.ctx.sized:  # a value of the sizes (prologue): its expression
            tree = copy.deepcopy(self.ctx.sized[node.name])
            for n in ast.walk(tree):
                if isinstance(n, ast.Name) and n.id not in _CALLS.values():
                    self.ctx.params.setdefault(n.id, None)
            return tree
        size = self.ctx.size_scalars.get(node.name, node.name)
        if size in self.ctx.params or size != node.name:  # a size as a value: an immediate
            self.ctx.params.setdefault(size, None)
            return ast.Name(id=size, ctx=ast.Load())
        self.ctx.declared_scalars.add(node.name)
        return ast.Name(id=node.name, ctx=ast.Load())

    def conv(self, node: Any) -> Any:
        w = _where(node, self.ctx.filename)
        if isinstance(node, c_ast.ArrayRef):
            self.reads.append(self.access(node))
            return ast.Name(id=read_name(len(self.reads) - 1), ctx=ast.Load())
        if isinstance(node, c_ast.Constant):
            if node.type not in ("int", "double", "float"):
                raise SpecError(f"{w}: constant {node.value!r} is not a number")
            return ast.Constant(float(node.value.rstrip("fFlLuU")) if node.type != "int"
                                else check_int_constant(int(node.value.rstrip("lLuU"), 0), w))
        if isinstance(node, c_ast.ID):
            return self.name(node, w)
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/"):
            op = {"+": ast.Add(), "-": ast.Sub(), "*": ast.Mult(), "/": ast.Div()}[node.op]
            return ast.BinOp(self.conv(node.left), op, self.conv(node.right))
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
            inner = self.conv(node.expr)
            return ast.UnaryOp(ast.USub(), inner) if node.op == "-" else inner
        if isinstance(node, c_ast.Cast):
            return self.conv(node.expr)
        if isinstance(node, c_ast.TernaryOp) and isinstance(node.cond, c_ast.BinaryOp) \
                and node.cond.op in _COMPARE:  # a data-dependent select
            test = ast.Compare(self.conv(node.cond.left), [_COMPARE[node.cond.op]],
                               [self.conv(node.cond.right)])
            return ast.IfExp(test, self.conv(node.iftrue), self.conv(node.iffalse))
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                and node.name.name in _CALLS and node.args is not None:
            return ast.Call(ast.Name(id=_CALLS[node.name.name], ctx=ast.Load()),
                            [self.conv(a) for a in node.args.exprs], [])
        raise SpecError(f"{w}: unsupported expression {_GEN.visit(node)!r} (use + - * /, "
                        f"sqrt, fabs, max, min, a <= b ? x : y)")


def _statement(node: Any, ctx: _Ctx, loops: list[str], depth: int, position: str) -> Stmt:
    w = _where(node, ctx.filename)
    if not isinstance(node, c_ast.Assignment):
        raise SpecError(f"{w}: unsupported statement {_one_line(node)!r}: expected an "
                        f"assignment to an array element")
    if not isinstance(node.lvalue, c_ast.ArrayRef):
        target = _GEN.visit(node.lvalue)
        raise SpecError(f"{w}: the nest writes the scalar {target!r}: expand it into an array "
                        f"indexed by the loops it varies with")
    if node.op not in ("=", "+=", "-=", "*=", "/="):
        raise SpecError(f"{w}: unsupported assignment operator {node.op!r}")
    conv = _ExprConv(ctx, loops, w)
    target = conv.access(node.lvalue)
    expr = conv.conv(node.rvalue)
    return Stmt(target, node.op, expr, tuple(conv.reads), depth, position, w)


def _items(node: Any) -> list[Any]:
    if isinstance(node, c_ast.Compound):
        return list(node.block_items or [])
    return [node]


def _nest(top: c_ast.For, ctx: _Ctx) -> tuple[list[Loop], list[Stmt]]:
    loops: list[Loop] = []
    stmts: list[Stmt] = []
    node: Any = top
    while node is not None:
        lp = _loop(node, ctx, [x.name for x in loops])
        if lp.name in [x.name for x in loops]:
            raise SpecError(f"{lp.where}: loop index {lp.name} is reused by an inner loop")
        loops.append(lp)
        names = [x.name for x in loops]
        items = [x for x in _items(node.stmt) if not isinstance(x, c_ast.Pragma)]
        inner = [x for x in items if isinstance(x, c_ast.For)]
        if len(inner) > 1:
            raise SpecError(
                f"{_where(inner[1], ctx.filename)}: loop {lp.name} holds {len(inner)} loops in "
                f"sequence; write each as its own nest (one phase each)"
            )
        seen_inner = False
        for x in items:
            if isinstance(x, c_ast.For):
                seen_inner = True
                continue
            if isinstance(x, c_ast.Decl):
                raise SpecError(f"{_where(x, ctx.filename)}: declaration inside a loop")
            if isinstance(x, c_ast.If):
                raise SpecError(f"{_where(x, ctx.filename)}: an 'if' inside the nest is not "
                                f"supported (data-dependent or guarded statements)")
            if isinstance(x, c_ast.While | c_ast.DoWhile):
                raise SpecError(f"{_where(x, ctx.filename)}: a while loop has a data-dependent "
                                f"trip count; only affine for loops are supported")
            pos = "body" if not inner else ("post" if seen_inner else "pre")
            stmts.append(_statement(x, ctx, names, len(loops), pos))
        node = inner[0] if inner else None
    return loops, stmts


def _precheck(top: Any, ctx: _Ctx) -> None:
    """Refuse a nest whose array accesses cannot be made uniform, whatever its structure.

    Runs on the raw syntax tree (any loops, guards, expressions), so a kernel such as ``lu``
    is refused for the access that breaks uniformity rather than for its loop structure.
    """
    stmts: list[Stmt] = []

    def visit(node: Any, loops: list[str]) -> None:
        if isinstance(node, c_ast.For):
            init = node.init
            var = None
            if isinstance(init, c_ast.DeclList) and init.decls:
                var = init.decls[0].name
            elif isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
                var = init.lvalue.name
            inner = [*loops, var] if var else loops
            if node.stmt is not None:
                visit(node.stmt, inner)
            return
        if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ArrayRef):
            conv = _ExprConv(ctx, loops, _where(node, ctx.filename))
            target = conv.access(node.lvalue)
            reads = [conv.access(n) for n in _outer_refs(node.rvalue)]
            if node.op != "=":
                reads.append(target)
            stmts.append(Stmt(target, node.op, None, tuple(reads), len(loops), "body",
                              _where(node, ctx.filename)))
            return
        for _name, child in node.children():
            visit(child, loops)

    visit(top, [])
    check_uniform(Nest("precheck", (), (), tuple(stmts)))


def _closes(top: c_ast.For, ctx: _Ctx) -> bool:
    """Do the accesses the syntactic check refuses never meet, or does :mod:`.localize.closed`
    localise the nest anyway (dataflow)?"""
    try:
        loops, stmts = _nest(top, ctx)
    except SpecError:
        return False
    nest = Nest("", tuple(ctx.params), tuple(loops), tuple(stmts))
    return only_false_conflicts(nest) or plan(nest) is not None


def _dims_of(decl: c_ast.Decl, ctx: _Ctx) -> tuple[Any, ...] | None:
    """An array declaration's dimensions (recording its element type), or None."""
    t, out = decl.type, []
    while isinstance(t, c_ast.ArrayDecl):
        out.append(t.dim)
        t = t.type
    if out and isinstance(t, c_ast.TypeDecl):
        ctx.types[decl.name] = " ".join(getattr(t.type, "names", []))
    return tuple(out) if out else None


def _array_decl(d: c_ast.Decl, dims: tuple[Any, ...], ctx: _Ctx) -> None:
    ctx.arrays.add(d.name)
    if all(x is not None for x in dims):
        ctx.shapes[d.name] = tuple(
            _affine(x, ctx, [], f"size of {d.name}", _where(d, ctx.filename)) for x in dims)


def _declarations(fn: c_ast.FuncDef | None, body: list[Any], ctx: _Ctx,
                  file_scope: Sequence[Any] = ()) -> None:
    """Array shapes, size parameters (int arguments) and scalars of the function; arrays
    declared at file scope (``double A[64];`` before the function) as its arguments."""
    params = fn.decl.type.args.params if fn is not None and fn.decl.type.args is not None else []
    arrays = [d for d in file_scope if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.ArrayDecl)]
    for d in [*arrays, *params]:
        if not isinstance(d, c_ast.Decl):
            continue
        dims = _dims_of(d, ctx)
        if dims is not None:
            _array_decl(d, dims, ctx)
        elif isinstance(d.type, c_ast.PtrDecl) and isinstance(d.type.type, c_ast.TypeDecl):
            ctx.types[d.name] = " ".join(getattr(d.type.type.type, "names", []))
            ctx.pointers[d.name] = (_where(d, ctx.filename), ctx.types[d.name])
        elif isinstance(d.type, c_ast.TypeDecl):
            tname = " ".join(getattr(d.type.type, "names", []))
            if "int" in tname and "double" not in tname:
                ctx.params[d.name] = None
                ctx.int_args.add(d.name)
            else:
                ctx.declared_scalars.add(d.name)
    for d in body:  # arrays declared in the body are temporaries; numbers set scalars
        if not isinstance(d, c_ast.Decl) or not d.name:
            continue
        dims = _dims_of(d, ctx)
        if dims is not None:
            _array_decl(d, dims, ctx)
            ctx.temporaries.add(d.name)
        elif isinstance(d.init, c_ast.Constant | c_ast.UnaryOp):
            try:
                ctx.scalars[d.name] = float(_GEN.visit(d.init).rstrip("fFlL"))
            except ValueError:
                continue  # an expression (-alpha): the prologue folds it (cprologue.py)
            ctx.declared_scalars.add(d.name)


def _function(tree: c_ast.FileAST, filename: str) -> tuple[c_ast.FuncDef, str]:
    """The function to read and the kernel's name (``kernel_`` dropped)."""
    defs = [x for x in tree.ext if isinstance(x, c_ast.FuncDef)]
    if not defs:
        raise SpecError(f"{filename}: no function or statements found")
    if len(defs) > 1:
        names = " and ".join(f"{d.decl.name} (line {d.coord.line})" for d in defs)
        raise SpecError(f"{filename}: {len(defs)} function definitions, {names}: keep one, or "
                        f"mark the kernel's loops with '#pragma scop' ... '#pragma endscop'")
    fn = defs[0]
    name = fn.decl.name if fn.decl.name != "__kernel" else re.sub(
        r"\W", "_", filename.rsplit("/", 1)[-1].rsplit(".", 1)[0]) or "kernel"
    return fn, re.sub(r"^kernel_", "", name)


def _top_nests(body: list[Any], ctx: _Ctx,
               scratch: set[str]) -> list[tuple[list[Loop], list[Stmt]]]:
    """The top-level loop nests of the body, each as its loops and statements (scratch
    arrays expanded where each iteration of the loops around them owns its copy)."""
    touched = [arrays_in(x) for x in body]
    steps: dict[int, tuple[list[Loop], list[Stmt]]] = {}
    for k, x in enumerate(body):
        if isinstance(x, c_ast.For):
            reverse_downward(x)  # i-- loops on a mirrored index (creverse.py)
            expand_scalars(x, lambda lp, o: _loop(lp, ctx, o), ctx.shapes, ctx.temporaries)
            for c in carry_states(x, lambda lp, o: _loop(lp, ctx, o), ctx.shapes,
                                  ctx.temporaries):  # filter states (ccarry.py)
                init = _ExprConv(ctx, [], _where(c.init, ctx.filename)).conv(c.init)
                ctx.carried[c.prev] = Carry(c.state, c.dim, init)
            elsewhere = {a for j, arrs in enumerate(touched) if j != k for a in arrs}
            expand_scratch(x, scratch, elsewhere, lambda lp, o: _loop(lp, ctx, o), ctx.shapes)
            try:
                for y in distribute(x):
                    try:
                        _precheck(y, ctx)
                    except NotUniformError:
                        if not _closes(y, ctx):  # dataflow may settle it (localize/closed.py)
                            raise
            except NotUniformError:  # an elimination nest reordered into pivot steps?
                el = in_steps(x, lambda lp, o: _loop(lp, ctx, o),
                              lambda s, o: _statement(s, ctx, o, len(o), "body"))
                if el is None:
                    raise
                steps[k] = el
    found: list[tuple[list[Loop], list[Stmt]]] = []
    for k, x in enumerate(body):
        if isinstance(x, c_ast.Decl | c_ast.Pragma | c_ast.Return | c_ast.EmptyStatement):
            continue
        if isinstance(x, c_ast.While | c_ast.DoWhile):
            raise SpecError(f"{_where(x, ctx.filename)}: while loops are not supported (only "
                            f"for loops with affine bounds)")
        if not isinstance(x, c_ast.For):
            _zero_dim(x, body[k - 1] if k else None, ctx, found)
            continue
        if k in steps:
            found.append(steps[k])
            continue
        found.extend(_nest(y, ctx) for y in distribute(x))
    if not found:
        raise SpecError(f"{ctx.filename}: no for loop found")
    return fuse_inits(found)


def _zero_dim(x: Any, prev: Any, ctx: _Ctx, found: list[tuple[list[Loop], list[Stmt]]]) -> None:
    """A statement outside any loop joins a nest before it (cplace.py)."""
    refused = SpecError(f"{_where(x, ctx.filename)}: statement outside any loop: "
                        f"{_one_line(x)!r}")
    if not isinstance(x, c_ast.Assignment) or not isinstance(x.lvalue, c_ast.ArrayRef):
        raise refused
    s = _statement(x, ctx, [], 0, "post")
    if not isinstance(prev, c_ast.For) or not join_after(s, found, list(ctx.params)):
        raise refused


def _temporaries(phases: list[Phase], ctx: _Ctx) -> frozenset[str]:
    """A local array used by one phase only never touches DRAM; shared ones pass through it."""
    users: dict[str, int] = {}
    for _loops, stmts, _z in phases:
        for t in {a.tensor for st in stmts for a in (st.target, *st.reads)}:
            users[t] = users.get(t, 0) + 1
    return frozenset(t for t in ctx.temporaries if users.get(t, 0) <= 1)


def _used_names(loops: list[Loop], stmts: list[Stmt], ctx: _Ctx) -> set[str]:
    """Every name a phase's bounds, subscripts and tensor shapes use."""
    used = {n for lp in loops for b in (lp.lower, lp.upper) for n in b.names()}
    used |= {n for s in stmts for a in (s.target, *s.reads) for x in a.index for n in x.names()}
    used |= {n for t in {a.tensor for s in stmts for a in (s.target, *s.reads)}
             for x in ctx.shapes.get(t, ()) for n in x.names()}
    used |= {x.id for s in stmts if s.expr is not None for x in ast.walk(s.expr)
             if isinstance(x, ast.Name)
             and x.id in ctx.params}  # a size as a value (float_n)
    return used


def _dtype(ctx: _Ctx, phases: list[Phase], fallback: str | None) -> str:
    """The declared element type of the arrays the kernel writes (then of any array)."""
    written = [s.target.tensor for _l, stmts, _z in phases for s in stmts]
    for name in [*written, *sorted(ctx.types)]:
        words = ctx.types.get(name, "").split()
        found = [C_TYPES[w] for w in words if w in C_TYPES]
        if found:
            return found[-1]
    return fallback or "fp32"


def c_nests(text: str, filename: str = "<c>", dtype: str | None = None,
            include_dirs: Sequence[str | Path] = (), defines: Sequence[str] = (),
            source: CSource | None = None) -> tuple[str, list[Nest]]:
    """Parse C text into the nests (phases) it holds; returns (function name, nests).

    ``dtype`` None keeps the arrays' declared type (``double`` -> ``fp64``)."""
    src = source or preprocess(text, filename, include_dirs, defines)
    tree = _parse(strip_directives(src.text), filename)
    fn, name = _function(tree, filename)
    body = list(fn.body.block_items or [])
    ctx = _Ctx(filename, size_scalars=dict(src.size_scalars), defines=_given(defines),
               lines=text.splitlines())
    _declarations(fn if fn.decl.name != "__kernel" else None, body, ctx, tree.ext)
    known = {k: ctx.scalars.get(k, DEFAULT_SCALARS.get(k, 1.0)) for k in ctx.declared_scalars}
    body, folded = fold_prologue(body, known, set(ctx.params), lambda x: _where(x, filename))
    ctx.sized = {k: v.tree for k, v in folded.items() if isinstance(v, Sized)}  # adi's DX
    ctx.scalars.update({k: v for k, v in folded.items() if not isinstance(v, Sized)})
    ctx.declared_scalars |= set(folded) - set(ctx.sized)  # deriche's coefficients: constants
    scratch = set(ctx.temporaries)
    if src.live_out is not None:
        scratch |= set(ctx.shapes) - src.live_out
    phases = phases_of(_top_nests(body, ctx, scratch))
    if not phases:
        raise SpecError(f"{filename}: only zero-initialisation loops, nothing to compute")
    check_pointers(ctx.pointers, {a.tensor for _l, stmts, _z in phases for s in stmts
                                  for a in (s.target, *s.reads)})
    check_in_bounds([(s, loops[:s.depth]) for loops, stmts, _z in phases for s in stmts],
                    ctx.shapes)
    dtype = dtype or _dtype(ctx, phases, src.data_type)
    scalars = {k: ctx.scalars.get(k, DEFAULT_SCALARS.get(k, 1.0))
               for k in sorted(ctx.declared_scalars)}
    if src.live_out is not None:  # arrays the benchmark never dumps are scratch
        ctx.temporaries |= {s.target.tensor for _l, stmts, _z in phases for s in stmts} \
            - src.live_out
    temporaries = _temporaries(phases, ctx)
    nests = []
    for k, (loops, stmts, zeros) in enumerate(phases):
        used = _used_names(loops, stmts, ctx)
        read = {r.tensor for s in stmts for r in s.reads}
        nests.append(Nest(
            name if len(phases) == 1 else f"{name}.{k + 1}",
            tuple(p for p in ctx.params if p in used),
            tuple(loops), tuple(stmts), dict(ctx.shapes), scalars, frozenset(zeros),
            temporaries, dtype, {p: c for p, c in ctx.carried.items() if p in read},
        ))
    return name, nests


def _given(defines: Sequence[str]) -> dict[str, str]:
    """``-D NAME=VALUE`` (or ``NAME VALUE``) as ``{NAME: VALUE}``; a bare ``NAME`` is 1."""
    out = {}
    for d in defines:
        name, _, value = d.replace("=", " ", 1).partition(" ")
        if "(" not in name:  # a function-like macro sets no size
            out[name] = value.strip() or "1"
    return out


def _path_once(message: str, filename: str) -> str:
    """The message with the file's path only at its start: later places as ``line L:C``."""
    head, sep, rest = message.partition(filename)
    if not sep or head:
        return message
    return sep + re.sub(rf"{re.escape(filename)}:(?=\d)", "line ", rest)


def c_kernel(text: str, filename: str = "<c>", dtype: str | None = None,
             datasets: Mapping[str, Mapping[str, int]] | None = None,
             include_dirs: Sequence[str | Path] = (), defines: Sequence[str] = ()) -> Kernel:
    """The derived PRA of C text as a :class:`Kernel` (one phase per top-level nest).

    ``datasets`` default to the PolyBench presets that the kernel's header defines."""
    try:
        return _c_kernel(text, filename, dtype, datasets, include_dirs, defines)
    except SpecError as e:
        short = _path_once(str(e), filename)
        if short == str(e):
            raise
        raise type(e)(short) from e


def _c_kernel(text: str, filename: str, dtype: str | None,
              datasets: Mapping[str, Mapping[str, int]] | None,
              include_dirs: Sequence[str | Path], defines: Sequence[str]) -> Kernel:
    src = preprocess(text, filename, include_dirs, defines)
    try:
        name, nests = c_nests(text, filename, dtype, defines=defines, source=src)
        used = {p for n in nests for p in n.params}
        found = {ds: {p: v for p, v in vals.items() if p in used}
                 for ds, vals in src.datasets.items()}
        return localize(nests, name, f"localised from {filename}",
                        datasets if datasets is not None else found)
    except SpecError:  # a time loop around sweeps (a stencil) has its own rule; a sweep
        # that reads only the element it writes (A[i] = 0.3*A[i]) passes the nest reader
        # and fails in localisation (t a reduction loop that overwrites)
        from polyjoule.frontends.cstencil import stencil_kernel  # cstencil imports cnest

        if (stencil := stencil_kernel(src, filename, dtype, datasets)) is None:
            raise
        return stencil
