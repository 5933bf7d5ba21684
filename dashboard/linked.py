"""The sections only linked tables have (SPEC 12, 13): the relations between the tables on the Utility page, each
time series' measures over time, and its trend on the Analysis page."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.i18n import _
from core.presentation import figures, series_figures
from core.presentation.analysis_figures import trend_figure
from core.presentation.analysis_text import analysis_notes, trend_reading, trend_table
from core.presentation.format import sequences_table
from core.workflows.linked_run import LinkedRun, TrendRequest, analysed_trend
from dashboard import state
from dashboard.text import plain
from dashboard.widgets import plot, signal_cards, table


def relations_between_tables(run: LinkedRun) -> None:
    """The Relations section: per link, its metrics (referential integrity, children per parent, the join's
    distributions and correlations against two real halves) and the children per parent, real against avatars."""
    st.header(_("Relations between the tables"))
    st.write(_("Each link, parent to child: whether every avatar's parent exists, how many children each parent has "
               "(real against avatars), and whether the join of parent and child keeps its distributions and "
               "correlations, against the gap between two real halves of the families."))
    for position, (link, metrics) in enumerate(run.evaluation.links.items()):
        st.subheader(plain(link), anchor=False)
        signal_cards(metrics.values())
        if "broken_sequences" in metrics:
            headers, rows = sequences_table(metrics["broken_sequences"])
            if rows:
                table(pd.DataFrame(rows, columns=headers), key=f"sequences_{position}")
        plot(figures.children_per_parent_figure(metrics["children_per_parent"], link), key=f"children_{position}")


def measures_over_time(run: LinkedRun) -> None:
    """Each time series (SPEC 13): its metrics as cards with their readings, then for a variable (and a group) a
    sample of real persons' trajectories beside avatars' and the mean curve with its band, real against avatars."""
    for position, (link, metrics) in enumerate(run.evaluation.series.items()):
        view = run.evaluation.series_views[link]
        st.header(_("Measures over time: {table}").format(table=plain(view.table)))
        st.write(_("Each person's measures of {table} as one trajectory: the values at each moment of the follow-up, "
                   "the shapes of the curves, how many measures over how long, and each person's level, trend and "
                   "changes, against the gap between two real samples of persons.").format(table=plain(view.table)))
        signal_cards(metrics.values())
        if not view.numbers:
            continue
        first, second = st.columns(2)
        value = first.selectbox(_("Variable"), view.numbers, key=f"series_value_{position}")
        group = second.selectbox(_("Curves by"), [None, *view.groups], key=f"series_group_{position}",
                                 format_func=lambda option: _("(none)") if option is None else str(option))
        plot(series_figures.trajectories_figure(view, value, seed=run.fitted.seed_), key=f"trajectories_{position}")
        plot(series_figures.mean_curves_figure(view, value, group), key=f"mean_curves_{position}")


def trend_section(run: LinkedRun) -> None:
    """The Analysis page's trend of each time series (SPEC 13): a variable and a group chosen, the mixed model fitted
    on the real persons, the avatars and the holdout, its reading, figure and table."""
    for position, (link, view) in enumerate(run.evaluation.series_views.items()):
        if not view.numbers:
            continue
        st.header(_("Trend over time: {table}").format(table=plain(view.table)))
        st.caption(_("A mixed model of a variable over time, each person with their own level and slope, fitted on the "
                     "real persons, on the avatars and on the holdout: would a study of the trend conclude the same "
                     "on the avatars?"))
        held = run.evaluation.trends.get(link)
        with st.form(f"trend_form_{position}"):
            first, second = st.columns(2)
            value = first.selectbox(_("Variable"), view.numbers, key=f"trend_value_{position}",
                                    index=view.numbers.index(held.value) if held else 0)
            groups = [None, *view.groups]
            group = second.selectbox(_("Trend by"), groups, key=f"trend_group_{position}",
                                     index=groups.index(held.group) if held and held.group in groups else 0,
                                     format_func=lambda option: _("(none)") if option is None else str(option))
            submitted = st.form_submit_button(_("Fit the trend"), icon=":material/play_arrow:")
        if submitted:
            with st.spinner(_("The trend on the real persons, the avatars and the holdout…"), show_time=True):
                held = analysed_trend(run.evaluation, run.dataset, TrendRequest(value, group, view.table))
            state.forget_run_files(run)  # the report and the JSON now hold this trend
        if held is None:
            continue
        st.info(plain(trend_reading(held)), icon=":material/lightbulb:")
        for note in analysis_notes(held):
            st.caption(plain(note))
        plot(trend_figure(held), key=f"trend_figure_{position}")
        table(trend_table(held), key=f"trend_table_{position}")
