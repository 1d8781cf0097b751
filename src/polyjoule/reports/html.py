"""``polyjoule report``: one self-contained HTML page about a kernel on a processor array.

The page holds the kernel, the array and its energy table, the mapping, the formulas
(presentation MathML, which browsers render natively), counts and energy, the schedule, and
inline SVG pictures: the tiled iteration space (walked point by point, see ``svg_space``),
the reduced dependence graph and the breakdown vs size. No network: no script, font or style
is fetched. Markup lives in Jinja2 templates beside this module; Python computes the data.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import sympy
from markupsafe import Markup
from sympy.printing.mathml import mathml

from polyjoule.errors import InfeasibleMapping, ParameterRangeError, PolyjouleError
from polyjoule.reports import svg_bars, svg_graph, svg_space
from polyjoule.targets.tcpa.locations import CLASSES

if TYPE_CHECKING:
    from polyjoule.analysis import Analysis

#: Colours of the location classes (and compute), shared by every picture and table.
COLOURS = {"RD": "#7f8c8d", "FD": "#1f77b4", "ID": "#e8710a", "OD": "#9467bd",
           "IOb": "#2ca02c", "DR": "#c0392b", "compute": "#f1c40f"}
#: Drawn point by point only when every drawn extent is at most this.
MAX_DRAWN = 24
_UNITS = ((1e12, "J"), (1e9, "mJ"), (1e6, "µJ"), (1e3, "nJ"), (1.0, "pJ"))


def energy_text(pj: float) -> str:
    """Engineering notation, three significant digits: ``1.38 mJ``, ``32.2 nJ``, ``0 pJ``;
    past 9,999 J a power of ten (``1.33e27 J``), a float's digits and no more."""
    from polyjoule.reports.tables import scientific

    if pj == 0:
        return "0 pJ"
    for scale, unit in _UNITS:
        if abs(pj) >= scale:
            x = pj / scale
            return f"{x:.3g} {unit}" if abs(x) < 1000 else f"{scientific(x)} {unit}"
    return f"{pj:.3g} pJ" if abs(pj) >= 1e-3 else f"{scientific(pj)} pJ"


def exact_pj(pj: float) -> str:
    """An energy's value as computed (a hover title): ``511,810.500 pJ``; past 2**53 pJ,
    where a float has no more digits, its shortest exact form (``1.3292279957885427e+39``)."""
    pj = float(pj)
    return f"{pj:,.3f} pJ" if abs(pj) < 2**53 else f"{pj!r} pJ"


def _mathml(expr: sympy.Basic) -> str:
    """Presentation MathML with a visible product dot: ``NI NK`` must not read ``NINK``."""
    return mathml(expr, printer="presentation").replace("&InvisibleTimes;", "&#8901;")


def math(expr: sympy.Basic) -> Markup:
    """``expr`` as inline presentation MathML."""
    body = _mathml(expr)
    return Markup(f'<math display="inline">{body}</math>')  # noqa: S704 - sympy's printer escapes


def formula_math(f: Any, pra: Any, groups: Any) -> Markup:
    """A volume formula as MathML: one polynomial, or a brace over its pieces."""
    from polyjoule.analysis.analyze import r_subst

    sub = r_subst(pra, list(groups))
    pieces = [(sympy.factor_terms(sympy.expand(poly.xreplace(sub))), cond.xreplace(sub))
              for poly, cond in f.piece_exprs()]
    if not pieces:
        return math(sympy.Integer(0))
    if len(pieces) == 1:
        return math(pieces[0][0])
    rows = "".join(
        f"<mtr><mtd>{_mathml(e)}</mtd><mtd><mtext>if&#160;</mtext>{_mathml(c)}</mtd></mtr>"
        for e, c in pieces)
    rows += "<mtr><mtd><mn>0</mn></mtd><mtd><mtext>otherwise</mtext></mtd></mtr>"
    return Markup(f'<math display="inline"><mrow><mo>{{</mo><mtable columnalign="left">'  # noqa: S704
                  f"{rows}</mtable></mrow></math>")


