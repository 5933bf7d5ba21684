"""The command line's table of every metric of one evaluation, of a run of one table or of linked tables
(:func:`run_lines`), or of a run made batch by batch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.i18n import enumeration
from core.metrics.correlation_difference_ratio import correlation_gaps
from core.metrics.criteria import NOT_MET, QUESTIONS
from core.metrics.evaluation import Evaluation
from core.metrics.registry import DEFINITIONS
from core.metrics.risk_profile import RiskProfile
from core.presentation.format import SHOWN_UNITS, holdout_sentence, in_english, metric_text, number_text
from core.presentation.risk_profile_text import profile_lines
from core.presentation.verdict_text import LINKED_TABLES, noise_of, relationships, verdict_line
from core.workflows.linked_run import LinkedRun
from core.workflows.run import GenerationRun

if TYPE_CHECKING:
    from core.metrics.linked_evaluation import LinkedEvaluation
    from core.workflows.linked_run import LinkedVerdict
    from core.workflows.runs import Run



@in_english
def run_lines(run: Run) -> list[str]:
    """What the command line prints of a scored and judged run: one table's metrics, analyses, relationships, noise
    and verdict; linked tables' (:func:`linked_summary_lines`)."""
    if isinstance(run, LinkedRun):
        return linked_summary_lines(run.evaluation, run.verdict)
    assert isinstance(run, GenerationRun)  # the other kind of run
    said = [text for text in (relationships(run.evaluation), noise_of(run)) if text]
    return [*summary_lines(run.evaluation), *analysis_lines(run.evaluation), *said, verdict_line(run.table_verdict)]


@in_english
def summary_lines(evaluation: Evaluation) -> list[str]:
    """A plain-text table of every metric: signal with its reading, privacy by criterion (SPEC 6.2) with each
    metric's target and verdict."""
    lines = [holdout_sentence(evaluation), "Signal"]
    for result in evaluation.signal.values():
        lines.append(f"  {result.label:<34}{metric_text(result):>10}  {result.band or ''}".rstrip())
        if result.name == "correlation_difference_ratio" and result.value is not None:
            lines.append(f"    {correlation_gaps(result)}")
    lines.append(f"Privacy{'':<29}{'value':>10}  {'target':<12}")
    for criterion, group in evaluation.criteria().items():
        state = group.state.upper() if group.state == NOT_MET else group.state
        lines.append(f" {criterion.capitalize()}: {QUESTIONS[criterion]} {state}")
        for result in group.results:
            verdict = "uncertain" if result.uncertain else "" if result.passed is None else (
                "pass" if result.passed else "FAIL")
            if result.note:
                verdict = "not counted in the verdict"
            lines.append(f"  {result.label:<34}{metric_text(result):>10}  {result.target_text or '':<12}{verdict}")
            if result.note:
                lines.append(f"    {result.note}")
    return lines + (risk_profile_lines(evaluation.risk_profile) if evaluation.risk_profile is not None else [])


@in_english
def risk_profile_lines(profile: RiskProfile) -> list[str]:
    """Who stands out before any generation (SPEC 6.4), under its heading."""
    return ["Who stands out", *(f"  {line}" for line in profile_lines(profile))]


@in_english
def linked_summary_lines(evaluation: LinkedEvaluation, verdict: LinkedVerdict) -> list[str]:
    """Linked tables in plain text: each link's metrics, each time series' (SPEC 13), each person table's privacy
    with everything about them, and each person table's verdict."""
    lines = []
    for link, metrics in evaluation.links.items():
        lines.append(f"Link {link}")
        lines += [f"  {result.label:<34}{metric_text(result):>10}  "
                  f"{result.target_text or result.band or ''}".rstrip() for result in metrics.values()]
    for link, metrics in evaluation.series.items():
        lines.append(f"Time series {link}")
        lines += [f"  {result.label:<34}{metric_text(result):>10}  {result.band or result.not_applicable or ''}".rstrip()
                  for result in metrics.values()]
    for link, result in evaluation.trends.items():
        from core.presentation.analysis_text import analysis_notes, trend_reading  # here: as analysis_lines does

        lines += [f"Trend over time, {link}", f"  {trend_reading(result)}",
                  *(f"    {note}" for note in analysis_notes(result))]
    for name, scored in evaluation.persons.items():
        lines.append(f"Table {name} with everything about each person")
        lines += [f"  {line}" for line in [*summary_lines(scored)[1:], *analysis_lines(scored)]]
    for name, alone in evaluation.tables.items():  # an individual-level table without children, analysed
        if name not in evaluation.persons and alone.analyses:
            lines += [f"Table {name}", *(f"  {line}" for line in analysis_lines(alone))]
    lines += [f"{name}: {verdict_line(person, LINKED_TABLES)}" for name, person in verdict.persons.items()]
    if verdict.broken_links:
        lines.append(f"Links whose foreign keys do not all resolve: {', '.join(verdict.broken_links)}.")
    return lines


