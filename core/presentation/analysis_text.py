"""The analyses of SPEC section 9 in words: one plain reading per analysis ("a model trained on the avatars reaches
97 % of the real model's ROC AUC on real people it never saw"), each judged against the natural variability of two
real samples (WO against HO): identical, no further apart than two real samples, or further; and the tables the
pages and the report show."""

from __future__ import annotations

import math

import pandas as pd

from core.metrics.analysis import SIDE_NAMES
from core.metrics.analysis.group_statistics import GroupStatistics, GroupStatisticsResult
from core.metrics.analysis.interval_overlap import Estimate
from core.metrics.analysis.missing_shares import MissingShares
from core.metrics.analysis.prediction import PredictionResult
from core.metrics.analysis.regression import INTERCEPT, RegressionResult
from core.metrics.analysis.request import AnalysisNotRun
from core.metrics.analysis.survival import SurvivalResult
from core.metrics.evaluation import Evaluation

OVERLAP_SLACK = 0.1  # an overlap this close to the two real samples' reads "as close as two real samples"


def decimals_for(value: float, digits: int = 3) -> int:
    """The decimals that show ``value`` to ``digits`` significant digits (none from 10^digits up)."""
    return max(digits - 1 - math.floor(math.log10(abs(value))), 0) if value else digits - 1


def figure(value: float | None, digits: int = 3, decimals: int | None = None) -> str:
    """A number to a few significant digits, or with ``decimals``: 0.952, 12.4, 1,530; "n/a" when missing."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if value == 0 and decimals is None:
        return "0"
    if decimals is None and (abs(value) < 1e-4 or abs(value) >= 1e15):
        return f"{value:.{digits - 1}e}"
    return f"{value:,.{decimals_for(value, digits) if decimals is None else decimals}f}"


def interval(estimate: Estimate | None, digits: int = 3, scale: float = 1.0) -> str:
    """``0.490 [0.350, 0.700]``: the largest of the three to ``digits`` significant digits, the others with as
    many decimals, and enough for the interval's width to show two (``0.9995 [0.9960, 1.0030]``, not
    ``1.00 [1.00, 1.00]``); "not estimable" when missing. ``scale`` multiplies the three."""
    if estimate is None:
        return "not estimable"
    value, low, high = (number * scale for number in (estimate.value, estimate.low, estimate.high))
    largest = max((abs(number) for number in (value, low, high) if math.isfinite(number)), default=0.0)
    width = high - low if math.isfinite(high - low) else 0.0
    decimals = max(decimals_for(largest, digits), decimals_for(width, 2) if width > 0 else 0)
    if decimals > 6 or largest >= 1e15:  # a tiny or a huge effect: significant digits instead
        return f"{figure(value, digits)} [{figure(low, digits)}, {figure(high, digits)}]"
    return f"{figure(value, decimals=decimals)} [{figure(low, decimals=decimals)}, {figure(high, decimals=decimals)}]"


def p_text(p_value: float | None) -> str:
    return "n/a" if p_value is None else "p < 0.001" if p_value < 0.001 else f"p = {p_value:.3f}"


def term_label(term: str, references: dict[str, str]) -> str:
    """``"arms = 1"`` as ``"arms = 1 (vs 0)"``: a category's effect is against its first level."""
    name, separator, _ = term.partition(" = ")
    return f"{term} (vs {references[name]})" if separator and name in references else term


def overlap_verdict(overlap: float, reference: float | None) -> str:
    if overlap == 1.0:
        return "identical"
    if reference is not None and overlap >= reference - OVERLAP_SLACK:
        return "as close as two real samples are"
    return "further apart than two real samples are"


def gap_verdict(gap: float, reference: float | None) -> str:
    """A gap between the avatars and the real rows against the gap between two real samples."""
    if gap == 0:
        return "identical"
    if reference is None:
        return "no reference to judge it by"
    if gap <= reference:
        return "no larger than between two real samples"
    if reference == 0:
        return "larger than between two real samples, which agree exactly"
    return f"{gap / reference:.1f} times the gap between two real samples"


TESTED_ON = {  # the people the models are tested on, by holdout case (SPEC section 5)
    "real": "real people it never saw",
    "given": "the people of the holdout file, kept apart",
    "approximate": "real people whose records went into the avatars (no row was kept apart: the avatars were made "
                   "from every row)",
}


