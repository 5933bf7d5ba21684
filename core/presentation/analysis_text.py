"""The analyses of SPEC section 9 in words: one plain reading per analysis ("a model trained on the avatars reaches
97 % of the real model's ROC AUC on real people it never saw"), each judged against the natural variability of two
real samples (WO against HO): identical, no further apart than two real samples, or further; and the tables the
pages and the report show."""

from __future__ import annotations

import math

import pandas as pd

from core.engine.split import Holdout
from core.i18n import N_, _, ngettext, number
from core.metrics.analysis.group_statistics import MISSING_GROUP, GroupStatistics, GroupStatisticsResult
from core.metrics.analysis.interval_overlap import Estimate
from core.metrics.analysis.missing_shares import MissingShares
from core.metrics.analysis.mixed_model import ALL, MixedModelResult
from core.metrics.analysis.prediction import PredictionResult
from core.metrics.analysis.regression import INTERCEPT, RegressionResult
from core.metrics.analysis.request import AnalysisNotRun, AnalysisResult
from core.metrics.analysis.survival import Curve, SurvivalResult
from core.metrics.evaluation import Evaluation

OVERLAP_SLACK = 0.1  # an overlap this close to the two real samples' reads "as close as two real samples"


def decimals_for(value: float, digits: int = 3) -> int:
    """The decimals that show ``value`` to ``digits`` significant digits (none from 10^digits up)."""
    return max(digits - 1 - math.floor(math.log10(abs(value))), 0) if value else digits - 1


def figure(value: float | None, digits: int = 3, decimals: int | None = None) -> str:
    """A number to a few significant digits, or with ``decimals``: 0.952, 12.4, 1,530; "n/a" when missing."""
    if value is None or not math.isfinite(value):
        return _("n/a")
    shown = decimals_for(value, digits) if decimals is None else decimals
    if value == 0 or round(value, shown) == 0 and decimals is not None:  # never "-0"
        return "0" if decimals is None else number(0.0, f".{decimals}f")
    if decimals is None and (abs(value) < 1e-4 or abs(value) >= 1e15):
        return number(value, f".{digits - 1}e")
    return number(value, f",.{shown}f")


TABLE_DECIMALS = 4  # at most, shared by a table's intervals; a row needing more (a tiny effect) shows its own


def interval(estimate: Estimate | None, digits: int = 3, scale: float = 1.0, decimals: int | None = None) -> str:
    """``0.490 (0.350 to 0.700)``: the largest of the three to ``digits`` significant digits, the others with as
    many decimals, and enough for the interval's width to show two (``0.9995 (0.9960 to 1.0030)``, not
    ``1.00 (1.00 to 1.00)``); "not estimable" when missing. The ends are joined by "to", never a comma: in
    "-572 [-1,011, -133]" the thousands comma and the separator read alike. ``scale`` multiplies the three;
    ``decimals`` (a table's, :func:`shared_decimals`) is used when it shows the interval as well."""
    if estimate is None:
        return _("not estimable")
    value, low, high = (number * scale for number in (estimate.value, estimate.low, estimate.high))
    own = _interval_decimals(value, low, high, digits)
    if own is None:  # a tiny or a huge effect: significant digits instead
        return _("{value} ({low} to {high})").format(value=figure(value, digits), low=figure(low, digits),
                                                     high=figure(high, digits))
    shown = decimals if decimals is not None and decimals >= own else own
    return _("{value} ({low} to {high})").format(value=figure(value, decimals=shown),
                                                 low=figure(low, decimals=shown), high=figure(high, decimals=shown))


def _interval_decimals(value: float, low: float, high: float, digits: int) -> int | None:
    """The decimals :func:`interval` shows on its own; None when significant digits suit better."""
    largest = max((abs(number) for number in (value, low, high) if math.isfinite(number)), default=0.0)
    width = high - low if math.isfinite(high - low) else 0.0
    decimals = max(decimals_for(largest, digits), decimals_for(width, 2) if width > 0 else 0)
    return None if decimals > 6 or largest >= 1e15 else decimals


def shared_decimals(estimates: list[tuple[Estimate | None, float]], digits: int = 3) -> int:
    """One count of decimals for a table's intervals (each ``(estimate, scale)``), so that precision does not change
    from row to row: the most any of them needs, at most ``TABLE_DECIMALS``."""
    needed = [_interval_decimals(e.value * scale, e.low * scale, e.high * scale, digits)
              for e, scale in estimates if e is not None]
    return min(max([d for d in needed if d is not None], default=0), TABLE_DECIMALS)