@in_english
def analysis_lines(evaluation: Evaluation) -> list[str]:
    """The analyses of SPEC section 9 in words, one line each ("a model trained on the avatars reaches 97 % of the
    real model's ROC AUC on real people it never saw"), and the Hellinger scores' spread."""
    if not evaluation.analyses:
        return []
    from core.metrics.analysis.request import TITLES  # here: the analyses' modules import scikit-learn, statsmodels
    from core.presentation.analysis_text import analysis_notes, hellinger_spread, reading

    return ["Does the analysis still hold",
            *(line for name, result in evaluation.analyses.items()
              for line in (f"  {TITLES[name]}: {reading(name, result, evaluation.holdout)}",
                           *(f"    {note}" for note in analysis_notes(result)))),
            f"  {hellinger_spread(evaluation)}"]


@in_english
def batch_summary_lines(summary: dict) -> list[str]:
    """The metrics of a run made batch by batch (:func:`~core.metrics.batch_summary.batch_summary`): each metric's
    mean over the batches and its worst batch, how many batches meet each privacy target, and the verdict."""
    count = summary["count"]
    against = "its own holdout half" if summary["holdouts"] == ["real"] else \
        "its own holdout half (an approximate one for a batch under 500 rows, which avatarizes every row)"
    lines = [f"Scored batch by batch, each against {against}: the mean over the {count} batches and the worst batch "
             "(numbered from 1)", f"Signal{'':<30}{'mean':>10}  worst batch"]
    lines += _batch_rows(summary, "signal")
    lines.append(f"Privacy{'':<29}{'mean':>10}  {'worst batch':<22}{'target':<12}batches meeting it")
    lines += _batch_rows(summary, "privacy")
    failing = sorted({batch for entry in summary["targets_met"].values() for batch in entry["failing"]})
    if summary["ready"]:
        verdict = f"Verdict: ready to share. Every batch meets every privacy target ({count} of {count})."
    elif summary["status"] == "uncertain":
        names = [DEFINITIONS[name].label for name in summary["uncertain"]]
        verdict = (f"Verdict: MEETS EVERY TARGET ON ITS ESTIMATE. No batch misses a privacy target, but in some the "
                   f"95 % interval of {', '.join(names)} reaches past its target: uncertain.")
    elif summary["status"] == "partly assessed":
        verdict = f"Verdict: MEETS EVERY TARGET ASSESSED. Every batch meets every privacy target assessed ({count} of " \
                  f"{count})."
    else:
        names = [DEFINITIONS[name].label for name, entry in summary["targets_met"].items() if entry["failing"]]
        which = ", ".join(str(batch) for batch in failing)
        verdict = (f"Verdict: NOT READY TO SHARE. {len(failing)} of {count} batches miss a privacy target "
                   f"({', '.join(names)}): {'batch' if len(failing) == 1 else 'batches'} {which}. Raise k (or lower "
                   "epsilon) and run again.")
    if summary["not_assessed"]:
        labels = enumeration([DEFINITIONS[name].label.lower() for name in summary["not_assessed"]])
        verdict += (f" Not assessed: {labels}. Name the variables an attacker could know and the sensitive ones "
                    "(--known, --sensitive) to assess them.")
    return [*lines, verdict]


def _batch_rows(summary: dict, section: str) -> list[str]:
    rows = []
    for name, mean in summary["mean"][section].items():
        definition, worst = DEFINITIONS[name], summary["worst"][section][name]
        suffix = f" {definition.unit}" if definition.unit in SHOWN_UNITS else ""
        worst_text = f"{number_text(worst['value'], definition.unit)}{suffix} (batch {worst['batch']})"
        row = f"  {definition.label:<34}{number_text(mean, definition.unit) + suffix:>10}  {worst_text:<22}"
        if section == "privacy" and name in summary["targets_met"]:
            met = summary["targets_met"][name]
            row += f"{definition.target_text or '':<12}{met['batches']} of {met['of']}"
        rows.append(row.rstrip())
    return rows
