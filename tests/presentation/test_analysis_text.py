"""The analyses in words (SPEC section 9): what identical avatars read as, what a failed one says, the numbers."""

import pytest

from core.metrics.analysis.interval_overlap import Estimate
from core.metrics.analysis.prediction import PredictionResult, Score
from core.metrics.analysis.request import AnalysisNotRun, AnalysisRequest, run_analyses
from core.presentation.analysis_text import analysis_tables, figure, interval, reading, shared_decimals
from tests.metrics.analysis.test_prediction import halves, shuffled


@pytest.mark.parametrize(("value", "text"), [(0.952, "0.952"), (0.5, "0.500"), (12.43, "12.4"), (1530.2, "1,530"),
                                             (6.0, "6.00"), (0.0001234, "0.000123"), (None, "n/a"), (float("nan"), "n/a"),
                                             (-0.617, "-0.617"), (3e-7, "3.00e-07"), (0.0, "0")])
def test_three_significant_digits(value, text):
    assert figure(value) == text


def test_an_interval_shares_its_values_decimals():
    assert interval(Estimate(0.9995, 0.996, 1.003, 0.5)) == "0.9995 (0.9960 to 1.0030)"  # not "1.00 (1.00 to 1.00)"
    assert interval(Estimate(0.49, 0.35, 0.7, 0.01)) == "0.490 (0.350 to 0.700)"
    assert interval(Estimate(0.0425, 0.0135, 0.0715, 0.01), scale=12.0) == "0.510 (0.162 to 0.858)"
    assert interval(None) == "not estimable"


def test_an_interval_of_thousands_reads_without_a_comma_between_its_ends_nor_a_minus_zero():
    """"-572 [-1,011, -133]" read as four numbers; "191 [-0, 383]" carried a minus zero."""
    assert interval(Estimate(-572.0, -1011.0, -133.0, 0.01)) == "-572 (-1,011 to -133)"
    assert interval(Estimate(191.0, -0.3, 383.0, 0.05)) == "191 (0 to 383)"


def test_a_tables_intervals_share_one_precision_from_row_to_row():
    """"-82 (-203 to 39)" beside "-36.5 (-97.2 to 24.1)": one count of decimals for the whole table."""
    rows = [(Estimate(150.0, 19.0, 280.0, 0.02), 1.0), (Estimate(2.78, 0.78, 4.79, 0.01), 1.0),
            (Estimate(-0.0082, -0.0203, 0.0039, 0.2), 10.0)]  # 150 needs none, 2.78 two, -0.082 (x10) three
    decimals = shared_decimals(rows)
    assert decimals == 3  # -0.0820 (-0.203 to 0.039): the largest 0.203 to three significant digits
    assert [interval(e, scale=s, decimals=decimals) for e, s in rows] == [
        "150.000 (19.000 to 280.000)", "2.780 (0.780 to 4.790)", "-0.082 (-0.203 to 0.039)"]
    # an effect needing more than TABLE_DECIMALS keeps its own digits; the others stop at four decimals
    small = [(Estimate(0.000123, 0.0001, 0.00015, 0.01), 1.0), (Estimate(1.5, 1.0, 2.0, 0.01), 1.0)]
    assert shared_decimals(small) == 4
    assert [interval(e, decimals=4) for e, _ in small] == ["0.000123 (0.000100 to 0.000150)",
                                                           "1.5000 (1.0000 to 2.0000)"]
    # a tiny one reads in significant digits and sets nothing for the others
    tiny = [(Estimate(0.000012, 0.000004, 0.00002, 0.01), 1.0), (Estimate(1.5, 1.0, 2.0, 0.01), 1.0)]
    assert shared_decimals(tiny) == 2 and interval(tiny[0][0], decimals=2) == "1.20e-05 (4.00e-06 to 2.00e-05)"


def prediction_of(task, real, avatars):
    return PredictionResult("y", task, "boosting", ("x",), Score(*real), Score(*avatars))


def test_a_model_at_chance_is_said_to_be_at_chance_and_a_negative_r2_worse_than_the_mean():
    """birthwt: a chance-level model was called "within the real model's interval"; Wage: "-124 % of the real
    model's R^2"."""
    at_chance = prediction_of("binary", (0.56, 0.42, 0.70), (0.55, 0.41, 0.69))
    assert reading("prediction", at_chance) == (
        "Predicting y: the model trained on the real rows is no better than chance on real people it never saw (ROC "
        "AUC 0.560, 95 % interval 0.420 to 0.700; chance is 0.500): there is no signal for the avatars to keep, "
        "whatever they score (0.550).")
    worse = prediction_of("numeric", (0.24, 0.20, 0.28), (-0.30, -0.35, -0.25))
    assert reading("prediction", worse) == ("A model trained on the avatars predicts y on real people it never saw "
                                            "worse than its mean does (R^2 -0.300, against 0.240 for the real "
                                            "model).")