def condition_text(c: Any, dims: tuple[str, ...]) -> str:
    """A constraint as people write it: loop indices on the left (``i1 == N1 - 1``)."""
    from polyjoule.model.affine import Affine

    left = Affine.of({k: v for k, v in c.expr.terms if k in dims})
    right = left - c.expr  # left >= right  (or ==)
    rel = "==" if c.eq else ">="
    if left.terms and (all(v < 0 for _, v in left.terms) or (c.eq and left.terms[0][1] < 0)):
        left, right, rel = -left, -right, "==" if c.eq else "<="
    return f"{left} {rel} {right}" if left.terms else str(c)


def _kernel(k: Any, values: Mapping[str, int]) -> dict[str, Any]:
    """The kernel as tables: parameters, and per phase its dims, tensors and statements."""
    phases = []
    for pra in k.phases:
        statements = [{"id": s.id, "kind": s.kind, "text": s.text,
                       "when": " and ".join(condition_text(c, pra.dim_names) for c in s.when),
                       "dep": str(s.dep) if s.kind == "transport" else ""}
                      for s in pra.statements]
        phases.append({"name": pra.name, "dtype": pra.dtype,
                       "dims": [{"name": d.name, "lower": str(d.lower), "upper": str(d.upper),
                                 "extent": d.extent.evaluate(values)} for d in pra.dims],
                       "tensors": [{"name": t.name, "kind": t.kind,
                                    "shape": " x ".join(str(x) for x in t.shape)}
                                   for t in pra.tensors],
                       "statements": statements})
    return {"name": k.name, "description": k.description, "phases": phases,
            "params": [{"name": p, "value": values[p]} for p in k.params]}


def _architecture(a: Any) -> dict[str, Any]:
    """The PE grid and the energy table the analysis used (pJ with their sources)."""
    t = a.table
    dtypes = sorted({ph.pra.dtype for ph in a.phases})
    return {"rows": a.array[0], "cols": a.array[1], "table": t.name,
            "access": [{"cls": c, "pj": t.access_pj[c], "source": t.sources.get(f"access.{c}", "")}
                       for c in CLASSES],
            "ops": [{"dtype": dt, "op": op, "pj": pj, "source": t.sources.get(f"op.{dt}.{op}", "")}
                    for dt in dtypes for op, pj in sorted(t.op_pj.get(dt, {}).items())]}


def _mapping(a: Any, r: Any, values: Mapping[str, int]) -> list[dict[str, Any]]:
    """Per phase and dim: extent, tile size ``p``, tile count ``t`` (= PEs along it)."""
    out = []
    for ph in a.phases:
        sizes = r.tile_sizes[ph.pra.name]
        dims = []
        for l, d in enumerate(ph.pra.dims):
            e = d.extent.evaluate(values)
            dims.append({"name": d.name, "extent": e, "p": sizes[l], "t": -(-e // sizes[l]),
                         "tiled": ph.tiling.tiled(l), "pes": ph.tiling.t[l]})
        out.append({"phase": ph.pra.name, "mode": ph.mode, "dims": dims})
    return out


def _energy(a: Any, r: Any, values: Mapping[str, int]) -> dict[str, Any]:
    """Totals by class and op (count, energy, share of the total), the dynamic energy (their
    sum), the static (leakage over the latency) and the total (dynamic + static, as every
    command's ``total``), and one row per statement case."""
    p = r.power
    total = p.total_pj or 1.0
    totals = [{"what": c, "cls": c, "count": r.counts[c], "pj": r.energy_pj["by_class"][c],
               "share": 100 * r.energy_pj["by_class"][c] / total} for c in CLASSES]
    totals += [{"what": f"op {op}", "cls": "compute", "count": n, "pj": r.energy_pj["by_op"][op],
                "share": 100 * r.energy_pj["by_op"][op] / total} for op, n in r.counts["ops"].items()]
    maths = []
    for ph in a.phases:
        sizes = r.tile_sizes[ph.pra.name]
        maths += [formula_math(v.formula, ph.pra, ph.groups) for v in ph.volumes_for(sizes)]
    cases = [{"phase": v.phase, "statement": v.statement, "text": v.text, "case": v.case,
              "cls": v.cls, "formula": v.formula, "math": m, "count": v.value, "pj": v.energy_pj}
             for v, m in zip(r.volumes, maths, strict=True)]
    return {"total": p.total_pj, "dynamic": p.dynamic_pj, "static": p.static_pj,
            "static_share": 100 * p.static_pj / total,
            "static_parts": ", ".join(f"{c} {energy_text(v)}"
                                      for c, v in p.static_pj_by_component.items()),
            "totals": totals, "cases": cases, "multi": len(a.phases) > 1}


_FUNCTIONS = {"Mod", "floor", "ceiling", "Max", "Min", "Abs", "Piecewise", "True", "False"}
#: A longer formula is shown as text in a details element: as MathML it would fill pages.
MAX_RENDERED = 400


def _parse(text: str) -> sympy.Expr:
    """A schedule formula's text back as sympy, every other name a symbol (``N`` too)."""
    names = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text)) - _FUNCTIONS
    return sympy.sympify(text, locals={n: sympy.Symbol(n) for n in names})


