"""The Analysis page's helpers: the study the user describes, running its analyses with progress, and each
analysis's reading, figures and tables."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import streamlit as st

from core.engine.schema import Kind
from core.errors import InputError
from core.i18n import N_, _, number
from core.metrics.analysis.design import MAX_LEVELS, default_predictors
from core.metrics.analysis.request import TITLES, AnalysisNotRun, AnalysisRequest, suggested_request
from core.metrics.evaluation import analyse
from core.presentation.analysis_figures import analysis_figures
from core.presentation.analysis_text import analysis_notes, analysis_tables, reading
from core.workflows.run import GenerationRun
from dashboard import state
from dashboard.text import plain
from dashboard.widgets import choose, plot, table

NONE = N_("(none)")  # the "no column" choice: this value, shown translated
ROW_PX, MAX_ROWS_SHOWN = 35, 30  # tables shown whole up to this many rows, then scrolled


def request(run: GenerationRun) -> AnalysisRequest:
    """The study as last described for this table, or a first guess from its columns."""
    chosen = st.session_state.get("analysis_request")
    if chosen is None:
        chosen = suggested_request(run.evaluation.split.working, run.evaluation.kinds)
        st.session_state["analysis_request"] = chosen
    return chosen


def run_analyses(run: GenerationRun, changes: dict[str, object], names: Iterable[str]) -> None:
    """Update the study with ``changes`` and run the analyses ``names`` on ``run`` with a progress bar; an analysis
    that cannot run keeps its plain message (shown in its section) and the others go on."""
    chosen = replace(request(run), **changes)
    st.session_state["analysis_request"] = chosen
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
    state.forget_run_files(run)  # the report and the JSON now hold these analyses


def show_result(run: GenerationRun, name: str) -> None:
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


def shown(run: GenerationRun, name: str, field: str, default):
    """What the section's result was run with (its form starts there), else ``default``: after another section
    changed the shared study, each form still shows the choices of the result under it."""
    result = run.evaluation.analyses.get(name)
    if name == "group_statistics" and field == "value" and getattr(result, "tables", None):
        return result.tables[0].value if len(result.tables) == 1 else default
    return getattr(result, field, default)


def predictors_box(run: GenerationRun, name: str, outcome: str | None) -> tuple[str, ...] | None:
    """A predictors box starting at those of ``name``'s last result (shown empty when they were every other
    column); None for every other column."""
    evaluation, study = run.evaluation, request(run)
    every = [column for column in evaluation.kinds if column != outcome]
    chosen = shown(run, name, "predictors", study.predictors) or ()
    defaults = default_predictors(evaluation.kinds, evaluation.split.working, outcome)[0] if outcome else ()
    chosen = () if set(chosen) in (set(every), set(defaults)) else chosen
    picked = choose(_("Predictors (empty: every other column but those that give the outcome exactly)"), every,
                    key=f"{name}_predictors", default=[column for column in chosen if column in every],
                    help=_("Leave out what would not be known when predicting (a follow-up time, an identifier)."))
    return None if not picked or sorted(picked) == sorted(every) else tuple(picked)


def columns_of(run: GenerationRun, *, numeric: bool | None = None, levels: tuple[int, int] | None = None,
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
