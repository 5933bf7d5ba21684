"""Privacy: how well the avatars protect the individuals, metric by metric, with targets."""

import streamlit as st

from core.metrics.registry import DEFINITIONS
from core.presentation import figures
from core.presentation.format import metric_text
from core.workflows.advice import privacy_advice
from dashboard import state
from dashboard.widgets import plot, targets_met

st.title("Privacy")
run = state.require_run()
privacy = run.evaluation.privacy
st.write(
    "Each card compares the avatars with the real people they were made from, in the latent space where similar "
    "people sit close together. Green: the target is met."
)

cards = list(privacy.values())
for row in range(0, len(cards), 3):
    for column, result in zip(st.columns(3), cards[row: row + 3]):
        with column.container(border=True):
            st.metric(result.label, metric_text(result, DEFINITIONS[result.name].unit))
            if result.passed is None:
                st.badge("not applicable", color="gray")
            elif result.passed:
                st.badge(f"target {result.target_text}: met", icon=":material/check:", color="green")
            else:
                st.badge(f"target {result.target_text}: missed", icon=":material/close:", color="red")
            st.caption(result.not_applicable or result.interpretation)

advice = privacy_advice(run.evaluation, run.settings.method, run.settings.k, run.settings.epsilon)
met, applicable, why = targets_met(run)
if applicable < len(privacy):
    st.caption(why)
if advice:
    st.header("What to do")
    st.write(f"{met} of the {applicable} applicable targets are met.")
    for line in advice:
        st.warning(line, icon=":material/lightbulb:")
elif met == applicable:
    st.success(f"All {applicable} applicable targets are met.", icon=":material/verified_user:")

st.header("Distances")
for name, figure in figures.privacy_figures(privacy).items():
    plot(figure, key=name)
