"""A person's measures over time (core/engine/time_series.py): alignment by hand, the vectorised resampling against
a loop over persons, functional PCA and its inverse, an avatar's times."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.time_series import FunctionalPCA, grid_points, resampled, series_of, unaligned_times, values_at


def test_equal_times_are_averaged_missing_values_dropped_and_times_sorted():
    series = series_of(["b", "a", "a", "a", "b", "a"], [5, 3, 1, 3, 2, 7], [1.0, 4.0, 0.0, 6.0, np.nan, 2.0])
    assert series.persons.tolist() == ["a", "b"] and series.counts.tolist() == [3, 1]
    assert series.times.tolist() == [1, 3, 7, 5] and series.values.tolist() == [0.0, 5.0, 2.0, 1.0]
    assert series.timing().tolist() == [[3, 1, 6], [1, 5, 0]]


def test_resampling_by_hand_one_measure_two_and_a_gap():
    # a: 0 -> 1, 10 -> 3; b: one measure; c: 2 -> 0, 3 -> 1, 6 -> 0 (a gap from 3 to 6)
    series = series_of(["a", "a", "b", "c", "c", "c"], [0, 10, 4, 2, 3, 6], [1.0, 3.0, 5.0, 0.0, 1.0, 0.0])
    curves = resampled(series, 3)
    assert curves[0].tolist() == [1.0, 2.0, 3.0]
    assert curves[1].tolist() == [5.0, 5.0, 5.0]
    # c's times normalised: 0, 0.25, 1; at 0.5, between 0.25 (1) and 1 (0): 1 - (0.25 / 0.75)
    assert curves[2] == pytest.approx([0.0, 2 / 3, 0.0], abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 30), st.floats(-1e3, 1e3)), min_size=1, max_size=60),
       st.integers(2, 12))
def test_the_vectorised_resampling_equals_a_loop_over_persons(measures, nb_points):
    persons, times, values = map(np.array, zip(*measures, strict=True))
    series = series_of(persons, times, values)
    curves = resampled(series, nb_points)
    for row, person in enumerate(series.persons):
        chosen = persons == person
        distinct = np.unique(times[chosen])
        means = np.array([values[chosen][times[chosen] == time].mean() for time in distinct])
        if len(distinct) == 1:
            expected = np.full(nb_points, means[0])
        else:
            grid = distinct[0] + np.linspace(0, 1, nb_points) * (distinct[-1] - distinct[0])
            expected = np.interp(grid, distinct, means)
        assert curves[row] == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_curves_in_the_first_components_are_recovered_by_the_inverse():
    rng = np.random.default_rng(0)
    grid = np.linspace(0, 1, 15)
    basis = np.vstack([np.sin(np.pi * grid), np.cos(2 * np.pi * grid), grid**2])
    curves = 4.0 + rng.normal(size=(200, 3)) @ basis
    fpca = FunctionalPCA(nf=3).fit(curves)
    assert fpca.n_components_ == 3 and fpca.explained_variance_ratio_.sum() == pytest.approx(1.0)
    assert np.abs(fpca.inverse_transform(fpca.transform(curves)) - curves).max() < 1e-9


def test_nf_is_capped_by_the_points_and_the_persons_and_flatten_keeps_the_grid():
    curves = np.arange(12.0).reshape(3, 4) ** 2
    assert FunctionalPCA(nf=10).fit(curves).n_components_ == 2  # 3 persons: at most 2 components
    flat = FunctionalPCA(projection_type="flatten").fit(curves)
    assert np.allclose(flat.inverse_transform(flat.transform(curves)), curves)


def test_the_grid_follows_the_alignment():
    counts = np.array([1, 4, 10])
    assert [grid_points(counts, method, 7) for method in ("specified", "max", "min", "mean")] == [7, 10, 2, 5]


def test_an_avatar_s_times_strictly_increase_within_its_span():
    timing = np.array([[4, 10.0, 6.0], [1, 3.0, 0.0], [3, 0.0, 0.0], [2.6, 5.0, 1.0]])
    times, counts = unaligned_times(timing)
    assert counts.tolist() == [4, 1, 1, 3]  # no span: one measure
    assert times.tolist() == [10.0, 12.0, 14.0, 16.0, 3.0, 0.0, 5.0, 5.5, 6.0]
    skipped, counts = unaligned_times(timing, "skip", nb_points=3)
    assert counts.tolist() == [3, 1, 1, 3]


def test_a_curve_is_read_at_the_avatar_s_own_number_of_points():
    curves = np.array([[0.0, 10.0, 20.0], [7.0, 7.0, 7.0]])
    assert values_at(curves, np.array([5, 1])).tolist() == [0.0, 5.0, 10.0, 15.0, 20.0, 7.0]
    # no avatar with a measure (a series 3 persons of 100 hold): nothing read, where np.interp refused an empty grid
    assert values_at(np.zeros((0, 5)), np.zeros(0, dtype=np.int64), np.zeros(0)).tolist() == []


def test_a_designed_schedule_is_found_by_hand_and_irregular_visits_have_none():
    """Issue 45, MASS's Sitka: every tree measured on days 152, 174, 201, 227 and 258."""
    from core.engine.time_series import ABSOLUTE, RELATIVE, Schedule

    days = np.array([152, 174, 201, 227, 258])
    trees = series_of(np.repeat(np.arange(6), 5), np.tile(days, 6), np.zeros(30))
    schedule = Schedule.of(trees)
    assert schedule.kind == ABSOLUTE and schedule.times.tolist() == days.tolist()
    # the same days since each one's first visit, from different first days: relative
    starts = np.repeat([0, 10, 35, 70, 90, 120], 4)
    visits = series_of(np.repeat(np.arange(6), 4), starts + np.tile([0, 30, 90, 180], 6), np.zeros(24))
    relative = Schedule.of(visits)
    assert relative.kind == RELATIVE and relative.times.tolist() == [0, 30, 90, 180]
    rng = np.random.default_rng(0)  # 40 persons, 5 visits each on days of their own
    irregular = series_of(np.repeat(np.arange(40), 5), np.cumsum(rng.integers(1, 60, 200)), np.zeros(200))
    assert Schedule.of(irregular) is None