def p_text(p_value: float | None) -> str:
    return _("n/a") if p_value is None else f"p < {number(0.001, '.3f')}" if p_value < 0.001 else \
        f"p = {number(p_value, '.3f')}"


def term_label(term: str, references: dict[str, str]) -> str:
    """``"arms = 1"`` as ``"arms = 1 (vs 0)"``: a category's effect is against its first level."""
    if term == INTERCEPT:
        return _(INTERCEPT)
    name, separator = term.partition(" = ")[:2]
    return _("{term} (vs {reference})").format(term=term, reference=references[name]) \
        if separator and name in references else term


def overlap_verdict(overlap: float | None, reference: float | None) -> str:
    """How two intervals meet against two real samples' (an overlap None, not measured, is not as close)."""
    if overlap == 1.0:
        return _("identical")
    if overlap is not None and reference is not None and overlap >= reference - OVERLAP_SLACK:
        return _("as close as two real samples are")
    return _("further apart than two real samples are")


def gap_verdict(gap: float, reference: float | None) -> str:
    """A gap between the avatars and the real rows against the gap between two real samples."""
    if gap == 0:
        return _("identical")
    if reference is None:
        return _("no reference to judge it by")
    if gap <= reference:
        return _("no larger than between two real samples")
    if reference == 0:
        return _("larger than between two real samples, which agree exactly")
    return _("{ratio} times the gap between two real samples").format(ratio=number(gap / reference, ".1f"))


TESTED_ON = {  # the people the models are tested on, by holdout case (SPEC section 5)
    Holdout.REAL: N_("real people it never saw"),
    Holdout.GIVEN: N_("the people of the holdout file, kept apart"),
    Holdout.APPROXIMATE: N_("real people whose records went into the avatars (no row was kept apart: the avatars were "
                      "made from every row)"),
}


CHANCE = {"binary": 0.5, "numeric": 0.0}  # a score no model needs: ROC AUC of a coin, R^2 of the mean


def prediction_reading(result: PredictionResult, holdout: Holdout = Holdout.REAL) -> str:
    score, tested, outcome = _(result.score_name), _(TESTED_ON[holdout]), result.outcome
    if not math.isfinite(result.real.value):
        return _("Predicting {outcome}: the {score} cannot be computed on the test rows (they hold a single value of "
                 "{outcome}, or the values are too large): no comparison.").format(outcome=outcome, score=score)
    if result.avatars == result.real:
        return _("Predicting {outcome}: the model trained on the avatars scores exactly as the real one ({score} "
                 "{real}) on {tested}: identical.").format(outcome=outcome, score=score,
                                                           real=figure(result.real.value), tested=tested)
    if result.ratio is None:
        return _("Predicting {outcome}: even the model trained on the real rows predicts nothing on {tested} ({score} "
                 "{real}): there is no signal to keep for this outcome.").format(
            outcome=outcome, tested=tested, score=score, real=figure(result.real.value))
    chance = CHANCE.get(result.task)
    if chance is not None and result.real.low <= chance:
        return _("Predicting {outcome}: the model trained on the real rows is no better than chance on {tested} "
                 "({score} {real}, 95 % interval {low} to {high}; chance is {chance}): there is no signal for the "
                 "avatars to keep, whatever they score ({avatars}).").format(
            outcome=outcome, tested=tested, score=score, real=figure(result.real.value), low=figure(result.real.low),
            high=figure(result.real.high), chance=figure(chance), avatars=figure(result.avatars.value))
    if result.task == "numeric" and result.avatars.value < 0:
        return _("A model trained on the avatars predicts {outcome} on {tested} worse than its mean does ({score} "
                 "{avatars}, against {real} for the real model).").format(
            outcome=outcome, tested=tested, score=score, avatars=figure(result.avatars.value),
            real=figure(result.real.value))
    within = result.real.low <= result.avatars.value <= result.real.high
    binary = result.task == "binary"
    if within:
        text = _("A model trained on the avatars reaches {ratio} % of the real model's {score} predicting {outcome} on "
                 "{tested} ({avatars} against {real}; chance is 0.5): within the real model's 95 % interval.") \
            if binary else _("A model trained on the avatars reaches {ratio} % of the real model's {score} predicting "
                             "{outcome} on {tested} ({avatars} against {real}): within the real model's 95 % "
                             "interval.")
    else:
        text = _("A model trained on the avatars reaches {ratio} % of the real model's {score} predicting {outcome} on "
                 "{tested} ({avatars} against {real}; chance is 0.5): outside the real model's 95 % interval, {low} "
                 "to {high}.") \
            if binary else _("A model trained on the avatars reaches {ratio} % of the real model's {score} predicting "
                             "{outcome} on {tested} ({avatars} against {real}): outside the real model's 95 % "
                             "interval, {low} to {high}.")
    return text.format(ratio=number(100 * result.ratio, ".0f"), score=score, outcome=outcome, tested=tested,
                       avatars=figure(result.avatars.value), real=figure(result.real.value),
                       low=figure(result.real.low), high=figure(result.real.high))


