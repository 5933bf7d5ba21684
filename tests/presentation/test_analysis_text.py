"""The analyses in words (SPEC section 9): what identical avatars read as, what a failed one says, the numbers."""

import pytest

from core.metrics.analysis.request import AnalysisNotRun, AnalysisRequest, run_analyses
from core.presentation.analysis_text import analysis_tables, figure, reading
from tests.metrics.analysis.test_prediction import halves, shuffled


@pytest.mark.parametrize(("value", "text"), [(0.952, "0.952"), (0.5, "0.500"), (12.43, "12.4"), (1530.2, "1 530"),
                                             (6.0, "6"), (0.0001234, "0.000123"), (None, "n/a"), (float("nan"), "n/a"),
                                             (-0.617, "-0.617"), (3e-7, "3.00e-07")])
def test_three_significant_digits_whole_numbers_whole(value, text):
    assert figure(value) == text


def test_avatars_that_are_the_originals_read_as_identical():
    working, holdout, kinds = halves(n=800)
    request = AnalysisRequest(outcome="weight", time="age", event="group", group="colour")
    results = run_analyses(working, holdout, working.copy(), kinds, request, seed=0)
    assert reading("prediction", results["prediction"]).endswith(": identical.")
    assert "overlap the real ones by 1.00 on average" in reading("regression", results["regression"])
    assert "identical" in reading("regression", results["regression"])
    survival = reading("survival", results["survival"])
    assert "the same conclusion" in survival and survival.count(": identical.") == 2  # colour = green, = red
    assert "are within 0 of the real ones" in reading("group_statistics", results["group_statistics"])
    assert reading("missing_shares", results["missing_shares"]).startswith(
        "The avatars keep every variable's missing share within 0.0 points")
    assert all(analysis_tables(name, result) for name, result in results.items())


def test_shuffled_avatars_read_as_further_apart_and_a_failed_analysis_says_why():
    working, holdout, kinds = halves(n=1_600, seed=2)
    results = run_analyses(working, holdout, shuffled(working, 3), kinds,
                           AnalysisRequest(outcome="weight", predictors=("age", "score")), seed=0)
    assert "further apart than two real samples are" in reading("regression", results["regression"])
    assert "% of the real model's R^2" in reading("prediction", results["prediction"])
    assert reading("survival", AnalysisNotRun("The event column 'e' must have two values.")) == \
        "Not run: The event column 'e' must have two values."