def _formula(text: str) -> Markup | None:
    """MathML of a schedule formula, or ``None`` (the template shows the text instead)."""
    if len(text) > MAX_RENDERED:
        return None
    try:
        return math(_parse(text))
    except (sympy.SympifyError, SyntaxError, TypeError, ValueError):
        return None


def _schedule(a: Any, values: Mapping[str, int]) -> dict[str, Any]:
    """Per phase: order, ``lambda_J``/``lambda_K``, ``L_c``, latency and its formula."""
    from polyjoule.analysis.latency import schedule_report

    try:
        lat = schedule_report(a, dict(values))
    except PolyjouleError as e:
        return {"error": str(e), "phases": [], "latency": None}
    phases = []
    for ph in lat["schedule"]:
        phases.append({**ph, "math": _formula(ph["latency_formula"]),
                       "lambda_J_math": [_formula(x) or x for x in ph["lambda_J_symbolic"]],
                       "lambda_K_math": [_formula(x) or x for x in ph["lambda_K_symbolic"]]})
    return {"error": "", "phases": phases, "latency": lat["latency_cycles"]}


def _drawable(pra: Any, values: Mapping[str, int]) -> bool:
    extents = [d.extent.evaluate(values) for d in pra.dims]
    n = 1
    for e in extents:
        n *= e
    return max(extents) <= MAX_DRAWN and n <= svg_space.MAX_POINTS


