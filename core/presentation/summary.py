"""The command line's table of every metric of one evaluation."""

from __future__ import annotations

from core.metrics.evaluation import Evaluation
from core.presentation.format import metric_text

HOLDOUTS = {
    "real": "a random half set aside before avatarization",
    "given": "the holdout file given",
    "approximate": "a random half of the originals drawn at scoring time",
}


def summary_lines(evaluation: Evaluation) -> list[str]:
    """A plain-text table of every metric: signal with its reading, privacy with its target and verdict."""
    rows = evaluation.rows
    lines = [
        f"Holdout: {evaluation.holdout} ({HOLDOUTS[evaluation.holdout]}): {rows['working']} working rows, "
        f"{rows['holdout']} holdout rows, {rows['avatars']} avatars.",
        "Signal",
    ]
    for result in evaluation.signal.values():
        lines.append(f"  {result.label:<34}{metric_text(result):>10}  {result.band or ''}".rstrip())
    lines.append(f"Privacy{'':<29}{'value':>10}  {'target':<12}")
    for result in evaluation.privacy.values():
        verdict = "" if result.passed is None else ("pass" if result.passed else "FAIL")
        lines.append(f"  {result.label:<34}{metric_text(result):>10}  {result.target_text or '':<12}{verdict}")
    return lines
