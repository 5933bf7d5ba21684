import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from core.engine.schema import Kind, apply_kinds, resolve_kinds
from core.metrics import correlation_difference_ratio as correlation_module
from core.metrics import hellinger_mean as hellinger_module
from core.metrics.binning import (
    SortedColumns,
    bin_count,
    binned_distribution,
    column_distances,
    common_grid,
    hellinger_distance,
    pooled_skewness,
    skewness,
)
from core.metrics.correlation_difference_ratio import correlation_difference_ratio, correlation_direction
from core.metrics.hellinger_mean import hellinger_mean, variable_score
from core.metrics.multivariate_hellinger import multivariate_hellinger


def typed(*frames):
    kinds = resolve_kinds(frames[0])
    return [apply_kinds(frame, kinds) for frame in frames], kinds


# --- Hellinger Mean --------------------------------------------------------------------------------------------------


def test_the_seeds_worked_example():
    # seed 002: reference 0.05, avatar 0.10: sqrt(0.10^2 - 0.05^2) = 0.0866, score 91.3
    assert variable_score(0.05, 0.10) == pytest.approx(91.34, abs=0.01)
    assert variable_score(0.10, 0.10) == 100.0 and variable_score(0.20, 0.10) == 100.0  # within natural variability
    assert variable_score(0.0, 1.0) == 0.0


