"""A self-contained HTML report of one run: parameters, metrics with their meaning, figures.

Everything is inside the one file (plotly's JavaScript included once), so it opens offline. The page is the
template ``templates/report.html``, rendered by Jinja2 with autoescape: every value given to it, the user's column
names, values and file name among them, comes out as text; only what is built here as :class:`~markupsafe.Markup`
(the figures, a translated phrase with its tags, the spans of a verdict) is written as is, its own parts escaped by
``Markup.format``.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import itertools
import platform
import tomllib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, overload

import jinja2
import plotly.io as pio
from markupsafe import Markup, escape

from core.dataset import Role
from core.engine.split import Holdout
from core.i18n import _, current_language, date_time, number
from core.metrics.analysis.request import TITLES
from core.metrics.correlation_difference_ratio import correlation_direction, correlation_gaps
from core.metrics.criteria import MET, NOT_ASSESSED, NOT_MET, PARTLY_ASSESSED, QUESTIONS, STATES, UNCERTAIN
from core.metrics.attack import Knowledge
from core.metrics.evaluation import Evaluation
from core.metrics.linked_evaluation import LinkedEvaluation
from core.metrics.result import MetricResult
from core.presentation import figures, series_figures
from core.presentation.analysis_figures import analysis_figures
from core.presentation.analysis_text import (
    analysis_notes,
    analysis_tables,
    hellinger_spread,
    reading,
    trend_reading,
    trend_table,
)
from core.presentation.epsilon_ledger import ledger_rows, not_covered_sentence
from core.presentation.format import (
    criterion_name,
    holdout_sentence,
    metric_readings,
    metric_text,
    propensity_reading,
    relations_table,
    sequences_table,
    target_text,
    uncertainty_note,
)
from core.presentation.parameter_labels import EXCLUSION_LABELS, IMPUTATION_LABELS, LINK_METHOD_LABELS
from core.presentation.release_text import context_rows, decision_rows, not_yet_decided, scenario_sentences
from core.presentation.risk_profile_text import profile_lines
from core.presentation.verdict_text import (
    DASHBOARD,
    caveat,
    doubts,
    fix_sentence,
    headline,
    noise_of,
    reasons,
    relationships,
    subject,
)
from core.workflows.linked_run import LinkedRun, LinkedVerdict
from core.workflows.release import Release
from core.workflows.run import GenerationRun
from core.workflows.runs import Run
from core.workflows.verdict import NOT_READY, READY, Verdict

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from core.engine.pipeline import Avatarizer

_TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("core.presentation"), autoescape=True,
                                undefined=jinja2.StrictUndefined)
_FIGURE_NUMBERS: contextvars.ContextVar[Iterator[int]] = contextvars.ContextVar("figure_numbers")
CRITERION_CSS = {MET: "pass", NOT_MET: "fail", UNCERTAIN: "fair", PARTLY_ASSESSED: "fair", NOT_ASSESSED: "muted"}
VERDICT_CSS = {READY: "pass", UNCERTAIN: "fair", PARTLY_ASSESSED: "fair", NOT_READY: "fail"}


@dataclass(frozen=True)
class Heading:
    tag: str  # h1, h2, h3
    text: str
    kind: ClassVar[str] = "heading"


@dataclass(frozen=True)
class Paragraph:
    text: str
    css: str | None = None
    kind: ClassVar[str] = "paragraph"


@dataclass(frozen=True)
class Bullets:
    items: Sequence[str]
    kind: ClassVar[str] = "bullets"


@dataclass(frozen=True)
class Table:
    header: Sequence[str]
    rows: Sequence[Sequence[object]] = field(default_factory=list)
    kind: ClassVar[str] = "table"


@dataclass(frozen=True)
class Figure:
    figure: go.Figure
    number: int  # in the report's order, from 1: the HTML's id (plotly's own is random) and script placement
    kind: ClassVar[str] = "figure"


Block = Heading | Paragraph | Bullets | Table | Figure


@dataclass(frozen=True)
class ReportDocument:
    """A report as neutral blocks, which each renderer writes: HTML (:func:`html_report`) or PDF
    (:func:`core.presentation.report_pdf.pdf_report`)."""

    title: str
    blocks: list[Block]


def report_document(run: Run) -> ReportDocument:
    """The report of ``run``, of one table or of linked tables, in the current language; its figures numbered in
    order, so that the same run makes the same document, its date apart."""
    numbering = _FIGURE_NUMBERS.set(itertools.count(1))
    try:
        if isinstance(run, LinkedRun):
            title = _("Avatar report: {name}").format(name=", ".join(run.dataset.tables))
            return ReportDocument(title, _linked_blocks(run, title))
        assert isinstance(run, GenerationRun)  # the other kind of run
        title = _("Avatar report: {name}").format(name=run.table_name)
        return ReportDocument(title, _blocks(run, title))
    finally:
        _FIGURE_NUMBERS.reset(numbering)


@dataclass(frozen=True)
class EvaluatedFiles:
    """The files ``evaluate`` scored: the originals' and the avatars' names and SHA-256."""

    originals: str
    avatars: str
    fingerprint: str
    avatars_fingerprint: str


def evaluated_document(evaluation: Evaluation, verdict: Verdict, release: Release, knowledge: Knowledge,
                       files: EvaluatedFiles) -> ReportDocument:
    """The report of avatars made by any tool (``evaluate``), scored with the attacker's ``knowledge``, in the
    sections of a run's (:func:`_blocks`): what made them is not known here, and no fix can be checked by a
    re-run."""
    numbering = _FIGURE_NUMBERS.set(itertools.count(1))
    try:
        title = _("Avatar report: {name}").format(name=files.avatars)
        held_out = evaluation.holdout is not Holdout.APPROXIMATE
        blocks: list[Block] = [
            Heading("h1", title), _headline(verdict),
            *_release_blocks(release),
            *_data_blocks([*_rows_and_kinds(evaluation), [_("originals"), files.originals],
                           [_("avatars (made by another tool)"), files.avatars],
                           [_("avatars file (SHA-256)"), Markup("<code>{}</code>").format(files.avatars_fingerprint)]],
                          files.fingerprint, dt.datetime.now()),
            *_attacker_blocks(release, knowledge, held_out),
            Heading("h2", _("4. Method and parameters")),
            Paragraph(_("The avatars were made by another tool: its method and parameters are not known here. The "
                        "metrics were computed with these settings.")),
            Table([_("parameter"), _("value")], [[name, _("not set") if value is None else (
                _("yes") if value else _("no")) if isinstance(value, bool) else str(value)]
                for name, value in evaluation.parameters.items() if name in ("ncp", "seed", "paired")]),
            _fingerprint(evaluation.parameters.get("seed")),
            *_risk_profile_blocks(evaluation),
            Heading("h2", _("6. Privacy: the three criteria")), *_privacy_blocks(evaluation),
            Heading("h2", _("7. Verdict, fix and utility kept")),
            _headline(verdict),
            Bullets([*reasons(verdict), *doubts(verdict),
                     _("No fix is checked: the avatars were made elsewhere, so no setting can be re-run here.")]),
            Heading("h3", _("Utility: how much signal the avatars keep")), *_signal_blocks(evaluation),
            *_analyses_blocks(evaluation), *_closing_blocks(release, [])]
        return ReportDocument(title, blocks)
    finally:
        _FIGURE_NUMBERS.reset(numbering)


def html_report(document: ReportDocument) -> str:
    """``document`` as one self-contained HTML page, its figures ``figure-1``... (plotly draws a random id per
    figure: the same run, the same page)."""
    return _TEMPLATES.get_template("report.html").render(language=current_language(), title=document.title,
                                                         blocks=document.blocks, figure_html=figure_html)


def _blocks(run: GenerationRun, title: str) -> list[Block]:
    """One table's report: its ``title`` and verdict (the first line, SPEC 6.3), then the sections of ISO/IEC
    27559's order (decisions 6.7): the release, the data, the attacker, the method, who stood out before, the three
    criteria, the verdict with its fix and the utility kept, the limitations and the controller's decision."""
    evaluation, avatarizer = run.evaluation, run.avatarizer
    return [
        Heading("h1", title), *_first_screen(run),
        *_release_blocks(run.release),
        *_data_blocks([
            *_rows_and_kinds(evaluation),
            [_("columns left out (dropped)"), ", ".join(run.plan.dropped) or _("none")],
            [_("columns set aside and re-attached"), _("{columns} ({strategy})").format(
                columns=", ".join(run.plan.excluded),
                strategy=_(EXCLUSION_LABELS[run.parameters.exclude_replacement_strategy]))
             if run.plan.excluded else _("none")],
            [_("identifiers replaced by new values"), ", ".join(avatarizer.identifier_columns_) or _("none")]],
            run.fingerprint, run.made_on),
        *_attacker_blocks(run.release, run.knowledge, evaluation.holdout is not Holdout.APPROXIMATE),
        Heading("h2", _("4. Method and parameters")), Paragraph(run.summary()),
        _fingerprint(avatarizer.seed_), Table([_("parameter"), _("value")], _parameters(run)),
        *_ledger_blocks(avatarizer),
        *_risk_profile_blocks(evaluation),
        Heading("h2", _("6. Privacy: the three criteria")), *_privacy_blocks(evaluation),
        Heading("h2", _("7. Verdict, fix and utility kept")), *_verdict_blocks(run), *_utility_blocks(run),
        *_analyses_blocks(evaluation),
        *_closing_blocks(run.release, [not_covered_sentence(avatarizer.synthesizer_.ledger())]
                         if avatarizer.synthesizer_ is not None else []),
    ]


