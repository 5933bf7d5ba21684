"""Small pieces shared by the pages: value texts, plots, badges."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from core.dataset import Kind, Table
from core.dataset.relations import RelationsAsked
from core.engine.encoding import numeric_values
from core.engine.identifiers import identifier_columns
from core.engine.io import csv_bytes
from core.engine.parameters import HOLDOUT_MIN_ROWS
from core.engine.schema import ColumnProfile, apply_kinds
from core.engine.split import working_rows
from core.errors import InputError
from core.i18n import Message, _, number, percent
from core.metrics.attack import Knowledge
from core.workflows.release import FIELD_LABELS, NOT_STATED, RECIPIENTS, SENSITIVITIES, Decision, Release
from core.metrics.correlation_difference_ratio import correlation_direction, correlation_gaps
from core.metrics.criteria import (
    MET,
    NOT_ASSESSED,
    NOT_MET,
    PARTLY_ASSESSED,
    QUESTIONS,
    STATES,
    UNCERTAIN,
    CriterionResult,
)
from core.metrics.evaluation import Evaluation
from core.metrics.registry import DEFINITIONS
from core.metrics.result import MetricResult
from core.metrics.risk_profile import default_step, risk_profile
from core.presentation import figures
from core.presentation.format import (
    criterion_name,
    metric_readings,
    metric_text,
    propensity_reading,
    target_text,
    uncertainty_note,
)
from core.presentation.risk_profile_text import precision_sentence, removals_sentence
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
from core.workflows.exposure import LEVELS, RARE_SHARE, RARE_TAIL, exposure_levels, most_exposed
from core.workflows.plan import ColumnPlan
from core.workflows.latent import LatentView
from core.workflows.run import GenerationRun
from core.workflows.sweep import SweepPoint
from core.workflows.runs import Run, ScoredTable
from core.workflows.verdict import NOT_READY, READY, Verdict
from dashboard import jobs, state
from dashboard.plan import KIND_LABELS, ROLE_LABELS, described_columns, role_label
from dashboard.text import plain

if TYPE_CHECKING:
    from dashboard.state import LoadedTable


def warnings_shown(lines: Iterable[str]) -> None:
    """Each line a warning box (what reading a file said, what the columns' kinds imply), each once."""
    for line in dict.fromkeys(lines):
        st.warning(plain(line), icon=":material/warning:")


def preview_columns(frame: pd.DataFrame) -> dict[str, object]:
    """Column settings for a table preview: dates without a time of day shown as dates (not ``... 00:00:00``)."""
    config = {}
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_datetime64_any_dtype(column):
            present = column.dropna()
            midnight = present.empty or bool((present == present.dt.normalize()).all())
            config[name] = st.column_config.DatetimeColumn(str(name), format="YYYY-MM-DD" if midnight else None)
    return config


def column_editor(rows: pd.DataFrame, profiles: list[ColumnProfile], *, key: str) -> pd.DataFrame:
    """The column table of the Data page (:func:`~dashboard.plan.plan_table`'s rows, its read-only columns in the
    current language) with what each role means: the rows as edited."""
    st.write(_(
        "How each column will be treated. **Numeric** columns are averaged between similar people, **categorical** "
        "ones are drawn among their values (whole numbers with at most 10 values, such as scores or 0/1 flags, are "
        "codes: categorical), **dates** are handled as numbers. **Role**: *synthesize* it; give it *new "
        "identifiers* (the default for identifiers: the avatars get fresh ones of the same form, nothing of the "
        "real ones); *set it aside and re-attach* it afterwards (from the most similar real row); or *drop* it. "
        "**Weight** makes a column count more (above 1) or less (below 1) when people are compared."
    ))
    shown = {profile.name: profile for profile in profiles}
    return st.data_editor(
        rows.assign(**described_columns([shown[name] for name in rows["column"]])),
        key=key,
        hide_index=True,
        height=min(35 * (len(rows) + 1) + 3, 800),
        disabled=["column", "missing (%)", "distinct values", "warnings"],
        column_config={
            # The labels and the kinds and roles shown are translated; the values the table holds are not.
            "column": st.column_config.TextColumn(_("column"), width="medium"),
            "kind": st.column_config.SelectboxColumn(_("kind"), options=list(KIND_LABELS), required=True,
                                                     format_func=_),
            "role": st.column_config.SelectboxColumn(_("role"), options=[role.value for role in ROLE_LABELS],
                                                     required=True, format_func=role_label),
            "weight": st.column_config.NumberColumn(_("weight"), min_value=0.1, max_value=10.0, step=0.1,
                                                    format="%.1f"),
            "missing (%)": st.column_config.TextColumn(_("missing (%)")),
            "distinct values": st.column_config.TextColumn(_("distinct values")),
            "warnings": st.column_config.TextColumn(_("warnings"), width="medium"),
        },
    )


def choose(label: str, options, **settings) -> list:
    """A multiselect as every page shows one: "Choose options" until something is chosen, and no "Select all" (with
    it, Enter on a typed name chose every option the name matches: "wage" chose logwage too)."""
    return st.multiselect(label, options, **{"placeholder": _("Choose options"), **settings}, select_all=False)


CHARACTER_PX, CELL_PADDING_PX = 7.5, 30  # the grid's 14 px text: a character's width, a cell's margins
PAGE_TABLE_PX = 940  # the main area's width in a 1 400-pixel window (a laptop's)


def table(rows: pd.DataFrame | list[dict], key: str | None = None, height: int | None = None,
          columns: dict[str, dict] | None = None) -> None:
    """A table whose every column is wide enough for its header and its longest value (nothing cut to "Sa..."),
    the first column kept in view; said to scroll sideways only when wider than the page. ``columns``: column
    settings of the caller's (a date's format), widened the same way."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    widths = {name: int(CELL_PADDING_PX + CHARACTER_PX * max(
        [len(str(name))] + [len(str(value)) for value in frame[name].head(500)])) for name in frame.columns}
    config = {name: {**(columns or {}).get(name, st.column_config.Column(str(name))), "width": width,
                     "pinned": index == 0} for index, (name, width) in enumerate(widths.items())}
    st.dataframe(frame, hide_index=True, column_config=config, key=key, height=height or "auto")
    if sum(widths.values()) > PAGE_TABLE_PX:
        st.caption(_("Wider than the page: scroll the table sideways to see the columns on the right."))


PLOT_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d", "zoomIn2d",
                                                                "zoomOut2d", "toggleSpikelines"]}


def plot(figure, key: str, **options):
    """A plotly figure as the pages draw them: its own colours (the report's), a short toolbar that leaves long
    titles readable."""
    return st.plotly_chart(figure, theme=None, key=key, config=PLOT_CONFIG, **options)


LEVEL_BADGES = {"good": "green", "fair": "orange", "poor": "red"}


def signal_badge(result: MetricResult) -> None:
    """A signal metric's reading as a coloured badge (signal metrics have bands, not targets)."""
    if result.band is not None:
        st.badge(_(result.band), color=LEVEL_BADGES[result.level])


CARDS_PER_ROW = 4


def signal_cards(results: Iterable[MetricResult]) -> None:
    """Signal metrics side by side, each in a bordered card: value, band, what it means and how it is computed; at
    most :data:`CARDS_PER_ROW` a row (five in a row cut "87.6 / 100" to "87.6 / 1...")."""
    results = list(results)
    rows = [results[start:start + CARDS_PER_ROW] for start in range(0, len(results), CARDS_PER_ROW)]
    for row in rows:
        for column, result in zip(st.columns(CARDS_PER_ROW if len(rows) > 1 else len(row)), row, strict=False):
            _signal_card(column, result)


def _signal_card(column, result: MetricResult) -> None:
    with column:
        with st.container(border=True):
            st.metric(_(result.label), metric_text(result, DEFINITIONS[result.name].unit if result.name in
                                                   DEFINITIONS else result.unit))
            signal_badge(result)
            if result.name == "correlation_difference_ratio" and result.value is not None:
                st.write(plain(correlation_gaps(result)))
                st.write(plain(correlation_direction(result)))
            if reading := propensity_reading(result):
                st.write(plain(reading))
            st.caption(_(result.not_applicable or result.interpretation))
            if result.computation:
                with st.expander(_("How it is computed")):
                    st.caption(_(result.computation))


def privacy_card(result: MetricResult) -> None:
    """A privacy metric in a bordered card: value, target met or missed, and what it means (or why it does not
    apply, or why it is left out of the verdict)."""
    with st.container(border=True):
        st.metric(_(result.label), metric_text(result, result.unit))
        if result.note:
            st.badge(_("not counted in the verdict"), color="gray")
        elif result.awaits_choice:
            st.badge(_("not assessed"), color="orange")
        elif result.uncertain:
            st.badge(_("target {target}: uncertain").format(target=target_text(result)), icon=":material/help:",
                     color="orange")
        elif result.passed is None:
            st.badge(_("not applicable") if result.value is None else _("not judged"), color="gray")
        elif result.passed:
            st.badge(_("target {target}: met").format(target=target_text(result)),
                     icon=":material/check:", color="green")
        else:
            st.badge(_("target {target}: missed").format(target=target_text(result)),
                     icon=":material/close:", color="red")
        interval = result.breakdown.get("high") if result.value is not None else None
        if interval is not None:
            st.caption(_("95 % interval: {low} to {high} %").format(low=number(result.breakdown["low"], ".1f"),
                                                                   high=number(interval, ".1f")))
        for reading in metric_readings(result):
            st.caption(plain(reading))
        if result.uncertain:
            st.caption(plain(uncertainty_note(result, with_rates=False)))  # the readings above give them
        st.caption(_(result.not_applicable or result.note or result.interpretation))


def holdout_plan(n_rows: int, holdout: bool) -> str:
    """What the holdout setting will do to this table, said next to the Generate button."""
    if working_rows(n_rows, holdout) < n_rows:
        half = n_rows - working_rows(n_rows, holdout)
        return _("Half of the {rows} rows ({half}) will be set aside as a holdout to measure the avatars, so you get "
                 "{avatars} avatars. Once they are assessed, one click makes the avatars of all {rows} rows with the "
                 "same settings. (More settings: holdout.)").format(rows=number(n_rows, ","), half=number(half, ","),
                                                                     avatars=number(n_rows - half, ","))
    if holdout:
        return _("Every row gets an avatar: a holdout is set aside from {least} rows on (this table has {rows}), so "
                 "the metrics draw an approximate holdout.").format(rows=number(n_rows, ","),
                                                                    least=number(HOLDOUT_MIN_ROWS, ","))
    return _("Every row gets an avatar ({rows}); the metrics draw an approximate holdout. (More settings: "
             "holdout.)").format(rows=number(n_rows, ","))


def verdict_message(verdict: Verdict, about: str, searching: Callable[[], None] | None = None) -> None:
    """One verdict: its headline and ``about`` (which avatars, in markdown), why (a missed target in red, an uncertain
    one in amber), the fix (or, while it is searched, ``searching`` draws where the search is), what is not
    assessed."""
    missed, uncertain = (["\n".join(f"- {plain(reason)}" for reason in lines)] if lines else []
                         for lines in (reasons(verdict), doubts(verdict)))
    if verdict.status == READY:
        st.success(_("**{headline}**: every privacy target is assessed and met. {about}").format(
            headline=headline(verdict), about=about), icon=":material/verified_user:")
    elif verdict.status == UNCERTAIN:
        st.warning("\n\n".join([_("**{headline}**, not on its whole interval: no target is missed, but a risk's 95 % "
                                  "interval reaches past its target. {about}").format(headline=headline(verdict),
                                                                                      about=about), *uncertain]),
                   icon=":material/help:")
    elif verdict.status == PARTLY_ASSESSED:
        st.warning(_("**{headline}**, but not every target could be assessed. {about}").format(
            headline=headline(verdict), about=about), icon=":material/help:")
    else:
        st.error("\n\n".join([f"**{headline(verdict)}**. {about}", *missed]), icon=":material/gpp_bad:")
        if uncertain:
            st.warning("\n\n".join([_("Uncertain, neither met nor missed:"), *uncertain]), icon=":material/help:")
        if searching is None:
            st.info(plain(fix_sentence(verdict, DASHBOARD)), icon=":material/build:")
        else:
            searching()
    if caveat(verdict, DASHBOARD):
        st.warning(plain(caveat(verdict, DASHBOARD)), icon=":material/help:")


def criteria_sections(evaluation: Evaluation) -> None:
    """The three questions of SPEC 6.2, each a header with its state and its figures in cards, two a row."""
    for criterion, group in evaluation.criteria().items():
        st.header(_("{criterion}: {state}").format(criterion=criterion_name(criterion), state=criterion_state(group)))
        st.write(_(QUESTIONS[criterion]))
        for row in range(0, len(group.results), 2):
            for column, result in zip(st.columns(2), group.results[row: row + 2], strict=False):
                with column:
                    privacy_card(result)


def verdict_box(run: Run) -> None:
    """The verdict of SPEC 6.3, one per person table (one table: its own): ready to share or not, which avatars it
    is about, why, the fix checked by a re-run and its cost with one click to apply it, what is not assessed; then
    the relationships and the noise of one table, or the links of linked tables that break or keep the families."""
    for name, verdict in run.person_verdicts.items():
        about = plain(subject(run)) if isinstance(run, GenerationRun) else _(
            "**{table}**, each person with everything about them ({tables}).").format(
            table=plain(name), tables=", ".join(plain(member) for member in run.dataset.top_down()
                                                if member in run.dataset.family(name)))
        searched = verdict.status != NOT_READY or verdict.searched or run is not state.run()
        verdict_message(verdict, about, None if searched else lambda name=name: fix_search_box(run, name))
        if verdict.fix is not None and verdict.fix.made is not None and run is state.run():
            apply_fix_button(verdict.fix.instruction, lambda name=name: state.set_run(run.with_fix(name)), key=name)
    if isinstance(run, GenerationRun):
        if run.parameters.exclude_replacement_strategy == "row_order" and run.plan.excluded:
            st.warning(_("Set-aside columns were copied from each avatar's own original: check them before "
                         "sharing."))
        said, noise = relationships(run.evaluation), noise_of(run)
        if said and run.evaluation.signal["correlation_difference_ratio"].level == "poor":
            st.warning(plain(said), icon=":material/link_off:")
        elif said:
            st.caption(plain(said))
        if noise:
            st.caption(plain(noise))
        return
    for link in run.verdict.broken_links:
        st.error(_("**Not ready to share**: in {link}, some avatars name a parent that no avatar is.").format(
            link=plain(link)), icon=":material/link_off:")
    for link in run.sensitive_links():
        st.warning(_("{link} was linked in the original order: the avatars keep each real family's structure "
                     "(who has how many children, and which). Check it before sharing.").format(link=plain(link)),
                   icon=":material/warning:")


def fix_search_box(run: Run, table: str) -> None:
    """Where the fix of the current ``run``'s person ``table`` stands while none was found yet: searched (each
    setting tried said, the verdict redrawn when it ends), or, when its search was stopped (another job replaced it),
    one click to search it (every person table that misses a target: one search)."""
    if jobs.fix_search_of(run) is None:
        st.info(_("No fix was looked for yet: the search was stopped before its end."), icon=":material/build:")
        if st.button(_("Look for a fix"), icon=":material/build:", key=f"fix_search_{table}"):
            jobs.start_fix_search(run)
            st.rerun()
        return
    st.info(_("Looking for a fix: each more protective setting is made again and measured, in turn. The avatars and "
              "figures on every page are these; the verdict says the fix when the search ends."),
            icon=":material/build:")
    _fix_search_progress(run)


@st.fragment(run_every=1.0)
def _fix_search_progress(run: Run) -> None:
    """The fix search's progress, redrawn each second; the page redrawn once the sidebar has applied its end."""
    job = jobs.fix_search_of(run)
    if job is None:  # ended and applied, or stopped
        st.rerun()
    st.progress(1.0 if job.done else min(max(job.share, 0.0), 1.0), text=job.text())


LIVE_REDRAW_S = 2.0  # the live chart of a sweep redrawn at most this often (plotly needs time)


def live_sweep(total: int, privacy: str, labels: dict[str, str], number_of_sweep: int
               ) -> Callable[[SweepPoint, int], None]:
    """A sweep of ``total`` runs under way, one table or linked tables: a button to stop it (the runs made are kept),
    its progress, and its chart of signal against ``privacy`` redrawn as points come; what the sweep tells after
    each run (its points kept in the session's ``sweep_result``)."""
    st.button(_("Stop the sweep"), icon=":material/stop_circle:", help=_("The settings already run are kept."),
              key="stop_sweep")
    bar = st.progress(0.0, text=_("{done} of {total} runs").format(done=number(0), total=number(total)))
    live, drawn = st.empty(), [0.0]  # when the live chart was last drawn

    def show(point: SweepPoint, seed: int) -> None:
        sweep = st.session_state["sweep_result"]
        if point not in sweep["points"]:
            sweep["points"].append(point)
        sweep["done"] += 1
        bar.progress(sweep["done"] / total, text=_("{done} of {total} runs: {setting}, seed {seed}").format(
            done=number(sweep["done"]), total=number(total), setting=point.setting.label, seed=seed))
        if time.monotonic() - drawn[0] >= LIVE_REDRAW_S:
            drawn[0] = time.monotonic()
            with live.container():
                plot(figures.tradeoff_figure(sweep["points"], "hellinger_mean", privacy, None, labels),
                     key=f"live_{number_of_sweep}_{sweep['done']}")

    return show


def attacker_form(chosen: Knowledge, recipient: str, scored: Sequence[str], known_help: str
                  ) -> tuple[Knowledge, str] | None:
    """What an attacker could know (SPEC 6.2), one form for one table or many: who receives the avatars (the
    ``recipient``, which sets the attacker: decisions 6.7), the variables known of a person (``known_help`` says
    what they may be), the sensitive ones and the linkability attack's first part, among ``scored``; the attacker
    and recipient chosen when *Run the attacks* is pressed (the precision of each known variable kept), else
    None."""
    with st.form("attacker"):
        choices = ["", *RECIPIENTS]
        recipient = st.selectbox(
            _("Who receives the avatars"), choices, index=choices.index(recipient), key="attacker_recipient",
            format_func=lambda name: _(RECIPIENTS[name]) if name else _(NOT_STATED),
            help=_("Open data: the attacks assume the attacker knows every variable that is not sensitive. Any "
                   "other recipient: the variables chosen below."))
        known = choose(_("Variables an attacker could know of a person (quasi-identifiers)"), scored,
                       default=[name for name in chosen.known if name in scored], key="attacker_known",
                       help=known_help)
        sensitive = choose(_("Sensitive variables an attacker would want to learn"), scored,
                           default=[name for name in chosen.sensitive if name in scored], key="attacker_sensitive",
                           help=_("A diagnosis, an income, an outcome: one inference risk each."))
        first_part = choose(
            _("Linkability: the known variables of the first part of a record"), scored,
            default=[name for name in (chosen.groups or ((),))[0] if name in scored], key="attacker_first_part",
            help=_("The linkability attack holds two parts of a person's record and tries to join them through the "
                   "avatars: these known variables, and the other known ones. Empty: the first half of the known "
                   "variables, in the order chosen."), placeholder=_("The first half of the known variables"))
        if not st.form_submit_button(_("Run the attacks"), icon=":material/policy:",
                                     key="FormSubmitter:attacker-Run the attacks"):
            return None
    groups = (tuple(first_part), tuple(name for name in known if name not in first_part)) if first_part else None
    precision = tuple((name, step) for name, step in chosen.precision if name in known)
    return Knowledge(tuple(known), tuple(sensitive), groups, precision), recipient


def release_form(release: Release) -> Release | None:
    """The release the report documents (decisions 6.7): its purpose, controller, data subjects, kind of data and
    sensitivity, then the controller's decision on the residual risk (left blank: "not yet decided"); the recipient
    is the Privacy page's (it sets the attacker). The release as filled in when *Save* is pressed, else None."""
    with st.form("release"):
        texts = {name: st.text_input(_(FIELD_LABELS[name]), getattr(release, name), key=f"release_{name}")
                 for name in ("purpose", "controller", "data_subjects", "data_kind")}
        choices = ["", *SENSITIVITIES]
        sensitivity = st.selectbox(_(FIELD_LABELS["sensitivity"]), choices, index=choices.index(release.sensitivity),
                                   format_func=lambda name: _(SENSITIVITIES[name]) if name else _(NOT_STATED),
                                   key="release_sensitivity")
        st.markdown(_("**The controller's decision**"))
        decision = release.decision
        residual = st.text_area(_(FIELD_LABELS["residual_risk"]), decision.residual_risk, key="release_residual_risk",
                                help=_("The risk that remains and why it is acceptable for this recipient, in your "
                                       "words (the figures of the Privacy page, the attack's control)."))
        accepted_by = st.text_input(_(FIELD_LABELS["accepted_by"]), decision.accepted_by, key="release_accepted_by")
        left, right = st.columns(2)
        dates = {name: column.date_input(_(FIELD_LABELS[name]), dt.date.fromisoformat(getattr(decision, name))
                                         if getattr(decision, name) else None, key=f"release_{name}", format="YYYY-MM-DD")
                 for column, name in ((left, "date"), (right, "review_date"))}
        if not st.form_submit_button(_("Save into the report"), icon=":material/save:"):
            return None
    return Release(**texts, recipient=release.recipient, sensitivity=sensitivity, decision=Decision(
        residual_risk=residual, accepted_by=accepted_by,
        **{name: value.isoformat() if value else "" for name, value in dates.items()}))


def exposure_section(evaluation: Evaluation, originals: pd.DataFrame, kinds: dict[str, Kind],
                     latent: LatentView | None = None) -> None:
    """Who is most exposed (SPEC 6.3, per person): how many people have their own avatar as the nearest, fewer than
    5 avatars closer or more, on the latent map when there is one, and the most exposed records with what makes
    them stand out (``originals``: the rows the avatars were made from, as scored: a person table with everything
    about each person for linked tables). Nothing when the avatars are not paired."""
    levels = exposure_levels(evaluation)
    if levels is None:
        return
    st.header(_("Who is most exposed"))
    counts = [int((levels == level).sum()) for level in range(len(LEVELS))]
    st.write(_(
        "Of the {people} people the avatars were made from, {own} have their own avatar as the nearest one, {fewer} "
        "have fewer than 5 avatars closer than their own, and {more} have 5 or more."
    ).format(people=number(len(levels), ","), own=number(counts[0], ","), fewer=number(counts[1], ","),
             more=number(counts[2], ",")))
    if latent is not None and latent.originals.shape[1] >= 2:
        plot(figures.latent_figure(latent, (0, 1), levels), key="exposure_map")
    with st.expander(_("The most exposed records (sensitive: real rows, shown in this session only)"),
                     icon=":material/warning:"):
        st.warning(_("These are real people's rows. Do not copy them into a report or a ticket."))
        table(most_exposed(originals, kinds, evaluation))
        st.caption(_("'{column}': the person's values that are rare among the real people (a category that at "
                     "most {share} of them hold, a number or date among the {tail} highest or lowest), rarest first; "
                     "empty when none is. Setting such a variable aside or lowering its weight hides them better.")
                   .format(column=_("stands out on"), share=percent(100 * RARE_SHARE),
                           tail=percent(100 * RARE_TAIL)))  # the table's column, as core.workflows.exposure names it


def apply_fix_button(instruction: Message, apply: Callable[[], None], key: str = "") -> None:
    """One click applies the fix a verdict checked (issue 46; ``apply`` makes its run, already made when it was
    checked, the current one, of one table or of linked tables; ``key`` tells the verdicts of several person tables
    apart); the form then shows its settings."""
    said = _(instruction)
    if st.button(_("Apply the fix: {instruction}").format(instruction=said), icon=":material/build:",
                 type="primary", key=f"apply_fix_{key}_{state.run_version()}"):
        apply()
        state.say_after_rerun(_("Fix applied: {instruction}. These are the avatars it checked: nothing was made "
                                "again.").format(instruction=said))
        st.rerun()


CRITERION_COLOURS = {MET: "green", NOT_MET: "red", UNCERTAIN: "orange", PARTLY_ASSESSED: "orange",
                     NOT_ASSESSED: "gray"}


def criterion_state(group: CriterionResult) -> str:
    """A criterion's state as a coloured word for a heading (met, not met, partly assessed, not assessed)."""
    return f":{CRITERION_COLOURS[group.state]}[{_(STATES[group.state])}]"


def columns_caption(loaded: LoadedTable, plan: ColumnPlan) -> str:
    """The table and what becomes of its columns, in one sentence."""
    renewed = [name for name in identifier_columns(loaded.profiles, set(plan.table.column_kinds), set(plan.excluded))
               if name not in plan.dropped]
    synthesized = loaded.frame.shape[1] - len(plan.dropped) - len(plan.excluded) - len(renewed)
    values = {"name": loaded.name, "rows": number(len(loaded.frame), ","), "synthesized": number(synthesized),
              "excluded": number(len(plan.excluded)), "renewed": number(len(renewed)), "names": ", ".join(renewed)}
    if plan.excluded and renewed:
        return _("Table: {name}, {rows} rows, {synthesized} columns synthesized, {excluded} set aside, {renewed} "
                 "given new identifiers ({names}).").format(**values)
    if plan.excluded:
        return _("Table: {name}, {rows} rows, {synthesized} columns synthesized, {excluded} set aside.").format(
            **values)
    if renewed:
        return _("Table: {name}, {rows} rows, {synthesized} columns synthesized, {renewed} given new identifiers "
                 "({names}).").format(**values)
    return _("Table: {name}, {rows} rows, {synthesized} columns synthesized.").format(**values)


def avatars_of_every_row(current: Run) -> None:
    """The Generate page's offer, once avatars assessed against a real holdout exist: the avatars of every row with
    the same settings (a second run, its privacy measured on every person), or, once made, what they are."""
    frames = state.frames()
    rows = number(sum(len(frame) for frame in frames.values()), ",")
    st.subheader(_("Avatars to share"))
    if isinstance(current, GenerationRun):
        st.write(_("These {avatars} avatars were made from half of the rows, so that the other half could measure "
                   "them. To share avatars of all {rows} rows, make them with the same settings: their privacy is then "
                   "measured on all rows (utility against an approximate holdout).").format(
            avatars=number(current.evaluation.rows["avatars"], ","), rows=rows))
        asked = _("Make the avatars to share from all {rows} rows with these settings").format(rows=rows)
        label, measured = _("The avatars of all {rows} rows").format(rows=rows), _(
            "{summary} Their privacy, measured on all rows:")
    else:
        st.write(_("These avatars were made from half of the people (with everything about them), so that the other "
                   "half could measure them. To share avatars of every row, make them with the same settings: their "
                   "privacy is then measured on every person (utility against halves of the families)."))
        asked = _("Make the avatars to share from every row with these settings")
        label, measured = _("The avatars of every row"), _("{summary} Their privacy, measured on every person:")
    release = state.release_run()
    if release is None:
        if st.button(asked, icon=":material/select_all:", key="release"):
            jobs.wait(jobs.start("release", label, lambda progress: current.every_row(frames, progress)))
    else:
        st.success(measured.format(summary=release.summary()), icon=":material/select_all:")
        verdict_box(release)
        st.page_link("pages/report.py", label=_("Download them"), icon=":material/download:")


def relations_section(loaded: LoadedTable, plan: ColumnPlan) -> None:
    """The Data page's relations (issue 30): each one found exact on the originals, in words, with a switch to keep
    or ignore it; those declared, each with a button to remove it; a line to declare another."""
    st.subheader(_("Relations between columns"))
    table, asked = plan.table, plan.table.relations
    try:
        relations = state.relations(loaded, table)
    except InputError as error:  # the columns' plan cannot be typed: the column table says why
        st.error(plain(error))
        return
    if not relations.found:
        st.caption(_("No relation holds exactly on every row between the columns synthesized (a label set by its "
                     "code, a threshold, an order, a total)."))
    else:
        st.write(_("These hold on every original row. Kept, the avatars hold them too: the column they compute "
                   "takes no part in the synthesis and is computed from its sources in every avatar."))
    declared = relations.kept[:len(asked.declared)]  # the declared come first in those a run keeps
    for position, relation in enumerate(relations.found):
        computed = relation.computed
        if relation not in relations.kept and computed not in asked.ignored:  # it clashes with a declared one
            replacing = next(other for other in declared if set(other.columns) & set(relation.columns))
            st.toggle(plain(relation.sentence()), value=False, disabled=True,
                      key=f"relation_{loaded.source_id}_{position}_replaced",
                      help=_("Replaced by the relation you declared: {relation}").format(
                          relation=plain(replacing.sentence())))
            st.caption(_("Not kept: it cannot hold beside the relation you declared below, {relation}.").format(
                relation=plain(replacing.sentence())))
            continue
        kept = st.toggle(plain(relation.sentence()), value=computed not in asked.ignored,
                         key=f"relation_{loaded.source_id}_{position}", help=plain(relation.how_kept()))
        if kept == (computed in asked.ignored):
            _ask_relations(table, asked.ignoring(computed, not kept))
    # one line per declared relation, in their order (KeptRelations.of), even one equal to a relation found
    for position, (line, relation) in enumerate(zip(asked.declared, declared, strict=False)):
        first, second = st.columns([5, 1])
        first.markdown(_("Declared: {relation}").format(relation=plain(relation.claim())))
        if second.button(_("Remove"), key=f"declared_{position}_{line}"):
            _ask_relations(table, replace(asked, declared=tuple(d for d in asked.declared if d != line)))
    with st.form("declare_relation", clear_on_submit=True, border=False):
        line = st.text_input(_("Declare a relation the data show only approximately"),
                             placeholder="low = bwt < 2500", help=_(
                                 "A threshold (low = bwt < 2500), an order (admission <= discharge), a total "
                                 "(total = a + b), a form (logwage = log(wage)) or a column set by another "
                                 "(region = town). A name with spaces goes in single quotes."))
        if st.form_submit_button(_("Keep this relation")) and line.strip():
            wanted = replace(asked, declared=(*asked.declared, line.strip()))
            try:  # checked on the data before it joins the plan
                state.relations(loaded, replace(table, relations=wanted))
            except InputError as error:
                st.error(plain(error))
            else:
                _ask_relations(table, wanted)


def _ask_relations(table: Table, asked: RelationsAsked) -> None:
    """The table's relations asked changed: the plan with them, the run forgotten, the page drawn again."""
    state.set_plan(replace(table, relations=asked))
    state.set_run(None)
    st.rerun()


def risk_profile_section(loaded: LoadedTable, plan: ColumnPlan) -> None:
    """The Data page's risk profile (SPEC 6.4): what the variables an attacker could know single out, live as they
    are ticked, before any generation."""
    st.subheader(_("Before generating: who stands out"))
    options = [name for name in loaded.frame.columns if name not in plan.dropped]
    chosen = state.attacker()
    known = choose(
        _("Variables an attacker could know of a person (quasi-identifiers)"), options,
        default=[name for name in chosen.known if name in options], key=f"known_{loaded.source_id}",
        help=_("What someone could learn elsewhere: age, sex, postcode, admission date... The privacy attacks use "
               "them too (they can be changed on the Privacy page)."))
    if tuple(known) != chosen.known:
        state.set_attacker(replace(chosen, known=tuple(known), groups=None, sensitive=tuple(
            name for name in chosen.sensitive if name not in known), precision=tuple(
            (name, step) for name, step in chosen.precision if name in known)))
        chosen = state.attacker()
    if not known:
        st.caption(_("Choose the variables someone could know to see how many people they single out in the real "
                     "data."))
        return
    kinds = {name: profile.kind for profile in loaded.profiles if (name := profile.name) in known}
    kinds.update({name: Kind(kind) for name, kind in plan.table.column_kinds.items() if name in known})
    typed = apply_kinds(loaded.frame[known], kinds)
    steps = _precision_editor(typed, kinds, chosen, loaded.source_id)
    profile = risk_profile(typed, kinds, known, steps)
    first, second = st.columns(2)
    first.metric(_("People unique on them"), percent(profile.unique_share),
                 help=_("No one else in the table has the same values."))
    second.metric(_("People in groups of fewer than 5"), percent(profile.small_group_share),
                  help=_("What k-anonymity with k = 5 would flag."))
    st.caption(plain(_("{unique} of {rows} people unique, {small} in groups of fewer than 5. {precision}").format(
        unique=number(profile.unique, ","), rows=number(profile.rows, ","), small=number(profile.small_groups, ","),
        precision=precision_sentence(profile))))
    removals = removals_sentence(profile)
    if removals:
        st.write(plain(removals))


def _precision_editor(typed: pd.DataFrame, kinds: dict[str, Kind], chosen: Knowledge, source_id: str
                      ) -> dict[str, float]:
    """The precision an attacker knows each known number to, shown and changeable (SPEC 6.4): each number's step,
    the user's or the default (1 for a whole number: as written); the steps the user changed, kept in the
    attacker's knowledge and returned (the others are the profile's own defaults)."""
    numbers = [name for name in typed.columns if kinds[name] is Kind.NUMERIC]
    if not numbers:
        return {}
    given = dict(chosen.precision)
    defaults = {name: default_step(numeric_values(typed[name])) or 1.0 for name in numbers}
    column = _("known to the nearest")
    st.caption(_("How precisely an attacker would know each number: its values count to the nearest step below (1 "
                 "for a whole number: as written). Change a step to what an attacker could know, an income to the "
                 "nearest 1,000 say."))
    shown = pd.DataFrame({_("variable"): numbers, column: [given.get(name, defaults[name]) for name in numbers]})
    edited = st.data_editor(
        shown, hide_index=True, key=f"precision_{source_id}_{'|'.join(numbers)}", disabled=[_("variable")],
        column_config={column: st.column_config.NumberColumn(
            min_value=0.0, format="%g", help=_("An attacker who knows an income to the nearest 1,000 cannot tell "
                                               "apart people within the same 1,000: their values count as one."))})
    steps = {name: float(step) for name, step in zip(numbers, edited[column], strict=False)
             if pd.notna(step) and step > 0 and step != defaults[name]}
    if tuple(steps.items()) != chosen.precision:
        state.set_attacker(replace(state.attacker(), precision=tuple(steps.items())))
    return steps


def paired_avatars_section(run: GenerationRun, stem: str) -> None:
    """The Report page's file of avatars in the originals' order (avatar i made from row i): for checks only, behind
    a warning and a confirmation."""
    st.subheader(_("Sensitive"))
    with st.expander(_("Paired avatars (do not share)"), icon=":material/warning:"):
        st.warning(_(
            "In this file avatar number i was made from real row number i of the data avatarized. The pairing is "
            "what the privacy metrics measure, and exactly what an attacker would want: keep it for checks only."
        ))
        understood = st.checkbox(_("I understand: this file must stay private."), key="paired_understood")
        st.download_button(
            _("Paired avatars (CSV)"), csv_bytes(run.avatarizer.paired_avatars_) if understood else b"",
            file_name=f"{stem}PAIRED_private.csv", mime="text/csv", disabled=not understood, icon=":material/lock:",
            on_click="ignore", key="download_paired",
        )


def table_choice(names: list[str], label: str, key: str, *, format_func: Callable[[str], str] = str) -> str:
    """A choice among tables, kept while the pages change (a radio: every table in view)."""
    held = st.session_state.get(f"{key}_held")
    chosen = st.radio(label, names, index=names.index(held) if held in names else 0, horizontal=True, key=key,
                      format_func=format_func)
    st.session_state[f"{key}_held"] = chosen
    return chosen


def scored_choice(run: Run, label: str, key: str, among: list[ScoredTable] | None = None) -> ScoredTable:
    """Which of the run's evaluations (or of ``among`` them) a page shows: each person table with everything about
    its people (their descendants' aggregates as columns), each table alone; one without a choice."""
    scored = {table.key: table for table in (run.scored_tables() if among is None else among)}
    if len(scored) == 1:
        return next(iter(scored.values()))
    labels = {name: (_("{table}, each person with everything about them") if table.person else _("{table} alone"))
              .format(table=table.table_name) for name, table in scored.items()}
    return scored[table_choice(list(scored), label, key, format_func=labels.__getitem__)]
