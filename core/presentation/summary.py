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


def analysis_lines(evaluation: Evaluation) -> list[str]:
    """The analyses of SPEC section 9 in words: "a model trained on the avatars reaches 97 % of the real model's
    ROC AUC on people it never saw"."""
    result = evaluation.analyses.get("prediction")
    if result is None:
        return []
    share = "" if result.ratio is None else f" ({100 * result.ratio:.0f} % of the real model's)"
    return ["Does the analysis still hold",
            f"  Predicting {result.outcome} ({result.score_name}, tested on real rows never used): trained on the "
            f"real rows {result.real.value:.3f} [{result.real.low:.3f}, {result.real.high:.3f}], on the avatars "
            f"{result.avatars.value:.3f} [{result.avatars.low:.3f}, {result.avatars.high:.3f}]{share}."]
