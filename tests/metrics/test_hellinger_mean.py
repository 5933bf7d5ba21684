"""Hellinger Mean (seed 002, core/metrics/hellinger_mean.py)."""

import numpy as np
import pandas as pd
import pytest

from core.metrics import correlation_difference_ratio as correlation_module
from core.metrics import hellinger_mean as hellinger_module
from core.metrics.binning import (
    binned_distribution,
    common_grid,
    hellinger_distance,
)
from core.metrics.hellinger_mean import hellinger_mean, variable_score
from tests.support import typed


def test_the_seeds_worked_example():
    # seed 002: reference 0.05, avatar 0.10: sqrt(0.10^2 - 0.05^2) = 0.0866, score 91.3
    assert variable_score(0.05, 0.10) == pytest.approx(91.34, abs=0.01)
    assert variable_score(0.10, 0.10) == 100.0 and variable_score(0.20, 0.10) == 100.0  # within natural variability
    assert variable_score(0.0, 1.0) == 0.0


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


def test_the_scores_standard_deviation_is_reported_next_to_their_mean():
    """Two variables: one kept exactly (100), one whose avatars are disjoint (0): mean 50, standard deviation
    sqrt(((100 - 50)^2 + (0 - 50)^2) / 2) = 50 (the population's, as the commercial engine reports it)."""
    frame = pd.DataFrame({"kept": ["a", "b"] * 10, "lost": ["a"] * 20})
    (working, holdout, avatars), kinds = typed(frame, frame.copy(), frame.assign(lost=["b"] * 20))
    result = hellinger_mean(working, holdout, avatars, kinds)
    assert [row["score"] for row in result.breakdown["per_variable"]] == [100.0, pytest.approx(0.0)]
    assert result.value == pytest.approx(50.0) and result.breakdown["standard_deviation"] == pytest.approx(50.0)


def test_disjoint_categorical_samples_have_distance_1():
    (working, holdout, avatars), kinds = typed(
        pd.DataFrame({"c": ["a"] * 10}), pd.DataFrame({"c": ["a"] * 10}), pd.DataFrame({"c": ["b"] * 10})
    )
    row = hellinger_mean(working, holdout, avatars, kinds).breakdown["per_variable"][0]
    assert row["avatar_distance"] == pytest.approx(1.0) and row["score"] == pytest.approx(0.0)


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


def test_signal_bands_read_a_score_from_the_best_down():
    assert [hellinger_module.DEFINITION.band(v)[0] for v in (100, 95, 94.9, 80, 79.9, 0)] == [
        "good", "good", "fair", "fair", "poor", "poor"]
    # a Correlation Difference Ratio of 50 is an avatars' gap twice the natural one
    assert [correlation_module.DEFINITION.band(v)[0] for v in (100, 80, 50, 49.9)] == ["good", "good", "fair", "poor"]
