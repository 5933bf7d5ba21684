"""Plotly figures of a run's metrics: plain functions, testable without a browser.

Originals are drawn in blue, avatars in orange, everywhere. Every figure has a title
that says what it shows, axis titles with units, and hover text with the exact numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.engine.encoding import datetime_microseconds, numeric_values
from core.i18n import N_, _, number, percent, plotly_separators
from core.metrics import hellinger_mean
from core.metrics.binning import SKEWNESS_LIMIT, skewness
from core.metrics.registry import DEFINITIONS
from core.metrics.result import MetricResult
from core.presentation.format import figure_text
from core.presentation.sweep_table import seed_range_text
from core.workflows.exposure import LEVELS
from core.workflows.latent import LatentView
from core.workflows.sweep import SweepPoint, measured, pareto_front

ORIGINAL_COLOUR = "#3b6ea5"
AVATAR_COLOUR = "#e07b24"
HOLDOUT_COLOUR = "#7a7a7a"
GOOD, FAIR, POOR = "#2e8540", "#d9a21b", "#c0392b"
FONT = {"family": "Arial, Helvetica, sans-serif", "size": 14}
TITLE_TOP_PX = 36  # plotly's toolbar is about 30 px high
MAX_CATEGORIES = 25
MAX_AXES_SHOWN = 30
MAX_ANNOTATED_VARIABLES = 8  # correlation values written in the cells up to this many variables
CELL_FONT_SIZE = 10
CLOAKING_MIN_LIMIT = 20  # the local cloaking histogram shows at least the counts 0 to 19 one by one
CLOAKING_MAX_BARS = 40
DISTANCE_BINS = 50
MAX_PLACES = 8  # a bin's edges written with at most this many decimals, else in scientific notation


def layout(figure: go.Figure, title: str, height: int = 420) -> go.Figure:
    figure.update_layout(
        # the title starts below the strip where plotly shows its toolbar on hover, so that it never hides a word
        title={"text": title, "x": 0.0, "xanchor": "left", "yref": "container", "y": 1 - TITLE_TOP_PX / height,
               "yanchor": "top"},
        template="plotly_white",
        font=FONT,
        separators=plotly_separators(),  # the language's decimal and thousands symbols in ticks and hover texts
        height=height,
        margin={"l": 10, "r": 10, "t": 95, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
    )
    figure.update_xaxes(automargin=True)
    figure.update_yaxes(automargin=True)
    return figure


LEVEL_COLOURS = {"good": GOOD, "fair": FAIR, "poor": POOR}


def score_colour(score: float) -> str:
    """A Hellinger score's colour, by the Hellinger Mean's bands (green from 95, amber from 80, red below)."""
    return LEVEL_COLOURS[hellinger_mean.DEFINITION.band(score)[0]]


def hellinger_scores_figure(result: MetricResult) -> go.Figure:
    """Per-variable Hellinger scores, worst at the top, with both distances on hover."""
    rows = sorted(result.breakdown.get("per_variable", []), key=lambda row: row["score"], reverse=True)
    figure = go.Figure(go.Bar(
        x=[row["score"] for row in rows],
        y=[figure_text(row["variable"]) for row in rows],
        orientation="h",
        marker_color=[score_colour(row["score"]) for row in rows],
        text=[number(row["score"], ".1f") for row in rows],
        textposition="outside",
        customdata=[[row["reference_distance"], row["avatar_distance"], row["bins"], row["binning"]] for row in rows],
        hovertemplate="<b>%{y}</b><br>" + _(
            "score %{x:.1f} / 100<br>distance between the two original halves: %{customdata[0]:.3f}"
            "<br>distance from the avatars to the holdout: %{customdata[1]:.3f}"
            "<br>%{customdata[2]} bins (%{customdata[3]})"
        ) + "<extra></extra>",
    ))
    figure.update_xaxes(title=_("score (100 = as close as two halves of the real data)"), range=[0, 109])
    figure.update_yaxes(title=None)
    return layout(figure, _("How well each variable's distribution is kept (worst at the top)"),
                   height=max(300, 90 + 26 * len(rows)))


SIDE_NAMES = {"originals": N_("originals"), "avatars": N_("avatars")}  # the traces' names, as the legends show them


def children_per_parent_figure(result: MetricResult, link: str) -> go.Figure:
    """The share of parents with 0, 1, 2... children, in the originals and the avatars (SPEC 12)."""
    figure = go.Figure()
    for side, colour in (("real_share", ORIGINAL_COLOUR), ("avatar_share", AVATAR_COLOUR)):
        shares = result.breakdown.get(side, [])
        figure.add_bar(x=list(range(len(shares))), y=[100 * share for share in shares], marker_color=colour,
                       name=_(SIDE_NAMES["originals" if side == "real_share" else "avatars"]),
                       hovertemplate=_("%{x} children: %{y:.1f} % of the parents") + "<extra></extra>")
    figure.update_xaxes(title=_("number of children"), dtick=1)
    figure.update_yaxes(title=_("share of the parents (%)"))
    return layout(figure, _("Children per parent: {link}").format(link=figure_text(link)))


def distribution_figure(original: pd.Series, avatars: pd.Series, name: str, categorical: bool) -> go.Figure:
    """The variable's distribution in the originals and the avatars, as shares, missing values included."""
    figure, name = go.Figure(), figure_text(name)
    if categorical:
        missing = _("(missing)")
        shares = pd.DataFrame({
            "originals": original.astype(object).fillna(missing).value_counts(normalize=True),
            "avatars": avatars.astype(object).fillna(missing).value_counts(normalize=True),
        }).fillna(0.0).sort_values("originals", ascending=False)
        if len(shares) > MAX_CATEGORIES:
            other = shares.iloc[MAX_CATEGORIES:].sum().rename(_("(all others)"))
            shares = pd.concat([shares.iloc[:MAX_CATEGORIES], other.to_frame().T])
        labels = [figure_text(label) for label in shares.index]
        for column, colour in (("originals", ORIGINAL_COLOUR), ("avatars", AVATAR_COLOUR)):
            shown = _(SIDE_NAMES[column])
            figure.add_bar(
                x=labels, y=shares[column] * 100, name=shown, marker_color=colour,
                hovertemplate="%{x}: %{y:.1f} %<extra>" + shown + "</extra>",
            )
        figure.update_layout(barmode="group")
        figure.update_xaxes(title=name, type="category")
    else:
        unit_name, unit = _duration_unit(original) if pd.api.types.is_timedelta64_dtype(original) else ("", 1.0)
        values = [_plottable(original) / unit, _plottable(avatars) / unit]
        present = np.concatenate([v[~np.isnan(v)] for v in values])
        logged = _log_scaled(original, present)
        if logged:  # a long right tail (wages): equal bins of its logarithm, read in its own units
            values = [np.log10(np.where(v > 0, v, np.nan)) for v in values]
            present = np.log10(present)
        low, high = (present.min(), present.max()) if present.size else (0.0, 1.0)
        size = (high - low) / 40 if high > low else 1.0
        edges = low + size * np.arange(42)  # 41 bins of one grid for both sides, the largest value in the last
        ranges = _bin_ranges(10.0 ** edges if logged else edges, dated=pd.api.types.is_datetime64_any_dtype(original))
        for data, label, colour in zip(values, ("originals", "avatars"), (ORIGINAL_COLOUR, AVATAR_COLOUR), strict=True):
            missing_share = float(np.mean(np.isnan(data))) * 100 if len(data) else 0.0
            shown = _(SIDE_NAMES[label])
            figure.add_bar(
                x=(edges[:-1] + edges[1:]) / 2, y=percent_in_bins(data[~np.isnan(data)], edges), width=size,
                name=_("{side} ({missing} % missing)").format(side=shown, missing=number(missing_share, ".0f")),
                marker_color=colour, opacity=0.6, customdata=ranges,
                hovertemplate="%{customdata}: %{y:.1f} %<extra>" + shown + "</extra>",
            )
        figure.update_layout(barmode="overlay")
        figure.update_xaxes(title=f"{name} ({_(unit_name)})" if unit_name else name)
        if logged:
            ticks = 10.0 ** np.arange(np.floor(low), np.ceil(high) + 1)
            ticks = np.unique(np.concatenate([ticks, 2 * ticks, 5 * ticks]))
            ticks = ticks[(np.log10(ticks) >= low - 0.05) & (np.log10(ticks) <= high + 0.05)]
            figure.update_xaxes(title=_("{name} (logarithmic scale)").format(name=name), tickvals=np.log10(ticks),
                                ticktext=[number(tick, ",g") for tick in ticks])
        if pd.api.types.is_datetime64_any_dtype(original):
            figure.update_xaxes(type="date")
    figure.update_yaxes(title=_("share of rows (%)"))
    return layout(figure, _("Distribution of {name}: originals and avatars").format(name=name))


