"""Utility: how much of the data's signal the avatars keep."""

import streamlit as st

from core.engine.schema import Kind
from core.metrics.correlation_difference_ratio import correlation_direction
from core.metrics.registry import DEFINITIONS
from core.presentation import figures
from core.presentation.analysis_text import hellinger_spread
from core.presentation.format import bands_text, holdout_sentence, metric_text
from dashboard import state
from dashboard.widgets import plot, signal_badge

st.title("Utility")
run = state.require_run()
signal = run.evaluation.signal
hellinger, correlation, multivariate = (
    signal["hellinger_mean"], signal["correlation_difference_ratio"], signal["multivariate_hellinger_distance"]
)
st.write(holdout_sentence(run.evaluation))

columns = st.columns(len(signal))
for column, result in zip(columns, signal.values()):
    with column.container(border=True):
        st.metric(result.label, metric_text(result, DEFINITIONS[result.name].unit))
        signal_badge(result)
        if result is correlation and result.value is not None:
            st.write(correlation_direction(result))
        st.caption(result.not_applicable or result.interpretation)
        if result.computation:
            with st.expander("How it is computed"):
                st.caption(result.computation)

st.header("Each variable")
st.write(hellinger_spread(run.evaluation))
plot(figures.hellinger_scores_figure(hellinger), key="hellinger_bars")


@st.fragment
def distribution_section() -> None:
    """Reruns alone when another variable is chosen (the figures above and below are not rebuilt)."""
    names = [row["variable"] for row in sorted(hellinger.breakdown["per_variable"], key=lambda row: row["score"])]
    name = st.selectbox("Compare the distributions of", names, help="Variables are listed worst first.")
    categorical = run.avatarizer.kinds_[name] is Kind.CATEGORICAL
    figure = figures.distribution_figure(run.avatarizer.working_data_[name], run.avatars[name], name, categorical)
    plot(figure, key="distribution")


distribution_section()

st.header("Relationships between variables")
if correlation.value is None:
    st.info(f"Correlation Difference Ratio: {correlation.not_applicable}")
else:
    st.write(
        f"Mean gap between the correlations of the originals and of the avatars: "
        f"**{correlation.breakdown['avatar_difference']:.1f}** points, against "
        f"**{correlation.breakdown['reference_difference']:.1f}** between two halves of the real data"
        + (f" (reference scaled by kappa = {correlation.breakdown['kappa']:.2f} for large tables)"
           if correlation.breakdown["kappa"] > 1 else "") + "."
    )
    plot(figures.correlation_figure(correlation), key="correlations")

st.header("The latent space")
st.write(
    "Each point is a person (blue) or an avatar (orange), placed by the projection that summarises all the "
    "columns: people who look alike sit close together. Avatars should cover the same regions as the originals "
    "without sitting exactly on them."
)


@st.fragment
def latent_section() -> None:
    """Reruns alone when the view or an axis changes."""
    latent = run.latent
    n_axes = latent.originals.shape[1]
    options = list(range(n_axes))
    label = lambda axis: f"axis {axis + 1} ({100 * latent.explained_variance_ratio[axis]:.1f} %)"
    view = st.segmented_control("View", ["2-D", "3-D"], default="2-D", key="latent_view") if n_axes >= 3 else "2-D"
    chosen = st.columns(3 if view == "3-D" else 2)
    axes = tuple(
        column.selectbox(f"{which} axis", options, index=min(position, n_axes - 1), format_func=label, key=f"axis_{which}")
        for position, (column, which) in enumerate(zip(chosen, ("horizontal", "vertical", "depth")))
    )
    plot(figures.latent_figure(latent, axes), key="latent")


latent_section()

st.header("Distance on each axis")
st.write(f"{multivariate.label}: **{metric_text(multivariate)}** ({multivariate.band or 'n/a'}). "
         f"{bands_text(DEFINITIONS[multivariate.name]).capitalize()}.")
if multivariate.value is not None:
    plot(figures.multivariate_axes_figure(multivariate), key="axes")
    st.caption(figures.axes_figure_caption(multivariate))
