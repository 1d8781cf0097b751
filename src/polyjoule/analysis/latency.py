"""Schedule and latency of an analysed kernel, for reports (phases run one after another)."""

from __future__ import annotations

from typing import Any


def kernel_latency(a: Any, values: dict[str, int]) -> dict[str, Any]:
    """``{"schedule": [...per phase...], "latency_cycles": int}`` for ``a`` at ``values``."""
    import importlib.util

    if importlib.util.find_spec("polyjoule.mapping.schedule") is None:  # TODO(lead): remove
        return {}
    from polyjoule.mapping.schedule import derive_schedule

    phases = []
    total = 0
    for ph in a.phases:
        s = derive_schedule(ph.pra, ph.tiling)
        vals = {p: values[p] for p in ph.pra.params}
        lat = int(s.latency(vals))
        total += lat
        phases.append({"phase": ph.pra.name, "lambda_J": [str(x) for x in s.lambda_J],
                       "lambda_K": [str(x) for x in s.lambda_K],
                       "order": [str(x) for x in s.order], "latency_cycles": lat,
                       "latency_formula": str(s.latency_formula)})
    return {"schedule": phases, "latency_cycles": total}