def test_avatars_that_are_the_originals_read_as_identical():
    working, holdout, kinds = halves(n=800)
    request = AnalysisRequest(outcome="weight", time="age", event="group", event_value="younger",
                              group="colour")
    results = run_analyses(working, holdout, working.copy(), kinds, request, seed=0)
    assert reading("prediction", results["prediction"]).endswith(": identical.")
    assert "overlap the real ones by 1.00 on average" in reading("regression", results["regression"])
    assert "identical" in reading("regression", results["regression"])
    survival = reading("survival", results["survival"])
    assert "the same conclusion" in survival and survival.count(": identical.") == 2  # colour = green, = red
    assert "are within 0 of the real ones (two real samples: within 7.70): identical." in reading(
        "group_statistics", results["group_statistics"])
    assert reading("missing_shares", results["missing_shares"]) == \
        "The avatars keep every variable's missing share exactly as the real rows'."
    assert all(analysis_tables(name, result) for name, result in results.items())


def test_shuffled_avatars_read_as_further_apart_and_a_failed_analysis_says_why():
    working, holdout, kinds = halves(n=1_600, seed=2)
    results = run_analyses(working, holdout, shuffled(working, 3), kinds,
                           AnalysisRequest(outcome="weight", predictors=("age", "score")), seed=0)
    assert "further apart than two real samples are" in reading("regression", results["regression"])
    assert "worse than its mean does (R^2 " in reading("prediction", results["prediction"])  # shuffled: below the mean
    assert reading("survival", AnalysisNotRun("The event column 'e' must have two values.")) == \
        "Not run: The event column 'e' must have two values."


def test_the_missing_values_reading_compares_like_with_like():
    """Issue 45: the reading compared the avatars' largest gap (1.9 points, on a variable whose two real samples
    agreed) with that variable's real gap ("two real samples, which agree exactly") while another variable's real
    samples were 2.1 points apart: the largest gap against the largest gap."""
    from core.metrics.analysis.missing_shares import MissingShare, MissingShares

    shares = MissingShares((MissingShare("a", {"real": 0.100, "avatars": 0.119, "holdout": 0.100}),
                            MissingShare("b", {"real": 0.050, "avatars": 0.050, "holdout": 0.071})))
    assert reading("missing_shares", shares) == (
        "The avatars keep every variable's missing share within 1.9 points of the real rows' (largest gap: a, 10.0 % "
        "real, 11.9 % avatars); two real samples differ by up to 2.1 points (largest: b): no larger than between two "
        "real samples.")


def test_a_trend_of_dates_is_said_in_the_unit_that_reads():
    """Issue 46: "-0.000318" per day; per year it is -0.116."""
    from core.metrics.analysis.interval_overlap import ComparedEstimate, Estimate
    from core.metrics.analysis.mixed_model import MixedModelResult
    from core.presentation.analysis_text import slope_unit, trend_reading

    def result(per_day: float, unit: str = "day") -> MixedModelResult:
        slope = ComparedEstimate("all persons", *(Estimate(per_day, 1.2 * per_day, 0.8 * per_day, 0.01),) * 3)
        return MixedModelResult("ldl", "visit_date", unit, None, {"real": 300, "avatars": 300, "holdout": 300},
                                (slope,))

    assert slope_unit(result(-0.000318)) == ("per year", 365.25)
    assert slope_unit(result(-0.002)) == ("per week", 7.0)
    assert slope_unit(result(-0.02)) == ("per day", 1.0)
    assert slope_unit(result(-0.000318, unit="")) == ("per unit of visit_date", 1.0)
    assert "(per year;" in trend_reading(result(-0.000318)) and "-0.116" in trend_reading(result(-0.000318))


def test_the_verdict_s_relationships_read_the_prediction_as_the_analysis_page_does():
    """A helper's pass (issue 48): beside the verdict, "A model trained on the avatars reaches 100 % of the real
    model's ROC AUC on real people it never saw", where the Analysis page said the real model is no better than
    chance on people whose records went into the avatars. The rule: one reading of a prediction, on the people it
    was tested on."""
    from core.engine.split import Holdout
    from core.metrics.evaluation import Evaluation
    from core.presentation.analysis_text import prediction_reading
    from core.presentation.verdict_text import relationships

    at_chance = prediction_of("binary", (0.56, 0.42, 0.70), (0.56, 0.42, 0.70))
    evaluation = Evaluation(holdout=Holdout.APPROXIMATE, rows={}, signal={}, privacy={},
                            analyses={"prediction": at_chance})
    said = relationships(evaluation)
    assert said == prediction_reading(at_chance, Holdout.APPROXIMATE) and "never saw" not in said
    assert "whose records went into the avatars" in said