THE_SIDES = {("real",): N_("the real rows"), ("avatars",): N_("the avatars"),
             ("real", "avatars"): N_("the real rows and the avatars"),
             ("avatars", "real"): N_("the avatars and the real rows")}  # the sides a regression did not converge on


def regression_reading(result: RegressionResult) -> str:
    if result.not_applicable:
        return _(result.not_applicable)
    counts, overlap, reference = result.agreements, result.mean_overlap, result.reference_mean_overlap
    outcome = result.outcome
    model = _("linear") if result.model == "linear" else _("logistic (odds of {outcome} = {modelled})").format(
        outcome=outcome, modelled=result.modelled)
    if counts["compared"] == 0 or overlap is None:
        return _("The {model} model of {outcome} could not be compared (see below).").format(model=model,
                                                                                             outcome=outcome)
    failed = tuple(side for side in result.unreliable if side != "holdout")
    if failed:
        return _("The {model} model of {outcome} did not converge on {sides} (a predictor separates the outcome): its "
                 "intervals are not reliable, so neither is the comparison. Choose fewer predictors, leaving out those "
                 "with rare values.").format(model=model, outcome=outcome, sides=_(THE_SIDES[failed]))
    changes = counts["significant_sign_changes"]
    first = _("In the {model} model of {outcome} (fitted on the complete rows: {real_rows} real, {avatar_rows} "
              "avatars), the avatars' 95 % intervals overlap the real ones by {overlap} on average (1: the same "
              "interval, 0: touching; two real samples: {reference}): {verdict}.").format(
        model=model, outcome=outcome, real_rows=number(result.rows["real"], ","),
        avatar_rows=number(result.rows["avatars"], ","), overlap=number(overlap, ".2f"),
        reference=figure(reference, 2), verdict=overlap_verdict(overlap, reference))
    second = ngettext("{same} of {compared} effects keep their significance, p < 0.05 (two real samples: "
                      "{reference_same} of {reference_compared}); {changes} significant effect changes sign (two real "
                      "samples: {reference_changes}).",
                      "{same} of {compared} effects keep their significance, p < 0.05 (two real samples: "
                      "{reference_same} of {reference_compared}); {changes} significant effects change sign (two real "
                      "samples: {reference_changes}).", changes).format(
        same=counts["same_significance"], compared=counts["compared"],
        reference_same=counts["reference_same_significance"], reference_compared=counts["reference_compared"],
        changes=changes, reference_changes=counts["reference_significant_sign_changes"])
    return f"{first} {second}"


