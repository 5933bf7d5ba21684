"""Regression coefficients, real against avatars (SPEC section 9)."""

import numpy as np
import pandas as pd
import pytest

from core.dataset import Kind
from core.errors import InputError
from core.metrics.analysis.regression import INTERCEPT, regression
from tests.metrics.analysis.test_prediction import halves, shuffled


def test_ordinary_least_squares_by_hand():
    """x = 0..3, y = 1, 3, 2, 5: slope 5.5 / 5 = 1.1, intercept 2.75 - 1.65 = 1.1; residuals -0.1, 0.8, -1.3, 0.6,
    s^2 = 2.7 / 2, se(slope) = sqrt(1.35 / 5), t(0.975, 2) = 4.302653, 0.519615 x 4.302653: slope interval 1.1 -/+ 2.235724."""
    frame = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [1.0, 3.0, 2.0, 5.0]})
    kinds = {"x": Kind.NUMERIC, "y": Kind.NUMERIC}
    result = regression(frame, frame, frame, kinds, "y")
    slope = next(c for c in result.coefficients if c.term == "x")
    intercept = next(c for c in result.coefficients if c.term == INTERCEPT)
    assert (slope.real.value, intercept.real.value) == pytest.approx((1.1, 1.1))
    assert (slope.real.low, slope.real.high) == pytest.approx((1.1 - 2.235724, 1.1 + 2.235724), abs=1e-5)
    assert result.model == "linear" and result.rows == {"real": 4, "avatars": 4, "holdout": 4}


@pytest.mark.parametrize(("outcome", "model"), [("weight", "linear"), ("group", "logistic")])
def test_avatars_that_are_the_originals_give_the_same_coefficients(outcome, model):
    working, holdout, kinds = halves()
    result = regression(working, holdout, working.copy(), kinds, outcome)
    assert result.model == model and (result.modelled == "younger") == (model == "logistic")
    assert all(c.overlap == pytest.approx(1.0) and c.sign_agrees and c.significance_agrees
               for c in result.coefficients)
    assert result.mean_overlap == pytest.approx(1.0)
    assert {"age", "score", "visit", "colour = green", "colour = red"} <= {c.term for c in result.coefficients}
    assert result.rows["real"] == result.rows["avatars"] < len(working)  # missing weights and colours left out


@pytest.mark.parametrize("seed", range(3))
def test_avatars_of_shuffled_columns_lose_the_coefficients(seed):
    """Seeds 0-2 measured: the mean overlap of weight ~ age + score falls from 0.64-0.78 between two real halves
    to -3.1 to -2.5 (age's interval -6.1 to -5.8 widths from the real one: the shuffle cuts weight from age)."""
    working, holdout, kinds = halves(seed=seed + 1)
    result = regression(working, holdout, shuffled(working, seed + 2), kinds, "weight", ["age", "score"])
    age = next(c for c in result.coefficients if c.term == "age")
    assert result.reference_mean_overlap > 0.5
    assert age.overlap < 0 and result.mean_overlap < result.reference_mean_overlap - 1
    assert age.real.significant and not age.avatars.significant and not age.significance_agrees


def test_what_cannot_be_fitted_says_so():
    working, holdout, kinds = halves(seed=4)
    result = regression(working, holdout, working, kinds, "colour")
    assert result.not_applicable.startswith("Regression coefficients need a numeric or two-valued outcome")
    constant = working.assign(score=1.0)  # no variation on the avatars' side: not estimable there
    result = regression(working, holdout, constant, kinds, "weight", ["age", "score"])
    score = next(c for c in result.coefficients if c.term == "score")
    assert score.real is not None and score.avatars is None and score.overlap is None
    separated = working.assign(group=np.where(working["age"] > 55, "older", "younger"))
    result = regression(working, holdout, separated.astype({"group": working["group"].dtype}), kinds, "group",
                        ["age"])
    assert any("did not converge" in note for note in result.notes)


def test_a_constant_outcome_or_an_empty_or_crowded_predictor_is_not_fitted():
    working, holdout, kinds = halves(seed=5)
    constant = regression(working.assign(weight=3.5), holdout, working, kinds, "weight", ["age"])
    assert constant.not_applicable.startswith("The outcome 'weight' takes a single value") and not constant.coefficients
    with pytest.raises(InputError, match="The predictor 'score' has no value in the real rows: leave it out"):
        regression(working.assign(score=np.nan), holdout, working, kinds, "weight", ["age", "score"])
    crowded = working.assign(colour=[f"c{i % 30}" for i in range(len(working))])
    with pytest.raises(InputError, match="The predictor 'colour' has 30 values: an effect per value is shown for at "
                                         "most 20"):
        regression(crowded, holdout, crowded, kinds, "weight", ["colour"])
