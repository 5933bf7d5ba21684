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
    persons, times, values = map(np.array, zip(*measures))
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
