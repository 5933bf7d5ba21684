"""The figures of the analyses of SPEC section 9: Kaplan-Meier curves of the real rows and the avatars on one chart,
and each coefficient's interval on the three sides (a forest plot)."""

from __future__ import annotations

import plotly.graph_objects as go

from core.i18n import N_, _
from core.metrics.analysis.interval_overlap import Estimate
from core.metrics.analysis.mixed_model import ALL, MixedModelResult
from core.metrics.analysis.regression import RegressionResult
from core.metrics.analysis.request import AnalysisResult
from core.metrics.analysis.survival import SurvivalResult
from core.presentation.analysis_text import slope_unit, term_label
from core.presentation.figures import AVATAR_COLOUR, HOLDOUT_COLOUR, ORIGINAL_COLOUR, layout
from core.presentation.format import figure_text

GROUP_COLOURS = ("#3b6ea5", "#e07b24", "#2e8540", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d", "#d4ac0d",
                 "#34495e", "#e84393")
SIDE_STYLES = {"real": (N_("real rows"), "solid"), "avatars": (N_("avatars"), "dash"),
               "holdout": (N_("holdout"), "dot")}
SIDE_COLOURS = {"real": ORIGINAL_COLOUR, "avatars": AVATAR_COLOUR, "holdout": HOLDOUT_COLOUR}


def survival_figure(result: SurvivalResult, sides: tuple[str, ...] = ("real", "avatars")) -> go.Figure:
    """Kaplan-Meier curves, one colour per group, real rows solid and avatars dashed."""
    figure = go.Figure()
    for side in sides:
        name, dash = SIDE_STYLES[side]
        name = _(name)
        for index, curve in enumerate(result.curves[side]):
            if not curve.survival:
                continue
            label = name if curve.group is None else f"{figure_text(result.group)} = {figure_text(curve.group)}, {name}"
            colour = SIDE_COLOURS[side] if curve.group is None else GROUP_COLOURS[index % len(GROUP_COLOURS)]
            figure.add_trace(go.Scatter(
                x=result.times, y=curve.survival, mode="lines", line={"shape": "hv", "dash": dash, "color": colour,
                                                                       "width": 2.5 if side == "real" else 2},
                name=label, legendgroup=str(curve.group),
                hovertemplate="%{fullData.name}<br>" + _("time %{x:.0f}<br>still without the event %{y:.1%}")
                + "<extra></extra>"))
    unit = f" ({result.unit})" if result.unit else ""
    title = _("Kaplan-Meier curves by {group}: real rows (solid) and avatars (dashed); event: {event} = {value}") \
        if result.group else _("Kaplan-Meier curves: real rows (solid) and avatars (dashed); event: {event} = {value}")
    figure = layout(figure, title.format(group=figure_text(result.group), event=figure_text(result.event),
                                         value=figure_text(result.event_value)), height=500)
    figure.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0.0})
    figure.update_xaxes(title=f"{figure_text(result.time)}{unit}")
    figure.update_yaxes(title=_("share without the event"), tickformat=".0%", range=[0, 1.02])
    return figure