def survival_reading(result: SurvivalResult) -> str:
    sentences = [_("Event: {event} = {value}.").format(event=result.event, value=result.event_value)]
    if len(result.curves["real"]) == 1:
        (real,), (avatars,) = result.curves["real"], result.curves["avatars"]
        if real.survival and avatars.survival:
            sentences.append(_("Share still without the event at {time} = {at}{unit}: real rows {real} %, avatars "
                               "{avatars} %; median time real {real_median}, avatars {avatars_median}.").format(
                time=result.time, at=figure(result.times[-1]), unit=" " + _(result.unit) if result.unit else "",
                real=number(100 * real.survival[-1], ".1f"), avatars=number(100 * avatars.survival[-1], ".1f"),
                real_median=_median(real), avatars_median=_median(avatars)))
    if result.group:
        real_p, avatars_p = result.logrank_p["real"], result.logrank_p["avatars"]
        if real_p is not None and avatars_p is not None:
            same = (real_p < 0.05) == (avatars_p < 0.05)
            if real_p < 0.05:
                text = _("Survival by {group}: on the real rows the groups differ (log-rank {p_real}), on the avatars "
                         "{p_avatars}: the same conclusion.") if same else \
                    _("Survival by {group}: on the real rows the groups differ (log-rank {p_real}), on the avatars "
                      "{p_avatars}: a different conclusion.")
            else:
                text = _("Survival by {group}: on the real rows the groups do not differ significantly (log-rank "
                         "{p_real}), on the avatars {p_avatars}: the same conclusion.") if same else \
                    _("Survival by {group}: on the real rows the groups do not differ significantly (log-rank "
                      "{p_real}), on the avatars {p_avatars}: a different conclusion.")
            sentences.append(text.format(group=result.group, p_real=p_text(real_p), p_avatars=p_text(avatars_p)))
    for ratio in result.hazard_ratios:
        if ratio.real is None or ratio.avatars is None:
            continue
        label = term_label(ratio.term, result.reference_levels)
        if ratio.real == ratio.avatars:
            sentences.append(_("Hazard ratio of {label}: {interval} on both: identical.").format(
                label=label, interval=interval(ratio.real)))
            continue
        flipped = "" if ratio.real.significant == ratio.avatars.significant else " " + (
            _("Significant on the real rows, not on the avatars.") if ratio.real.significant else
            _("Not significant on the real rows, significant on the avatars."))
        sentences.append(_("Hazard ratio of {label}: real {real}, avatars {avatars} (interval overlap {overlap}; two "
                           "real samples: {reference}): {verdict}.").format(
            label=label, real=interval(ratio.real), avatars=interval(ratio.avatars), overlap=figure(ratio.overlap, 2),
            reference=figure(ratio.reference_overlap, 2),
            verdict=overlap_verdict(ratio.overlap, ratio.reference_overlap)) + flipped)
    if len(sentences) == 1:
        sentences.append(_("No hazard ratio or group comparison could be made."))
    return " ".join(sentences)


def _median(curve: Curve) -> str:
    return _("not reached") if curve.median is None else figure(curve.median)


def group_statistics_reading(result: GroupStatisticsResult) -> str:
    sentences = []
    for table in result.tables:
        gap, reference = table.largest_difference("avatars"), table.largest_difference("holdout")
        if gap is None:
            continue
        unit = f" {_(table.unit)}" if table.unit else ""
        order = _order_change(table)
        sentences.append(_("Mean {value} by {group}: the avatars' group means are within {gap}{unit} of the real ones "
                           "(two real samples: within {reference}{unit}): {verdict}.").format(
            value=table.value, group=table.group, gap=figure(gap), unit=unit, reference=figure(reference),
            verdict=gap_verdict(gap, reference)) + (f" {order}" if order else ""))
    return " ".join(sentences) or _("No numeric column to summarise by {group}.").format(group=result.group)


def _order_change(table: GroupStatistics) -> str:
    """A sentence when the groups' order by mean differs between the real rows and the avatars."""
    means = [(row.group, row.means["real"], row.means["avatars"]) for row in table.groups]
    rows = [(group, real, avatars) for group, real, avatars in means if real is not None and avatars is not None]
    real_order = [row[0] for row in sorted(rows, key=lambda row: row[1])]
    avatars_order = [row[0] for row in sorted(rows, key=lambda row: row[2])]
    if real_order == avatars_order:
        return ""
    if len(rows) == 2:
        return _("The order is reversed: {higher} above {lower} in the real rows, below it in the avatars.").format(
            higher=group_name(real_order[1]), lower=group_name(real_order[0]))
    return _("The groups' order by mean differs from the real rows'.")


def group_name(group: str) -> str:
    """A group as shown: its value, or "(missing)" in the current language."""
    return _(MISSING_GROUP) if group == MISSING_GROUP else group


