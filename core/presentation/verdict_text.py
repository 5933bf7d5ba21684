"""The verdict of SPEC section 6.3 in words: a headline, which avatars it is about, why, the fix with the figures it
reaches and its cost in signal, what is not assessed, and the relationships beside the marginals; one line for the
command line, a dict for the JSON."""

from __future__ import annotations

from core.engine.methods import method_of
from core.engine.split import Holdout
from core.i18n import N_, _, enumeration, ngettext, number
from core.metrics.evaluation import Evaluation
from core.metrics.result import MetricResult
from core.presentation.format import criterion_name, in_english, metric_text, target_text
from core.workflows.run import GenerationRun
from core.metrics.criteria import PARTLY_ASSESSED
from core.workflows.verdict import NOT_READY, READY, Fix, Verdict, failing_results

# where a verdict is read: each says how to act in its words (linked tables: the attacks are not available yet)
COMMAND_LINE, DASHBOARD, LINKED_TABLES = "command line", "dashboard", "linked tables"
SIGNAL_NAMES = {"hellinger_mean": N_("Hellinger Mean"), "correlation_difference_ratio": N_("correlation ratio")}


def headline(verdict: Verdict) -> str:
    return {READY: _("Ready to share"), PARTLY_ASSESSED: _("Meets every target assessed"),
            NOT_READY: _("Not ready to share")}[verdict.status]


def subject(run: GenerationRun) -> str:
    """Which avatars the verdict is about: the half assessed against a real holdout, or every row's."""
    avatars = number(len(run.avatars), ",")
    if run.evaluation.holdout is Holdout.REAL:
        return _("About the {avatars} avatars made from half of the rows, measured against the other half (the "
                 "holdout).").format(avatars=avatars)
    return _("About the {avatars} avatars made from every row: the ones to share.").format(avatars=avatars)


def figure(result: MetricResult) -> str:
    """``hidden rate 84.2 %``; a risk with the upper end of its interval, on which its target is judged."""
    text = f"{_(result.label).lower()} {metric_text(result, result.unit)}"
    high = result.breakdown.get("high") if result.value is not None else None
    if high is None:
        return text
    return _("{figure} (up to {high} % at 95 %)").format(figure=text, high=number(high, ".1f"))


def bound_note(result: MetricResult) -> str | None:
    """Why a risk whose value meets its target still misses it: the target is read on the interval's upper end,
    and what would narrow the interval (SPEC 6.2)."""
    details = result.breakdown
    if result.passed is not False or "high" not in details or result.value is None or result.value >= result.target:
        return None
    people = number(details.get("members_attacked", 0), ",")
    if details.get("against") == "baseline":
        return _("Its value meets the target, but the target is read on the upper end of the 95 % interval, {high} "
                 "%: with {people} people attacked and no real holdout, the interval is wide. More rows, or avatars "
                 "made with a real holdout (the control), would settle it.").format(
            high=number(details["high"], ".1f"), people=people)
    return _("Its value meets the target, but the target is read on the upper end of the 95 % interval, {high} %: "
             "with {people} people attacked, the interval is wide. More rows would settle it.").format(
        high=number(details["high"], ".1f"), people=people)


def reasons(verdict: Verdict) -> list[str]:
    """One sentence per failing criterion: "Singling out: hidden rate 84.2 %, target > 90 %"."""
    lines = []
    for criterion, results in verdict.failing.items():
        figures = []
        for result in results:
            text = _("{figure}, target {target}").format(figure=figure(result), target=target_text(result))
            note = bound_note(result)
            figures.append(f"{text} ({note})" if note else text)
        lines.append(_("{criterion}: {figures}").format(criterion=criterion_name(criterion), figures="; ".join(figures)))
    return lines


def signal_change(fix: Fix, current: Evaluation) -> str:
    """``Hellinger Mean 92.6 -> 91.8, correlation ratio 61 -> 64``: the signal the fix keeps, against the run's."""
    return ", ".join(_("{metric} {before} -> {after}").format(metric=_(SIGNAL_NAMES[name]), before=number(before, ".1f"),
                                                             after=number(after, ".1f"))
                     for name, (before, after) in fix.signal_change(current).items())


