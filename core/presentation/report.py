"""A self-contained HTML report of one run: parameters, metrics with their meaning, figures.

Everything is inside the one file (plotly's JavaScript included once), so it opens
offline. Every text that comes from the user's data (column names, file name) is
HTML-escaped.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import html
import itertools
from collections.abc import Iterator

import plotly.io as pio

from core.i18n import _, current_language, date_time, number
from core.metrics.analysis.request import TITLES
from core.metrics.correlation_difference_ratio import correlation_direction
from core.metrics.criteria import MET, NOT_ASSESSED, NOT_MET, PARTLY_ASSESSED, QUESTIONS, STATES
from core.metrics.evaluation import Evaluation
from core.metrics.result import MetricResult
from core.presentation import figures
from core.presentation.analysis_figures import analysis_figures
from core.presentation.analysis_text import analysis_notes, analysis_tables, hellinger_spread, reading
from core.presentation.epsilon_ledger import ledger_rows, not_covered_sentence
from core.presentation.format import attack_readings, criterion_name, holdout_sentence, metric_text, target_text
from core.presentation.parameter_labels import EXCLUSION_LABELS, IMPUTATION_LABELS
from core.presentation.verdict_text import DASHBOARD, caveat, fix_sentence, headline, reasons, relationships, subject
from core.workflows.run import GenerationRun
from core.workflows.verdict import NOT_READY, READY, verdict_of_run

STYLE = """
body { font-family: Arial, Helvetica, sans-serif; max-width: 1100px; margin: 2em auto; color: #1f2933; line-height: 1.45; }
h1 { font-size: 1.8em; } h2 { margin-top: 1.8em; border-bottom: 2px solid #e4e7eb; padding-bottom: .2em; }
table { border-collapse: collapse; margin: 1em 0; } td, th { border: 1px solid #cbd2d9; padding: .35em .7em; text-align: left; }
th { background: #f5f7fa; } .pass, .good { color: #2e8540; font-weight: bold; } .fail, .poor { color: #c0392b; font-weight: bold; }
.fair { color: #a87a00; font-weight: bold; }
.verdict { font-size: 1.5em; margin: .4em 0; } h3 { margin-top: 1.3em; }
.note { background: #fff8e1; border-left: 4px solid #d9a21b; padding: .6em 1em; } .muted { color: #616e7c; font-size: .9em; }
"""

_FIGURE_NUMBERS: contextvars.ContextVar[Iterator[int]] = contextvars.ContextVar("figure_numbers")
CRITERION_CSS = {MET: "pass", NOT_MET: "fail", PARTLY_ASSESSED: "fair", NOT_ASSESSED: "muted"}


def build_html_report(run: GenerationRun) -> str:
    """The report of ``run`` as one HTML document; its figures numbered in order (``figure-1``...), so that the same
    run makes the same file, its date apart (plotly draws a random id per figure)."""
    numbering = _FIGURE_NUMBERS.set(itertools.count(1))
    try:
        return _report_html(run)
    finally:
        _FIGURE_NUMBERS.reset(numbering)


def _report_html(run: GenerationRun) -> str:
    evaluation = run.evaluation
    title = _text(_("Avatar report: {name}").format(name=run.table_name))
    parts = [
        f"<h1>{title}</h1>",
        *_verdict_block(run),
        f"<p>{_text(run.summary())}</p>",
        "<p class='muted'>" + _("Data fingerprint (SHA-256, first 16 digits): {fingerprint}. Seed: {seed}. Made on "
                                "{date}.").format(fingerprint=f"<code>{run.fingerprint}</code>",
                                                  seed=run.avatarizer.seed_, date=_text(date_time(dt.datetime.now())))
        + "</p>",
    ]
    if run.settings.method == "fast_dp":
        parts.append("<p class='note'>" + _(
            "AvatarFastDP uses differential-privacy mechanisms but is <b>not end-to-end differentially private</b>: "
            "the projection is fitted on the real data without noise.") + "</p>")
        ledger = run.avatarizer.synthesizer_.ledger()
        rows = ledger_rows(ledger)
        parts += [_element("h2", _("Where epsilon = {epsilon} goes").format(epsilon=number(ledger["epsilon"], "g"))),
                  _table(list(rows[0]), [list(row.values()) for row in rows]),
                  f"<p class='muted'>{_text(not_covered_sentence(ledger))}</p>"]
    parts += [_element("h2", _("Parameters")), _table([_("parameter"), _("value")], _parameters(run))]

    parts += _utility_block(run)
    parts += _privacy_block(evaluation)
    parts += _analyses_block(evaluation)
    parts.append("<p class='muted'>" + _text(_(
        "Metric definitions: Hellinger Mean, multivariate Hellinger distance and Correlation Difference Ratio against "
        "a holdout half of the data; privacy metrics in the latent space of a projection fitted on the originals.")) +
        "</p>")
    body = "\n".join(parts)
    return (
        f"<!DOCTYPE html><html lang='{current_language()}'><head><meta charset='utf-8'>"
        f"<title>{title}</title><style>{STYLE}</style></head><body>{body}</body></html>"
    )


def _utility_block(run: GenerationRun) -> list[str]:
    """Utility (SPEC section 5): the signal metrics, their readings and figures, the latent map."""
    evaluation = run.evaluation
    signal = evaluation.signal
    parts = [_element("h2", _("Utility: how much signal the avatars keep")),
             f"<p>{_text(holdout_sentence(run.evaluation))}</p>"]
    parts.append(_table([_("metric"), _("value"), _("reading"), _("what it means")], [
        [_shown(result.label), metric_text(result),
         f"<span class='{result.level}'>{_text(_(result.band))}</span>" if result.band else "",
         " ".join(filter(None, (_shown(result.not_applicable or result.interpretation), _shown(result.computation))))]
        for result in signal.values()
    ], raw_columns={2}))
    direction = correlation_direction(signal["correlation_difference_ratio"])
    if direction:
        parts.append(f"<p>{_text(direction)}</p>")
    hellinger = signal["hellinger_mean"]
    parts.append(f"<p>{_text(hellinger_spread(evaluation))}</p>")
    parts.append(_figure(figures.hellinger_scores_figure(hellinger), first=True))
    if signal["correlation_difference_ratio"].value is not None:
        parts.append(_figure(figures.correlation_figure(signal["correlation_difference_ratio"])))
    multivariate = signal["multivariate_hellinger_distance"]
    if multivariate.value is not None:
        parts.append(_figure(figures.multivariate_axes_figure(multivariate)))
        parts.append(f"<p class='muted'>{_text(figures.axes_figure_caption(multivariate))}</p>")
    if run.latent.originals.shape[1] >= 2:
        parts.append(_figure(figures.latent_figure(run.latent, (0, 1))))
    return parts


def _privacy_block(evaluation: Evaluation) -> list[str]:
    """Privacy (SPEC section 6): by criterion, its metrics against their targets, then the privacy figures."""
    privacy = evaluation.privacy
    parts = [_element("h2", _("Privacy: how well individuals are protected"))]
    for criterion, group in evaluation.criteria().items():
        state = _element("span", _(STATES[group.state]), CRITERION_CSS[group.state])
        parts.append("<h3>" + _text(_("{criterion}: {question} {state}")).format(
            criterion=_text(criterion_name(criterion)), question=_text(_(QUESTIONS[criterion])), state=state) + "</h3>")
        parts.append(_table([_("metric"), _("value"), _("target"), _("verdict"), _("what it means")], [
            [_shown(result.label), metric_text(result, result.unit), target_text(result),
             _verdict(result), " ".join([*attack_readings(result),
                                         _shown(result.not_applicable or result.note or result.interpretation)])]
            for result in group.results
        ], raw_columns={3}))
    parts += [_figure(figure) for figure in figures.privacy_figures(privacy).values()]
    return parts


def _analyses_block(evaluation) -> list[str]:
    """Does the analysis still hold (SPEC section 9): each analysis run, its reading, tables and figures."""
    if not evaluation.analyses:
        return []
    parts = [_element("h2", _("Does the analysis still hold")),
             "<p>" + _text(_("Each analysis is run on the real rows and on the avatars. The holdout, real rows kept "
                             "apart, shows how much two real samples of the same population differ: the avatars do as "
                             "well as real data when their gap is no larger than that.")) + "</p>"]
    for name, result in evaluation.analyses.items():
        parts += [f"<h3>{_text(_(TITLES[name]))}</h3>", f"<p>{_text(reading(name, result, evaluation.holdout))}</p>",
                  *(f"<p class='muted'>{_text(note)}</p>" for note in analysis_notes(result))]
        for caption, table in analysis_tables(name, result):
            if caption:
                parts.append(f"<p class='muted'>{_text(caption)}</p>")
            parts.append(_table(list(table.columns), table.astype(str).to_numpy().tolist()))
        parts += [_figure(figure) for figure in analysis_figures(name, result)]
    return parts


def _parameters(run: GenerationRun) -> list[list[str]]:
    settings, plan = run.settings, run.plan
    none = _("none")
    rows = [[_("method"), settings.describe()]]
    if settings.method == "fast_dp":
        rows.append([_("mechanism options"), _("gmm components {components}, histogram bins {bins}, bounds percentile "
                                               "{percentile}").format(
            components=settings.gmm_n_components, bins=settings.histogram_n_bins,
            percentile=number(settings.bounds_percentile, "g"))])
    rows += [
        [_("latent dimensions (ncp)"), str(run.avatarizer.ncp_)],
        [_("imputation of missing values"), _(IMPUTATION_LABELS[settings.imputation])],
        [_("holdout"), _("real: half set aside") if run.avatarizer.holdout_ == "real" else
         _("off: approximate at scoring")],
        [_("categorical reduction"), {True: _("on"), False: _("off"), None: _("columns with more than 100 values")}[
            settings.use_categorical_reduction]],
        [_("dropped columns"), ", ".join(plan.dropped) or none],
        [_("excluded columns"), _("{columns} (re-attached {strategy})").format(
            columns=", ".join(plan.excluded), strategy=_(EXCLUSION_LABELS[settings.exclude_strategy])) if plan.excluded else none],
        [_("column kinds set by hand"), ", ".join(f"{k}: {_(v)}" for k, v in plan.kinds.items()) or none],
        [_("column weights"), ", ".join(f"{k}: {number(v, 'g')}" for k, v in plan.weights.items()) or none],
        [_("what an attacker could know (the attacks)"), ", ".join(plan.known) or _("not chosen: attacks not run")],
        [_("sensitive variables"), ", ".join(plan.sensitive) or _("not chosen")],
        [_("seed"), str(run.avatarizer.seed_)],
    ]
    return rows


def _verdict_block(run: GenerationRun) -> list[str]:
    """The verdict first (SPEC 6.3): ready or not, why, the fix checked by a re-run, what is not assessed."""
    verdict = verdict_of_run(run)
    colour = {READY: "pass", PARTLY_ASSESSED: "fair", NOT_READY: "fail"}[verdict.status]
    lines = [f"<p class='verdict {colour}'>{_text(headline(verdict))}</p>", f"<p>{_text(subject(run))}</p>"]
    details = [*reasons(verdict), *(text for text in (fix_sentence(verdict), caveat(verdict, DASHBOARD)) if text)]
    if details:
        lines.append("<ul>" + "".join(f"<li>{_text(detail)}</li>" for detail in details) + "</ul>")
    said = relationships(run.evaluation)
    if said:
        distorted = run.evaluation.signal["correlation_difference_ratio"].level == "poor"
        lines.append(f"<p class='{'note' if distorted else 'muted'}'>{_text(said)}</p>")
    return lines


def _verdict(result: MetricResult) -> str:
    if result.note:
        return _element("span", _("not counted"), "muted")
    if result.passed is None:
        return ""
    return _element("span", _("pass"), "pass") if result.passed else \
        _element("span", _("missed"), "fail")


def _table(header: list[str], rows: list[list[str]], raw_columns: set[int] = frozenset()) -> str:
    head = "".join(f"<th>{_text(cell)}</th>" for cell in header)
    body = "".join(
        "<tr>" + "".join(
            f"<td>{cell if position in raw_columns else _text(cell)}</td>" for position, cell in enumerate(row)
        ) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figure(figure, first: bool = False) -> str:
    return pio.to_html(figure, full_html=False, include_plotlyjs=True if first else False,
                       config={"displaylogo": False}, div_id=f"figure-{next(_FIGURE_NUMBERS.get())}")


def _text(value: object) -> str:
    return html.escape(str(value))


def _element(tag: str, text: str, css: str | None = None) -> str:
    """``text`` escaped in an HTML element (with a CSS class)."""
    return f"<{tag} class='{css}'>{_text(text)}</{tag}>" if css else f"<{tag}>{_text(text)}</{tag}>"


def _shown(text: str | None) -> str | None:
    """A text defined elsewhere (a metric's label, reading...), in the current language; None stays None."""
    return _(text) if text else text
