"""Trade-off: sweep k and epsilon, see utility against privacy for every setting, compare two, take one."""

import streamlit as st

from core.engine.parameters import MECHANISMS
from core.errors import InputError
from core.i18n import N_, _, number
from core.metrics.registry import DEFINITIONS, TARGETS
from core.presentation import figures
from core.presentation.sweep_table import comparison_table, sweep_rows
from core.workflows.linked_run import generate_linked
from core.workflows.run import describe, generate, replace_method
from core.workflows.search_space import EPSILON_STEPS, K_STEPS
from core.workflows.sweep import (
    PRIVACY_METRICS,
    UTILITY_METRICS,
    advised,
    privacy_axes,
    recommendation,
    run_linked_sweep,
    run_sweep,
    sweep_settings,
    swept_dataset,
)
from dashboard import jobs, language, state
from dashboard.text import plain
from dashboard.widgets import choose, live_sweep, plot, table

LABELS = {**UTILITY_METRICS, **PRIVACY_METRICS}
SPREAD_NOTE = N_("Each marker is the mean over the seeds; its bars reach the lowest and the highest value a seed gave. "
                 "Filled marker: every seed meets every privacy target. Hollow marker: at least one seed misses one.")

language.use_session_language()  # first: this run's messages in the session's language
jobs.apply_ended()  # a job ended since the last run: its result first
st.title(_("Trade-off explorer"))
linked = state.require_run() if state.dataset() is not None else None  # linked tables: one table's setting swept
loaded = state.require_table() if linked is None else None
st.write(_(
    "Try several settings at once: each is run with several seeds and scored with every metric, so that each point "
    "shows its average and how much it varies from seed to seed. Up and right is better: more signal, more privacy."
))
shown_labels = {name: DEFINITIONS[name].axis_label for name in LABELS}  # the metrics' axis labels, in the language

swept = None if linked is None else st.selectbox(
    _("The table whose setting is swept"), [name for name in linked.dataset.top_down()
                                            if not linked.dataset.is_series(name)], key="sweep_table",
    help=_("The other tables keep the current run's settings; each point is scored on the people the table "
           "describes, each with everything about them."))
with st.form("sweep"):
    k_values = choose(_("Avatar: k values"), K_STEPS, default=[2, 5, 10, 20, 50], key="sweep_k")
    epsilons = choose(_("AvatarFastDP: epsilon values"), EPSILON_STEPS, default=[0.1, 1.0, 10.0],
                              format_func=lambda v: number(v, "g"), key="sweep_epsilons")
    mechanisms = choose(_("AvatarFastDP: models"), MECHANISMS, default=["gaussian"], key="sweep_mechanisms")
    seeds = st.slider(_("Seeds per setting"), 1, 5, 3, key="sweep_seeds",
                      help=_("More seeds: a better idea of the spread, a longer sweep."))
    submitted = st.form_submit_button(_("Run the sweep"), type="primary", icon=":material/scatter_plot:",
                                      key="FormSubmitter:sweep-Run the sweep")

if submitted:
    try:
        settings = sweep_settings(sorted(k_values), sorted(epsilons), mechanisms if epsilons else ())
    except InputError as error:
        st.error(plain(error))
        st.stop()
    base = (state.generation_plan(), state.current_parameters()) if linked is None else None
    total = len(settings) * seeds
    sweep_number = st.session_state.get("sweep_result", {}).get("number", 0) + 1  # the widgets below are keyed by it
    st.session_state["sweep_result"] = {"points": [], "total": total, "done": 0, "base": base, "number": sweep_number}
    show = live_sweep(total, "hidden_rate" if k_values else "distance_to_closest", shown_labels, sweep_number)
    try:
        if linked is not None:
            run_linked_sweep(linked, state.dataset().frames, swept, settings, seeds, on_result=show)
        else:
            run_sweep(loaded.frame, base[0], base[1], settings, seeds, on_result=show)
    except InputError as error:
        st.error(plain(error))
        st.stop()
    st.rerun()

