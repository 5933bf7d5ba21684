"""Karr et al.'s confidence-interval overlap, by hand."""

import numpy as np
import pytest

from core.metrics.analysis.interval_overlap import Estimate, estimates_overlap, interval_overlap


@pytest.mark.parametrize(("real", "other", "expected"), [
    ((0, 2), (0, 2), 1.0),  # the same interval
    ((0, 2), (1, 3), 0.5),  # common part 1: (1/2 + 1/2) / 2
    ((0, 4), (1, 2), 0.625),  # (1/4 + 1/1) / 2
    ((0, 1), (1, 5), 0.0),  # touching
    ((0, 1), (2, 4), -0.75),  # a gap of 1: (-1/1 - 1/2) / 2
])
def test_overlap_by_hand(real, other, expected):
    assert interval_overlap(*real, *other) == pytest.approx(expected)
    assert interval_overlap(*other, *real) == pytest.approx(expected)  # symmetric


def test_an_interval_without_width_or_missing_has_no_overlap():
    assert np.isnan(interval_overlap(1, 1, 0, 2))
    assert estimates_overlap(Estimate(1, 0, 2, 0.5), None) is None
    assert estimates_overlap(Estimate(1, 1, 1, 0.5), Estimate(1, 0, 2, 0.5)) is None
    assert estimates_overlap(Estimate(1, 0, 2, 0.5), Estimate(2, 1, 3, 0.5)) == pytest.approx(0.5)
