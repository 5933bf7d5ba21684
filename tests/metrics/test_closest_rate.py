"""Closest rate (SPEC 6.2): avatars closer to a real person than 95 % of real newcomers are at risk."""

from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.metrics import closest_rate
from core.metrics.attack import Knowledge
from core.metrics import context as context_module
from core.metrics.closest_distances_ratio import distance_ratios
from core.metrics.context import AttackSides, PrivacyContext, PrivacyReference
from core.metrics.sampling import CONTROLS_STREAM, fixed_sample
from tests.support import typed


def context(reference_points, avatar_points, control_points, control_rows=None):
    frame, kinds = typed(pd.DataFrame({"x": np.asarray(reference_points, dtype=float)}))
    frame = frame[0]
    reference = PrivacyReference.of(np.asarray(reference_points, float)[:, None], frame, kinds)
    controls = frame.iloc[: len(control_points)]
    sides = AttackSides(frame, controls, np.asarray(control_points, float)[:, None],
                        None if control_rows is None else np.asarray(control_rows), Knowledge())
    return PrivacyContext(reference, np.asarray(avatar_points, float)[:, None], frame.iloc[:len(avatar_points)],
                          paired=False, sides=sides)


def test_by_hand_with_a_real_holdout():
    # originals at 0, 10, 20, 30; controls at 2, 12, 22: each d1 = 2, d2 = 8, ratio 0.25 -> limits 2 and 0.25.
    # avatars: 0.5 (d1 0.5, ratio 0.05: at risk), 1 (1, 0.11: at risk), 5 (5: no), 10.1 (0.1, 0.01: at risk),
    # 2 (d1 2 is not below 2: no)
    result = closest_rate.compute(context([0, 10, 20, 30], [0.5, 1, 5, 10.1, 2], [2, 12, 22]))
    assert result.breakdown["distance_limit"] == 2.0 and result.breakdown["ratio_limit"] == 0.25
    assert result.breakdown["avatars_at_risk"] == 3 and result.value == pytest.approx(40.0)
    assert result.passed is False and not result.breakdown["approximate_control"]


def test_by_hand_with_controls_among_the_originals():
    # originals 0, 10, 20, 30, 2, 12, 22; the last three are the controls, each measured against the others:
    # 2 -> 0 (2) and 10 (8); 12 -> 10 (2) and 20 (8); 22 -> 20 (2) and 30 (8): limits 2 and 0.25 again.
    # avatar 0.5: d1 0.5 (to 0), d2 1.5 (to 2), ratio 0.33: not at risk; avatar 29.9: 0.1, 7.9: at risk
    result = closest_rate.compute(context([0, 10, 20, 30, 2, 12, 22], [0.5, 29.9], [2, 12, 22], [4, 5, 6]))
    assert result.breakdown["distance_limit"] == 2.0 and result.breakdown["ratio_limit"] == 0.25
    assert result.value == 50.0 and result.breakdown["approximate_control"]


def test_without_controls_it_does_not_apply():
    empty = context([0, 10, 20], [1, 2], [])
    assert closest_rate.compute(empty).value is None


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 40), seed=st.integers(0, 10_000), inside=st.booleans(), levels=st.integers(0, 3),
       sample=st.sampled_from([None, 3, 7]))
def test_the_tree_equals_the_brute_force_definition(n, seed, inside, levels, sample):
    """Controls outside the originals (a real holdout) or among them (approximate: each apart from itself); beyond
    ``CONTROL_SAMPLE`` controls, the limits read on the controls :func:`fixed_sample` draws."""
    with mock.patch.object(context_module, "CONTROL_SAMPLE", sample or context_module.CONTROL_SAMPLE):
        check_against_brute_force(n, seed, inside, levels)


def check_against_brute_force(n, seed, inside, levels):
    rng = np.random.default_rng(seed)
    draw = (lambda size: rng.integers(0, levels + 1, size).astype(float)) if levels else (lambda size: rng.normal(size=size))
    originals, avatars = draw(n), draw(n)
    rows = rng.choice(n, size=n // 2, replace=False) if inside else None
    controls = originals[rows] if inside else draw(n // 2)
    result = closest_rate.compute(context(originals, avatars, controls, rows))
    to_originals = np.abs(controls[:, None] - originals[None, :])
    if inside:
        to_originals[np.arange(len(rows)), rows] = np.inf  # each control apart from itself
    drawn = fixed_sample(len(controls), context_module.CONTROL_SAMPLE, CONTROLS_STREAM)
    control_sorted = np.sort(to_originals if drawn is None else to_originals[drawn], axis=1)
    avatar_sorted = np.sort(np.abs(avatars[:, None] - originals[None, :]), axis=1)

    def ratios(first, second):
        return np.where(second > 0, first / np.where(second > 0, second, 1), 1.0)

    distance_limit = np.percentile(control_sorted[:, 0], 5)
    ratio_limit = np.percentile(ratios(control_sorted[:, 0], control_sorted[:, 1]), 5)
    at_risk = (avatar_sorted[:, 0] < distance_limit) & (ratios(avatar_sorted[:, 0], avatar_sorted[:, 1]) < ratio_limit)
    assert result.value == pytest.approx(100 * (1 - at_risk.mean()))
    assert result.breakdown["controls_read"] == len(control_sorted)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_sampled_limits_are_within_the_stated_precision(seed):
    """60 000 controls, 30 000 of them read: each limit falls between the 4.75th and the 5.25th percentiles of all
    of them (docs/decisions.md, "The controls' distances on a sample"; 1.96 standard errors)."""
    rng = np.random.default_rng(seed)
    originals, controls = rng.normal(size=(20_000, 3)), rng.normal(size=(60_000, 3))
    frame, kinds = typed(pd.DataFrame({"x": originals[:, 0]}))
    reference = PrivacyReference.of(originals, frame[0], kinds)
    sides = AttackSides(frame[0], frame[0].iloc[:0], controls, None, Knowledge())
    sampled = PrivacyContext(reference, originals[:10], frame[0].iloc[:10], paired=False, sides=sides)
    assert len(sampled.control_nearest_two[0]) == context_module.CONTROL_SAMPLE
    every, _ = reference.tree.query(controls, 2, rows=False)
    for sampled_values, all_values in ((sampled.control_nearest_two[0], every[:, 0]),
                                       (distance_ratios(*sampled.control_nearest_two), distance_ratios(*every.T))):
        rank = 100 * np.mean(all_values < np.percentile(sampled_values, 5))
        assert 4.75 <= rank <= 5.25
