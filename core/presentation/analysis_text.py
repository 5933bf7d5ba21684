"""The analyses of SPEC section 9 in words: one plain reading per analysis ("a model trained on the avatars reaches
97 % of the real model's ROC AUC on real people it never saw"), with the natural variability of two real samples
(WO against HO) as the yardstick, and the tables the pages and the report show."""

from __future__ import annotations

import math

import pandas as pd

from core.metrics.analysis.group_statistics import GroupStatisticsResult
from core.metrics.analysis.interval_overlap import Estimate
from core.metrics.analysis.missing_shares import MissingShares
from core.metrics.analysis.prediction import PredictionResult
from core.metrics.analysis.regression import RegressionResult
from core.metrics.analysis.request import AnalysisNotRun
from core.metrics.analysis.survival import SurvivalResult
from core.metrics.evaluation import Evaluation

OVERLAP_SLACK = 0.1  # an overlap this close to the two real samples' reads "as close as two real samples"


def figure(value: float | None, digits: int = 3) -> str:
    """A number to a few significant digits ("n/a" when missing): 0.952, 12.4, 1 530."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if value == 0 or (abs(value) >= 1 and value == round(value)):
        return f"{value:,.0f}".replace(",", " ")
    if abs(value) < 1e-4:
        return f"{value:.{digits - 1}e}"
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    return f"{value:,.{decimals}f}".replace(",", " ")


def interval(estimate: Estimate | None, digits: int = 3) -> str:
    """``0.49 [0.35, 0.70]``, or "not estimable"."""
    if estimate is None:
        return "not estimable"
    return f"{figure(estimate.value, digits)} [{figure(estimate.low, digits)}, {figure(estimate.high, digits)}]"


def p_text(p_value: float | None) -> str:
    return "n/a" if p_value is None else "p < 0.001" if p_value < 0.001 else f"p = {p_value:.3f}"


def prediction_reading(result: PredictionResult) -> str:
    score = result.score_name
    if not math.isfinite(result.real.value):
        return f"Predicting {result.outcome}: the {score} cannot be computed on the real rows never used (they " \
               f"hold a single value of {result.outcome}, or the values are too large): no comparison."
    tested = "tested on real people never used to train either model"
    if result.avatars == result.real:
        return f"Predicting {result.outcome}: the model trained on the avatars scores exactly as the real one " \
               f"({score} {figure(result.real.value)}), {tested}: identical."
    if result.ratio is None:
        return f"Predicting {result.outcome}: even the model trained on the real rows predicts nothing on new " \
               f"people ({score} {figure(result.real.value)}): there is no signal to keep for this outcome."
    within = result.real.low <= result.avatars.value <= result.real.high
    return f"A model trained on the avatars reaches {100 * result.ratio:.0f} % of the real model's {score} " \
           f"predicting {result.outcome} on real people it never saw ({figure(result.avatars.value)} against " \
           f"{figure(result.real.value)}" + ("; chance is 0.5" if result.task == "binary" else "") + "): " + \
           ("within the real model's 95 % interval." if within else
            f"outside the real model's 95 % interval [{figure(result.real.low)}, {figure(result.real.high)}].")


def regression_reading(result: RegressionResult) -> str:
    if result.not_applicable:
        return result.not_applicable
    agreements, overlap, reference = result.agreements, result.mean_overlap, result.reference_mean_overlap
    model = "linear" if result.model == "linear" else f"logistic (odds of {result.outcome} = {result.modelled})"
    if agreements["compared"] == 0 or overlap is None:
        return f"The {model} model of {result.outcome} could not be compared (see below)."
    if overlap == 1.0:
        closeness = "identical"
    elif reference is not None and overlap >= reference - OVERLAP_SLACK:
        closeness = "as close as two real samples are"
    else:
        closeness = "further apart than two real samples are"
    rows = f" (fitted on the complete rows: {result.rows['real']:,} real, {result.rows['avatars']:,} avatars)"
    return (f"In the {model} model of {result.outcome}{rows}, the avatars' 95 % intervals overlap the real ones by "
            f"{overlap:.2f} on average (1: the same interval, 0: touching; two real samples: {figure(reference, 2)}): "
            f"{closeness}. {agreements['same_sign']} of {agreements['compared']} coefficients keep their sign, "
            f"{agreements['same_significance']} of {agreements['compared']} their significance (p < 0.05).")


def survival_reading(result: SurvivalResult) -> str:
    sentences = []
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
        identical = ratio.real == ratio.avatars
        sentences.append(f"Hazard ratio of {ratio.term}: real {interval(ratio.real, 2)}, avatars "
                         f"{interval(ratio.avatars, 2)}" + (": identical." if identical else
                         f" (interval overlap {figure(ratio.overlap, 2)}; two real samples: "
                         f"{figure(ratio.reference_overlap, 2)})."))
    if len(result.curves["real"]) == 1:
        (real,), (avatars,) = result.curves["real"], result.curves["avatars"]
        if real.survival and avatars.survival:
            sentences.insert(0, f"Share still without the event at {figure(result.times[-1])}"
                                f"{' ' + result.unit if result.unit else ''}: real rows "
                                f"{100 * real.survival[-1]:.1f} %, avatars {100 * avatars.survival[-1]:.1f} %; "
                                f"median time real {_median(real)}, avatars {_median(avatars)}.")
    return " ".join(sentences) or "No hazard ratio or group comparison could be made."


def _median(curve) -> str:
    return "not reached" if curve.median is None else figure(curve.median)


def group_statistics_reading(result: GroupStatisticsResult) -> str:
    sentences = []
    for table in result.tables:
        gap, reference = table.largest_difference("avatars"), table.largest_difference("holdout")
        unit = f" {table.unit}" if table.unit else ""
        if gap is None:
            continue
        sentences.append(f"Mean {table.value} by {table.group}: the avatars' group means are within "
                         f"{figure(gap)}{unit} of the real ones (two real samples: within {figure(reference)}{unit})"
                         + (": identical." if gap == 0 else "."))
    return " ".join(sentences) or f"No numeric column to summarise by {result.group}."


def missing_reading(result: MissingShares) -> str:
    largest = result.largest_difference()
    if largest is None:
        return "No variable."
    if not any(share.shares["real"] or share.shares["avatars"] for share in result.variables):
        return "No value is missing, in the real rows or in the avatars."
    return (f"The avatars keep every variable's missing share within "
            f"{100 * abs(largest.difference):.1f} points of the real rows' (largest gap: {largest.variable}, "
            f"{100 * largest.shares['real']:.1f} % real, {100 * largest.shares['avatars']:.1f} % avatars; two real "
            f"samples: {100 * abs(largest.reference_difference):.1f} points).")


def analysis_notes(result) -> list[str]:
    """What the user should know about how an analysis was fitted: a side that could not be, terms left out."""
    return list(getattr(result, "notes", ()))


READINGS = {"prediction": prediction_reading, "regression": regression_reading, "survival": survival_reading,
            "group_statistics": group_statistics_reading, "missing_shares": missing_reading}


def reading(name: str, result) -> str:
    """The plain reading of one analysis (or why the data did not allow it)."""
    if isinstance(result, AnalysisNotRun):
        return f"Not run: {result.reason}"
    return READINGS[name](result)


def hellinger_spread(evaluation: Evaluation) -> str:
    """The per-variable Hellinger scores' mean and standard deviation, in one sentence."""
    result = evaluation.signal["hellinger_mean"]
    spread = result.breakdown.get("standard_deviation")
    if result.value is None or spread is None:
        return ""
    return (f"Per-variable Hellinger scores: mean {result.value:.1f}, standard deviation {spread:.1f} (a small "
            f"spread: the avatars keep every variable alike; a large one: some variables much less than others).")