def test_hellinger_distance_hand_computed():
    assert hellinger_distance(np.array([0.5, 0.5]), np.array([0.5, 0.5])) == 0.0
    assert hellinger_distance(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == pytest.approx(1.0)
    # (sqrt(.25) - sqrt(.75))^2 + (sqrt(.75) - sqrt(.25))^2 = 2 (0.5 - 0.8660)^2 = 0.26795; / 2, sqrt: 0.36603
    assert hellinger_distance(np.array([0.25, 0.75]), np.array([0.75, 0.25])) == pytest.approx(0.36603, abs=1e-5)


def test_score_from_distances_through_the_metric():
    # WO = HO: reference 0; WA's distance to HO on one categorical variable: p = (1, 0), q = (0.5, 0.5).
    working = pd.DataFrame({"c": ["a", "b"] * 50})
    avatars = pd.DataFrame({"c": ["a"] * 100})
    (working, holdout, avatars), kinds = typed(working, working.copy(), avatars)
    result = hellinger_mean(working, holdout, avatars, kinds)
    avatar_distance = np.sqrt(((1 - np.sqrt(0.5)) ** 2 + 0.5) / 2)
    row = result.breakdown["per_variable"][0]
    assert row["reference_distance"] == 0 and row["avatar_distance"] == pytest.approx(avatar_distance)
    assert result.value == pytest.approx(100 * (1 - avatar_distance))
    assert row["binning"] == "categories" and row["bins"] == 2 and row["kind"] == "categorical"


def test_identical_samples_score_100_and_distance_0():
    frame = pd.DataFrame({"x": np.arange(100.0), "c": ["u", "v", "w", "u"] * 25})
    (working, holdout, avatars), kinds = typed(frame, frame.copy(), frame.copy())
    result = hellinger_mean(working, holdout, avatars, kinds)
    assert result.value == 100.0
    assert all(row["avatar_distance"] == 0 for row in result.breakdown["per_variable"])


def test_disjoint_categorical_samples_have_distance_1():
    (working, holdout, avatars), kinds = typed(
        pd.DataFrame({"c": ["a"] * 10}), pd.DataFrame({"c": ["a"] * 10}), pd.DataFrame({"c": ["b"] * 10})
    )
    row = hellinger_mean(working, holdout, avatars, kinds).breakdown["per_variable"][0]
    assert row["avatar_distance"] == pytest.approx(1.0) and row["score"] == pytest.approx(0.0)


def test_skewed_variable_gets_equal_count_bins_symmetric_gets_equal_width():
    rng = np.random.default_rng(0)
    skewed = rng.exponential(10.0, 3000)
    symmetric = rng.normal(50.0, 10.0, 3000)
    assert common_grid(skewed).binning == "equal-count"
    grid = common_grid(symmetric)
    assert grid.binning == "equal-width"
    np.testing.assert_allclose(np.diff(grid.edges), np.diff(grid.edges)[0])
    skewed_grid = common_grid(skewed)
    counts = np.histogram(skewed, bins=skewed_grid.edges)[0]
    assert counts.max() - counts.min() <= 2  # equal counts, up to ties at the edges


def test_skewness_rule_is_biased_fisher_pearson():
    # values 0, 0, 0, 0, 10: mean 2, m2 = 16, m3 = 96, skew = 96 / 16^1.5 = 1.5 > 1
    assert skewness(np.array([0.0, 0, 0, 0, 10])) == pytest.approx(1.5)
    assert common_grid(np.array([0.0, 0, 0, 0, 10])).binning == "equal-count"
    values = np.random.default_rng(3).gamma(2.0, size=1000)
    assert skewness(values) == pytest.approx(stats.skew(values))
    assert skewness(np.array([0.0, 7e-134])) == 0.0 and skewness(np.array([0.0, 0, 0, 0, 1e-200])) == pytest.approx(1.5)


def test_pooled_skewness_from_the_two_samples_moments():
    # 0, 0, 0 pooled with 0, 10: mean 2, m2 = 16, m3 = 96, skew 1.5, as the five values together
    pooled = pooled_skewness(SortedColumns.of(np.array([[0.0], [0], [0]])), SortedColumns.of(np.array([[0.0], [10]])))
    assert pooled[0] == pytest.approx(1.5)
    rng = np.random.default_rng(4)
    first, second = rng.gamma(2.0, size=(300, 3)), rng.normal(5.0, 2.0, size=(120, 3))
    expected = stats.skew(np.concatenate([first, second]), axis=0)
    np.testing.assert_allclose(pooled_skewness(SortedColumns.of(first), SortedColumns.of(second)), expected)


@pytest.mark.parametrize(("minimum", "maximum", "expected"), [(0, 10, 20), (0, 100, 75), (0, 1000, 200), (0, 26, 20), (0, 30, 22)])
def test_bin_count_formula_at_its_three_regimes(minimum, maximum, expected):
    assert bin_count(minimum, maximum) == expected


@pytest.mark.parametrize("seed", range(3))
def test_all_columns_at_once_equal_one_grid_per_column(seed):
    rng = np.random.default_rng(seed)

    def sample(n, scale):
        return np.column_stack([
            rng.normal(0, scale, n), rng.exponential(scale, n), np.full(n, 2.0),  # symmetric, skewed, constant
            rng.integers(0, 3, n) * 1.0, rng.lognormal(0, 1, n) * 300, -rng.exponential(1, n),  # ties, wide, left-skewed
        ])

    first, second = sample(700, 1.0), sample(450, 1.3)
    expected = []
    for column in range(first.shape[1]):
        grid = common_grid(np.concatenate([first[:, column], second[:, column]]))
        expected.append(hellinger_distance(binned_distribution(first[:, column], grid),
                                           binned_distribution(second[:, column], grid)))
    distances = column_distances(SortedColumns.of(first), SortedColumns.of(second))
    np.testing.assert_allclose(distances, expected, rtol=0, atol=1e-12)


def test_missing_values_are_one_more_bin():
    grid = common_grid(np.array([0.0, 1.0, 2.0, 3.0]))
    shares = binned_distribution(np.array([0.0, np.nan, 3.0, np.nan]), grid)
    assert len(shares) == grid.n_bins + 1
    assert shares[-1] == 0.5 and shares[0] == 0.25 and shares[-2] == 0.25  # last bin closed, like numpy.histogram
    frame = pd.DataFrame({"x": [1.0, 2.0, np.nan, 4.0] * 10})
    (working, holdout, avatars), kinds = typed(frame, frame.copy(), frame.fillna(1.0))
    row = hellinger_mean(working, holdout, avatars, kinds).breakdown["per_variable"][0]
    assert row["avatar_distance"] > 0 and row["reference_distance"] == 0


def test_categories_take_the_union_and_missing_as_a_modality():
    (working, holdout, avatars), kinds = typed(
        pd.DataFrame({"c": ["a", "b", None, "a"]}), pd.DataFrame({"c": ["a", "b", "c", "a"]}),
        pd.DataFrame({"c": ["a", "d", None, None]}),
    )
    row = hellinger_mean(working, holdout, avatars, kinds).breakdown["per_variable"][0]
    assert row["bins"] == 4  # a, b, c, d (missing is the extra bin)
    wo, ho = np.array([0.5, 0.25, 0, 0, 0.25]), np.array([0.5, 0.25, 0.25, 0, 0])
    assert row["reference_distance"] == pytest.approx(hellinger_distance(wo, ho))


def test_constant_variable_scores_100():
    frame = pd.DataFrame({"same": [3.0] * 30})
    (working, holdout, avatars), kinds = typed(frame, frame.copy(), frame.copy())
    assert hellinger_mean(working, holdout, avatars, kinds).value == 100.0


# --- Multivariate Hellinger ------------------------------------------------------------------------------------------


def test_multivariate_hellinger_is_0_for_identical_and_is_the_weighted_mean():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(size=500), "y": rng.normal(size=500), "c": rng.choice(["a", "b"], 500)})
    (working, avatars), kinds = typed(frame, frame.copy())
    assert multivariate_hellinger(working, avatars, kinds).value == 0.0
    shifted = frame.assign(x=frame["x"] + 3.0)
    (working, avatars), kinds = typed(frame, shifted)
    result = multivariate_hellinger(working, avatars, kinds)
    axes = result.breakdown["per_axis"]
    expected = sum(a["weight"] * a["distance"] for a in axes)  # SPEC section 5, revised: sum_j w_j H_j
    assert result.value == pytest.approx(expected) and 0 < result.value < 1
    assert result.breakdown["seed_formula"] == pytest.approx(expected / len(axes))  # the seed's formula line
    assert sum(a["weight"] for a in axes) == pytest.approx(1.0)
    assert len(axes) == 3  # x, y and one axis for the two-modality variable