def missing_reading(result: MissingShares) -> str:
    """The largest gap of a missing share between the avatars and the real rows, against the largest between two real
    samples over every variable: like with like (issue 45: the first variable's real samples agreeing exactly was
    read as "two real samples agree exactly" while another's were 2.1 points apart)."""
    largest = result.largest_difference()
    if largest is None:
        return _("No variable.")
    if not any(share.shares["real"] or share.shares["avatars"] for share in result.variables):
        return _("No value is missing, in the real rows or in the avatars.")
    natural = max(result.variables, key=lambda share: abs(share.reference_difference))
    gap, reference = abs(largest.difference), abs(natural.reference_difference)
    if gap == 0:
        return _("The avatars keep every variable's missing share exactly as the real rows'.")
    return _("The avatars keep every variable's missing share within {gap} points of the real rows' (largest gap: "
             "{variable}, {real} % real, {avatars} % avatars); two real samples differ by up to {reference} points "
             "(largest: {natural}): {verdict}.").format(
        gap=number(100 * gap, ".1f"), variable=largest.variable, real=number(100 * largest.shares["real"], ".1f"),
        avatars=number(100 * largest.shares["avatars"], ".1f"), reference=number(100 * reference, ".1f"),
        natural=natural.variable, verdict=gap_verdict(round(gap, 3), round(reference, 3)))


def trend_reading(result: MixedModelResult) -> str:
    """The trend of a series variable in words: each group's slope per unit of time, real and avatars with their
    intervals, their overlap against two real samples'."""
    if result.not_applicable:
        return _(result.not_applicable)
    unit, scale = slope_unit(result)
    sentences = [_("Trend of {value} over time ({unit}; a mixed model, each person with their own level and slope; "
                   "{real} real persons, {avatars} avatars):").format(
        value=result.value, unit=unit, real=number(result.persons["real"], ","),
        avatars=number(result.persons["avatars"], ","))]
    for slope in result.slopes:
        where = _(ALL) if result.group is None else f"{result.group} = {slope.term}"
        if slope.real is None or slope.avatars is None:
            sentences.append(_("{where}: not estimable on {side}.").format(
                where=where, side=_(THE_SIDES[("real",) if slope.real is None else ("avatars",)])))
            continue
        decimals = shared_decimals([(slope.real, scale), (slope.avatars, scale)])
        sentences.append(_("{where}: real {real}, avatars {avatars} (interval overlap {overlap}; two real samples: "
                           "{reference}): {verdict}.").format(
            where=where, real=interval(slope.real, scale=scale, decimals=decimals),
            avatars=interval(slope.avatars, scale=scale, decimals=decimals),
            overlap=figure(slope.overlap, 2), reference=figure(slope.reference_overlap, 2),
            verdict=overlap_verdict(slope.overlap, slope.reference_overlap) if slope.overlap is not None
            else _("no interval to compare")))
    failed = tuple(side for side in result.unreliable if side != "holdout")
    if failed:
        sentences.append(_("The fit did not converge on {sides}: read its intervals with care.").format(
            sides=_(THE_SIDES[failed])))
    return " ".join(sentences)


DAY_UNITS = ((1.0, N_("per day")), (7.0, N_("per week")), (365.25 / 12, N_("per month")), (365.25, N_("per year")))
READABLE_SLOPE = 0.01  # the shortest unit of time in which the largest slope reads at least this


def slope_unit(result: MixedModelResult) -> tuple[str, float]:
    """The unit a trend's slopes are said in, and the factor from the model's: per day, week, month or year for
    dates, the shortest in which the largest slope reads at least :data:`READABLE_SLOPE` (issue 46: -0.000318 per
    day is -0.116 per year); per unit of the time as written otherwise."""
    if result.unit != "day":
        return _("per unit of {time}").format(time=result.time), 1.0
    largest = max((abs(side.value) for slope in result.slopes for side in (slope.real, slope.avatars, slope.holdout)
                   if side is not None), default=0.0)
    days, name = next(((days, name) for days, name in DAY_UNITS if largest * days >= READABLE_SLOPE), DAY_UNITS[-1])
    return _(name), days


def trend_table(result: MixedModelResult) -> pd.DataFrame:
    """One row per group: the slope on the real rows, the avatars and the holdout with their intervals (in the unit
    of :func:`slope_unit`), and the overlaps."""
    _unit, scale = slope_unit(result)
    decimals = shared_decimals([(side, scale) for slope in result.slopes
                                for side in (slope.real, slope.avatars, slope.holdout)])
    return pd.DataFrame([{_("Group"): _(ALL) if result.group is None else f"{result.group} = {slope.term}",
                          _("Real rows"): interval(slope.real, scale=scale, decimals=decimals),
                          _("Avatars"): interval(slope.avatars, scale=scale, decimals=decimals),
                          _("Holdout"): interval(slope.holdout, scale=scale, decimals=decimals),
                          _("Overlap, avatars"): figure(slope.overlap, 2),
                          _("Overlap, two real samples"): figure(slope.reference_overlap, 2)}
                         for slope in result.slopes])


