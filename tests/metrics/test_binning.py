"""The binning rule of SPEC section 5 and the Hellinger distance (core/metrics/binning.py)."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

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


def test_hellinger_distance_hand_computed():
    assert hellinger_distance(np.array([0.5, 0.5]), np.array([0.5, 0.5])) == 0.0
    assert hellinger_distance(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == pytest.approx(1.0)
    # (sqrt(.25) - sqrt(.75))^2 + (sqrt(.75) - sqrt(.25))^2 = 2 (0.5 - 0.8660)^2 = 0.26795; / 2, sqrt: 0.36603
    assert hellinger_distance(np.array([0.25, 0.75]), np.array([0.75, 0.25])) == pytest.approx(0.36603, abs=1e-5)


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