def _first_screen(run: GenerationRun) -> list[Block]:
    """What the report's first lines say (SPEC 6.3): the verdict, which avatars it is about, and relationships the
    avatars distort, which no privacy target would name (section 7 says why and the fix)."""
    blocks: list[Block] = [_headline(run.table_verdict),
                           Paragraph(subject(run))]
    said = relationships(run.evaluation)
    if said and _distorted(run.evaluation):
        blocks.append(Paragraph(said, "note"))
    return blocks


def _release_blocks(release: Release) -> list[Block]:
    """Section 1: why, by whom, with whom and about whom the avatars are shared."""
    return [Heading("h2", _("1. Purpose, recipient and data subjects")),
            Table([_("item"), _("as stated")], context_rows(release))]


def _data_blocks(described: list[list[str]], fingerprint: str, made_on: dt.datetime, several: bool = False
                 ) -> list[Block]:
    """Section 2: the data ``described`` (its rows, its columns by kind, how identifiers were handled), the
    input's SHA-256 (of ``several`` tables: of their file, or of their files read one after the other, as
    ``sha256sum`` of their concatenation gives it), the day the run was made."""
    label = _("input (SHA-256 of its file, or of its files one after the other)") if several else \
        _("input file (SHA-256)")
    return [Heading("h2", _("2. The data")), Table([_("item"), _("value")], [
        *described, [label, Markup("<code>{}</code>").format(fingerprint) if fingerprint else _("not given")],
        [_("made on"), date_time(made_on)]])]


