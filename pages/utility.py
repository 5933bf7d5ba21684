"""Utility: how much of the data's signal the avatars keep."""

import pandas as pd
import streamlit as st

from core.dataset import Kind
from core.i18n import N_, _, number
from core.metrics.correlation_difference_ratio import correlation_gaps
from core.metrics.registry import DEFINITIONS
from core.presentation import figures
from core.presentation.analysis_text import hellinger_spread
from core.presentation.format import bands_text, holdout_sentence, metric_text, relations_table
from dashboard import language, state
from dashboard.text import plain
from dashboard.widgets import plot, signal_cards, table

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Utility"))
run = state.require_run()
signal = run.evaluation.signal
hellinger, correlation, multivariate = (
    signal["hellinger_mean"], signal["correlation_difference_ratio"], signal["multivariate_hellinger_distance"]
)
st.write(holdout_sentence(run.evaluation))

signal_cards(signal.values())

st.header(_("Each variable"))
st.write(plain(hellinger_spread(run.evaluation)))
plot(figures.hellinger_scores_figure(hellinger), key="hellinger_bars")


@st.fragment
def distribution_section() -> None:
    """Reruns alone when another variable is chosen (the figures above and below are not rebuilt)."""
    names = [row["variable"] for row in sorted(hellinger.breakdown["per_variable"], key=lambda row: row["score"])]
    name = st.selectbox(_("Compare the distributions of"), names, help=_("Variables are listed worst first."),
                        key="distribution_variable")
    categorical = run.avatarizer.kinds_[name] is Kind.CATEGORICAL
    figure = figures.distribution_figure(run.avatarizer.working_data_[name], run.avatars[name], name, categorical)
    plot(figure, key="distribution")


distribution_section()

st.header(_("Relationships between variables"))
headers, relations = relations_table(signal["broken_relations"])
if relations:
    st.subheader(_("Relations between columns"))
    st.write(_("The rules that hold on every original row (or that you declared), and the share of rows breaking "
               "each: 0 % for the avatars when kept."))
    table(pd.DataFrame(relations, columns=headers), key="relations_table")
    st.subheader(_("Correlations"))
if correlation.value is None:
    st.info(_("Correlation Difference Ratio: {reason}").format(reason=_(correlation.not_applicable)))
else:
    st.write(plain(correlation_gaps(correlation)))
    plot(figures.correlation_figure(correlation), key="correlations")

st.header(_("The latent space"))
st.write(_(
    "Each point is a person (blue) or an avatar (orange), placed by the projection that summarises all the "
    "columns: people who look alike sit close together. Avatars should cover the same regions as the originals "
    "without sitting exactly on them."
))


@st.fragment
def latent_section() -> None:
    """Reruns alone when the view or an axis changes."""
    latent = run.latent
    n_axes = latent.originals.shape[1]
    options = list(range(n_axes))

    def label(axis: int) -> str:
        return _("axis {axis} ({share} %)").format(axis=axis + 1,
                                                 share=number(100 * latent.explained_variance_ratio[axis], ".1f"))

    views = [N_("2-D"), N_("3-D")]  # option values; shown translated
    view = (st.segmented_control(_("View"), views, default="2-D", format_func=_, key="latent_view")
            if n_axes >= 3 else "2-D")
    chosen = st.columns(3 if view == "3-D" else 2)
    titles = {"horizontal": _("horizontal axis"), "vertical": _("vertical axis"), "depth": _("depth axis")}
    axes = tuple(
        column.selectbox(titles[which], options, index=min(position, n_axes - 1), format_func=label,
                         key=f"axis_{which}")
        for position, (column, which) in enumerate(zip(chosen, ("horizontal", "vertical", "depth"), strict=False))
    )
    plot(figures.latent_figure(latent, axes), key="latent")


latent_section()

st.header(_("Distance on each axis"))
st.write(_("{label}: **{value}** ({band}). {bands}.").format(
    label=_(multivariate.label), value=metric_text(multivariate),
    band=_(multivariate.band) if multivariate.band else _("n/a"),
    bands=bands_text(DEFINITIONS[multivariate.name]).capitalize()))
if multivariate.value is not None:
    plot(figures.multivariate_axes_figure(multivariate), key="axes")
    st.caption(plain(figures.axes_figure_caption(multivariate)))