def coefficients_figure(result: RegressionResult) -> go.Figure:
    """Each effect (the intercept apart) with its 95 % interval on the real rows, the avatars and the holdout, on one
    scale: a number's coefficient times its standard deviation in the real rows (the effect of one standard
    deviation), a category's as it is (against the first level). Where the avatars' bar covers the real one, the
    study's conclusion holds; the axis spans the real intervals, so a much wider interval runs off it."""
    effects = [coefficient for coefficient in result.coefficients if coefficient.term != "(intercept)"]
    scale = [result.spreads.get(coefficient.term, 1.0) for coefficient in effects]
    figure = go.Figure()
    offsets = {"real": -0.22, "avatars": 0.0, "holdout": 0.22}
    for side, offset in offsets.items():
        rows = [(index, getattr(c, side)) for index, c in enumerate(effects) if getattr(c, side) is not None]
        if not rows:
            continue
        figure.add_trace(go.Scatter(
            x=[e.value * scale[i] for i, e in rows], y=[i + offset for i, _point in rows], mode="markers",
            marker={"color": SIDE_COLOURS[side], "size": 8}, name=_(SIDE_STYLES[side][0]),
            error_x={"type": "data", "symmetric": False, "array": [(e.high - e.value) * scale[i] for i, e in rows],
                     "arrayminus": [(e.value - e.low) * scale[i] for i, e in rows], "color": SIDE_COLOURS[side]},
            customdata=[[figure_text(effects[i].term), e.value, e.low, e.high] for i, e in rows],
            hovertemplate=_("%{customdata[0]}: coefficient %{customdata[1]:.3g} (%{customdata[2]:.3g} to "
                            "%{customdata[3]:.3g})") + "<extra>" + _(SIDE_STYLES[side][0]) + "</extra>"))
    figure = layout(figure, _("Effects on {outcome}, with {level} intervals").format(
        outcome=figure_text(result.outcome), level="95 %"),
                    height=max(380, 140 + 30 * len(effects)))
    bounds = [bound * factor for c, factor in zip(effects, scale, strict=True) if c.real is not None
              for bound in (c.real.low, c.real.high)]
    if bounds:
        low, high = min(0.0, *bounds), max(0.0, *bounds)
        padding = 0.25 * (high - low or 1.0)
        figure.update_xaxes(range=[low - padding, high + padding])
        every = [bound * factor for c, factor in zip(effects, scale, strict=True) for side in ("avatars", "holdout")
                 if getattr(c, side) is not None for bound in (getattr(c, side).low, getattr(c, side).high)]
        if any(bound < low - padding or bound > high + padding for bound in every):
            cut = _("Bars cut at the edge run further: see the table.")
            figure.update_layout(title_text=f"{figure.layout.title.text}<br><sup>{cut}</sup>")
    figure.add_vline(x=0, line={"color": "#9aa5b1", "width": 1})
    figure.update_yaxes(tickvals=list(range(len(effects))), autorange="reversed",
                        ticktext=[figure_text(term_label(c.term, result.reference_levels)) for c in effects])
    figure.update_xaxes(title=_("effect on the log odds: per SD for numbers, vs the first level for categories")
                        if result.model == "logistic" else
                        _("effect on the {outcome}: per SD for numbers, vs the first level for categories").format(
                            outcome=figure_text(result.outcome)))
    return figure


def trend_figure(result: MixedModelResult) -> go.Figure:
    """Each group's slope over time with its 95 % interval on the real rows, the avatars and the holdout: where the
    avatars' bar covers the real one, the trend holds."""
    labels = [_(ALL) if result.group is None else f"{result.group} = {slope.term}" for slope in result.slopes]
    unit, scale = slope_unit(result)
    figure = go.Figure()
    for side, offset in {"real": -0.22, "avatars": 0.0, "holdout": 0.22}.items():
        rows = [(index, Estimate(scale * estimate.value, scale * estimate.low, scale * estimate.high,
                                 estimate.p_value)) for index, slope in enumerate(result.slopes)
                if (estimate := getattr(slope, side)) is not None]
        if rows:
            figure.add_scatter(
                x=[estimate.value for _index, estimate in rows], y=[index + offset for index, _estimate in rows],
                mode="markers", marker={"color": SIDE_COLOURS[side], "size": 8}, name=_(SIDE_STYLES[side][0]),
                error_x={"type": "data", "symmetric": False, "color": SIDE_COLOURS[side],
                         "array": [estimate.high - estimate.value for _index, estimate in rows],
                         "arrayminus": [estimate.value - estimate.low for _index, estimate in rows]},
                customdata=[[figure_text(labels[index]), estimate.low, estimate.high] for index, estimate in rows],
                hovertemplate=_("%{customdata[0]}: slope %{x:.3g} (%{customdata[1]:.3g} to %{customdata[2]:.3g})")
                + "<extra>" + _(SIDE_STYLES[side][0]) + "</extra>")
    figure.add_vline(x=0, line={"color": "#9aa5b1", "width": 1})
    figure.update_yaxes(tickvals=list(range(len(labels))), ticktext=[figure_text(label) for label in labels],
                        autorange="reversed")
    figure.update_xaxes(title=_("slope of {value} over time ({unit})").format(value=figure_text(result.value),
                                                                              unit=figure_text(unit)))
    return layout(figure, _("Trend of {value} over time, with {level} intervals").format(
        value=figure_text(result.value), level="95 %"), height=max(320, 160 + 40 * len(labels)))


def analysis_figures(name: str, result: AnalysisResult) -> list[go.Figure]:
    """The figures of one analysis (survival curves, coefficients; none for the others)."""
    if name == "survival" and isinstance(result, SurvivalResult):
        return [survival_figure(result)]
    if name == "regression" and isinstance(result, RegressionResult) and result.coefficients:
        return [coefficients_figure(result)]
    return []