def _rows_and_kinds(evaluation: Evaluation) -> list[list[str]]:
    """The rows avatarized, held as the reference and made; the columns scored, counted by kind."""
    kinds = Counter(kind.value for kind in evaluation.kinds.values())
    counts = {name: number(count, ",") for name, count in evaluation.rows.items()}
    rows = _("{working} real rows the avatars were made from, {holdout} real rows kept apart as the reference, "
             "{avatars} avatars").format(**counts) if evaluation.holdout is not Holdout.APPROXIMATE else _(
        "{total} real rows, every one used; {holdout} of them drawn as the reference; {avatars} avatars").format(
        total=number(evaluation.rows["working"] + evaluation.rows["holdout"], ","), **counts)
    return [[_("rows"), rows],
            [_("columns scored, by kind"), ", ".join(f"{_(kind)}: {number(count)}" for kind, count in
                                                      sorted(kinds.items())) or _("none")]]


def _attacker_blocks(release: Release, knowledge: Knowledge, held_out: bool) -> list[Block]:
    """Section 3: what the attacker is assumed to know and why, as the recipient implies (decisions 6.7), and
    whether real people kept apart (``held_out``) served as the control."""
    return [Heading("h2", _("3. The attacker")), Bullets(scenario_sentences(release, knowledge, held_out))]