def regression_table(result: RegressionResult) -> pd.DataFrame:
    """One row per coefficient: real, avatars and holdout with intervals, overlap and agreement."""
    return pd.DataFrame([{
        "Coefficient": c.term, "Real rows": interval(c.real), "Avatars": interval(c.avatars),
        "Interval overlap": figure(c.overlap, 2), "Two real samples' overlap": figure(c.reference_overlap, 2),
        "Same sign": _yes_no(c.sign_agrees), "Same significance": _yes_no(c.significance_agrees),
    } for c in result.coefficients])


def hazard_table(result: SurvivalResult) -> pd.DataFrame:
    return pd.DataFrame([{
        "Term": r.term, "Hazard ratio, real rows": interval(r.real, 2), "Avatars": interval(r.avatars, 2),
        "Holdout (real)": interval(r.holdout, 2), "Interval overlap": figure(r.overlap, 2),
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
    return pd.DataFrame([{
        "Variable": share.variable, "Real rows (%)": round(100 * share.shares["real"], 1),
        "Avatars (%)": round(100 * share.shares["avatars"], 1), "Holdout (%)": round(100 * share.shares["holdout"], 1),
        "Gap, avatars (points)": round(100 * share.difference, 1),
        "Gap, two real samples (points)": round(100 * share.reference_difference, 1),
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
                     "Median time, real": figure(real.median) if real.median is not None else "not reached",
                     "Median time, avatars": figure(avatars.median) if avatars.median is not None else "not reached"})
    return pd.DataFrame(rows)


def analysis_tables(name: str, result) -> list[tuple[str, pd.DataFrame]]:
    """The tables of one analysis, each with its caption (empty: none needed)."""
    if isinstance(result, AnalysisNotRun):
        return []
    if name == "prediction":
        return [("", prediction_table(result))]
    if name == "regression":
        return [("", regression_table(result))] if result.coefficients else []
    if name == "survival":
        return [("Kaplan-Meier curves", median_table(result))] + (
            [("Hazard ratios (Cox, 95 % intervals)", hazard_table(result))] if result.hazard_ratios else [])
    if name == "group_statistics":
        return [(f"{table.value} by {table.group}", group_table(result, table.value)) for table in result.tables]
    return [("", missing_table(result))]
