"""The trend of a variable over time, real against avatars (core/metrics/analysis/mixed_model.py, SPEC 13): a
planted slope recovered within its interval, per group, the same data giving overlap 1, and too few persons said."""

import numpy as np
import pandas as pd
import pytest

from core.metrics.analysis.mixed_model import ALL, PERSON, TIME, mixed_model, slope_variance


def measures(n_persons, seed, slopes=None, measures_each=8):
    """Persons of two groups, each with a random intercept and a random slope around their group's."""
    rng = np.random.default_rng(seed)
    slopes = slopes or {"A": -0.5, "B": 0.5}
    group = rng.choice(list(slopes), n_persons)
    person = np.repeat(np.arange(n_persons), measures_each)
    time = np.tile(np.arange(measures_each) * 3.0, n_persons) + rng.uniform(0, 1, len(person))
    time -= pd.Series(time).groupby(person).transform("min").to_numpy()
    slope = np.array([slopes[g] for g in group])[person] + rng.normal(0, 0.1, n_persons)[person]
    value = 10 + rng.normal(0, 2, n_persons)[person] + slope * time + rng.normal(0, 0.5, len(person))
    return pd.DataFrame({PERSON: person, TIME: time, "y": value, "arm": group[person]})


def test_a_planted_slope_is_found_within_its_interval_on_each_side_and_per_group():
    real, avatars, holdout = measures(200, 1), measures(200, 2), measures(200, 3)
    result = mixed_model(real, holdout, avatars, "y", time="t", group="arm")
    assert [slope.term for slope in result.slopes] == ["A", "B"]
    for slope, truth in zip(result.slopes, (-0.5, 0.5), strict=True):
        for side in (slope.real, slope.avatars, slope.holdout):
            assert side.low < truth < side.high and side.high - side.low < 0.1 and side.significant
    assert result.reference_mean_overlap > 0 and not result.notes and result.persons["real"] == 200


def test_the_same_persons_on_every_side_overlap_exactly_and_a_flat_side_does_not():
    real = measures(150, 4)
    same = mixed_model(real, real, real, "y", time="t")
    assert same.slopes[0].term == ALL and same.mean_overlap == pytest.approx(1.0)
    flat = real.assign(y=real.groupby(PERSON)["y"].transform("mean"))
    result = mixed_model(real, real, flat, "y", time="t", group="arm")
    assert all(slope.overlap < 0 for slope in result.slopes)  # intervals apart: the trends are gone


def test_too_few_persons_or_one_time_each_are_said():
    real = measures(50, 5)
    two = measures(2, 6)
    result = mixed_model(real, real, two, "y", time="t")
    assert result.slopes[0].avatars is None and any("too few persons" in str(note) for note in result.notes)
    once = real.groupby(PERSON).head(1)
    assert mixed_model(once, once, once, "y", time="t").not_applicable is not None


def test_the_slopes_variance_by_hand_and_a_boundary_fitted_with_random_intercepts():
    # 20 persons on exact lines of slopes 1 to 20 (no noise): var(1..20) = 20 x 21 / 12 = 35, sampling variance 0,
    # beyond 2 standard errors (2 x 35 x sqrt(2 / 19) = 22.7); 3 persons of slopes 1, 2, 3: var 1, within 2 (2 x 1)
    for slopes, expected in ((np.arange(1.0, 21.0), 35.0), (np.array([1.0, 2.0, 3.0]), 0.0)):
        groups = np.repeat(np.arange(len(slopes)), 3)
        t = np.tile([0.0, 1.0, 2.0], len(slopes))
        y = np.repeat(slopes, 3) * t + np.repeat(np.linspace(-5, 5, len(slopes)), 3)
        assert slope_variance(groups, t, y) == pytest.approx(expected)
    # every person's own slope exactly -0.5 (their noise +1 -1 -1 +1 is orthogonal to their times): the slopes vary
    # less than their noise explains, the random-slope model's boundary
    n_persons = 200
    person = np.repeat(np.arange(n_persons), 4)
    time = np.tile([0.0, 1.0, 2.0, 3.0], n_persons)
    level = np.repeat(np.random.default_rng(1).normal(10, 2, n_persons), 4)
    same = pd.DataFrame({PERSON: person, TIME: time, "y": level - 0.5 * time + np.tile([1.0, -1.0, -1.0, 1.0],
                                                                                       n_persons)})
    assert slope_variance(person, time, same["y"].to_numpy()) < 0
    result = mixed_model(same, same, same, "y", time="t")
    assert result.slopes[0].real.value == pytest.approx(-0.5) and result.slopes[0].real.high - result.slopes[0].real.low < 0.2
    assert any("random intercepts only: the persons' own slopes differ no more" in str(note) for note in result.notes)