def _risk_profile_blocks(evaluation: Evaluation) -> list[Block]:
    """Section 5: who the known variables single out among the real people, before any avatar (SPEC 6.4)."""
    profile = evaluation.risk_profile
    return [Heading("h2", _("5. Who stood out before")),
            Bullets(profile_lines(profile)) if profile is not None else
            Paragraph(_("Not measured: choose the variables an attacker could know."), "muted")]


def _closing_blocks(release: Release, uncovered: list[str]) -> list[Block]:
    """Section 8: what the figures do not cover (``uncovered``: FastDP's ledger's), then the controller's
    decision, or "not yet decided"."""
    limits = [*uncovered, _("Metric definitions: Hellinger Mean, multivariate Hellinger distance and Correlation "
                            "Difference Ratio against a holdout half of the data; privacy metrics in the latent space "
                            "of a projection fitted on the originals."),
              _("The attacks assume the attacker of section 3; an attacker who knows more (another variable, the "
                "person's presence in the data) may learn more than the figures say.")]
    decided = decision_rows(release)
    return [Heading("h2", _("8. Limitations and the controller's decision")), Bullets(limits),
            Heading("h3", _("The controller's decision")),
            Table([_("item"), _("as decided")], decided) if decided else Paragraph(not_yet_decided(), "note")]


def _fingerprint(seed: int | None) -> Paragraph:
    """What reproduces the run beside its parameters: the seed and the software's versions."""
    return Paragraph(_("Seed {seed}; software: {versions}.").format(
        seed=_("not set") if seed is None else seed, versions=software_versions()), "muted")


def _ledger_blocks(avatarizer: Avatarizer, table: str | None = None) -> list[Block]:
    """Where AvatarFastDP's epsilon goes (its ledger; what it leaves uncovered is among the limitations), none for
    Avatar; ``table`` named in the heading (linked tables)."""
    if avatarizer.method_.paired:
        return []
    synthesizer = avatarizer.synthesizer_
    assert synthesizer is not None  # AvatarFastDP: its fitted synthesizer
    ledger = synthesizer.ledger()
    rows = ledger_rows(ledger)
    epsilon = number(synthesizer.epsilon_, "g")
    return [
        Paragraph(Markup(_("AvatarFastDP uses differential-privacy mechanisms but is <b>not end-to-end "
                           "differentially private</b>: the projection is fitted on the real data without noise.")),
                  "note"),
        Heading("h3", _("Where epsilon = {epsilon} goes").format(epsilon=epsilon) if table is None else
                _("{table}: where epsilon = {epsilon} goes").format(table=table, epsilon=epsilon)),
        Table(list(rows[0]), [list(row.values()) for row in rows]),
    ]