def percent_in_bins(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Each bin's share of ``values`` (%), the bins ``[edges[i], edges[i + 1])``, the last closed (numpy's
    histogram): a histogram drawn as bars, counted here rather than by the browser from every value."""
    counts = np.histogram(values, bins=edges)[0]
    return counts / max(len(values), 1) * 100


def _bin_ranges(edges: np.ndarray, dated: bool = False) -> list[str]:
    """Each bin's "low to high", for its hover text (``dated``: edges in milliseconds since 1970), with the decimals
    that tell the narrowest bin's edges apart (20,000 to 20,002.4, not 2e+04 to 2e+04)."""
    if dated:
        shown = pd.to_datetime(edges, unit="ms").strftime("%Y-%m-%d %H:%M" if np.diff(edges).min() < 86_400_000
                                                           else "%Y-%m-%d")
    else:
        places = max(0, 1 - int(np.floor(np.log10(np.diff(edges).min()))))
        spec = f",.{places}f" if places <= MAX_PLACES and np.abs(edges).max() < 1e15 else ",.6g"
        shown = [number(edge, spec) for edge in edges]
    return [_("{low} to {high}").format(low=low, high=high) for low, high in zip(shown[:-1], shown[1:], strict=True)]


def _log_scaled(original: pd.Series, present: np.ndarray) -> bool:
    """Whether a number is drawn on a logarithmic scale: positive, skewed to the right as SPEC 5's binning reads it
    (skewness above 1), spanning more than a factor of 20 (issue 46: CPS1988's weekly wages, 50 to 18 777, drew one
    bar and a flat line on an even scale)."""
    if not pd.api.types.is_numeric_dtype(original) or pd.api.types.is_bool_dtype(original) or not present.size:
        return False
    low, high = float(present.min()), float(present.max())
    return low > 0 and high / low > 20 and skewness(present.astype(float)) > SKEWNESS_LIMIT


