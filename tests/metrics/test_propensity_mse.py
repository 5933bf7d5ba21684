"""pMSE and S_pMSE (Snoke et al., 2018; issue 50): by hand, against statsmodels' logistic fit, and calibrated: two
samples of one population read about 1 and indistinguishable."""

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats

from core.dataset import Kind
from core.metrics.propensity_mse import design, propensity


def test_by_hand_on_one_binary_column():
    # originals x = 0, 0, 0, 1; avatars x = 0, 1, 1, 1: N = 8, c = 1/2. A logistic fit on one binary column gives
    # each group its own share: p = 1/4 where x = 0 (one avatar of four rows), 3/4 where x = 1; (p - c)^2 = 1/16 on
    # every row: pMSE = 0.0625. k = 2: expected (k - 1)(1 - c)^2 c / N = 0.25 * 0.5 / 8 = 0.015625, S_pMSE = 4;
    # the test's statistic N pMSE / (c (1 - c)) = 2, chi-square with 1 degree: p = 0.157.
    measures = propensity(np.array([[0.0], [0.0], [0.0], [1.0]]), np.array([[0.0], [1.0], [1.0], [1.0]]))
    assert measures["pMSE"] == pytest.approx(0.0625, abs=1e-6)
    assert measures["S_pMSE"] == pytest.approx(4.0, abs=1e-4) and measures["parameters"] == 2
    assert measures["p_value"] == pytest.approx(stats.chi2.sf(2.0, 1), abs=1e-4)


def test_the_design_codes_numbers_categories_and_missing_values():
    originals = pd.DataFrame({"x": [1.0, 3.0, np.nan], "c": pd.Categorical(["a", "b", "a"])})
    avatars = pd.DataFrame({"x": [2.0, 2.0, 2.0], "c": pd.Categorical(["b", None, "a"])})
    first, second = design([originals, avatars], {"x": Kind.NUMERIC, "c": Kind.CATEGORICAL})
    # x standardised on the originals' observed values (mean 2, sd 1), 0 where missing, and its missing indicator;
    # c: a (the most frequent) the reference, then b, the pooled level (none here) and missing
    np.testing.assert_allclose(first, [[-1, 0, 0, 0, 0], [1, 0, 1, 0, 0], [0, 1, 0, 0, 0]], atol=1e-12)
    np.testing.assert_allclose(second, [[0, 0, 1, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]], atol=1e-12)


def test_the_fit_is_statsmodels_maximum_likelihood():
    rng = np.random.default_rng(3)
    originals = rng.normal(size=(300, 3))
    synthetic = rng.normal(size=(200, 3)) * [1.0, 1.3, 1.0] + [0.2, 0.0, 0.0]
    features = np.vstack([originals, synthetic])
    labels = np.r_[np.zeros(300), np.ones(200)]
    scores = sm.Logit(labels, sm.add_constant(features)).fit(disp=0).predict(sm.add_constant(features))
    expected = np.mean((scores - 0.4) ** 2)
    measures = propensity(originals, synthetic)
    assert measures["pMSE"] == pytest.approx(expected, rel=1e-4)
    assert measures["S_pMSE"] == pytest.approx(expected / (3 * 0.6**2 * 0.4 / 500), rel=1e-4)


def test_two_samples_of_one_population_read_about_two_and_pass_the_test():
    values = [propensity(rng.normal(size=(400, 4)), rng.normal(size=(400, 4)))
              for rng in (np.random.default_rng(seed) for seed in range(30))]
    assert 1.6 < np.mean([v["S_pMSE"] for v in values]) < 2.4  # 1 / (1 - c), c = 1/2
    assert np.mean([v["p_value"] < 0.05 for v in values]) < 0.2  # a 5 % test: few false alarms
    shifted = propensity(np.random.default_rng(99).normal(size=(400, 4)),
                         np.random.default_rng(98).normal(size=(400, 4)) + 0.3)
    assert shifted["S_pMSE"] > 5 and shifted["p_value"] < 0.001


def test_a_column_the_others_sum_to_counts_once_as_in_rs_glm():
    rng = np.random.default_rng(5)
    originals, synthetic = rng.normal(size=(200, 2)), rng.normal(size=(200, 2))
    alone = propensity(originals, synthetic)
    doubled = propensity(np.column_stack([originals, originals.sum(axis=1)]),
                         np.column_stack([synthetic, synthetic.sum(axis=1)]))
    assert doubled["parameters"] == alone["parameters"] == 3  # the sum is aliased: glm's NA coefficient
    assert doubled["pMSE"] == pytest.approx(alone["pMSE"], rel=1e-6)


def test_numbers_near_the_largest_floats_are_standardised_without_overflow():
    rng = np.random.default_rng(0)
    huge = [pd.DataFrame({"x": rng.normal(size=50) * 1e200}) for _ in range(2)]
    plain = [frame / 1e200 for frame in huge]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "overflow encountered in square" was a line on the command line
        first, second = design(huge, {"x": Kind.NUMERIC})
    expected = design(plain, {"x": Kind.NUMERIC})
    np.testing.assert_allclose(first, expected[0])
    np.testing.assert_allclose(second, expected[1])