def _linked_blocks(run: LinkedRun, title: str) -> list[Block]:
    """The report of linked tables (SPEC 12) in the sections of one table's (:func:`_blocks`): each person table's
    verdict first; the data of every table; the method of every table and link; each person table's risk profile
    and criteria with everything about its people; each verdict with its fix, the relations between the tables,
    each time series (SPEC 13) and each table alone; the limitations and the controller's decision."""
    evaluation, verdict, dataset = run.evaluation, run.verdict, run.dataset
    blocks: list[Block] = [Heading("h1", title), *(
        _headline(person, name) for name, person in verdict.persons.items())]
    blocks += [*_release_blocks(run.release), *_data_blocks([
        [_("tables"), ", ".join(_("{table} ({rows} rows)").format(table=name, rows=number(sum(
            len(frame) for frame in (run.fitted.working_data_.get(name), run.fitted.holdout_data_.get(name))
            if frame is not None), ",")) for name in run.dataset.tables)],
        [_("columns set aside and re-attached"), ", ".join(
            f"{name}.{column}" for name in dataset.tables for column in dataset.tables[name].with_role(
                Role.SET_APART)) or _("none")],
        [_("keys replaced by new values"), ", ".join(
            f"{name}.{key}" for name in dataset.tables for key in dataset.tables[name].keys) or _("none")]],
        run.fingerprint, run.made_on, several=True), *_attacker_blocks(run.release, run.knowledge, run.held_out)]
    blocks += [Heading("h2", _("4. Method and parameters")), Paragraph(run.summary()), _fingerprint(run.fitted.seed_),
               *(block for name, avatarizer in run.fitted.avatarizers_.items()
                 for block in _ledger_blocks(avatarizer, name)),
               Table([_("table or link"), _("parameter"), _("value")], _linked_parameters(run)),
               Heading("h2", _("5. Who stood out before"))]
    for name, enriched in evaluation.persons.items():
        profile = enriched.risk_profile
        blocks += [Heading("h3", name), Bullets(profile_lines(profile)) if profile is not None else
                   Paragraph(_("Not measured: choose the variables an attacker could know."), "muted")]
    blocks.append(Heading("h2", _("6. Privacy: the three criteria")))
    for name, enriched in evaluation.persons.items():
        blocks += [Heading("h3", _("{table}, with everything about each person").format(table=name)),
                   Paragraph(_("Each row of {table} with its descendants' aggregates (their number, the mean of "
                               "each numeric column, the share of each frequent modality): what an attacker "
                               "knowing a person's whole record would match.").format(table=name), "muted"),
                   *_privacy_blocks(enriched)]
    blocks += [Heading("h2", _("7. Verdict, fix and utility kept")), *_linked_verdicts(verdict),
               Heading("h3", _("Relations between the tables")),
               Table([_("link"), _("metric"), _("value"), _("reading"), _("what it means")], [
                   [link, _shown(result.label), metric_text(result, result.unit),
                    _verdict(result) if result.target is not None else _band(result),
                    _shown(result.not_applicable or result.interpretation)]
                   for link, metrics in evaluation.links.items() for result in metrics.values()])]
    for link, metrics in evaluation.links.items():
        headers, rows = sequences_table(metrics["broken_sequences"]) if "broken_sequences" in metrics else ([], [])
        blocks += [Table(headers, rows)] if rows else []
        blocks.append(_figure(figures.children_per_parent_figure(metrics["children_per_parent"], link)))
    for link, metrics in evaluation.series.items():
        blocks += _series_blocks(link, metrics, evaluation)
    for enriched in evaluation.persons.values():
        blocks += _analyses_blocks(enriched)
    for name, alone in evaluation.tables.items():
        blocks += [Heading("h3", _("Table {table}").format(table=name)), *_signal_blocks(alone),
                   *_privacy_blocks(alone), *([] if name in evaluation.persons else _analyses_blocks(alone))]
    uncovered = [not_covered_sentence(avatarizer.synthesizer_.ledger())
                 for avatarizer in run.fitted.avatarizers_.values() if avatarizer.synthesizer_ is not None]
    return blocks + _closing_blocks(run.release, uncovered)


def _linked_verdicts(verdict: LinkedVerdict) -> list[Block]:
    """Each person table's verdict with its reasons and its fix, the links that break."""
    blocks: list[Block] = []
    for name, person in verdict.persons.items():
        blocks += [_headline(person, name),
                   Bullets([*reasons(person), *doubts(person), *(
                       # in the words of one table's report (the Privacy page, not the command line's options)
                       text for text in (fix_sentence(person, DASHBOARD), caveat(person, DASHBOARD)) if text)])]
    if verdict.broken_links:
        blocks.append(Paragraph(_("Links whose foreign keys do not all resolve: {links}.").format(
            links=", ".join(verdict.broken_links)), "verdict fail"))
    return blocks


SERIES_FIGURED = 3  # a series' numeric variables drawn in the report, at most