def _plottable(column: pd.Series) -> np.ndarray:
    """Floats to draw: dates as milliseconds since 1970 (plotly's date axis), durations in seconds, NaN where
    missing."""
    if pd.api.types.is_datetime64_any_dtype(column):
        return np.where(column.isna().to_numpy(), np.nan, datetime_microseconds(column) // 1_000)
    return numeric_values(column)


DURATION_UNITS = ((N_("days"), 86_400.0), (N_("hours"), 3_600.0), (N_("minutes"), 60.0), (N_("seconds"), 1.0))


def _duration_unit(column: pd.Series) -> tuple[str, float]:
    """The largest unit that the column's median duration holds at least once (a stay in days, a call in
    minutes), and its length in seconds."""
    median = np.nanmedian(np.abs(numeric_values(column))) if column.notna().any() else 0.0
    return next(((name, seconds) for name, seconds in DURATION_UNITS if median >= seconds), DURATION_UNITS[-1])


def correlation_figure(result: MetricResult) -> go.Figure:
    """Correlation matrices of the originals and of the avatars (on -1 to 1), and their difference on a scale
    fitted to its largest value (on -1 to 1 a difference of 0.1 would look white), each with its colour bar."""
    names = [figure_text(name) for name in result.breakdown.get("variables", [])]
    original = np.asarray(result.breakdown["original_correlations"])
    avatars = np.asarray(result.breakdown["avatars_correlations"])
    difference = avatars - original
    largest = float(np.nanmax(np.abs(difference), initial=0.0))
    reach = _round_up(largest) if largest > 0 else 0.1
    figure = make_subplots(
        rows=1, cols=3, horizontal_spacing=0.09,
        subplot_titles=(_("Originals"), _("Avatars"), _("Difference (avatars − originals)")),
    )
    values_in_cells = "%{z:.2f}" if len(names) <= MAX_ANNOTATED_VARIABLES else None
    for column, (matrix, axis) in enumerate(((original, "coloraxis"), (avatars, "coloraxis"),
                                             (difference, "coloraxis2")), 1):
        figure.add_heatmap(
            z=np.round(matrix, 2), x=names, y=names, coloraxis=axis, texttemplate=values_in_cells,
            textfont={"size": CELL_FONT_SIZE},  # one size in the three panels (plotly would fit each on its own)
            hovertemplate="%{y} × %{x}: %{z:.2f}<extra></extra>", row=1, col=column,
        )
        figure.update_yaxes(showticklabels=column == 1, row=1, col=column)
    title = {"side": "right"}
    bar = {"len": 0.45, "thickness": 14, "title": title}
    figure.update_layout(
        coloraxis={"colorscale": "RdBu", "reversescale": True, "cmin": -1, "cmax": 1,
                   "colorbar": {**bar, "title": {**title, "text": _("correlation")}, "y": 0.77}},
        coloraxis2={"colorscale": "RdBu", "reversescale": True, "cmin": -reach, "cmax": reach,
                    "colorbar": {**bar, "title": {**title, "text": _("difference")}, "y": 0.23}},
    )
    figure.update_yaxes(autorange="reversed")
    figure.update_xaxes(tickangle=-45)
    size = max(460, 200 + 34 * len(names))
    return layout(figure, _("Correlations between numeric variables (−1 to 1); their difference on its own scale"),
                   height=size)


EXPOSURE_COLOURS = ("#c0392b", "#e08e0b", "#3e7cb1")  # own avatar nearest, fewer than 5 closer, 5 or more
FAINT_AVATARS = "#9aa5b1"  # grey, yet visible under the coloured people


def latent_figure(latent: LatentView, axes: tuple[int, ...], exposure: np.ndarray | None = None) -> go.Figure:
    """Originals and avatars on two or three chosen axes of the projection (numbered from 0); with ``exposure``
    (per original avatarized, an index into :data:`~core.workflows.exposure.LEVELS`), the originals coloured by
    how exposed each is, the most exposed drawn last (on top)."""
    titles = [_("axis {number} ({share} of variance)").format(  # the share with its "%": no "% o" in the message
        number=a + 1, share=percent(100 * latent.explained_variance_ratio[a])) for a in axes]
    figure = go.Figure()
    by_exposure = exposure is not None and latent.original_rows is not None
    layers = [(latent.avatars, _("avatars"), FAINT_AVATARS if by_exposure else AVATAR_COLOUR)]
    if by_exposure:
        assert exposure is not None and latent.original_rows is not None  # by_exposure
        shown = exposure[latent.original_rows]
        layers += [(latent.originals[shown == level], _("real person: {level}").format(level=_(LEVELS[level])),
                    EXPOSURE_COLOURS[level]) for level in (2, 1, 0)]
    else:
        layers.insert(0, (latent.originals, _("originals"), ORIGINAL_COLOUR))
    for points, label, colour in layers:
        if len(axes) == 3:
            figure.add_scatter3d(
                x=points[:, axes[0]], y=points[:, axes[1]], z=points[:, axes[2]], mode="markers", name=label,
                marker={"size": 2.5, "color": colour, "opacity": 0.6},
            )
        else:
            figure.add_scattergl(
                x=points[:, axes[0]], y=points[:, axes[1]], mode="markers", name=label,
                marker={"size": 5, "color": colour, "opacity": 0.5},
            )
    if len(axes) == 3:
        figure.update_layout(scene={"xaxis_title": titles[0], "yaxis_title": titles[1], "zaxis_title": titles[2]})
    else:
        figure.update_xaxes(title=titles[0])
        figure.update_yaxes(title=titles[1])
    if by_exposure:  # four entries: on their own rows under the title, from the left (below the plot, their width
        # pushed the plot to the right half)
        return layout(figure, _("Each real person coloured by how exposed they are (avatars in grey)"),
                       height=680).update_layout(legend={"orientation": "h", "yanchor": "bottom", "y": 1.01, "x": 0,
                                                         "xanchor": "left"}, margin={"t": 140})
    return layout(figure, _("Originals and avatars in the latent space"), height=560)


def multivariate_axes_figure(result: MetricResult) -> go.Figure:
    """Hellinger distance per projection axis, with the axis's weight (share of variance)."""
    axes = result.breakdown.get("per_axis", [])[:MAX_AXES_SHOWN]
    labels = [_("axis {number}").format(number=row["axis"]) for row in axes]
    figure = make_subplots(specs=[[{"secondary_y": True}]])
    figure.add_bar(
        x=labels, y=[row["distance"] for row in axes], name=_("distance on the axis (0 to 1)"),
        marker_color=AVATAR_COLOUR, hovertemplate=_("%{x}: distance %{y:.3f}") + "<extra></extra>",
    )
    figure.add_scatter(
        x=labels, y=[100 * row["weight"] for row in axes], name=_("weight: share of variance (%)"),
        mode="lines+markers", line={"color": ORIGINAL_COLOUR}, secondary_y=True,
        hovertemplate=_("{axis}: {share} of variance").format(axis="%{x}", share="%{y:.1f} %") + "<extra></extra>",
    )
    figure.update_yaxes(title=_("Hellinger distance"), range=[0, 1], secondary_y=False)
    top = _round_up(max([100 * row["weight"] for row in axes] or [1.0]))
    figure.update_yaxes(title=_("share of variance (%)"), secondary_y=True, showgrid=False, range=[0, top],
                        tickmode="linear", tick0=0, dtick=top / 5, tickformat=".3~g")  # ticks on the left's grid
    figure = layout(figure, _("Distance between originals and avatars on each axis"))
    return figure.update_layout(legend={"xanchor": "left", "x": 0.0})  # clear of the right axis's top label


def _round_up(value: float) -> float:
    """The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 or 10 times the power of ten below ``value`` (> 0) at or
    above it: an axis end whose fifths are round numbers."""
    power = 10.0 ** np.floor(np.log10(value))
    end = next(step * power for step in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if step * power >= value * (1 - 1e-12))
    return float(f"{end:.12g}")  # 3 x 0.1 is 0.30000000000000004


def axes_figure_caption(result: MetricResult) -> str:
    """How the multivariate Hellinger value relates to the bars of :func:`multivariate_axes_figure`."""
    n_axes = len(result.breakdown.get("per_axis", []))
    shown = " " + _("The chart shows the first {count} of them.").format(count=number(MAX_AXES_SHOWN, ",")) \
        if n_axes > MAX_AXES_SHOWN else ""
    return _(
        "The multivariate value is the mean of the {count} per-axis distances weighted by their shares of "
        "variance (the line): axes that explain much of the data count most."
    ).format(count=number(n_axes, ",")) + shown


def distance_histogram_figure(values: np.ndarray, target: float, title: str, axis_title: str) -> go.Figure:
    """Distribution of a privacy distance or ratio in :data:`DISTANCE_BINS` equal bins from the smallest to the
    largest, each bar its share of the avatars, with the target as a dashed line."""
    values = np.asarray(values, dtype=float)
    edges = np.histogram_bin_edges(values, bins=DISTANCE_BINS)
    figure = go.Figure(go.Bar(
        x=(edges[:-1] + edges[1:]) / 2, y=percent_in_bins(values, edges), width=np.diff(edges),
        marker_color=AVATAR_COLOUR, customdata=_bin_ranges(edges),
        hovertemplate=_("{value}: {share} of avatars").format(value="%{customdata}", share="%{y:.1f} %")
        + "<extra></extra>",
    ))
    figure.add_vline(x=target, line_dash="dash", line_color=POOR,
                     annotation_text=_("target {target}").format(target=number(target, "g")),
                     annotation_position="top right")
    figure.update_xaxes(title=axis_title)
    figure.update_yaxes(title=_("share (%)"))
    return layout(figure, title, height=360)


def privacy_figures(privacy: dict[str, MetricResult]) -> dict[str, go.Figure]:
    """The distributions behind the privacy metrics that apply, by metric name: distance to closest, closest
    distances ratio, local cloaking (for the Privacy page and the report alike)."""
    closest, ratio, cloaking = privacy["distance_to_closest"], privacy["closest_distances_ratio"], privacy["local_cloaking"]
    shown = {}
    if closest.value is not None:
        assert closest.target is not None  # a privacy metric: it has a target
        shown["distance_to_closest"] = distance_histogram_figure(
            closest.breakdown["distances"], closest.target, _("Distance from each avatar to the nearest real person"),
            _("distance in the latent space"),
        )
    if ratio.value is not None:
        assert ratio.target is not None
        shown["closest_distances_ratio"] = distance_histogram_figure(
            ratio.breakdown["ratios"], ratio.target,
            _("Nearest / second-nearest real person, for each avatar (near 0: the avatar points at one person)"),
            _("ratio of the two distances"),
        )
    if cloaking.value is not None:
        assert cloaking.target is not None
        shown["local_cloaking"] = cloaking_histogram_figure(
            cloaking.breakdown["counts"], cloaking.target, cloaking.breakdown["censored_at"]
        )
    return shown


def cloaking_histogram_figure(counts: np.ndarray, target: float, censored_at: int | None) -> go.Figure:
    """For each person, how many avatars are closer than their own: one bar per count (or per few counts) up to
    a limit, the long tail gathered in a last bar "limit or more", and the target as a dashed line.

    The limit is the 95th percentile (at least 4 times the target), never beyond ``censored_at``, where the
    counts of the local cloaking stop being exact. Grouped, the first bar holds the counts that miss the
    target, so that the line falls between two bars.
    """
    counts = np.floor(np.asarray(counts, dtype=float)).astype(np.int64)  # a half (ties) goes to the bar below
    limit = int(max(np.percentile(counts, 95), 4 * target, CLOAKING_MIN_LIMIT))
    if censored_at is not None:
        limit = min(limit, censored_at)
    width = int(np.ceil(limit / CLOAKING_MAX_BARS))
    first = 1 if width == 1 else int(target) + 1  # grouped: the first bar is every count up to the target
    edges = np.array([0, *range(first, limit + 1, width)])
    index = np.searchsorted(edges, counts, side="right") - 1  # the last edge starts "limit or more"
    shares = np.bincount(index, minlength=len(edges)) / len(counts) * 100
    labels = [str(low) if high - low == 1 else _("{low} to {high}").format(low=low, high=high - 1)
              for low, high in zip(edges[:-1], edges[1:], strict=True)]
    sizes = np.append(np.diff(edges), width)
    figure = go.Figure(go.Bar(
        x=edges + (sizes - 1) / 2, y=shares, width=0.9 * sizes,
        marker_color=[AVATAR_COLOUR] * (len(edges) - 1) + [ORIGINAL_COLOUR],
        customdata=[*labels, _("{count} or more").format(count=edges[-1])],
        text=[""] * (len(edges) - 1) + [f"{edges[-1]}+"], textposition="outside",
        hovertemplate=_("{count} avatars closer: {share} of people").format(count="%{customdata}", share="%{y:.1f} %")
        + "<extra></extra>",
    ))
    figure.add_vline(x=int(target) + 0.5, line_dash="dash", line_color=POOR,
                     annotation_text=_("target: more than {target}").format(target=number(target, "g")),
                     annotation_position="top right")
    figure.update_xaxes(title=_("number of avatars closer than the person's own (last bar: {count} or more)").format(
        count=edges[-1]))
    figure.update_yaxes(title=_("share of people (%)"))
    return layout(figure, _("For each person: how many avatars are closer to them than their own"), height=360)


def _tradeoff_hover(point: SweepPoint, utility: str, privacy: str, labels: dict[str, str]) -> str:
    """A setting's seeds and targets, under its marker's name and values."""
    return _("seeds: {privacy} {privacy_range}, {utility} {utility_range}<br>privacy targets: {targets}").format(
        privacy=labels[privacy], privacy_range=seed_range_text(point, privacy), utility=labels[utility],
        utility_range=seed_range_text(point, utility), targets=point.targets_text(),
    ) + ("<br>" + _("{metric}: at least this (some counts stopped at their cap)").format(metric=labels[privacy])
         if privacy in point.lower_bounds else "")


def tradeoff_figure(
    points: list[SweepPoint], utility: str, privacy: str, target: float | None, labels: dict[str, str],
    advised: int | None = None,
) -> go.Figure:
    """Utility against privacy, one point per setting (mean over seeds; bars: the lowest to the highest seed),
    with the Pareto front and a ring around the setting advised (its position in ``points``), when drawn.

    ``points`` are :class:`~core.workflows.sweep.SweepPoint`; those without a value for either metric are left out. One trace
    per method and verdict: filled markers when every seed meets every privacy target, hollow ones ("a target
    missed") otherwise. Labels are placed beside their markers where they overlap no other label or marker
    (:func:`label_positions`). The ``customdata`` of each marker is the point's position in ``points``.
    """
    shown = [i for i, p in enumerate(points) if p.mean(utility) is not None and p.mean(privacy) is not None]
    sign = -1.0 if DEFINITIONS[privacy].goal == "minimize" else 1.0  # a risk: its axis runs from high to low
    xs, ys = [sign * measured(points[i].mean(privacy)) for i in shown], [measured(points[i].mean(utility)) for i in shown]
    positions = dict(zip(shown, label_positions(
        xs, ys, [points[i].setting.label for i in shown],
        [_ordered(sign * measured(points[i].low(privacy)), sign * measured(points[i].high(privacy))) for i in shown],
        [(measured(points[i].low(utility)), measured(points[i].high(utility))) for i in shown],
        None if target is None else sign * target,
    ), strict=True))
    figure = go.Figure()
    methods = (("avatar", "Avatar (k)", ORIGINAL_COLOUR, "circle"),
               ("fast_dp", "AvatarFastDP (epsilon)", AVATAR_COLOUR, "diamond"))
    for method, name, colour, symbol in methods:
        for safe in (True, False):
            chosen = [i for i in shown if points[i].setting.method == method and points[i].meets_targets() == safe]
            if not chosen:
                continue
            figure.add_scatter(
                x=[points[i].mean(privacy) for i in chosen], y=[points[i].mean(utility) for i in chosen],
                error_x=_seed_range([points[i] for i in chosen], privacy),
                error_y=_seed_range([points[i] for i in chosen], utility),
                mode="markers+text", text=[points[i].setting.label for i in chosen],
                textposition=[positions[i] for i in chosen],
                marker={"size": 11, "color": colour, "line": {"color": colour, "width": 2},
                        "symbol": symbol if safe else f"{symbol}-open"},
                customdata=chosen, hovertext=[_tradeoff_hover(points[i], utility, privacy, labels) for i in chosen],
                name=name if safe else _("{method}: a target missed").format(method=name),
                hovertemplate="<b>%{text}</b><br>" + labels[privacy] + ": %{x:.3g}<br>" + labels[utility]
                + ": %{y:.3g}<br>%{hovertext}<extra></extra>",
            )
    front = [shown[i] for i in pareto_front(xs, ys)]
    if len(front) > 1:
        figure.add_scatter(
            x=[points[i].mean(privacy) for i in front], y=[points[i].mean(utility) for i in front], mode="lines",
            line={"color": HOLDOUT_COLOUR, "dash": "dot"}, name=_("best trade-offs (Pareto front)"), hoverinfo="skip",
        )
    if advised in shown:
        _ring(figure, points[advised], utility, privacy)
    if target is not None:
        figure.add_vline(x=target, line_dash="dash", line_color=POOR,
                         annotation_text=_("privacy target {target}").format(target=number(target, "g")),
                         annotation_position="bottom right")
    figure.update_xaxes(title=_("{metric} (more private →)").format(metric=labels[privacy]),
                        autorange="reversed" if sign < 0 else True)
    figure.update_yaxes(title=_("{metric} (more signal ↑)").format(metric=labels[utility]))
    return layout(figure, _("Utility against privacy, one point per setting"), height=TRADEOFF_HEIGHT)


def _ring(figure: go.Figure, point: SweepPoint, utility: str, privacy: str) -> None:
    """A ring around the setting the advice names (issue 46: the advice named a setting the chart did not draw)."""
    figure.add_scatter(x=[point.mean(privacy)], y=[point.mean(utility)], mode="markers",
                       marker={"size": 24, "color": GOOD, "symbol": "circle-open", "line": {"width": 3}},
                       name=_("advised: {setting}").format(setting=point.setting.label), hoverinfo="skip")


TRADEOFF_HEIGHT = 560
PLOT_AREA_PX = (1000, 420)  # the trade-off chart's plotting area, about, at the dashboard's width
LABEL_FONT_PX = (7.5, 16)  # width of a character and height of a line at the figure's font size
Box = tuple[float, float, float, float]  # a label's or a marker's pixels: left, top, right, bottom
LABEL_CANDIDATES = ("top right", "bottom right", "top left", "bottom left", "middle right", "middle left",
                    "top center", "bottom center")


def _seed_range(points: list[SweepPoint], metric: str) -> dict[str, object]:
    """Error bars from each point's mean to its lowest and highest seed."""
    return {
        "type": "data", "symmetric": False, "thickness": 1,
        "array": [measured(p.high(metric)) - measured(p.mean(metric)) for p in points],
        "arrayminus": [measured(p.mean(metric)) - measured(p.low(metric)) for p in points],
    }


def _ordered(first: float, second: float) -> tuple[float, float]:
    """The ends of a range, the lower first."""
    low, high = sorted((first, second))
    return low, high


def label_positions(
    xs: list[float], ys: list[float], texts: list[str],
    x_ranges: list[tuple[float, float]], y_ranges: list[tuple[float, float]], target: float | None = None,
) -> list[str]:
    """A plotly ``textposition`` per point, chosen greedily so that labels overlap neither each other, nor the
    markers, their seed-range bars or the target line, in an approximate pixel space of the plotting area."""
    if not xs:
        return []
    centres = pixel_centres(xs, ys, x_ranges, y_ranges)
    ranges = pixel_centres([low for low, _ in x_ranges] + [high for _, high in x_ranges],
                           [high for _, high in y_ranges] + [low for low, _ in y_ranges], x_ranges, y_ranges)
    width, height = PLOT_AREA_PX
    taken = [box for (cx, cy), (left, top), (right, bottom) in zip(centres, ranges, ranges[len(xs):], strict=False) for box in (
        (cx - 7, cy - 7, cx + 7, cy + 7), (left, cy - 2, right, cy + 2), (cx - 2, top, cx + 2, bottom))]
    if target is not None and min(low for low, _ in x_ranges) <= target <= max(high for _, high in x_ranges):
        line = pixel_centres([target], [ys[0]], x_ranges, y_ranges)[0][0]
        taken.append((line - 2, 0.0, line + 2, float(height)))
    chosen = []
    for centre, text in zip(centres, texts, strict=True):
        size = (len(text) * LABEL_FONT_PX[0], LABEL_FONT_PX[1])
        costs = [_label_cost(label_box(centre, size, position), taken, width, height) for position in LABEL_CANDIDATES]
        best = LABEL_CANDIDATES[costs.index(min(costs))]  # the first wins ties: top right when free
        taken.append(label_box(centre, size, best))
        chosen.append(best)
    return chosen


def pixel_centres(
    xs: list[float], ys: list[float], x_ranges: list[tuple[float, float]], y_ranges: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Where the points fall, about, in pixels of the plotting area (axes spanning every seed range, 5 % margins)."""
    low_x, high_x = min(low for low, _ in x_ranges), max(high for _, high in x_ranges)
    low_y, high_y = min(low for low, _ in y_ranges), max(high for _, high in y_ranges)
    width, height = PLOT_AREA_PX
    return [((x - low_x) / ((high_x - low_x) or 1.0) * width * 0.9 + width * 0.05,
             (high_y - y) / ((high_y - low_y) or 1.0) * height * 0.9 + height * 0.05) for x, y in zip(xs, ys, strict=True)]


def label_box(centre: tuple[float, float], size: tuple[float, float], position: str) -> Box:
    """The pixel box (left, top, right, bottom) of a label of ``size`` at plotly ``position`` around ``centre``."""
    (cx, cy), (w, h) = centre, size
    vertical, horizontal = position.split()
    left = {"right": cx + 6, "left": cx - 6 - w, "center": cx - w / 2}[horizontal]
    top = {"top": cy - 6 - h, "bottom": cy + 6, "middle": cy - h / 2}[vertical]
    return left, top, left + w, top + h


def _label_cost(box: Box, taken: list[Box], width: float, height: float) -> float:
    """Area of ``box`` over the boxes ``taken``, plus what sticks out of the plotting area."""
    left, top, right, bottom = box
    outside = max(0.0, -left) + max(0.0, right - width) + max(0.0, -top) + max(0.0, bottom - height)
    return outside * (bottom - top) + sum(
        max(0.0, min(right, other[2]) - max(left, other[0])) * max(0.0, min(bottom, other[3]) - max(top, other[1]))
        for other in taken
    )


def comparison_figure(first: SweepPoint, second: SweepPoint) -> go.Figure:
    """Per-variable Hellinger scores of two sweep points (means over their seeds), side by side, the first
    setting's worst variable at the top (as on the Utility page)."""
    names = sorted(set(first.variable_scores) | set(second.variable_scores),
                   key=lambda name: np.mean(first.variable_scores.get(name, [100.0])), reverse=True)
    figure = go.Figure()
    for point, colour in ((first, ORIGINAL_COLOUR), (second, AVATAR_COLOUR)):
        figure.add_bar(
            y=[figure_text(name) for name in names],
            x=[np.mean(point.variable_scores.get(name, [np.nan])) for name in names], orientation="h",
            name=point.setting.label, marker_color=colour,
            hovertemplate="%{y}: %{x:.1f}<extra>" + point.setting.label + "</extra>",
        )
    figure.update_layout(barmode="group")
    figure.update_xaxes(title=_("Hellinger score per variable (100 = as close as two halves of the real data)"),
                        range=[0, 105])
    return layout(figure, _("Each variable's score for the two settings (worst at the top)"),
                   height=max(320, 100 + 40 * len(names)))
