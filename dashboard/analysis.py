"""The Analysis page's helpers: the study the user describes, running its analyses with progress, and each
analysis's reading, figures and tables."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import streamlit as st

from core.dataset import Kind
from core.errors import InputError
from core.i18n import N_, _, number
from core.metrics.analysis.design import MAX_LEVELS, default_predictors
from core.metrics.analysis.request import TITLES, AnalysisNotRun, AnalysisRequest, suggested_request
from core.metrics.evaluation import analyse
from core.presentation.analysis_figures import analysis_figures
from core.presentation.analysis_text import analysis_notes, analysis_tables, reading
from core.workflows.runs import ScoredTable
from dashboard import state
from dashboard.text import plain
from dashboard.widgets import choose, plot, table


NONE = N_("(none)")  # the "no column" choice: this value, shown translated
ROW_PX, MAX_ROWS_SHOWN = 35, 30  # tables shown whole up to this many rows, then scrolled


def request(run: ScoredTable) -> AnalysisRequest:
    """The study as last described for this table, or a first guess from its columns."""
    chosen = st.session_state.setdefault("analysis_request", {}).get(run.key or run.table_name)
    if chosen is None:
        chosen = suggested_request(run.evaluation.split.working, run.evaluation.kinds)
        st.session_state["analysis_request"][run.key or run.table_name] = chosen
    return chosen


def run_analyses(run: ScoredTable, changes: dict[str, object], names: Iterable[str]) -> None:
    """Update the study with ``changes`` and run the analyses ``names`` on ``run`` with a progress bar; an analysis
    that cannot run keeps its plain message (shown in its section) and the others go on."""
    chosen = replace(request(run), **changes)
    st.session_state["analysis_request"][run.key or run.table_name] = chosen
    names = list(names)
    bar = st.progress(0.0, text=_("Starting")) if len(names) > 1 else None
    for done, name in enumerate(names):
        step = _("{analysis} on the real rows, the avatars and the holdout…").format(analysis=_(TITLES[name]))
        if bar is not None:
            bar.progress(done / len(names), text=_("{step} ({done} of {total})").format(
                step=step, done=number(done + 1), total=number(len(names))))
        with st.spinner(step, show_time=True):
            try:
                analyse(run.evaluation, chosen, [name])
            except InputError as error:  # a column of an earlier choice that these avatars no longer have
                run.evaluation.analyses[name] = AnalysisNotRun(str(error), error.on_dashboard)
    if bar is not None:
        bar.empty()
    state.forget_run_files(state.run())  # the report and the JSON now hold these analyses


def show_result(run: ScoredTable, name: str) -> None:
    """One analysis's plain reading, figures and tables, or why it could not run."""
    result = run.evaluation.analyses.get(name)
    if result is None:
        return
    if isinstance(result, AnalysisNotRun):
        st.warning(plain(_(result.on_dashboard or result.reason)), icon=":material/warning:")
        return
    st.info(plain(reading(name, result, run.evaluation.holdout)), icon=":material/lightbulb:")
    for note in analysis_notes(result):
        st.caption(plain(note))
    for index, figure in enumerate(analysis_figures(name, result)):
        plot(figure, key=f"{name}_figure_{index}")
    for index, (caption, frame) in enumerate(analysis_tables(name, result)):
        if caption:
            st.caption(plain(caption))
        table(frame, key=f"{name}_table_{index}", height=ROW_PX * (min(len(frame), MAX_ROWS_SHOWN) + 1) + 3)


def shown(run: ScoredTable, name: str, field: str, default):
    """What the section's result was run with (its form starts there), else ``default``: after another section
    changed the shared study, each form still shows the choices of the result under it."""
    result = run.evaluation.analyses.get(name)
    if name == "group_statistics" and field == "value" and getattr(result, "tables", None):
        return result.tables[0].value if len(result.tables) == 1 else default
    return getattr(result, field, default)


def predictors_box(run: ScoredTable, name: str, outcome: str | None) -> tuple[str, ...] | None:
    """A predictors box starting at those of ``name``'s last result (shown empty when they were every other
    column); None for every other column."""
    evaluation, study = run.evaluation, request(run)
    every = [column for column in evaluation.kinds if column != outcome]
    chosen = shown(run, name, "predictors", study.predictors) or ()
    defaults = default_predictors(evaluation.kinds, evaluation.split.working, outcome)[0] if outcome else ()
    chosen = () if set(chosen) in (set(every), set(defaults)) else chosen
    picked = choose(_("Predictors (empty: every other column but those that give the outcome exactly)"), every,
                    key=keyed(run, f"{name}_predictors"), default=[column for column in chosen if column in every],
                    help=_("Leave out what would not be known when predicting (a follow-up time, an identifier)."))
    return None if not picked or sorted(picked) == sorted(every) else tuple(picked)


