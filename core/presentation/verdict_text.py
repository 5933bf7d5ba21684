"""The verdict of SPEC section 6.3 in words: a headline, why, the fix with the figures it reaches, what is not
assessed; one line for the command line, a dict for the JSON."""

from __future__ import annotations

from core.i18n import _, ngettext, number
from core.metrics.result import MetricResult
from core.presentation.format import criterion_name, in_english, metric_text, target_text
from core.workflows.run import GenerationRun, run_metrics
from core.workflows.verdict import Fix, Verdict, failing_results, verdict_of_run


def headline(verdict: Verdict) -> str:
    return _("Ready to share") if verdict.ready else _("Not ready to share")


def figure(result: MetricResult) -> str:
    """``hidden rate 84.2 %``; a risk with the upper end of its interval, on which its target is judged."""
    text = f"{_(result.label).lower()} {metric_text(result, result.unit)}"
    high = result.breakdown.get("high") if result.value is not None else None
    if high is None:
        return text
    return _("{figure} (up to {high} % at 95 %)").format(figure=text, high=number(high, ".1f"))


def reasons(verdict: Verdict) -> list[str]:
    """One sentence per failing criterion: "Singling out: hidden rate 84.2 %, target > 90 %"."""
    return [_("{criterion}: {figures}").format(
        criterion=criterion_name(criterion),
        figures="; ".join(_("{figure}, target {target}").format(figure=figure(result), target=target_text(result))
                          for result in results))
            for criterion, results in verdict.failing.items()]


def fix_sentence(verdict: Verdict) -> str | None:
    """The fix and the figures a re-run reaches with it, or, when no setting tried is enough, what each reached."""
    if verdict.ready:
        return None
    if not verdict.searched:  # avatars made elsewhere, or --no-fix: nothing re-run
        return _("No fix was checked here: make them again with more protective settings (a larger k, a smaller "
                 "epsilon) or set aside the columns that make people unique; `avatarize` checks a fix by re-running.")
    if verdict.fix is not None:
        return _("Fix: {instruction} (checked by a re-run: {reached}; every target is then met).").format(
            instruction=_(verdict.fix.instruction), reached=_reached(verdict, verdict.fix))
    if not verdict.tried:
        return _("No more protective setting to try: set aside or drop the columns that make people unique "
                 "(identifiers, exact dates, rare codes).")
    tries = "; ".join(_("{instruction}: {reached}").format(instruction=_(fix.instruction),
                                                            reached=_reached(verdict, fix)) for fix in verdict.tried)
    return _("No setting tried meets every target ({tries}). Set aside or drop the columns that make people "
             "unique (identifiers, exact dates, rare codes), or lower the weight of those the most exposed records "
             "stand out on.").format(tries=tries)


def _reached(verdict: Verdict, fix: Fix) -> str:
    """The figures ``fix`` reaches on the metrics that failed, and any other metric that then fails."""
    failed = [result.name for results in verdict.failing.values() for result in results]
    privacy = fix.evaluation.privacy
    figures = [figure(privacy[name]) for name in failed if privacy[name].value is not None]
    gone = [_(privacy[name].label).lower() for name in failed if privacy[name].value is None]
    if gone:
        figures.append(ngettext("{metrics} then does not apply", "{metrics} then do not apply", len(gone)).format(
            metrics=_(" and ").join(gone)))
    figures += [_("but {figure} misses its target").format(figure=figure(result))
                for results in failing_results(fix.evaluation).values()
                for result in results if result.name not in failed]
    return ", ".join(figures)


def caveat(verdict: Verdict) -> str | None:
    """The attacks the verdict does not cover, and what to choose to run them."""
    if not verdict.not_assessed:
        return None
    labels = _(" and ").join(_(result.label).lower() for result in verdict.not_assessed)
    return _("Not assessed: {labels}. Choose the variables an attacker could know and the sensitive ones "
             "(--known, --sensitive; the Privacy page) to run those attacks.").format(labels=labels)


@in_english
def verdict_line(verdict: Verdict) -> str:
    """The verdict in one line, the command line's last."""
    head = headline(verdict) if verdict.ready else headline(verdict).upper()
    return " ".join([f"Verdict: {head}.", *(f"{reason}." for reason in reasons(verdict)),
                     *(text for text in (fix_sentence(verdict), caveat(verdict)) if text)])


@in_english
def verdict_json(verdict: Verdict) -> dict[str, object]:
    """The JSON's ``verdict``, in English whatever the language shown (the dashboard's download too)."""
    fix = verdict.fix
    return {
        "ready": verdict.ready, "headline": headline(verdict), "reasons": reasons(verdict),
        "failing": {criterion: [result.name for result in results] for criterion, results in verdict.failing.items()},
        "fix": fix_sentence(verdict),
        "fix_settings": None if fix is None else {
            "method": fix.settings.method, "k": fix.settings.k, "epsilon": fix.settings.epsilon,
            "excluded": list(fix.plan.excluded)},
        "tried": [{"instruction": tried.instruction, "ready": tried.ready} for tried in verdict.tried],
        "not_assessed": [result.name for result in verdict.not_assessed], "caveat": caveat(verdict),
    }


@in_english
def metrics_with_verdict(run: GenerationRun) -> dict[str, object]:
    """The metrics JSON of a run (SPEC section 7) with its ``verdict``, in English whatever the language shown."""
    return {**run_metrics(run), "verdict": verdict_json(verdict_of_run(run))}