def _series_blocks(link: str, metrics: dict[str, MetricResult], evaluation: LinkedEvaluation) -> list[Block]:
    """A time series (SPEC 13): its metrics with their readings, a sample of trajectories and the mean curves of
    its first numeric variables (by the trend's group when one was analysed), the trend analysis when asked."""
    view, trend = evaluation.series_views.get(link), evaluation.trends.get(link)
    blocks: list[Block] = [
        Heading("h2", _("Measures over time: {link}").format(link=link)),
        Table([_("metric"), _("value"), _("reading"), _("what it means")], [
            [_shown(result.label), metric_text(result, result.unit), _band(result),
             " ".join(filter(None, (_shown(result.not_applicable or result.interpretation),
                                    _shown(result.computation))))] for result in metrics.values()])]
    if view is not None:
        for value in ([trend.value] if trend else view.numbers)[:SERIES_FIGURED]:
            blocks += [_figure(series_figures.trajectories_figure(view, value)),
                       _figure(series_figures.mean_curves_figure(view, value, trend.group if trend else None))]
    if trend is not None:
        blocks += [Heading("h3", _("Trend over time")), Paragraph(trend_reading(trend)),
                   *(Paragraph(note, "muted") for note in analysis_notes(trend))]
        table = trend_table(trend)
        blocks.append(Table(list(table.columns), table.astype(str).to_numpy().tolist()))
    return blocks


def _utility_blocks(run: GenerationRun) -> list[Block]:
    """Utility (SPEC section 5): the signal metrics, their readings and figures, the latent map."""
    blocks = [Heading("h3", _("Utility: how much signal the avatars keep")), *_signal_blocks(run.evaluation)]
    assert run.latent is not None  # a run reported is scored with its latent view
    if run.latent.originals.shape[1] >= 2:
        blocks.append(_figure(figures.latent_figure(run.latent, (0, 1))))
    return blocks


def _signal_blocks(evaluation: Evaluation) -> list[Block]:
    """The signal metrics, their readings and figures."""
    signal = evaluation.signal
    blocks: list[Block] = [
        Paragraph(holdout_sentence(evaluation)),
        Table([_("metric"), _("value"), _("reading"), _("what it means")], [
            [_shown(result.label), metric_text(result), _band(result),
             " ".join(filter(None, (_shown(result.not_applicable or result.interpretation),
                                    _shown(result.computation))))]
            for result in signal.values()]),
    ]
    headers, relations = relations_table(signal["broken_relations"])
    if relations:
        blocks.append(Table(headers, relations))
    said = [correlation_gaps(signal["correlation_difference_ratio"]),
            correlation_direction(signal["correlation_difference_ratio"]),
            *([propensity_reading(signal["propensity_mse"])] if "propensity_mse" in signal else [])]
    if any(said):
        blocks.append(Paragraph(" ".join(filter(None, said))))
    blocks += [Paragraph(hellinger_spread(evaluation)),
               _figure(figures.hellinger_scores_figure(signal["hellinger_mean"]))]
    if signal["correlation_difference_ratio"].value is not None:
        blocks.append(_figure(figures.correlation_figure(signal["correlation_difference_ratio"])))
    multivariate = signal["multivariate_hellinger_distance"]
    if multivariate.value is not None:
        blocks += [_figure(figures.multivariate_axes_figure(multivariate)),
                   Paragraph(figures.axes_figure_caption(multivariate), "muted")]
    return blocks


def _privacy_blocks(evaluation: Evaluation) -> list[Block]:
    """Privacy (SPEC section 6): by criterion, its metrics against their targets, then the privacy figures."""
    blocks: list[Block] = []
    for criterion, group in evaluation.criteria().items():
        blocks.append(Heading("h3", escape(_("{criterion}: {question} {state}")).format(
            criterion=criterion_name(criterion), question=_(QUESTIONS[criterion]),
            state=_span(_(STATES[group.state]), CRITERION_CSS[group.state]))))
        blocks.append(Table([_("metric"), _("value"), _("target"), _("verdict"), _("what it means")], [
            [_shown(result.label), metric_text(result, result.unit), target_text(result), _verdict(result),
             " ".join([*metric_readings(result), *filter(None, [uncertainty_note(result, with_rates=False)]),
                       _shown(result.not_applicable or result.note or result.interpretation)])]
            for result in group.results]))
    return blocks + [_figure(figure) for figure in figures.privacy_figures(evaluation.privacy).values()]