def test_multivariate_bands():
    frame = pd.DataFrame({"x": np.arange(200.0), "y": np.arange(200.0) % 7})
    (working, avatars), kinds = typed(frame, frame.copy())
    result = multivariate_hellinger(working, avatars, kinds)
    assert (result.band, result.level) == ("almost identical", "good")


# --- Correlation Difference Ratio ------------------------------------------------------------------------------------


def correlated(n, rho, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": rho * x + np.sqrt(1 - rho**2) * rng.normal(size=n), "z": rng.normal(size=n)})


def test_cdr_hand_computed():
    working, holdout, avatars = correlated(500, 0.8, 0), correlated(500, 0.8, 1), correlated(500, 0.5, 2)
    (working, holdout, avatars), kinds = typed(working, holdout, avatars)
    result = correlation_difference_ratio(working, holdout, avatars, kinds)
    r_wo, r_ho, r_wa = (f.corr().to_numpy() for f in (working, holdout, avatars))
    off = ~np.eye(3, dtype=bool)
    reference = np.mean(100 * np.abs(r_wo - r_ho)[off] / 2)
    avatar = np.mean(100 * np.abs(r_wo - r_wa)[off] / 2)
    assert result.breakdown["reference_difference"] == pytest.approx(reference)
    assert result.breakdown["avatar_difference"] == pytest.approx(avatar)
    assert result.value == pytest.approx(min(100, 100 * reference / avatar))
    assert result.breakdown["kappa"] == 1.0


@pytest.mark.parametrize(("n_rows", "kappa"), [(2000, 1.0), (2001, np.sqrt(2001 / 2000)), (8000, 2.0)])
def test_kappa(n_rows, kappa):
    frame = correlated(n_rows, 0.5, 3)
    (working, holdout, avatars), kinds = typed(frame, correlated(100, 0.5, 4), correlated(100, 0.1, 5))
    assert correlation_difference_ratio(working, holdout, avatars, kinds).breakdown["kappa"] == pytest.approx(kappa)


def test_cdr_is_100_when_avatar_correlations_equal_the_originals():
    frame = correlated(300, 0.6, 6)
    (working, holdout, avatars), kinds = typed(frame, correlated(300, 0.6, 7), frame.copy())
    assert correlation_difference_ratio(working, holdout, avatars, kinds).value == 100.0


def test_cdr_not_applicable_with_fewer_than_two_numeric_variables():
    frame = pd.DataFrame({"x": np.arange(10.0), "c": ["a", "b"] * 5})
    (working, holdout, avatars), kinds = typed(frame, frame.copy(), frame.copy())
    result = correlation_difference_ratio(working, holdout, avatars, kinds)
    assert result.value is None and "at least two numeric variables" in result.not_applicable


def test_constant_columns_do_not_give_nan():
    frame = correlated(200, 0.7, 8).assign(constant=1.0)
    (working, holdout, avatars), kinds = typed(frame, correlated(200, 0.7, 9).assign(constant=1.0),
                                              correlated(200, 0.2, 10).assign(constant=1.0))
    result = correlation_difference_ratio(working, holdout, avatars, kinds)
    assert np.isfinite(result.value)
    only_constant = pd.DataFrame({"a": [1.0] * 10, "b": [2.0] * 10})
    (working, holdout, avatars), kinds = typed(only_constant, only_constant.copy(), only_constant.copy())
    result = correlation_difference_ratio(working, holdout, avatars, kinds)
    assert result.value is None and "constant" in result.not_applicable


def test_cdr_uses_pairwise_complete_observations():
    frame = correlated(400, 0.7, 11)
    holed = frame.copy()
    holed.loc[:99, "x"] = np.nan
    (working, holdout, avatars), kinds = typed(frame, holed, frame.copy())
    expected = holed.corr().to_numpy()  # pandas' pairwise-complete Pearson
    np.testing.assert_allclose(
        correlation_difference_ratio(working, holdout, avatars, kinds).breakdown["holdout_correlations"], expected
    )
    assert kinds["x"] is Kind.NUMERIC


@given(
    first=hnp.arrays(np.float64, st.tuples(st.integers(1, 40), st.just(3)),
                     elements=st.sampled_from([-2.0, 0.0, 0.5, 1.0, 3.0, 1e3])),
    second=hnp.arrays(np.float64, st.tuples(st.integers(1, 40), st.just(3)),
                      elements=st.integers(-500, 100_000).map(lambda cents: cents / 100)),
)
def test_all_columns_at_once_equal_one_grid_per_column_on_generated_samples(first, second):
    # ties, constant columns, one-row samples, huge and tiny ranges
    expected = []
    for column in range(3):
        pooled = np.concatenate([first[:, column], second[:, column]])
        assume(abs(abs(skewness(pooled)) - 1.0) > 1e-9)  # on the limit itself, rounding may pick either rule
        grid = common_grid(pooled)
        expected.append(hellinger_distance(binned_distribution(first[:, column], grid),
                                           binned_distribution(second[:, column], grid)))
    distances = column_distances(SortedColumns.of(first), SortedColumns.of(second))
    np.testing.assert_allclose(distances, expected, rtol=0, atol=1e-9)


def test_cdr_says_whether_the_avatars_strengthen_or_weaken_the_correlations():
    working, holdout = correlated(2000, 0.5, 0), correlated(2000, 0.5, 1)
    for rho, word in ((0.8, "strengthen"), (0.2, "weaken")):
        (wo, ho, wa), kinds = typed(working, holdout, correlated(2000, rho, 2))
        result = correlation_difference_ratio(wo, ho, wa, kinds)
        r_wo, r_wa = wo.corr().to_numpy(), wa.corr().to_numpy()
        off = ~np.eye(3, dtype=bool)
        assert result.breakdown["strength_change"] == pytest.approx(np.mean((np.abs(r_wa) - np.abs(r_wo))[off]))
        assert np.sign(result.breakdown["strength_change"]) == np.sign(rho - 0.5)
        assert result.breakdown["largest_change"]["variables"] == ["x", "y"]
        assert result.breakdown["largest_change"]["avatars"] == pytest.approx(r_wa[0, 1])
        assert correlation_direction(result).startswith(f"The avatars {word} the correlations")
    (wo, ho, wa), kinds = typed(working, holdout, working.copy())
    assert correlation_direction(correlation_difference_ratio(wo, ho, wa, kinds)).startswith(
        "The avatars keep the correlations about as strong")


def test_signal_bands_read_a_score_from_the_best_down():
    assert [hellinger_module.DEFINITION.band(v)[0] for v in (100, 95, 94.9, 80, 79.9, 0)] == [
        "good", "good", "fair", "fair", "poor", "poor"]
    # a Correlation Difference Ratio of 50 is an avatars' gap twice the natural one
    assert [correlation_module.DEFINITION.band(v)[0] for v in (100, 80, 50, 49.9)] == ["good", "good", "fair", "poor"]