def prediction_reading(result: PredictionResult, holdout: str = "real") -> str:
    score, tested = result.score_name, TESTED_ON[holdout]
    if not math.isfinite(result.real.value):
        return f"Predicting {result.outcome}: the {score} cannot be computed on the test rows (they hold a single " \
               f"value of {result.outcome}, or the values are too large): no comparison."
    if result.avatars == result.real:
        return f"Predicting {result.outcome}: the model trained on the avatars scores exactly as the real one " \
               f"({score} {figure(result.real.value)}) on {tested}: identical."
    if result.ratio is None:
        return f"Predicting {result.outcome}: even the model trained on the real rows predicts nothing on " \
               f"{tested} ({score} {figure(result.real.value)}): there is no signal to keep for this outcome."
    within = result.real.low <= result.avatars.value <= result.real.high
    return f"A model trained on the avatars reaches {100 * result.ratio:.0f} % of the real model's {score} " \
           f"predicting {result.outcome} on {tested} ({figure(result.avatars.value)} against " \
           f"{figure(result.real.value)}" + ("; chance is 0.5" if result.task == "binary" else "") + "): " + \
           ("within the real model's 95 % interval." if within else
            f"outside the real model's 95 % interval [{figure(result.real.low)}, {figure(result.real.high)}].")


def regression_reading(result: RegressionResult) -> str:
    if result.not_applicable:
        return result.not_applicable
    counts, overlap, reference = result.agreements, result.mean_overlap, result.reference_mean_overlap
    model = "linear" if result.model == "linear" else f"logistic (odds of {result.outcome} = {result.modelled})"
    if counts["compared"] == 0 or overlap is None:
        return f"The {model} model of {result.outcome} could not be compared (see below)."
    failed = [SIDE_NAMES[side] for side in result.unreliable if side != "holdout"]
    if failed:
        return (f"The {model} model of {result.outcome} did not converge on the {' and the '.join(failed)} (a "
                "predictor separates the outcome): its intervals are not reliable, so neither is the comparison. "
                "Choose fewer predictors, leaving out those with rare values.")
    rows = f" (fitted on the complete rows: {result.rows['real']:,} real, {result.rows['avatars']:,} avatars)"
    changes = counts["significant_sign_changes"]
    return (f"In the {model} model of {result.outcome}{rows}, the avatars' 95 % intervals overlap the real ones by "
            f"{overlap:.2f} on average (1: the same interval, 0: touching; two real samples: {figure(reference, 2)}): "
            f"{overlap_verdict(overlap, reference)}. {counts['same_significance']} of {counts['compared']} "
            f"effects keep their significance, p < 0.05 (two real samples: {counts['reference_same_significance']} "
            f"of {counts['reference_compared']}); {changes} significant effect{'s' if changes != 1 else ''} "
            f"change{'' if changes != 1 else 's'} sign (two real samples: "
            f"{counts['reference_significant_sign_changes']}).")


def survival_reading(result: SurvivalResult) -> str:
    sentences = [f"Event: {result.event} = {result.event_value}."]
    if len(result.curves["real"]) == 1:
        (real,), (avatars,) = result.curves["real"], result.curves["avatars"]
        if real.survival and avatars.survival:
            sentences.append(f"Share still without the event at {result.time} = {figure(result.times[-1])}"
                             f"{' ' + result.unit if result.unit else ''}: real rows {100 * real.survival[-1]:.1f} "
                             f"%, avatars {100 * avatars.survival[-1]:.1f} %; median time real {_median(real)}, "
                             f"avatars {_median(avatars)}.")
    if result.group:
        real, avatars = result.logrank_p["real"], result.logrank_p["avatars"]
        if real is not None and avatars is not None:
            same = (real < 0.05) == (avatars < 0.05)
            differ = "differ" if real < 0.05 else "do not differ significantly"
            sentences.append(f"Survival by {result.group}: on the real rows the groups {differ} (log-rank "
                             f"{p_text(real)}), on the avatars {p_text(avatars)}: "
                             f"{'the same conclusion' if same else 'a different conclusion'}.")
    for ratio in result.hazard_ratios:
        if ratio.real is None or ratio.avatars is None:
            continue
        label = term_label(ratio.term, result.reference_levels)
        if ratio.real == ratio.avatars:
            sentences.append(f"Hazard ratio of {label}: {interval(ratio.real)} on both: identical.")
            continue
        flipped = "" if ratio.real.significant == ratio.avatars.significant else (
            " Significant on the real rows, not on the avatars." if ratio.real.significant else
            " Not significant on the real rows, significant on the avatars.")
        sentences.append(f"Hazard ratio of {label}: real {interval(ratio.real)}, avatars {interval(ratio.avatars)} "
                         f"(interval overlap {figure(ratio.overlap, 2)}; two real samples: "
                         f"{figure(ratio.reference_overlap, 2)}): "
                         f"{overlap_verdict(ratio.overlap, ratio.reference_overlap)}.{flipped}")
    if len(sentences) == 1:
        sentences.append("No hazard ratio or group comparison could be made.")
    return " ".join(sentences)


