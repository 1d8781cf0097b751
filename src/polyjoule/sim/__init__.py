"""Reference simulator: the cycle-level witness of the symbolic counts and latency."""

from polyjoule.sim.engine import MEMORY_LIMIT, PhaseResult, SimResult, estimate_bytes, simulate

__all__ = ["MEMORY_LIMIT", "PhaseResult", "SimResult", "estimate_bytes", "simulate"]
