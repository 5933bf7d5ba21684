"""Small pieces of text shared by the pages."""

from __future__ import annotations

from core.metrics.result import MetricResult
from core.run import GenerationRun


def metric_value(result: MetricResult, unit: str = "") -> str:
    """A metric's value as shown on a card: 3 decimals below 1, 1 above; "at least" when censored."""
    if result.value is None:
        return "n/a"
    prefix = "≥ " if result.breakdown.get("at_least") else ""
    number = f"{result.value:.3f}" if abs(result.value) < 1 else f"{result.value:.1f}"
    return f"{prefix}{number}{unit}"


def holdout_note(run: GenerationRun) -> str:
    """Which holdout the metrics used, in one sentence."""
    rows = run.evaluation.rows
    if run.evaluation.holdout == "real":
        return (
            f"Compared with a **real holdout**: {rows['holdout']:,} real rows set aside before the avatars were made "
            f"and never used to make them ({rows['working']:,} rows avatarized)."
        )
    return (
        f"Compared with an **approximate holdout**: every row was avatarized, so half of the originals "
        f"({rows['holdout']:,} rows) were drawn at random as the reference when scoring."
    )