def _analyses_blocks(evaluation: Evaluation) -> list[Block]:
    """Does the analysis still hold (SPEC section 9): each analysis run, its reading, tables and figures."""
    if not evaluation.analyses:
        return []
    blocks: list[Block] = [
        Heading("h3", _("Does the analysis still hold")),
        Paragraph(_("Each analysis is run on the real rows and on the avatars. The holdout, real rows kept apart, "
                    "shows how much two real samples of the same population differ: the avatars do as well as real "
                    "data when their gap is no larger than that.")),
    ]
    for name, result in evaluation.analyses.items():
        blocks += [Heading("h3", _(TITLES[name])), Paragraph(reading(name, result, evaluation.holdout)),
                   *(Paragraph(note, "muted") for note in analysis_notes(result))]
        for caption, table in analysis_tables(name, result):
            if caption:
                blocks.append(Paragraph(caption, "muted"))
            blocks.append(Table(list(table.columns), table.astype(str).to_numpy().tolist()))
        blocks += [_figure(figure) for figure in analysis_figures(name, result)]
    return blocks


def _parameters(run: GenerationRun) -> list[list[str]]:
    parameters, plan, method = run.parameters, run.plan, run.avatarizer.method_
    none = _("none")
    rows = [[_("method"), method.describe()]]
    if not method.paired:
        rows.append([_("mechanism options"), _("gmm components {components}, histogram bins {bins}, bounds percentile "
                                               "{percentile}").format(
            components=parameters.gmm_n_components, bins=parameters.histogram_n_bins,
            percentile=number(parameters.bounds_percentile, "g"))])
    excluded = _("{columns} (re-attached {strategy})").format(
        columns=", ".join(plan.excluded), strategy=_(EXCLUSION_LABELS[parameters.exclude_replacement_strategy]))
    rows += [
        [_("latent dimensions (ncp)"), str(run.avatarizer.ncp_)],
        [_("imputation of missing values"), _(IMPUTATION_LABELS[parameters.imputation])],
        [_("holdout"), _("real: half set aside") if run.avatarizer.holdout_ is Holdout.REAL else
         _("off: approximate at scoring")],
        [_("categorical reduction"), {True: _("on"), False: _("off"), None: _("columns with more than 100 values")}[
            parameters.use_categorical_reduction]],
        [_("dropped columns"), ", ".join(plan.dropped) or none],
        [_("excluded columns"), excluded if plan.excluded else none],
        [_("column kinds set by hand"), ", ".join(f"{k}: {_(v)}" for k, v in plan.table.column_kinds.items()) or none],
        [_("column weights"), ", ".join(f"{k}: {number(v, 'g')}" for k, v in plan.table.column_weights.items()) or none],
        [_("what an attacker could know (the attacks)"), ", ".join(plan.knowledge.known) or _("not chosen: attacks not run")],
        [_("sensitive variables"), ", ".join(plan.knowledge.sensitive) or _("not chosen")],
        [_("seed"), str(run.avatarizer.seed_)],
    ]
    return rows


def _linked_parameters(run: LinkedRun) -> list[list[str]]:
    """Each table's method (a time series: rebuilt from its persons), its latent dimensions, its columns set
    aside, kinds and weights set by hand; each link's method; the attacker; the seed and the holdout."""
    none, rows, series = _("none"), [], _("time series, rebuilt from its persons' avatars")
    for name in run.dataset.top_down():
        table = run.dataset.tables[name]
        if run.dataset.is_series(name):
            rows.append([name, _("method"), series])
            continue
        avatarizer = run.fitted.avatarizers_[name]
        rows += [[name, _("method"), avatarizer.method_.describe()],
                 [name, _("latent dimensions (ncp)"), str(avatarizer.ncp_)],
                 [name, _("excluded columns"), ", ".join(table.with_role(Role.SET_APART)) or none],
                 [name, _("column kinds set by hand"),
                  ", ".join(f"{k}: {_(v)}" for k, v in table.column_kinds.items()) or none],
                 [name, _("column weights"),
                  ", ".join(f"{k}: {number(v, 'g')}" for k, v in table.column_weights.items()) or none]]
    rows += [[link.describe(), _("method"), _(LINK_METHOD_LABELS[link.method]) if link.method in LINK_METHOD_LABELS
              else series] for link in run.dataset.links]
    knowledge = run.knowledge
    return rows + [
        ["", _("what an attacker could know (the attacks)"), ", ".join(knowledge.known) or
         _("not chosen: attacks not run")],
        ["", _("sensitive variables"), ", ".join(knowledge.sensitive) or _("not chosen")],
        ["", _("holdout"), _("whole families set aside") if run.held_out else _("off: halves of the families drawn")],
        ["", _("seed"), str(run.fitted.seed_)]]