def test_an_avatars_times_are_taken_on_the_schedule_by_rank():
    from core.engine.time_series import Schedule

    schedule = Schedule("absolute", np.array([152.0, 174.0, 201.0, 227.0, 258.0]))
    # 5 measures from 152 over 106 days: every day; 3 from 152 over 106: the first, the middle, the last;
    # 2 from 200 over 30 (nearest 201 and 227); 4 from 240 over 0: the 4 last days (counted back from the end)
    timing = np.array([[5, 152, 106], [3, 152, 106], [2, 200, 30], [4, 240, 0]], dtype=float)
    times, counts = schedule.times_of(timing)
    assert counts.tolist() == [5, 3, 2, 4]
    assert times.tolist() == [152, 174, 201, 227, 258, 152, 201, 258, 201, 227, 174, 201, 227, 258]
    relative = Schedule("relative", np.array([0.0, 30.0, 90.0]))
    times, counts = relative.times_of(np.array([[3, 1_000, 95], [2, 500, 20]], dtype=float))
    assert times.tolist() == [1_000, 1_030, 1_090, 500, 530]


def test_scheduled_times_stay_within_an_avatars_window():
    """Weekly visits, a stay from its admission to its discharge: clipped to the window then rounded, a measure fell
    on day 61 (no visit day) after a discharge of 62.7 on day 63."""
    from core.engine.time_series import Schedule

    schedule = Schedule("absolute", np.arange(0.0, 71.0, 7.0))
    timing = np.array([[5, 40, 30], [3, 0, 70]], dtype=float)
    times, counts = schedule.times_of(timing, (np.array([38.5, np.nan]), np.array([62.7, 13.0])))
    # 5 asked within 38.5 to 62.7: the 3 visit days there, 42, 49, 56; 3 asked before day 13: days 0 and 7
    assert counts.tolist() == [3, 2] and times.tolist() == [42.0, 49.0, 56.0, 0.0, 7.0]