def analysis_notes(result: AnalysisResult | MixedModelResult) -> list[str]:
    """What the user should know about how an analysis was fitted: a side that could not be, terms left out."""
    return [_(note) for note in getattr(result, "notes", ())]


def reading(name: str, result: AnalysisResult, holdout: Holdout = Holdout.REAL) -> str:
    """The plain reading of one analysis (or why the data did not allow it); ``holdout`` is the evaluation's case
    (SPEC section 5): whom a prediction was tested on. The analysis ``name`` ran gives ``result``'s type."""
    if isinstance(result, AnalysisNotRun):
        return _("Not run: {reason}").format(reason=_(result.reason))
    if name == "prediction":
        assert isinstance(result, PredictionResult)
        return prediction_reading(result, holdout)
    if name == "regression":
        assert isinstance(result, RegressionResult)
        return regression_reading(result)
    if name == "survival":
        assert isinstance(result, SurvivalResult)
        return survival_reading(result)
    if name == "group_statistics":
        assert isinstance(result, GroupStatisticsResult)
        return group_statistics_reading(result)
    assert name == "missing_shares" and isinstance(result, MissingShares)
    return missing_reading(result)


def hellinger_spread(evaluation: Evaluation) -> str:
    """The per-variable Hellinger scores' mean, standard deviation and range, in one sentence."""
    result = evaluation.signal["hellinger_mean"]
    spread, rows = result.breakdown.get("standard_deviation"), result.breakdown.get("per_variable", [])
    if result.value is None or spread is None or not rows:
        return ""
    worst, best = min(rows, key=lambda row: row["score"]), max(rows, key=lambda row: row["score"])
    return _("Per-variable Hellinger scores: mean {mean}, standard deviation {spread}, from {worst} ({worst_variable}) "
             "to {best} ({best_variable}).").format(
        mean=number(result.value, ".1f"), spread=number(spread, ".1f"), worst=number(worst["score"], ".1f"),
        worst_variable=worst["variable"], best=number(best["score"], ".1f"), best_variable=best["variable"])


REGRESSION_SCALE = N_("Effects on the scale of the figure: a number's coefficient times its standard deviation in "
                      "the real rows (the effect of one standard deviation, given under 'Per'), a category's against "
                      "its first level. The JSON holds the coefficients per unit.")


def regression_table(result: RegressionResult) -> pd.DataFrame:
    """One row per effect, on the figure's scale: real rows, avatars and holdout with intervals (one precision for
    the whole table), their overlap, and whether significance holds and sign changes."""
    scales = {c.term: result.spreads.get(c.term) or 1.0 for c in result.coefficients}
    decimals = shared_decimals([(estimate, scales[c.term]) for c in result.coefficients
                                for estimate in (c.real, c.avatars, c.holdout)])
    rows = []
    for c in result.coefficients:
        spread, scale = result.spreads.get(c.term), scales[c.term]
        rows.append({
            _("Effect"): term_label(c.term, result.reference_levels),
            _("Per"): _("1 SD = {spread}").format(spread=figure(spread)) if spread else (
                "" if c.term == INTERCEPT else _("level")),
            _("Real rows"): interval(c.real, scale=scale, decimals=decimals),
            _("Avatars"): interval(c.avatars, scale=scale, decimals=decimals),
            _("Holdout (real)"): interval(c.holdout, scale=scale, decimals=decimals),
            _("Interval overlap"): figure(c.overlap, decimals=OVERLAP_DECIMALS),
            _("Two real samples' overlap"): figure(c.reference_overlap, decimals=OVERLAP_DECIMALS),
            _("Same significance"): _yes_no(c.significance_agrees),
            _("Significant sign change"): _yes_no(c.significant_sign_change),
        })
    return pd.DataFrame(rows)


OVERLAP_DECIMALS = 2  # an overlap, 0 to 1: 0.05 beside 0.54, never 0.050


def hazard_table(result: SurvivalResult) -> pd.DataFrame:
    decimals = shared_decimals([(estimate, 1.0) for r in result.hazard_ratios
                                for estimate in (r.real, r.avatars, r.holdout)])
    return pd.DataFrame([{
        _("Term"): term_label(r.term, result.reference_levels),
        _("Hazard ratio, real rows"): interval(r.real, decimals=decimals),
        _("Avatars"): interval(r.avatars, decimals=decimals), _("Holdout (real)"): interval(r.holdout, decimals=decimals),
        _("Interval overlap"): figure(r.overlap, decimals=OVERLAP_DECIMALS),
        _("Two real samples' overlap"): figure(r.reference_overlap, decimals=OVERLAP_DECIMALS),
    } for r in result.hazard_ratios])


