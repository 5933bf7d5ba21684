"""Trade-off: sweep k and epsilon, see utility against privacy for every setting, compare two, take one."""

import streamlit as st

from core import figures
from core.errors import InputError
from core.metrics.privacy import TARGETS
from core.run import generate, replace_method
from core.sweep import (
    PRIVACY_METRICS,
    UTILITY_METRICS,
    advice,
    comparison_table,
    run_sweep,
    sweep_settings,
    sweep_table,
)
from dashboard import state

K_CHOICES = [2, 3, 5, 10, 15, 20, 30, 50, 100]
EPSILON_CHOICES = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]
LABELS = {**UTILITY_METRICS, **PRIVACY_METRICS}

st.title("Trade-off explorer")
loaded = state.require_table()
st.write(
    "Try several settings at once: each is run with several seeds and scored with every metric, so that each point "
    "shows its average and how much it varies from seed to seed. Up and right is better: more signal, more privacy."
)

with st.form("sweep"):
    k_values = st.multiselect("Avatar: k values", K_CHOICES, default=[2, 5, 10, 20, 50])
    epsilons = st.multiselect(
        "AvatarFastDP: epsilon values", EPSILON_CHOICES, default=[0.1, 1.0, 10.0], format_func=lambda v: f"{v:g}"
    )
    mechanisms = st.multiselect("AvatarFastDP: models", ["gaussian", "gmm", "histogram"], default=["gaussian"])
    seeds = st.slider("Seeds per setting", 1, 5, 3, help="More seeds: a better idea of the spread, a longer sweep.")
    submitted = st.form_submit_button("Run the sweep", type="primary", icon=":material/scatter_plot:")

if submitted:
    try:
        settings = sweep_settings(sorted(k_values), sorted(epsilons), mechanisms if epsilons else ())
    except InputError as error:
        st.error(str(error))
        st.stop()
    base = state.plan(), state.current_settings()
    total = len(settings) * seeds
    st.session_state["sweep_result"] = {"points": [], "total": total, "done": 0, "base": base}
    st.button("Stop the sweep", icon=":material/stop_circle:", help="The settings already run are kept.")
    bar = st.progress(0.0, text=f"0 of {total} runs")
    live = st.empty()

    def show(point, seed):
        sweep = st.session_state["sweep_result"]
        if point not in sweep["points"]:
            sweep["points"].append(point)
        sweep["done"] += 1
        bar.progress(sweep["done"] / total, text=f"{sweep['done']} of {total} runs: {point.setting.label}, seed {seed}")
        live.plotly_chart(figures.tradeoff_figure(
            sweep["points"], "hellinger_mean", "hidden_rate" if k_values else "distance_to_closest",
            None, LABELS), theme=None, key=f"live_{sweep['done']}")

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
points = sweep["points"]
if sweep["done"] < sweep["total"]:
    st.warning(f"Sweep stopped after {sweep['done']} of {sweep['total']} runs: the points below use the seeds run.")

sentence = advice(points)
(st.success if any(p.meets_targets() for p in points) else st.warning)(sentence, icon=":material/lightbulb:")

left, right = st.columns(2)
utility = left.selectbox("Utility (vertical)", list(UTILITY_METRICS), format_func=LABELS.get)
privacy = right.selectbox("Privacy (horizontal)", ["hidden_rate", "local_cloaking", "distance_to_closest"],
                          format_func=LABELS.get)
selection = st.plotly_chart(
    figures.tradeoff_figure(points, utility, privacy, TARGETS[privacy], LABELS), theme=None, key="tradeoff",
    on_select="rerun", selection_mode="points",
)
st.caption("Filled marker: every seed meets every privacy target. Hollow marker: at least one seed misses one.")
hidden = [p.setting.label for p in points if p.mean(privacy) is None]
if hidden:
    st.caption(
        f"Not shown: {', '.join(hidden)}, which have no {LABELS[privacy]} (AvatarFastDP avatars are not paired with "
        "real people). Choose distance to closest to place them."
    )
chosen = [point["customdata"] for point in (selection.selection.points if selection else []) if "customdata" in point]
with st.expander("All the figures, as a table"):
    st.code("\n".join(sweep_table(points)), language=None)

st.header("Take a setting")
labels = [point.setting.label for point in points]
pick = st.selectbox("Setting", range(len(points)), index=chosen[0] if chosen else 0, format_func=labels.__getitem__,
                    help="Or click a point of the chart.")
if st.button(f"Make {labels[pick]} the current run", icon=":material/check:"):
    plan, settings = sweep["base"]
    setting = points[pick].setting
    st.session_state["run"] = generate(
        loaded.frame, plan, replace_method(settings, setting.method, setting.value, setting.mechanism),
        table_name=loaded.name, fingerprint=loaded.fingerprint,
    )
    st.success(f"{labels[pick]} is now the current run: the Utility, Privacy and Report pages show it.")

st.header("Compare two settings")
if len(points) >= 2:
    first, second = st.columns(2)
    a = first.selectbox("First", range(len(points)), index=0, format_func=labels.__getitem__, key="compare_a")
    b = second.selectbox("Second", range(len(points)), index=1, format_func=labels.__getitem__, key="compare_b")
    st.table(comparison_table(points[a], points[b]))
    st.plotly_chart(figures.comparison_figure(points[a], points[b]), theme=None, key="comparison")
