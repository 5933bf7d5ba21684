"""The command line's table of every metric of one evaluation."""

from __future__ import annotations

from core.metrics.criteria import QUESTIONS
from core.metrics.evaluation import Evaluation
from core.presentation.format import holdout_sentence, metric_text

CRITERION_STATES = {True: "met", False: "NOT MET", None: "not assessed"}


def summary_lines(evaluation: Evaluation) -> list[str]:
    """A plain-text table of every metric: signal with its reading, privacy by criterion (SPEC 6.2) with each
    metric's target and verdict."""
    lines = [holdout_sentence(evaluation), "Signal"]
    for result in evaluation.signal.values():
        lines.append(f"  {result.label:<34}{metric_text(result):>10}  {result.band or ''}".rstrip())
    lines.append(f"Privacy{'':<29}{'value':>10}  {'target':<12}")
    for criterion, group in evaluation.criteria().items():
        lines.append(f" {criterion.capitalize()}: {QUESTIONS[criterion]} {CRITERION_STATES[group.met]}")
        for result in group.results:
            verdict = "" if result.passed is None else ("pass" if result.passed else "FAIL")
            if result.note:
                verdict = "not counted: most rows repeat"
            lines.append(f"  {result.label:<34}{metric_text(result):>10}  {result.target_text or '':<12}{verdict}")
    return lines
