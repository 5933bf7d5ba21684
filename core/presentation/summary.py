"""The command line's table of every metric of one evaluation."""

from __future__ import annotations

from core.metrics.analysis.request import TITLES
from core.metrics.criteria import QUESTIONS
from core.metrics.evaluation import Evaluation
from core.presentation.analysis_text import analysis_notes, hellinger_spread, reading
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
    """The analyses of SPEC section 9 in words, one line each ("a model trained on the avatars reaches 97 % of the
    real model's ROC AUC on real people it never saw"), and the Hellinger scores' spread."""
    if not evaluation.analyses:
        return []
    return ["Does the analysis still hold",
            *(line for name, result in evaluation.analyses.items()
              for line in (f"  {TITLES[name]}: {reading(name, result, evaluation.holdout)}",
                           *(f"    {note}" for note in analysis_notes(result)))),
            f"  {hellinger_spread(evaluation)}"]