def columns_of(run: ScoredTable, *, numeric: bool | None = None, levels: tuple[int, int] | None = None,
               dates: bool = True) -> list[str]:
    """The analysed columns: numbers only (``numeric``; dates too unless ``dates`` is False), categories only (not
    ``numeric``), or any with a number of distinct values in ``levels``."""
    kinds, working = run.evaluation.kinds, run.evaluation.split.working
    names = [name for name in kinds if numeric is None or (kinds[name] is not Kind.CATEGORICAL) == numeric]
    names = [name for name in names if dates or kinds[name] is not Kind.DATETIME]
    if levels is not None:
        names = [name for name in names if levels[0] <= working[name].nunique() <= levels[1]]
    return names


def pick(label: str, options: list[str], current: str | None, *, optional: bool = False, key: str,
         help: str | None = None) -> str | None:
    """A selectbox over ``options`` starting at ``current``; with ``optional``, "(none)" first and chosen as None.
    ``label`` and ``help`` are shown as given (translated by the caller); the options are column names."""
    shown = [NONE, *options] if optional else options
    index = shown.index(current) if current in shown else 0
    value = st.selectbox(label, shown, index=index, key=key, help=help,
                         format_func=lambda option: _(NONE) if optional and option == NONE else str(option))
    return None if value == NONE else value


GROUP_LEVELS = (2, MAX_LEVELS)


MODELS = {"boosting": N_("boosting"), "linear": N_("linear")}  # option values: the names shown


def analysis_sections(run: ScoredTable) -> None:
    """The Analysis page of ``run`` (a table's avatars and their evaluation): the suggested analyses, then each
    section with its form and result."""
    evaluation = run.evaluation
    st.write(_("Each analysis runs on the real rows the avatars were made from and on the avatars, side by side. A "
               "third sample, the **holdout** (real rows kept apart), shows how much two real samples of the same "
               "population differ: the avatars do as well as real data when their gap is no larger than that."))
    study = request(run)
    if "missing_shares" not in evaluation.analyses:  # always (SPEC section 9): each variable's missing share
        run_analyses(run, {}, ["missing_shares"])
    suggested = [name for name in study.names() if name not in evaluation.analyses]
    if suggested:  # nothing runs, nor reaches the report, that the user did not ask for
        st.caption(_("The forms below start from what the columns' names suggest: {analyses}.").format(
            analyses=", ".join(_(TITLES[name]).lower() for name in suggested)))
        if st.button(_("Run the suggested analyses"), icon=":material/play_arrow:", key=keyed(run, "run_suggested")):
            run_analyses(run, {}, suggested)
            st.rerun()
    prediction_section(run)
    regression_section(run)
    survival_section(run)
    group_section(run)
    st.header(_("Missing values"))
    show_result(run, "missing_shares")


def keyed(run: ScoredTable, key: str) -> str:
    """A widget's key on ``run``'s page: the same for one table's run, the table's own among linked tables."""
    return f"{run.key}:{key}" if run.key else key


@st.fragment
def prediction_section(run: ScoredTable) -> None:
    st.header(_("Prediction"))
    st.caption(_("A model trained on the real rows and the same model trained on the avatars, both tested on real "
                 "people neither has seen: does a model learnt from the avatars predict as well?"))
    first, second = st.columns([2, 1])
    with first:  # outside the form: the predictors offered follow the outcome chosen
        outcome = pick(_("Outcome to predict"), list(run.evaluation.kinds),
                       shown(run, "prediction", "outcome", request(run).outcome), optional=True,
                       key=keyed(run, "prediction_outcome"))
    with second:
        current = shown(run, "prediction", "model", request(run).model)
        model = st.radio(_("Model"), list(MODELS), index=list(MODELS).index(current), horizontal=True,
                         format_func=lambda name: _(MODELS[name]), key=keyed(run, "prediction_model"),
                         help=_("boosting: gradient-boosted trees; linear: logistic or linear regression."))
    with st.form("prediction_form"):
        predictors = predictors_box(run, "prediction", outcome)
        if st.form_submit_button(_("Run the prediction"), icon=":material/play_arrow:",
                                 key="FormSubmitter:prediction_form-Run the prediction"):
            run_analyses(run, {"outcome": outcome, "model": model, "predictors": predictors}, ["prediction"])
    show_result(run, "prediction")