def fix_sentence(verdict: Verdict, surface: str = COMMAND_LINE) -> str | None:
    """The fix, the figures a re-run reaches with it and what it costs in signal against the run judged, or, when no
    setting tried is enough, what each reached; and whether the search's budget stopped it."""
    sentence = _fix_found(verdict, surface)
    if sentence is None or not verdict.search_stopped:
        return sentence
    more = _("The sweep (`python -m core sweep`) tries more.") if surface == COMMAND_LINE else \
        _("The Trade-off page tries more.")
    return " ".join([sentence, _("The search stopped after {settings} settings, its budget for {rows} rows (about "
                                 "twice the run's own time).").format(
        settings=number(len(verdict.tried)), rows=number(verdict.evaluation.rows["avatars"], ","), ), more])


def _fix_found(verdict: Verdict, surface: str) -> str | None:
    """The fix and its figures, or what the settings tried reached (see :func:`fix_sentence`)."""
    if verdict.status != NOT_READY:
        return None
    if not verdict.searched:  # avatars made elsewhere, or --no-fix: nothing re-run
        return (_("No fix was checked here: make them again with more protective settings (a larger k, a smaller "
                  "epsilon) or set aside the columns that make people unique; `avatarize` checks a fix by "
                  "re-running.") if surface == COMMAND_LINE else
                _("No fix was checked here: make them again with more protective settings (a larger k, a smaller "
                  "epsilon) or set aside the columns that make people unique."))
    if verdict.fix is not None:
        fix, current = verdict.fix, verdict.evaluation
        signal = signal_change(fix, current)
        if not fix.keeps_signal(current):
            return _("Fix: {instruction} (checked by a re-run: {reached}; every target is then met), at a cost in "
                     "signal: {signal}. No setting tried meets every target and keeps the signal.").format(
                instruction=_(fix.instruction), reached=_reached(verdict, fix), signal=signal)
        if signal:
            return _("Fix: {instruction} (checked by a re-run: {reached}; every target is then met, and the signal "
                     "is kept: {signal}).").format(instruction=_(fix.instruction), reached=_reached(verdict, fix),
                                                   signal=signal)
        return _("Fix: {instruction} (checked by a re-run: {reached}; every target is then met).").format(
            instruction=_(fix.instruction), reached=_reached(verdict, fix))
    if not verdict.tried:
        return _("No more protective setting to try: set aside or drop the columns that make people unique "
                 "(identifiers, exact dates, rare codes).")
    closest = min(verdict.tried, key=lambda fix: (sum(map(len, failing_results(fix.evaluation).values())),
                                                  tuple(-value for value in fix.signal())))
    return ngettext(
        "No setting tried meets every target ({count} tried, {instruction}: {reached}). Set aside or drop the "
        "columns that make people unique (identifiers, exact dates, rare codes), or lower the weight of those the most exposed records "
        "stand out on.",
        "No setting tried meets every target ({count} tried; the closest, {instruction}: {reached}). Set aside or "
        "drop the columns that make people unique (identifiers, exact dates, rare codes), or lower the weight of "
        "those the most exposed records stand out on.", len(verdict.tried)).format(
        count=number(len(verdict.tried)), instruction=_(closest.instruction), reached=_reached(verdict, closest))


def _reached(verdict: Verdict, fix: Fix) -> str:
    """The figures ``fix`` reaches on the metrics that failed, and any other metric that then fails."""
    failed = [result.name for results in verdict.failing.values() for result in results]
    privacy = fix.evaluation.privacy
    figures = [figure(privacy[name]) for name in failed if privacy[name].value is not None]
    gone = [_(privacy[name].label).lower() for name in failed if privacy[name].value is None]
    if gone:
        figures.append(ngettext("{metrics} then does not apply", "{metrics} then do not apply", len(gone)).format(
            metrics=enumeration(gone)))
    figures += [_("but {figure} misses its target").format(figure=figure(result))
                for results in failing_results(fix.evaluation).values()
                for result in results if result.name not in failed]
    return ", ".join(figures)


