"""The analyses in words (SPEC section 9): what identical avatars read as, what a failed one says, the numbers."""

import pytest

from core.metrics.analysis.interval_overlap import Estimate
from core.metrics.analysis.request import AnalysisNotRun, AnalysisRequest, run_analyses
from core.presentation.analysis_text import analysis_tables, figure, interval, reading
from tests.metrics.analysis.test_prediction import halves, shuffled


@pytest.mark.parametrize(("value", "text"), [(0.952, "0.952"), (0.5, "0.500"), (12.43, "12.4"), (1530.2, "1,530"),
                                             (6.0, "6.00"), (0.0001234, "0.000123"), (None, "n/a"), (float("nan"), "n/a"),
                                             (-0.617, "-0.617"), (3e-7, "3.00e-07"), (0.0, "0")])
def test_three_significant_digits(value, text):
    assert figure(value) == text


def test_an_interval_shares_its_values_decimals():
    assert interval(Estimate(0.9995, 0.996, 1.003, 0.5)) == "0.9995 [0.9960, 1.0030]"  # not "1.00 [1.00, 1.00]"
    assert interval(Estimate(0.49, 0.35, 0.7, 0.01)) == "0.490 [0.350, 0.700]"
    assert interval(Estimate(0.0425, 0.0135, 0.0715, 0.01), scale=12.0) == "0.510 [0.162, 0.858]"
    assert interval(None) == "not estimable"


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
    assert "% of the real model's R^2" in reading("prediction", results["prediction"])
    assert reading("survival", AnalysisNotRun("The event column 'e' must have two values.")) == \
        "Not run: The event column 'e' must have two values."
