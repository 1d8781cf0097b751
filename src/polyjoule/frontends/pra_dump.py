"""PRA objects back to the data of the YAML format (the inverse of :mod:`.pra_yaml`).

``load_kernel_data(kernel_data(k))`` gives ``k`` again; ``polyjoule localize`` prints a
derived kernel this way, and ``polyjoule show`` writes conditions as :func:`condition_text`.
The pieces of a condition with alternatives are written once, as the user's statement with
its ``when: {any: [...]}`` (the loader splits it into the same pieces again).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from polyjoule.model.affine import Affine, Constraint

if TYPE_CHECKING:  # not at run time: `polyjoule show` writes conditions without numpy
    from polyjoule.model.pra import PRA, Dim, Kernel, Statement


def _lead(e: Affine, dims: Sequence[str]) -> str | None:
    """The name a condition is written for: the innermost loop index with a positive
    coefficient, else the outermost one present, else the first name."""
    positive = [k for k in dims if e.coeffs.get(k, 0) > 0]
    if positive:
        return positive[-1]
    lead = next((k for k in dims if k in e.coeffs), None)
    return lead if lead is not None else (e.terms[0][0] if e.terms else None)


def oriented(c: Constraint, dims: Sequence[str]) -> Constraint:
    """An equality with its lead term positive, as reading :func:`condition_text` gives it."""
    lead = _lead(c.expr, dims)
    if c.eq and lead is not None and c.expr.coeffs[lead] < 0:
        return Constraint(-c.expr, eq=True)
    return c


def condition_text(c: Constraint, dims: Sequence[str]) -> str:
    """``i - j - 1 >= 0`` -> ``i >= j + 1``: the innermost loop index on the left, as people
    write bounds (used for generated YAML and for ``polyjoule show``)."""
    e, rel = c.expr, "==" if c.eq else ">="
    lead = _lead(e, dims)
    if lead is not None and e.coeffs[lead] < 0:
        e, rel = -e, "==" if c.eq else "<="
    lhs = Affine.of({k: v for k, v in e.terms if v > 0 and k == lead})
    return f"{lhs} {rel} {lhs - e}"


def transport_text(var: str, source: str, dims: Sequence[str], dep: Sequence[int]) -> str:
    """``x[i] = y[i0, i1 - 1]``: how a transport reads (the statement's ``text``)."""
    shift = ", ".join(n if d == 0 else f"{n} - {d}" if d > 0 else f"{n} + {-d}"
                      for n, d in zip(dims, dep, strict=True))
    return f"{var}[i] = {source}[{shift}]"


def _scalar(a: Affine) -> int | str:
    return a.const if not a.terms else str(a)


def _dim(d: Dim, params: Sequence[str]) -> dict[str, Any]:
    """A dim; the extent is written when the bounds do not imply it (they use outer dims)."""
    out: dict[str, Any] = {"name": d.name, "lower": _scalar(d.lower), "upper": _scalar(d.upper)}
    coupled = (d.lower.names() | d.upper.names()) - set(params)
    if coupled or d.extent != d.upper.shift(1):
        out["extent"] = _scalar(d.extent)
    return out


def when_text(s: Any, dims: Sequence[str]) -> str:
    """A statement's condition as ``show`` prints it: ``a and b``, alternatives joined by
    ``or`` (a statement or an outline of one, whichever has ``alternatives``)."""
    alts = getattr(s, "alternatives", ()) if not getattr(s, "origin", "") else ()
    if alts:
        return " or ".join("(" + (" and ".join(condition_text(c, dims) for c in a) or "always")
                           + ")" for a in alts)
    return " and ".join(condition_text(c, dims) for c in s.when) or "always"


def _when_data(s: Statement, dims: Sequence[str]) -> Any:
    """``when`` as YAML data: a condition, a list of them, or ``{any: [...]}``."""
    if s.alternatives:
        return {"any": [[condition_text(c, dims) for c in a] for a in s.alternatives]}
    texts = [condition_text(c, dims) for c in s.when]
    return texts if len(texts) > 1 else texts[0] if texts else None


def _statement(s: Statement, dims: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": s.user_id, "var": s.var}
    if s.kind in ("input", "output"):
        out[s.kind] = f"{s.tensor}[{', '.join(str(x) for x in s.index)}]"
    elif s.kind == "transport":
        out["from"] = s.source
        out["dep"] = list(s.dep or ())
    else:
        assert s.expr is not None
        out["compute"] = s.expr.text
    when = _when_data(s, dims)
    if when is not None:
        out["when"] = when
    return out


def pra_data(pra: PRA) -> dict[str, Any]:
    """One PRA (a phase) as YAML data."""
    out: dict[str, Any] = {
        "name": pra.name,
        "dtype": pra.dtype,
        "params": dict(pra.param_min),
        "dims": [_dim(d, pra.params) for d in pra.dims],
        "tensors": {t.name: {"shape": [str(x) for x in t.shape], "kind": t.kind}
                    for t in pra.tensors},
        "statements": [_statement(s, pra.dim_names) for s in pra.statements
                       if not s.origin or s.id in (s.origin, f"{s.origin}.1")],
    }
    if pra.scalars:
        out["scalars"] = dict(pra.scalars)
    return out


def kernel_data(kernel: Kernel) -> dict[str, Any]:
    """A kernel as YAML data (phases form)."""
    out: dict[str, Any] = {"version": 1, "name": kernel.name}
    if kernel.description:
        out["description"] = kernel.description
    if kernel.datasets:
        out["datasets"] = {k: dict(v) for k, v in kernel.datasets.items()}
    out["phases"] = [pra_data(p) for p in kernel.phases]
    return out
