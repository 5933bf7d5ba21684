"""Utility: how much of the data's signal the avatars keep: for linked tables, the relations between the tables
and each time series first; then a table's variables, relationships and latent space."""

import pandas as pd
import streamlit as st

from core.dataset import Kind
from core.i18n import N_, _, number
from core.metrics.correlation_difference_ratio import correlation_gaps
from core.metrics.registry import DEFINITIONS
from core.presentation import figures
from core.presentation.analysis_text import hellinger_spread
from core.presentation.format import bands_text, holdout_sentence, metric_text, relations_table
from core.workflows.linked_run import LinkedRun
from dashboard import jobs, language, state
from dashboard.linked import measures_over_time, relations_between_tables
from dashboard.text import plain
from dashboard.widgets import plot, scored_choice, signal_cards, table

language.use_session_language()  # first: this run's messages in the session's language
jobs.apply_ended()  # a job ended since the last run: its result first
st.title(_("Utility"))
run = state.require_run()
if isinstance(run, LinkedRun):
    relations_between_tables(run)
    measures_over_time(run)
    st.header(_("Each table"))
scored = scored_choice(run, _("Table"), "utility_table")
signal, key = scored.evaluation.signal, scored.key
hellinger, correlation = signal["hellinger_mean"], signal["correlation_difference_ratio"]
st.write(plain(holdout_sentence(scored.evaluation)))
signal_cards(signal.values())

if hellinger.value is not None:
    st.header(_("Each variable"))
    st.write(plain(hellinger_spread(scored.evaluation)))
    plot(figures.hellinger_scores_figure(hellinger), key=f"hellinger_bars{key}")


@st.fragment
def distribution_section() -> None:
    """Reruns alone when another variable is chosen (the figures above and below are not rebuilt)."""
    names = [row["variable"] for row in sorted(hellinger.breakdown["per_variable"], key=lambda row: row["score"])]
    name = st.selectbox(_("Compare the distributions of"), names, help=_("Variables are listed worst first."),
                        key=f"distribution_variable{key}")
    categorical = scored.evaluation.kinds[name] is Kind.CATEGORICAL
    plot(figures.distribution_figure(scored.originals[name], scored.avatars[name], name, categorical),
         key=f"distribution{key}")


if hellinger.value is not None and scored.originals is not None:
    distribution_section()

st.header(_("Relationships between variables"))
headers, relations = relations_table(signal["broken_relations"]) if "broken_relations" in signal else ([], [])
if relations:
    st.subheader(_("Relations between columns"))
    st.write(_("The rules that hold on every original row (or that you declared), and the share of rows breaking "
               "each: 0 % for the avatars when kept."))
    table(pd.DataFrame(relations, columns=headers), key=f"relations_table{key}")
    st.subheader(_("Correlations"))
if correlation.value is None:
    st.info(_("Correlation Difference Ratio: {reason}").format(reason=_(correlation.not_applicable)))
else:
    st.write(plain(correlation_gaps(correlation)))
    plot(figures.correlation_figure(correlation), key=f"correlations{key}")


@st.fragment
def latent_section() -> None:
    """Reruns alone when the view or an axis changes."""
    latent = scored.latent
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


if scored.latent is not None:
    st.header(_("The latent space"))
    st.write(_(
        "Each point is a person (blue) or an avatar (orange), placed by the projection that summarises all the "
        "columns: people who look alike sit close together. Avatars should cover the same regions as the originals "
        "without sitting exactly on them."
    ))
    latent_section()

multivariate = signal.get("multivariate_hellinger_distance")
if multivariate is not None:
    st.header(_("Distance on each axis"))
    st.write(_("{label}: **{value}** ({band}). {bands}.").format(
        label=_(multivariate.label), value=metric_text(multivariate),
        band=_(multivariate.band) if multivariate.band else _("n/a"),
        bands=bands_text(DEFINITIONS[multivariate.name]).capitalize()))
    if multivariate.value is not None:
        plot(figures.multivariate_axes_figure(multivariate), key=f"axes{key}")
        st.caption(plain(figures.axes_figure_caption(multivariate)))