def _verdict_blocks(run: GenerationRun) -> list[Block]:
    """The verdict in full (section 7): ready or not, why, the fix checked by a re-run, what is not assessed, the
    relationships kept and what epsilon buys."""
    verdict = run.table_verdict
    blocks: list[Block] = [_headline(verdict)]
    details = [*reasons(verdict), *doubts(verdict),
               *(text for text in (fix_sentence(verdict), caveat(verdict, DASHBOARD)) if text)]
    if details:
        blocks.append(Bullets(details))
    said = relationships(run.evaluation)
    if said:
        blocks.append(Paragraph(said, "note" if _distorted(run.evaluation) else "muted"))
    noise = noise_of(run)
    if noise:
        blocks.append(Paragraph(noise, "muted"))
    return blocks


def _headline(verdict: Verdict, table: str | None = None) -> Paragraph:
    """A verdict's headline in its colour; of linked tables, the person ``table``'s, named."""
    said = headline(verdict) if table is None else _("{table}: {headline}").format(table=table,
                                                                                 headline=headline(verdict))
    return Paragraph(said, f"verdict {VERDICT_CSS[verdict.status]}")


def _distorted(evaluation: Evaluation) -> bool:
    """Whether the avatars distort the relationships between variables (said beside the verdict, SPEC 6.3)."""
    return evaluation.signal["correlation_difference_ratio"].level == "poor"


def _verdict(result: MetricResult) -> Markup | str:
    if result.note:
        return _span(_("not counted"), "muted")
    if result.uncertain:
        return _span(_("uncertain"), "fair")
    if result.passed is None:
        return ""
    return _span(_("pass"), "pass") if result.passed else _span(_("missed"), "fail")


def _band(result: MetricResult) -> Markup | str:
    """A signal metric's reading, in its level's colour ("" without one)."""
    if not result.band:
        return ""
    assert result.level is not None  # a band comes with its level
    return _span(_(result.band), result.level)


def _span(text: str, css: str) -> Markup:
    """``text``, escaped, in a span of the CSS class ``css``."""
    return Markup("<span class='{}'>{}</span>").format(css, text)


def _figure(figure: go.Figure) -> Figure:
    """The figure, numbered in the report's order."""
    return Figure(figure, next(_FIGURE_NUMBERS.get()))


def figure_html(block: Figure) -> Markup:
    """A figure's HTML; plotly's JavaScript with the first figure only."""
    return Markup(pio.to_html(  # plotly's own HTML: the data it holds is JSON-encoded
        block.figure, full_html=False, include_plotlyjs=block.number == 1, config={"displaylogo": False},
        div_id=f"figure-{block.number}"))


def software_versions() -> str:
    """This workbench's version (its ``pyproject.toml``), Python's and those of the libraries the figures depend on,
    as installed: what reproduces a run beside its parameters and seed."""
    with (Path(__file__).resolve().parents[2] / "pyproject.toml").open("rb") as stream:
        project = tomllib.load(stream)["project"]
    return ", ".join([f"{project['name']} {project['version']}", f"Python {platform.python_version()}",
                      *(f"{name} {metadata.version(name)}" for name in ("numpy", "pandas", "scipy", "scikit-learn"))])


@overload
def _shown(text: str) -> str: ...


@overload
def _shown(text: str | None) -> str | None: ...


def _shown(text: str | None) -> str | None:
    """A text defined elsewhere (a metric's label, reading...), in the current language; None stays None."""
    return _(text) if text else text
