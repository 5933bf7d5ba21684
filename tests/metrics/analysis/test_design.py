"""The models' columns (core/metrics/analysis/design.py): levels in natural order, indicators, readable units."""

import numpy as np
import pandas as pd

from core.metrics.analysis.design import level_indicators, ordered_levels, readable_numbers


def test_levels_are_text_in_natural_order_and_codes_stay_codes():
    assert ordered_levels(pd.Series(["10", "2", "b", "a", None])) == ["2", "10", "a", "b"]
    codes = pd.Series([1, 0, 1], dtype="category")
    with_missing = pd.Series([1, np.nan, 0], dtype="category")  # concatenated, these would read 1.0
    assert ordered_levels(codes, with_missing) == ["0", "1"]


def test_indicators_against_the_first_level_and_days_for_durations():
    column = pd.Series(pd.Categorical([0, 1, 2, None]), name="arm")
    indicators = level_indicators(column, ["0", "1", "2"])
    assert list(indicators.columns) == ["arm = 1", "arm = 2"]
    assert indicators.to_numpy().tolist()[:3] == [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    assert np.isnan(indicators.to_numpy()[3]).all()
    assert readable_numbers(pd.Series(pd.to_timedelta([36, 12], unit="h"))).tolist() == [1.5, 0.5]