sweep = st.session_state.get("sweep_result")
if not sweep or not sweep["points"]:
    st.info(_("Choose the settings and run the sweep."))
    st.stop()
points, sweep_number = sweep["points"], sweep["number"]
if sweep["done"] < sweep["total"]:
    st.warning(_("Sweep stopped after {done} of {total} runs: the points below use the seeds run.").format(
        done=number(sweep["done"]), total=number(sweep["total"])))

advise = st.success if any(p.meets_targets() for p in points) else st.warning
advise(recommendation(points), icon=":material/lightbulb:")
best = advised(points)
best_index = next((i for i, point in enumerate(points) if point is best), None)

left, right = st.columns(2)
utility = left.selectbox(_("Utility (vertical)"), list(UTILITY_METRICS), format_func=shown_labels.get,
                         key=f"utility_{sweep_number}")
axes, first_axis = privacy_axes(points, best)
privacy = right.selectbox(_("Privacy (horizontal)"), axes, format_func=shown_labels.get, key=f"privacy_{sweep_number}",
                          index=first_axis)
selection = plot(figures.tradeoff_figure(points, utility, privacy, TARGETS[privacy], shown_labels, best_index),
                 key=f"tradeoff_{sweep_number}", on_select="rerun", selection_mode="points")
st.caption(_(SPREAD_NOTE))
hidden = [p.setting.label for p in points if p.mean(privacy) is None]
if hidden:
    st.caption(_(
        "Not shown: {settings}, which have no {metric} (AvatarFastDP avatars are not paired with real people). Choose "
        "distance to closest to place them."
    ).format(settings=", ".join(hidden), metric=shown_labels[privacy]))
clicked = [point["customdata"] for point in (selection.selection.points if selection else []) if "customdata" in point]
with st.expander(_("All the figures, as a table")):
    table(sweep_rows(points))
    st.caption(_("Each figure: the mean over the seeds, then the lowest and the highest seed in brackets."))

st.header(_("Take a setting"))
labels = [point.setting.label for point in points]
pick = st.selectbox(_("Setting"), range(len(points)), index=clicked[0] if clicked else best_index or 0,
                    format_func=labels.__getitem__, help=_("Or click a point of the chart."),
                    key=f"pick_{sweep_number}_{clicked[:1]}")
if st.button(_("Make {setting} the current run").format(setting=labels[pick]), icon=":material/check:",
             key=f"take_{sweep_number}"):
    setting, said = points[pick].setting, _("{setting} is now the current run: the Generate, Utility, Privacy and "
                                            "Report pages show it.").format(setting=labels[pick])
    if linked is not None:
        made, frames = swept_dataset(linked, swept, setting), state.dataset().frames
        jobs.wait(jobs.start("run", _("Avatars of {table} with {setting}").format(table=swept, setting=labels[
            pick]), lambda progress: generate_linked(made, frames, linked.parameters, knowledge=linked.knowledge,
                                                     fingerprint=linked.fingerprint, search=False,
                                                     progress=progress, release=linked.release), said=said))
    else:
        plan, base = sweep["base"]
        release = state.release_context()
        chosen = replace_method(base, setting.method, setting.value, setting.mechanism)
        jobs.wait(jobs.start("run", _("Avatars with {settings}").format(settings=describe(chosen)),
                             lambda progress: generate(loaded.frame, plan, chosen, table_name=loaded.name,
                                                       fingerprint=loaded.fingerprint, progress=progress,
                                                       release=release),
                             said=said))
jobs.show_error()
state.show_what_was_said()

st.header(_("Compare two settings"))
if len(points) >= 2:
    first, second = st.columns(2)
    a = first.selectbox(_("First"), range(len(points)), index=0, format_func=labels.__getitem__,
                        key=f"first_{sweep_number}")
    b = second.selectbox(_("Second"), range(len(points)), index=1, format_func=labels.__getitem__,
                         key=f"second_{sweep_number}")
    st.table(comparison_table(points[a], points[b]))
    plot(figures.comparison_figure(points[a], points[b]), key=f"comparison_{sweep_number}")
