"""DCR share (issue 49, MOSTLY AI's quality report): avatars closer to a person used than to one of the holdout."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.metrics import dcr_share
from tests.metrics.test_closest_rate import context


def test_by_hand():
    # people used at 0, 10, 20, 30; holdout at 4, 16; avatars: 1 (1 against 3: used), 6 (4 against 2: holdout),
    # 13 (3 against 3: a tie, half), 29 (1 against 13: used) -> (2 + 0.5) / 4 = 62.5 %; as near as new people:
    # 4 used of 6 people, 66.7 %
    result = dcr_share.compute(context([0, 10, 20, 30], [1, 6, 13, 29], [4, 16]))
    assert result.value == pytest.approx(62.5)
    assert result.breakdown["as_near_as_new_people"] == pytest.approx(400 / 6)
    assert result.passed is None and result.target is None  # read, never in the verdict


def test_an_approximate_holdout_is_no_control():
    # its people were used to make the avatars: no share to read
    result = dcr_share.compute(context([0, 10, 20, 2, 12], [1, 2], [2, 12], [3, 4]))
    assert result.value is None and "real holdout" in result.not_applicable


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 30), seed=st.integers(0, 10_000), levels=st.integers(0, 3))
def test_the_trees_equal_the_brute_force_definition(n, seed, levels):
    rng = np.random.default_rng(seed)
    draw = (lambda size: rng.integers(0, levels + 1, size).astype(float)) if levels else (lambda size: rng.normal(size=size))
    used, avatars, holdout = draw(n), draw(n), draw(max(1, n // 2))
    to_used = np.abs(avatars[:, None] - used[None, :]).min(axis=1)
    to_holdout = np.abs(avatars[:, None] - holdout[None, :]).min(axis=1)
    expected = 100 * (np.mean(to_used < to_holdout) + np.mean(to_used == to_holdout) / 2)
    assert dcr_share.compute(context(used, avatars, holdout)).value == pytest.approx(expected)