def _median(curve) -> str:
    return "not reached" if curve.median is None else figure(curve.median)


def group_statistics_reading(result: GroupStatisticsResult) -> str:
    sentences = []
    for table in result.tables:
        gap, reference = table.largest_difference("avatars"), table.largest_difference("holdout")
        if gap is None:
            continue
        unit = f" {table.unit}" if table.unit else ""
        order = _order_change(table)
        sentences.append(f"Mean {table.value} by {table.group}: the avatars' group means are within "
                         f"{figure(gap)}{unit} of the real ones (two real samples: within {figure(reference)}{unit}):"
                         f" {gap_verdict(gap, reference)}." + (f" {order}" if order else ""))
    return " ".join(sentences) or f"No numeric column to summarise by {result.group}."


def _order_change(table: GroupStatistics) -> str:
    """A sentence when the groups' order by mean differs between the real rows and the avatars."""
    rows = [row for row in table.groups if row.means["real"] is not None and row.means["avatars"] is not None]
    real = [row.group for row in sorted(rows, key=lambda row: row.means["real"])]
    avatars = [row.group for row in sorted(rows, key=lambda row: row.means["avatars"])]
    if real == avatars:
        return ""
    if len(rows) == 2:
        return f"The order is reversed: {real[1]} above {real[0]} in the real rows, below it in the avatars."
    return "The groups' order by mean differs from the real rows'."


def missing_reading(result: MissingShares) -> str:
    largest = result.largest_difference()
    if largest is None:
        return "No variable."
    if not any(share.shares["real"] or share.shares["avatars"] for share in result.variables):
        return "No value is missing, in the real rows or in the avatars."
    gap, reference = abs(largest.difference), abs(largest.reference_difference)
    if gap == 0:
        return "The avatars keep every variable's missing share exactly as the real rows'."
    return (f"The avatars keep every variable's missing share within {100 * gap:.1f} points of the real rows' "
            f"(largest gap: {largest.variable}, {100 * largest.shares['real']:.1f} % real, "
            f"{100 * largest.shares['avatars']:.1f} % avatars; two real samples: {100 * reference:.1f} points): "
            f"{gap_verdict(round(gap, 3), round(reference, 3))}.")


def analysis_notes(result) -> list[str]:
    """What the user should know about how an analysis was fitted: a side that could not be, terms left out."""
    return list(getattr(result, "notes", ()))


READINGS = {"regression": regression_reading, "survival": survival_reading,
            "group_statistics": group_statistics_reading, "missing_shares": missing_reading}


def reading(name: str, result, holdout: str = "real") -> str:
    """The plain reading of one analysis (or why the data did not allow it); ``holdout`` is the evaluation's case
    (SPEC section 5): whom a prediction was tested on."""
    if isinstance(result, AnalysisNotRun):
        return f"Not run: {result.reason}"
    if name == "prediction":
        return prediction_reading(result, holdout)
    return READINGS[name](result)


def hellinger_spread(evaluation: Evaluation) -> str:
    """The per-variable Hellinger scores' mean, standard deviation and range, in one sentence."""
    result = evaluation.signal["hellinger_mean"]
    spread, rows = result.breakdown.get("standard_deviation"), result.breakdown.get("per_variable", [])
    if result.value is None or spread is None or not rows:
        return ""
    worst, best = min(rows, key=lambda row: row["score"]), max(rows, key=lambda row: row["score"])
    return (f"Per-variable Hellinger scores: mean {result.value:.1f}, standard deviation {spread:.1f}, from "
            f"{worst['score']:.1f} ({worst['variable']}) to {best['score']:.1f} ({best['variable']}).")


REGRESSION_SCALE = ("Effects on the scale of the figure: a number's coefficient times its standard deviation in the "
                    "real rows (the effect of one standard deviation, given under 'Per'), a category's against its "
                    "first level. The JSON holds the coefficients per unit.")


