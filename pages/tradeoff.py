"""Trade-off: sweep k and epsilon, see utility against privacy for every setting, compare two, take one."""

import time

import streamlit as st

from core.engine.fast_dp import MECHANISMS
from core.errors import InputError
from core.metrics.registry import TARGETS
from core.presentation import figures
from core.presentation.sweep_table import comparison_table, sweep_rows
from core.workflows.advice import EPSILON_STEPS, K_STEPS
from core.workflows.run import replace_method
from core.workflows.sweep import PRIVACY_METRICS, UTILITY_METRICS, recommendation, run_sweep, sweep_settings
from core.workflows.verdict import generate_judged
from dashboard import state
from dashboard.widgets import plot, run_with_progress

LABELS = {**UTILITY_METRICS, **PRIVACY_METRICS}
LIVE_REDRAW_S = 2.0
SPREAD_NOTE = ("Each marker is the mean over the seeds; its bars reach the lowest and the highest value a seed gave. "
               "Filled marker: every seed meets every privacy target. Hollow marker: at least one seed misses one.")

st.title("Trade-off explorer")
loaded = state.require_table()
st.write(
    "Try several settings at once: each is run with several seeds and scored with every metric, so that each point "
    "shows its average and how much it varies from seed to seed. Up and right is better: more signal, more privacy."
)

with st.form("sweep"):
    k_values = st.multiselect("Avatar: k values", K_STEPS, default=[2, 5, 10, 20, 50])
    epsilons = st.multiselect("AvatarFastDP: epsilon values", EPSILON_STEPS, default=[0.1, 1.0, 10.0],
                              format_func=lambda v: f"{v:g}")
    mechanisms = st.multiselect("AvatarFastDP: models", MECHANISMS, default=["gaussian"])
    seeds = st.slider("Seeds per setting", 1, 5, 3, help="More seeds: a better idea of the spread, a longer sweep.")
    submitted = st.form_submit_button("Run the sweep", type="primary", icon=":material/scatter_plot:")

if submitted:
    try:
        settings = sweep_settings(sorted(k_values), sorted(epsilons), mechanisms if epsilons else ())
    except InputError as error:
        st.error(str(error))
        st.stop()
    base = state.generation_plan(), state.current_settings()
    total = len(settings) * seeds
    number = st.session_state.get("sweep_result", {}).get("number", 0) + 1  # the widgets below are keyed by it
    st.session_state["sweep_result"] = {"points": [], "total": total, "done": 0, "base": base, "number": number}
    st.button("Stop the sweep", icon=":material/stop_circle:", help="The settings already run are kept.")
    bar = st.progress(0.0, text=f"0 of {total} runs")
    live = st.empty()

    drawn = [0.0]  # when the live chart was last drawn: redrawn at most every LIVE_REDRAW_S (plotly needs time)

    def show(point, seed):
        sweep = st.session_state["sweep_result"]
        if point not in sweep["points"]:
            sweep["points"].append(point)
        sweep["done"] += 1
        bar.progress(sweep["done"] / total, text=f"{sweep['done']} of {total} runs: {point.setting.label}, seed {seed}")
        if time.monotonic() - drawn[0] >= LIVE_REDRAW_S:
            drawn[0] = time.monotonic()
            with live.container():
                plot(figures.tradeoff_figure(
                    sweep["points"], "hellinger_mean", "hidden_rate" if k_values else "distance_to_closest", None,
                    LABELS), key=f"live_{number}_{sweep['done']}")

    try:
        run_sweep(loaded.frame, base[0], base[1], settings, seeds, on_result=show)
    except InputError as error:
        st.error(str(error))
        st.stop()
    st.rerun()

sweep = st.session_state.get("sweep_result")
if not sweep or not sweep["points"]:
    st.info("Choose the settings and run the sweep.")
    st.stop()
points, number = sweep["points"], sweep["number"]
if sweep["done"] < sweep["total"]:
    st.warning(f"Sweep stopped after {sweep['done']} of {sweep['total']} runs: the points below use the seeds run.")

(st.success if any(p.meets_targets() for p in points) else st.warning)(recommendation(points), icon=":material/lightbulb:")

left, right = st.columns(2)
utility = left.selectbox("Utility (vertical)", list(UTILITY_METRICS), format_func=LABELS.get, key=f"utility_{number}")
privacy = right.selectbox("Privacy (horizontal)", [name for name in PRIVACY_METRICS if any(
    point.mean(name) is not None for point in points)], format_func=LABELS.get, key=f"privacy_{number}")
selection = plot(figures.tradeoff_figure(points, utility, privacy, TARGETS[privacy], LABELS), key=f"tradeoff_{number}",
                 on_select="rerun", selection_mode="points")
st.caption(SPREAD_NOTE)
hidden = [p.setting.label for p in points if p.mean(privacy) is None]
if hidden:
    st.caption(
        f"Not shown: {', '.join(hidden)}, which have no {LABELS[privacy]} (AvatarFastDP avatars are not paired with "
        "real people). Choose distance to closest to place them."
    )
clicked = [point["customdata"] for point in (selection.selection.points if selection else []) if "customdata" in point]
with st.expander("All the figures, as a table"):
    st.dataframe(sweep_rows(points), hide_index=True)
    st.caption("Each figure: the mean over the seeds, then the lowest and the highest seed in brackets.")

st.header("Take a setting")
labels = [point.setting.label for point in points]
pick = st.selectbox("Setting", range(len(points)), index=clicked[0] if clicked else 0, format_func=labels.__getitem__,
                    help="Or click a point of the chart.", key=f"pick_{number}_{clicked[:1]}")
if st.button(f"Make {labels[pick]} the current run", icon=":material/check:", key=f"take_{number}"):
    plan, settings = sweep["base"]
    setting = points[pick].setting
    state.set_run(run_with_progress(lambda progress: generate_judged(
        loaded.frame, plan, replace_method(settings, setting.method, setting.value, setting.mechanism),
        table_name=loaded.name, fingerprint=loaded.fingerprint, progress=progress)))
    state.say_after_rerun(f"{labels[pick]} is now the current run: the Generate, Utility, Privacy and Report pages "
                          "show it.")
    st.rerun()
state.show_what_was_said()

st.header("Compare two settings")
if len(points) >= 2:
    first, second = st.columns(2)
    a = first.selectbox("First", range(len(points)), index=0, format_func=labels.__getitem__, key=f"first_{number}")
    b = second.selectbox("Second", range(len(points)), index=1, format_func=labels.__getitem__, key=f"second_{number}")
    st.table(comparison_table(points[a], points[b]))
    plot(figures.comparison_figure(points[a], points[b]), key=f"comparison_{number}")
