"""The pages' pieces for linked tables (SPEC 12): the verdict of each person table, the relations between the
tables, the choice of a table, and the column editor of one table of several."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from core.dataset import Link, Role, Table
from core.engine.parameters import MAX_NB_POINTS, Parameters
from core.engine.schema import column_warning_lines
from core.i18n import _, number
from core.metrics.evaluation import Evaluation
from core.presentation import figures, series_figures
from core.presentation.analysis_figures import trend_figure
from core.presentation.analysis_text import analysis_notes, trend_reading, trend_table
from core.presentation.format import sequences_table
from core.presentation.parameter_labels import ALIGNMENT_LABELS, PROJECTION_LABELS, UNALIGNMENT_LABELS
from core.workflows.linked_run import (
    METHOD_SETTINGS,
    LinkedRun,
    TrendRequest,
    analysed_trend,
    applied_linked_fix,
    generate_linked,
)
from dashboard import jobs, state
from dashboard.plan import plan_from_table, plan_problem, plan_table
from dashboard.text import plain
from dashboard.widgets import apply_fix_button, column_editor, plot, signal_cards, table, verdict_message


def linked_verdict_box(run: LinkedRun) -> None:
    """The one verdict of linked tables: each individual-level table with everything about its people (its
    descendants' aggregates), why, what to change; the links whose keys do not all resolve."""
    verdict = run.verdict
    for name, person in verdict.persons.items():
        about = _("**{table}**, each person with everything about them ({tables}).").format(
            table=plain(name), tables=", ".join(plain(table) for table in _family(run, name)))
        verdict_message(person, about)
        if person.fix is not None and person.fix.made is not None and run is state.linked_run():
            apply_fix_button(person.fix.instruction,
                             lambda name=name: state.set_linked_run(applied_linked_fix(run, name)), key=name)
    for link in verdict.broken_links:
        st.error(_("**Not ready to share**: in {link}, some avatars name a parent that no avatar is.").format(
            link=plain(link)), icon=":material/link_off:")
    for link in run.sensitive_links():
        st.warning(_("{link} was linked in the original order: the avatars keep each real family's structure "
                     "(who has how many children, and which). Check it before sharing.").format(link=plain(link)),
                   icon=":material/warning:")


def kept_settings(current: LinkedRun | None, name: str) -> dict[str, object]:
    """Table ``name``'s own settings in the current run beyond its k (the ncp a fix applied), kept when the form
    makes the avatars again, and said under its k."""
    own = current.dataset.tables[name].parameters if current is not None and name in current.dataset.tables else {}
    kept = {key: value for key, value in own.items() if key not in METHOD_SETTINGS}
    if "ncp" in kept:
        st.caption(_("{table}: people compared on {ncp} dimensions (the fix applied), kept.").format(
            table=plain(name), ncp=kept["ncp"]))
    return kept


def linked_avatars_of_every_row(run: LinkedRun, frames: dict[str, pd.DataFrame]) -> None:
    """The Generate page's offer once linked avatars are assessed against a holdout of whole families: the avatars
    of every row with the same settings (a second run, its privacy measured on every person), or, once made, what
    they are."""
    st.subheader(_("Avatars to share"))
    st.write(_("These avatars were made from half of the people (with everything about them), so that the other half "
               "could measure them. To share avatars of every row, make them with the same settings: their privacy "
               "is then measured on every person (utility against halves of the families)."))
    release = state.linked_release()
    if release is None:
        if st.button(_("Make the avatars to share from every row with these settings"), icon=":material/select_all:",
                     key="make_linked_release"):
            every_row = replace(run.parameters, holdout=False)
            jobs.wait(jobs.start("linked_release", _("The avatars of every row"), lambda progress: generate_linked(
                run.dataset, frames, every_row, knowledge=run.knowledge, fingerprint=run.fingerprint,
                progress=progress)))
    else:
        st.success(_("{summary} Their privacy, measured on every person:").format(summary=release.summary()),
                   icon=":material/select_all:")
        linked_verdict_box(release)
        st.page_link("pages/linked_report.py", label=_("Download them"), icon=":material/download:")


def _family(run: LinkedRun, name: str) -> list[str]:
    """``name`` and its descendants, in the order of synthesis."""
    family, waiting = [name], [name]
    while waiting:
        children = [link.child for link in run.dataset.child_links(waiting.pop()) if link.child not in family]
        family += children
        waiting += children
    return [table for table in run.dataset.top_down() if table in family]


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


def table_choice(names: list[str], label: str, key: str, *, format_func=str) -> str:
    """A choice among tables, kept while the pages change (a radio: every table in view)."""
    held = st.session_state.get(f"{key}_held")
    chosen = st.radio(label, names, index=names.index(held) if held in names else 0, horizontal=True, key=key,
                      format_func=format_func)
    st.session_state[f"{key}_held"] = chosen
    return chosen


def evaluation_choice(run: LinkedRun, label: str, key: str) -> tuple[str, Evaluation]:
    """A choice between each individual-level table with everything about its people (its descendants'
    aggregates as columns) and each table alone: its key (``person:patients``, ``table:stays``) and evaluation."""
    evaluations = {f"person:{name}": (_("{table}, each person with everything about them").format(table=name),
                                      evaluation) for name, evaluation in run.evaluation.persons.items()}
    evaluations |= {f"table:{name}": (_("{table} alone").format(table=name), evaluation)
                    for name, evaluation in run.evaluation.tables.items()}
    chosen = table_choice(list(evaluations), label, key, format_func=lambda option: evaluations[option][0])
    return chosen, evaluations[chosen][1]


def require_linked_run() -> LinkedRun:
    """The linked run, or a note with a link to the Generate page, and the page stops there."""
    run = state.linked_run()
    if run is None:
        st.info(_("No avatars yet: generate them on the Generate page."))
        st.page_link("pages/linked_generate.py", label=_("Go to Generate"), icon=":material/auto_awesome:")
        st.stop()
    return run


def table_signal(evaluation: Evaluation, key: str) -> None:
    """One table's signal: its cards, each variable's score and its distributions, real against avatars."""
    signal_cards(evaluation.signal.values())
    hellinger = evaluation.signal["hellinger_mean"]
    if hellinger.value is not None:
        plot(figures.hellinger_scores_figure(hellinger), key=f"hellinger_{key}")
        names = [row["variable"] for row in sorted(hellinger.breakdown["per_variable"], key=lambda row: row["score"])]
        name = st.selectbox(_("Compare the distributions of"), names, help=_("Variables are listed worst first."),
                            key=f"distribution_{key}")
        split = evaluation.split
        plot(figures.distribution_figure(split.working[name], split.working_avatars[name], name,
                                         evaluation.kinds[name].value == "categorical"), key=f"distribution_{key}_plot")
    correlation = evaluation.signal["correlation_difference_ratio"]
    if correlation.value is not None:
        plot(figures.correlation_figure(correlation), key=f"correlations_{key}")


def table_columns_section(name: str) -> None:
    """One table's columns: its keys and its time (a series') said, the others in the Data page's column editor (a
    key or a time takes no other role); the table's plan kept in the session as edited."""
    loaded, schema = state.dataset().tables[name], state.schema()
    keys, time = schema.keys_of(name), schema.times.get(name)
    if keys:
        st.caption(_("Keys: {keys}. The avatars get new keys of the same form, the links written from the linkage; "
                     "nothing of the real ones.").format(keys=", ".join(plain(key) for key in keys)))
    if time:
        st.caption(_("Time: {time}. Each avatar's measures get times of their own, strictly increasing, within the "
                     "real span.").format(time=plain(time)))
    profiles = [profile for profile in loaded.profiles if profile.name not in keys and profile.name != time]
    rows = _plan_rows(name, profiles)
    edited = column_editor(rows, profiles, key=f"plan_editor_{loaded.source_id}_{'_'.join([*keys, time or ''])}")
    st.session_state["plan_rows"] = {**st.session_state.get("plan_rows", {}), name: edited}
    described = plan_from_table(edited, profiles, name)
    for line in column_warning_lines(profiles, dict(zip(edited["column"], edited["kind"], strict=True)),
                                     dropped=described.with_role(Role.DROPPED),
                                     excluded=described.with_role(Role.SET_APART)):
        st.warning(plain(line), icon=":material/warning:")
    problem = plan_problem(edited, profiles) if len(edited) else None
    if problem:
        problem = _("Table '{table}': {problem}").format(table=name, problem=problem)
        st.error(plain(problem))
    state.set_plan_problem(name, problem)
    if problem is None:
        state.set_table_plan(described)


def _plan_rows(name: str, profiles: list) -> pd.DataFrame:
    """The table's column rows as last edited (those that are keys now left out, new ones with their defaults)."""
    held = st.session_state.get("plan_rows", {}).get(name)
    fresh = plan_table(profiles)
    if held is None:
        return fresh
    kept = held[held["column"].isin(fresh["column"])]
    return pd.concat([kept, fresh[~fresh["column"].isin(kept["column"])]], ignore_index=True)


def sizes_caption() -> str:
    """The tables and their rows, in one line."""
    tables = state.dataset().tables
    return ", ".join(_("{table} ({rows} rows)").format(table=plain(name), rows=number(len(loaded.frame), ","))
                     for name, loaded in tables.items())


def series_settings(table: Table, link: Link, frame: pd.DataFrame, before: dict[str, object], version: int
                    ) -> dict[str, object]:
    """The Generate form's settings of a time series table (SPEC 13): how each person's measures are read (the
    grid's points, the components kept, the projection, the alignment) and put back on times; ``before``, the
    last run's values."""
    st.markdown(_("**{table}** ({rows} measures): a time series; each avatar of {parent} gets its measures, rebuilt "
                  "from its trajectory.").format(table=plain(table.name), rows=number(len(frame), ","), parent=plain(link.parent)))
    defaults = Parameters().with_values({key: value for key, value in before.items()
                                         if key in Parameters.names("series")})
    first, second, third = st.columns(3)
    chosen = {
        "nb_points": int(first.number_input(
            _("Points per curve"), 2, MAX_NB_POINTS, defaults.nb_points, key=f"series_points_{table.name}_{version}",
            help=_("Each person's measures are read at this many evenly spaced points of their own follow-up (nb_points; "
                   "5 to 20 keep a curve's shape)."))),
        "nf": int(second.number_input(
            _("Shapes kept per variable"), 1, MAX_NB_POINTS, defaults.nf, key=f"series_nf_{table.name}_{version}",
            help=_("The number of main shapes (functional principal components) kept of each variable's curves (nf): "
                   "more keeps more detail of each trajectory."))),
        "projection_type": third.selectbox(
            _("Each curve as"), list(PROJECTION_LABELS), index=list(PROJECTION_LABELS).index(defaults.projection_type),
            format_func=lambda value: _(PROJECTION_LABELS[value]), key=f"series_projection_{table.name}_{version}"),
    }
    first, second = st.columns(2)
    chosen["alignment"] = first.selectbox(
        _("Points per curve from"), list(ALIGNMENT_LABELS), index=list(ALIGNMENT_LABELS).index(defaults.alignment),
        format_func=lambda value: _(ALIGNMENT_LABELS[value]), key=f"series_alignment_{table.name}_{version}")
    chosen["unalignment"] = second.selectbox(
        _("Each avatar's times"), list(UNALIGNMENT_LABELS), index=list(UNALIGNMENT_LABELS).index(defaults.unalignment),
        format_func=lambda value: _(UNALIGNMENT_LABELS[value]), key=f"series_unalignment_{table.name}_{version}")
    return chosen
