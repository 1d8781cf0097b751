"""Schedule and latency of an analysed kernel, for reports (phases run one after another)."""

from __future__ import annotations

from typing import Any


def schedule_report(a: Any, values: dict[str, int], pi: int = 1, w: int = 1) -> dict[str, Any]:
    """``{"schedule": [...per phase...], "latency_cycles": int}`` for analysis ``a``.

    Per phase: the scanning order chosen at this design point with its symbolic
    ``lambda_J``/``lambda_K`` (in tile sizes ``p``), their values here, the tile sizes and
    counts, ``L_c`` and the exact latency formula of that order (or skewed order,
    ``method: skew``); a schedule the integer program found at this point (``method: ilp``)
    shows its integers and its latency.
    """
    from polyjoule.analysis.schedule import kernel_schedules

    phases = []
    total = 0
    schedules = kernel_schedules(a.kernel, a.array, a.tile, pi=pi, w=w, order=a.order)
    for ph, s in zip(a.phases, schedules, strict=True):
        vals = {p: values[p] for p in ph.pra.params}
        c = s.at(vals)
        total += c.latency
        pool = s.skew.families if c.method == "skew" else s.candidates
        cand = next((x for x in pool if x.order == c.order
                     and x.lambdas(c.p) == (c.lambda_J, c.lambda_K)), None)
        if c.method == "ilp" or cand is None:  # found at this design point: no formula
            phases.append({"phase": ph.pra.name, **c.to_json(ph.pra.dim_names),
                           "lambda_J_symbolic": [str(x) for x in c.lambda_J],
                           "lambda_K_symbolic": [str(x) for x in c.lambda_K],
                           "latency_formula": str(c.latency)})
            continue
        phases.append({
            "phase": ph.pra.name,
            **c.to_json(ph.pra.dim_names),
            "lambda_J_symbolic": [str(x) for x in cand.lambda_J],
            "lambda_K_symbolic": [str(x) for x in cand.lambda_K],
            "latency_formula": str(cand.latency_formula),
        })
    return {"schedule": phases, "latency_cycles": total}
