"""The model's error bar: makespan -> cosim cycles, fitted on six published programs.

The cost model is a ranking device, not a cycle predictor: it under-predicts RTL by
~30%. A margin between two mappings means something only when it exceeds the fit's
worst residual.
"""

from __future__ import annotations

from polyjoule.search.cost import Margin

#: least squares over the six hand-written rows (cosim ~ 128 + 1.24 * makespan)
INTERCEPT = 128.0
SLOPE = 1.24
WORST_RESIDUAL = 34
POINTS = 6
BASIS = (f"by the fit cosim ~ {INTERCEPT:.0f} + {SLOPE}*makespan ({POINTS} points, "
         f"worst residual {WORST_RESIDUAL})")
CAVEAT = ("caveat: the model under-predicts RTL by ~30% and only one same-shape pair "
          "checks its ordering (4x4x4: model 1.25x, cosim 1.02x, same order).")


def cosim(makespan: int) -> float:
    """Predicted cosim cycles of a program with this modelled makespan."""
    return INTERCEPT + SLOPE * makespan


def margin(best: int, runner_up: int) -> Margin:
    """How far ahead the best mapping is, next to the fit's worst residual."""
    gap = SLOPE * (runner_up - best)
    return Margin(runner_up / best if best else float("inf"), gap, "cycles",
                  gap > WORST_RESIDUAL, BASIS)