def regression_table(result: RegressionResult) -> pd.DataFrame:
    """One row per effect, on the figure's scale: real rows, avatars and holdout with intervals, their overlap, and
    whether significance holds and sign changes."""
    rows = []
    for c in result.coefficients:
        spread = result.spreads.get(c.term)
        scale = spread if spread else 1.0
        rows.append({
            "Effect": term_label(c.term, result.reference_levels),
            "Per": f"1 SD = {figure(spread)}" if spread else ("" if c.term == INTERCEPT else "level"),
            "Real rows": interval(c.real, scale=scale), "Avatars": interval(c.avatars, scale=scale),
            "Holdout (real)": interval(c.holdout, scale=scale), "Interval overlap": figure(c.overlap, 2),
            "Two real samples' overlap": figure(c.reference_overlap, 2),
            "Same significance": _yes_no(c.significance_agrees),
            "Significant sign change": _yes_no(c.significant_sign_change),
        })
    return pd.DataFrame(rows)


def hazard_table(result: SurvivalResult) -> pd.DataFrame:
    return pd.DataFrame([{
        "Term": term_label(r.term, result.reference_levels), "Hazard ratio, real rows": interval(r.real),
        "Avatars": interval(r.avatars), "Holdout (real)": interval(r.holdout), "Interval overlap": figure(r.overlap, 2),
        "Two real samples' overlap": figure(r.reference_overlap, 2),
    } for r in result.hazard_ratios])


def group_table(result: GroupStatisticsResult, value: str) -> pd.DataFrame:
    table = next(table for table in result.tables if table.value == value)
    return pd.DataFrame([{
        table.group: row.group, "Rows (real / avatars)": f"{row.counts['real']:,} / {row.counts['avatars']:,}",
        "Mean, real": figure(row.means["real"]), "Mean, avatars": figure(row.means["avatars"]),
        "Mean, holdout": figure(row.means["holdout"]), "Median, real": figure(row.medians["real"]),
        "Median, avatars": figure(row.medians["avatars"]), "Median, holdout": figure(row.medians["holdout"]),
    } for row in table.groups])


def missing_table(result: MissingShares) -> pd.DataFrame:
    """Shares in % and gaps in points, one decimal each (8.2, 9.0; not 8.2 beside 9)."""
    return pd.DataFrame([{
        "Variable": share.variable, "Real rows (%)": f"{100 * share.shares['real']:.1f}",
        "Avatars (%)": f"{100 * share.shares['avatars']:.1f}", "Holdout (%)": f"{100 * share.shares['holdout']:.1f}",
        "Gap, avatars (points)": f"{100 * share.difference:+.1f}",
        "Gap, two real samples (points)": f"{100 * share.reference_difference:+.1f}",
    } for share in result.variables])


def prediction_table(result: PredictionResult) -> pd.DataFrame:
    return pd.DataFrame([{"Trained on": side, result.score_name: figure(score.value),
                          "95 % interval": f"[{figure(score.low)}, {figure(score.high)}]"}
                         for side, score in (("the real rows", result.real), ("the avatars", result.avatars))])


def _yes_no(value: bool | None) -> str:
    return "n/a" if value is None else "yes" if value else "no"


def median_table(result: SurvivalResult) -> pd.DataFrame:
    """Per group: rows, events and median time on the real rows and the avatars."""
    rows = []
    for real, avatars in zip(result.curves["real"], result.curves["avatars"], strict=True):
        rows.append({"Group": "all rows" if real.group is None else f"{result.group} = {real.group}",
                     "Rows (real / avatars)": f"{real.rows:,} / {avatars.rows:,}",
                     "Events (real / avatars)": f"{real.events:,} / {avatars.events:,}",
                     "Median time, real": _median(real), "Median time, avatars": _median(avatars)})
    return pd.DataFrame(rows)


def analysis_tables(name: str, result) -> list[tuple[str, pd.DataFrame]]:
    """The tables of one analysis, each with its caption (empty: none needed)."""
    if isinstance(result, AnalysisNotRun):
        return []
    if name == "prediction":
        return [("", prediction_table(result))]
    if name == "regression":
        return [(REGRESSION_SCALE, regression_table(result))] if result.coefficients else []
    if name == "survival":
        return [("Kaplan-Meier curves", median_table(result))] + (
            [("Hazard ratios (Cox, 95 % intervals)", hazard_table(result))] if result.hazard_ratios else [])
    if name == "group_statistics":
        return [(f"{table.value} by {table.group}", group_table(result, table.value)) for table in result.tables]
    return [("", missing_table(result))]
