"""Figures of a time series (SPEC 13): a sample of real persons' trajectories beside a sample of avatars', and the
mean curve over time with the band of its middle half, real against avatars, per group. Originals in blue, avatars
in orange, as every figure; time is each person's time since their first measure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.i18n import _, number
from core.metrics.analysis.mixed_model import PERSON, TIME
from core.metrics.series.series_table import SeriesView
from core.presentation.figures import AVATAR_COLOUR, ORIGINAL_COLOUR, SIDE_NAMES, layout
from core.presentation.format import figure_text

SAMPLED_PERSONS = 12
TIME_BINS = 10
MAX_GROUP_PANELS = 4  # the largest groups, each its panel
BAND_OPACITY = 0.18


def time_title(view: SeriesView) -> str:
    return _("days since the first measure") if view.unit == "day" else \
        _("{time} since the first measure").format(time=figure_text(view.time))


def trajectories_figure(view: SeriesView, value: str, persons: int = SAMPLED_PERSONS, seed: int = 0) -> go.Figure:
    """``persons`` real persons drawn at random (those of two measures or more first) beside as many avatars, each
    person a line of their measures of ``value`` over time; one vertical scale for both."""
    made_from = view.made_from()
    figure = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                           subplot_titles=side_names(view, made_from))
    rng = np.random.default_rng(seed)
    for column, (frame, colour, side) in enumerate(((made_from, ORIGINAL_COLOUR, "originals"),
                                                    (view.frames[2], AVATAR_COLOUR, "avatars")), start=1):
        present = frame[[PERSON, TIME, value]].dropna()
        counts = present.groupby(PERSON).size()
        followed = counts.index[counts >= 2].to_numpy()
        pool = followed if len(followed) >= persons else counts.index.to_numpy()
        chosen: np.ndarray | list[object] = rng.choice(pool, size=min(persons, len(pool)), replace=False) \
            if len(pool) else []
        for person in chosen:
            rows = present[present[PERSON] == person].sort_values(TIME)
            figure.add_scatter(x=rows[TIME], y=rows[value], mode="lines+markers", line={"color": colour, "width": 1.5},
                               marker={"size": 5}, opacity=0.75, showlegend=False, row=1, col=column,
                               hovertemplate=f"{_(SIDE_NAMES[side])}<br>%{{x:.4~g}}: %{{y:.4~g}}<extra></extra>")
        figure.update_xaxes(title=time_title(view), row=1, col=column)
    figure.update_yaxes(title=figure_text(value), row=1, col=1)
    return layout(figure, _("{value} over time: {count} real persons and {count} avatars drawn at random").format(
        value=figure_text(value), count=number(persons)), height=460)


def mean_curves_figure(view: SeriesView, value: str, group: str | None = None, bins: int = TIME_BINS) -> go.Figure:
    """Per group (the :data:`MAX_GROUP_PANELS` largest, each its panel, titled with its persons), the mean of
    ``value`` in ``bins`` equal spans of time since the first measure (the real times'; at each of them when they
    are no more: a schedule), with the band of its middle half (25th to 75th percentile), the persons the avatars
    were made from against the avatars, each curve named with whom it holds."""
    originals, avatars = view.made_from(), view.frames[2]
    names = dict(zip(("originals", "avatars"), side_names(view, originals), strict=True))
    levels = [None] if group is None else list(originals[group].astype("string").value_counts().index[:MAX_GROUP_PANELS])

    def persons(frame: pd.DataFrame, level: str) -> int:
        return int(frame.loc[frame[group].astype("string") == level, PERSON].nunique())

    figure = make_subplots(rows=1, cols=len(levels), shared_yaxes=True, horizontal_spacing=0.04,
                           subplot_titles=[_("all persons") if level is None else _(
                               "{group} = {level} ({real} real, {avatars} avatars)").format(
                               group=figure_text(group), level=figure_text(level), real=number(persons(
                                   originals, level), ","), avatars=number(persons(avatars, level), ","))
                                           for level in levels])
    moments = np.unique(originals[TIME].dropna())
    edges = np.append(moments, np.inf) if len(moments) <= bins else \
        np.linspace(0.0, max(float(originals[TIME].max()), 1e-12), bins + 1)  # a schedule: its own moments
    for column, level in enumerate(levels, start=1):
        for frame, colour, side in ((originals, ORIGINAL_COLOUR, "originals"), (avatars, AVATAR_COLOUR, "avatars")):
            rows = frame if level is None else frame[frame[group].astype("string") == level]
            curve = _binned(rows, value, edges)
            name = names[side]
            figure.add_scatter(x=np.r_[curve.index, curve.index[::-1]], y=np.r_[curve["high"], curve["low"][::-1]],
                               mode="lines", fill="toself", fillcolor=colour, opacity=BAND_OPACITY, line={"width": 0},
                               hoverinfo="skip", showlegend=False, row=1, col=column)
            figure.add_scatter(x=curve.index, y=curve["mean"], mode="lines+markers", line={"color": colour},
                               name=name, legendgroup=side, showlegend=column == 1, row=1, col=column,
                               customdata=curve[["low", "high", "count"]].to_numpy(),
                               hovertemplate=name + _("<br>%{x:.4~g}: mean %{y:.4~g}, middle half %{customdata[0]:.4~g} "
                                                      "to %{customdata[1]:.4~g} (%{customdata[2]} measures)")
                               + "<extra></extra>")
        figure.update_xaxes(title=time_title(view), row=1, col=column)
    figure.update_yaxes(title=figure_text(value), row=1, col=1)
    layout(figure, _("Mean {value} over time and the band of its middle half, originals and avatars").format(
        value=figure_text(value)), height=500)
    return figure.update_layout(legend={"y": -0.22, "yanchor": "top", "x": 0.0, "xanchor": "left"})  # under the
    # axes: above them, it sat on the last panel's title


def side_names(view: SeriesView, made_from: pd.DataFrame) -> tuple[str, str]:
    """Who each side holds: "originals: the 79 persons the avatars were made from", "avatars: 79"."""
    return (_("originals: the {count} persons the avatars were made from").format(
                count=number(made_from[PERSON].nunique(), ",")),
            _("avatars: {count}").format(count=number(view.frames[2][PERSON].nunique(), ",")))


def _binned(frame: pd.DataFrame, value: str, edges: np.ndarray) -> pd.DataFrame:
    """The mean, 25th and 75th percentiles and count of ``value`` per span of time (indexed by the span's middle, or,
    the last edge infinite, by the moment each span starts at: a schedule's own days; the measures beyond the real
    times' last span in the last one)."""
    present = frame[[TIME, value]].dropna()
    span = np.clip(np.searchsorted(edges, present[TIME].to_numpy(), side="right") - 1, 0, len(edges) - 2)
    grouped = present[value].astype(float).groupby(span)
    curve = pd.DataFrame({"mean": grouped.mean(), "low": grouped.quantile(0.25), "high": grouped.quantile(0.75),
                          "count": grouped.size()})
    places = edges[:-1] if np.isinf(edges[-1]) else (edges[:-1] + edges[1:]) / 2  # a moment, or a span's middle
    curve.index = places[curve.index]
    return curve