def _drawn_values(a: Any, pra: Any, values: Mapping[str, int]) -> dict[str, int] | None:
    """``values`` if small enough to draw point by point, else a scaled-down instance of the
    same mapping (``None`` when there is none, e.g. explicit tiles larger than it)."""
    if _drawable(pra, values):
        return dict(values)
    least = dict(pra.param_min)
    biggest = max(d.extent.evaluate(values) for d in pra.dims)
    for small in (_halved(pra, values, least),  # a band's width kept: its shape is the point
                  {p: max(least.get(p, 1), v * 10 // biggest) for p, v in values.items()}):
        if small is None or not _drawable(pra, small):
            continue
        try:
            a.evaluate(small)
        except (InfeasibleMapping, ParameterRangeError):
            continue
        return small
    return None


def _halved(pra: Any, values: Mapping[str, int], least: Mapping[str, int]) -> dict[str, int] | None:
    """``values`` with the largest parameter halved until the space is drawable: the small
    ones (a band's width, a stencil's radius) keep their values."""
    small = dict(values)
    while not _drawable(pra, small):
        p = max(small, key=lambda q: small[q])
        half = max(least.get(p, 1), small[p] // 2)
        if half == small[p]:
            return None
        small[p] = half
    return small


def _symbolic_arrows(r: Any, phase: str) -> Counter:
    """(statement, class) -> volume of the transport cases, from the symbolic analysis."""
    out: Counter = Counter()
    for v in r.volumes:
        if v.phase == phase and v.cls in ("FD", "ID"):
            out[(v.statement, v.cls)] += v.value
    return out


def _space(a: Any, values: Mapping[str, int], schedule: dict[str, Any]) -> list[dict[str, Any]]:
    """Per phase: the iteration-space panels and the walked-vs-symbolic arrow counts."""
    out = []
    sched = {s["phase"]: s for s in schedule["phases"]}
    for ph in a.phases:
        pra = ph.pra
        drawn = _drawn_values(a, pra, values)
        entry: dict[str, Any] = {"phase": pra.name, "values": drawn, "scaled": drawn != dict(values),
                                 "panels": [], "checks": [], "n": pra.n}
        if drawn is None or not svg_space.propagations(pra):
            out.append(entry)
            continue
        r = a.evaluate(drawn)
        sizes = r.tile_sizes[pra.name]
        pts = svg_space.points(pra, drawn)
        arrows = svg_space.walk(pra, drawn, sizes, pts)
        walked = Counter((x.statement, x.cls) for x in arrows)
        symbolic = _symbolic_arrows(r, pra.name)
        tips = sched.get(pra.name) if not entry["scaled"] else None
        for s in svg_space.propagations(pra):
            entry["panels"].append(svg_space.panel(pra, s, drawn, sizes, pts, arrows, tips))
            entry["checks"].append({"statement": s.id, **{
                f"{how}_{c}": n[(s.id, c)] for how, n in (("walked", walked), ("symbolic", symbolic))
                for c in ("FD", "ID")}})
        entry["sizes"] = sizes
        out.append(entry)
    return out


def _graphs(a: Any) -> list[dict[str, Any]]:
    return [{"phase": ph.pra.name,
             "graph": svg_graph.layout(ph.pra, [ph.tiling.tiled(l) for l in range(ph.pra.n)])}
            for ph in a.phases]


def _breakdown(a: Any, values: Mapping[str, int]) -> dict[str, Any]:
    """Energy by class at the report's sizes scaled by 1/8 .. 8 (those the mapping allows)."""
    least = {p: lo for ph in a.phases for p, lo in ph.pra.param_min}
    sizes: list[dict[str, int]] = []
    for f in (1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8):
        v = {p: max(least.get(p, 1), round(x * f)) for p, x in values.items()}
        if v not in sizes:
            sizes.append(v)
    labels, parts, marked = [], [], None
    for v in sizes:
        try:
            r = a.evaluate(v)
        except (InfeasibleMapping, ParameterRangeError):
            continue
        if v == dict(values):
            marked = len(labels)
        labels.append(", ".join(f"{p}={x}" for p, x in v.items()))
        parts.append({**r.energy_pj["by_class"], "compute": sum(r.energy_pj["by_op"].values())})
    order = ["compute", *CLASSES]
    return {"bars": svg_bars.bars(labels, parts, order, energy_text, marked), "order": order}


def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(loader=PackageLoader("polyjoule.reports", "templates"),
                      autoescape=select_autoescape(["html", "j2"], default=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["energy"] = energy_text
    env.filters["exact_pj"] = exact_pj
    env.filters["count"] = lambda n: f"{n:,}"
    return env


def render(a: Analysis, values: Mapping[str, int]) -> str:
    """The report page of analysis ``a`` (``polyjoule.analyze``) at parameter ``values``."""
    from polyjoule import __version__

    values = {p: int(v) for p, v in values.items()}
    r = a.evaluate(values)
    schedule = _schedule(a, values)
    context = {
        "version": __version__, "colours": COLOURS, "classes": CLASSES,
        "kernel": _kernel(a.kernel, values), "arch": _architecture(a),
        "mapping": _mapping(a, r, values), "energy": _energy(a, r, values),
        "schedule": schedule, "spaces": _space(a, values, schedule), "graphs": _graphs(a),
        "breakdown": _breakdown(a, values), "derive_seconds": a.derive_seconds,
        "values_text": ", ".join(f"{p}={v}" for p, v in values.items()),
    }
    return _environment().get_template("report.html.j2").render(**context)