def group_table(result: GroupStatisticsResult, value: str) -> pd.DataFrame:
    """Means and medians per group, all with the decimals that show the smallest to three significant digits."""
    table = next(table for table in result.tables if table.value == value)
    figures = [v for row in table.groups for v in (*row.means.values(), *row.medians.values())
               if v is not None and math.isfinite(v)]
    decimals = min(max((decimals_for(v) for v in figures), default=0), TABLE_DECIMALS)
    return pd.DataFrame([{
        table.group: group_name(row.group),
        _("Rows (real / avatars)"): f"{number(row.counts['real'], ',')} / {number(row.counts['avatars'], ',')}",
        **{label: figure(statistic[side], decimals=decimals) for label, statistic, side in (
            (_("Mean, real"), row.means, "real"), (_("Mean, avatars"), row.means, "avatars"),
            (_("Mean, holdout"), row.means, "holdout"), (_("Median, real"), row.medians, "real"),
            (_("Median, avatars"), row.medians, "avatars"), (_("Median, holdout"), row.medians, "holdout"))},
    } for row in table.groups])


def missing_table(result: MissingShares) -> pd.DataFrame:
    """Shares in % and gaps in points, one decimal each (8.2, 9.0; not 8.2 beside 9)."""
    return pd.DataFrame([{
        _("Variable"): share.variable, _("Real rows (%)"): number(100 * share.shares["real"], ".1f"),
        _("Avatars (%)"): number(100 * share.shares["avatars"], ".1f"),
        _("Holdout (%)"): number(100 * share.shares["holdout"], ".1f"),
        _("Gap, avatars (points)"): number(100 * share.difference, "+.1f"),
        _("Gap, two real samples (points)"): number(100 * share.reference_difference, "+.1f"),
    } for share in result.variables])


def prediction_table(result: PredictionResult) -> pd.DataFrame:
    return pd.DataFrame([{_("Trained on"): _(side), _(result.score_name): figure(score.value),
                          _("95 % interval"): _("{low} to {high}").format(low=figure(score.low),
                                                                          high=figure(score.high))}
                         for side, score in ((THE_SIDES[("real",)], result.real),
                                             (THE_SIDES[("avatars",)], result.avatars))])


def _yes_no(value: bool | None) -> str:
    return _("n/a") if value is None else _("yes") if value else _("no")


def median_table(result: SurvivalResult) -> pd.DataFrame:
    """Per group: rows, events and median time on the real rows and the avatars."""
    rows = []
    for real, avatars in zip(result.curves["real"], result.curves["avatars"], strict=True):
        rows.append({_("Group"): _("all rows") if real.group is None else f"{result.group} = {group_name(real.group)}",
                     _("Rows (real / avatars)"): f"{number(real.rows, ',')} / {number(avatars.rows, ',')}",
                     _("Events (real / avatars)"): f"{number(real.events, ',')} / {number(avatars.events, ',')}",
                     _("Median time, real"): _median(real), _("Median time, avatars"): _median(avatars)})
    return pd.DataFrame(rows)


def analysis_tables(name: str, result: AnalysisResult) -> list[tuple[str, pd.DataFrame]]:
    """The tables of one analysis, each with its caption (empty: none needed); ``name`` gives ``result``'s type."""
    if isinstance(result, AnalysisNotRun):
        return []
    if name == "prediction":
        assert isinstance(result, PredictionResult)
        return [("", prediction_table(result))]
    if name == "regression":
        assert isinstance(result, RegressionResult)
        return [(_(REGRESSION_SCALE), regression_table(result))] if result.coefficients else []
    if name == "survival":
        assert isinstance(result, SurvivalResult)
        return [(_("Kaplan-Meier curves"), median_table(result))] + (
            [(_("Hazard ratios (Cox, 95 % intervals)"), hazard_table(result))] if result.hazard_ratios else [])
    if name == "group_statistics":
        assert isinstance(result, GroupStatisticsResult)
        return [(_("{value} by {group}").format(value=table.value, group=table.group), group_table(result, table.value))
                for table in result.tables]
    assert isinstance(result, MissingShares)
    return [("", missing_table(result))]
