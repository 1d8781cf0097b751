"""Symbolic analysis: Barvinok volumes, energy, and their compiled evaluation."""

from polyjoule.analysis.analyze import Analysis, Result, analyze

__all__ = ["Analysis", "Result", "analyze"]