def caveat(verdict: Verdict, surface: str = COMMAND_LINE) -> str | None:
    """The metrics the verdict does not cover yet, and what to choose to assess them, in the words of the place
    it is read (the command line's options, or the dashboard's Privacy page)."""
    if not verdict.not_assessed:
        return None
    labels = enumeration([_(result.label).lower() for result in verdict.not_assessed])
    if surface == COMMAND_LINE:
        return _("Not assessed: {labels}. Name the variables an attacker could know and the sensitive ones (--known, "
                 "--sensitive) to assess them.").format(labels=labels)
    if surface == LINKED_TABLES:
        return _("Not assessed: {labels}. Name the variables an attacker could know of a person and the sensitive "
                 "ones (--known, --sensitive), among the columns of an individual-level table and its descendants' "
                 "aggregates (such as \"stays: number\"), to assess them.").format(labels=labels)
    return _("Not assessed: {labels}. Choose the variables an attacker could know and the sensitive ones, under "
             "What an attacker could know on the Privacy page, to assess them.").format(labels=labels)


def relationships(evaluation: Evaluation) -> str | None:
    """The relationships beside the marginals (SPEC 6.3, issue of FastDP's lost correlations): the Correlation
    Difference Ratio with its reading, said plainly when distorted, and the analyses' share when run."""
    correlation = evaluation.signal.get("correlation_difference_ratio")
    parts = []
    if correlation is not None and correlation.value is not None:
        if correlation.level == "poor":
            parts.append(_("The relationships between variables are distorted: Correlation Difference Ratio {value} "
                           "/ 100 ({band}).").format(value=number(correlation.value, ".1f"), band=_(correlation.band)))
        else:
            parts.append(_("Relationships between variables: Correlation Difference Ratio {value} / 100 ({band})."
                           ).format(value=number(correlation.value, ".1f"), band=_(correlation.band)))
    prediction = evaluation.analyses.get("prediction")
    ratio = getattr(prediction, "ratio", None)
    if ratio is not None:
        parts.append(_("A model trained on the avatars reaches {share} % of the real model's {score} on real people "
                       "it never saw.").format(share=number(100 * ratio, ".0f"), score=prediction.score_name))
    return " ".join(parts) or None


@in_english
def verdict_line(verdict: Verdict, surface: str = COMMAND_LINE) -> str:
    """The verdict in one line, the command line's last (``surface``: see :func:`caveat`)."""
    head = headline(verdict) if verdict.ready else headline(verdict).upper()
    return " ".join([f"Verdict: {head}.", *(f"{reason}." for reason in reasons(verdict)),
                     *(text for text in (fix_sentence(verdict, surface), caveat(verdict, surface)) if text)])


@in_english
def verdict_json(verdict: Verdict) -> dict[str, object]:
    """The JSON's ``verdict``, in English whatever the language shown (the dashboard's download too)."""
    fix = verdict.fix
    return {
        "ready": verdict.ready, "status": verdict.status, "headline": headline(verdict), "reasons": reasons(verdict),
        "failing": {criterion: [result.name for result in results] for criterion, results in verdict.failing.items()},
        "fix": fix_sentence(verdict),
        "fix_settings": None if fix is None else {
            "method": method_of(fix.parameters).name, "k": fix.parameters.k, "epsilon": fix.parameters.fast_dp_epsilon,
            "ncp": fix.parameters.ncp, "excluded": list(fix.plan.excluded)},
        "fix_keeps_signal": None if fix is None else fix.keeps_signal(verdict.evaluation),
        "tried": [{"instruction": tried.instruction, "ready": tried.ready,
                   "signal": {name: {"run": before, "fix": after}
                              for name, (before, after) in tried.signal_change(verdict.evaluation).items()}}
                  for tried in verdict.tried],
        "search_budget": verdict.search_budget, "search_stopped": verdict.search_stopped,
        "not_assessed": [result.name for result in verdict.not_assessed], "caveat": caveat(verdict),
    }