@st.fragment
def regression_section(run: ScoredTable) -> None:
    st.header(_("Regression coefficients"))
    st.caption(_("The same regression fitted on the real rows and on the avatars: does each variable's effect keep "
                 "its size, sign and significance? Bars that overlap mean the same conclusion."))
    options = columns_of(run, numeric=True) + columns_of(run, levels=(2, 2), numeric=False)
    outcome = pick(_("Outcome (a number or a yes/no column)"), options,  # outside the form: see the prediction's
                   shown(run, "regression", "outcome", request(run).outcome), optional=True,
                   key=keyed(run, "regression_outcome"))
    with st.form("regression_form"):
        predictors = predictors_box(run, "regression", outcome)
        if st.form_submit_button(_("Fit the regressions"), icon=":material/play_arrow:",
                                 key="FormSubmitter:regression_form-Fit the regressions"):
            run_analyses(run, {"outcome": outcome, "predictors": predictors}, ["regression"])
    show_result(run, "regression")


@st.fragment
def survival_section(run: ScoredTable) -> None:
    st.header(_("Survival"))
    st.caption(_("Kaplan-Meier curves and the Cox hazard ratio, from a time and an event column: would a survival "
                 "study conclude the same on the avatars?"))
    times, events = columns_of(run, numeric=True), columns_of(run, levels=(2, 2))
    with st.form("survival_form"):
        first, second, third = st.columns(3)
        with first:
            time = pick(_("Time (until the event or the end of follow-up)"), times,
                        shown(run, "survival", "time", request(run).time), optional=True,
                        key=keyed(run, "survival_time"))
        with second:
            event = pick(_("Event (two values: it happened or not)"), events,
                         shown(run, "survival", "event", request(run).event), optional=True,
                         key=keyed(run, "survival_event"))
        with third:
            group = pick(_("Curves by"), columns_of(run, levels=(2, 10)),
                         shown(run, "survival", "group", request(run).group), optional=True,
                         key=keyed(run, "survival_group"))
        first, second, third = st.columns(3)
        with first:
            covariate = pick(_("Hazard ratio of (none: the groups')"), list(run.evaluation.kinds),
                             shown(run, "survival", "covariate", request(run).covariate), optional=True,
                             key=keyed(run, "survival_covariate"))
        with second:
            adjust = choose(_("Adjusted for"), list(run.evaluation.kinds), key=keyed(run, "survival_adjust"),
                            default=list(shown(run, "survival", "adjust", request(run).adjust)))
        with third:
            event_value = st.text_input(_("The value that means the event"), key=keyed(run, "survival_event_value"),
                                        value=request(run).event_value or "",
                                        help=_("Empty: read from the values (1 of 0/1, True, yes, death...)."))
        if st.form_submit_button(_("Run the survival analysis"), icon=":material/play_arrow:",
                                 key="FormSubmitter:survival_form-Run the survival analysis"):
            run_analyses(run, {"time": time, "event": event, "group": group, "covariate": covariate,
                               "adjust": tuple(adjust), "event_value": event_value.strip() or None}, ["survival"])
    show_result(run, "survival")


@st.fragment
def group_section(run: ScoredTable) -> None:
    st.header(_("Group statistics"))
    st.caption(_("The mean and median of a number in each group, real against avatars."))
    groups, numbers = columns_of(run, numeric=False, levels=GROUP_LEVELS), columns_of(run, numeric=True, dates=False)
    with st.form("group_form"):
        first, second = st.columns(2)
        with first:
            group = pick(_("Groups"), groups, shown(run, "group_statistics", "group", request(run).group),
                         optional=True, key=keyed(run, "group_group"))
        with second:
            value = pick(_("Number (none: every number)"), numbers,
                         shown(run, "group_statistics", "value", request(run).value), optional=True,
                         key=keyed(run, "group_value"))
        if st.form_submit_button(_("Compare the groups"), icon=":material/play_arrow:",
                                 key="FormSubmitter:group_form-Compare the groups"):
            run_analyses(run, {"group": group, "value": value}, ["group_statistics"])
    show_result(run, "group_statistics")
