from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import cKDTree

from core.engine import neighbours
from core.engine.neighbours import NeighbourTree


def brute_distances(points: np.ndarray, queries: np.ndarray, p: float = 2) -> np.ndarray:
    differences = np.abs(queries[:, None, :] - points[None, :, :])
    return differences.max(axis=2) if p == np.inf else np.sqrt((differences ** 2).sum(axis=2))


@st.composite
def repeated_points(draw):
    """A few distinct points on a small grid (so that distances tie too), each repeated 1 to 6 times, shuffled."""
    n_distinct = draw(st.integers(1, 12))
    dims = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    distinct = rng.integers(0, 4, size=(n_distinct, dims)).astype(float)
    copies = rng.integers(1, 7, size=n_distinct)
    points = np.repeat(distinct, copies, axis=0)
    return points[rng.permutation(len(points))]


@settings(max_examples=150, deadline=None)
@given(repeated_points(), st.integers(1, 9))
def test_the_nearest_other_rows_are_those_of_a_brute_force_search(points, k):
    k = min(k, len(points) - 1)
    if k < 1:
        return
    tree = NeighbourTree(points)
    rows = np.arange(len(points))
    distances, found = tree.query_excluding_self(rows, k)
    every = brute_distances(points, points)
    np.fill_diagonal(every, np.inf)
    expected = np.sort(every, axis=1)[:, :k]
    np.testing.assert_allclose(distances, expected, rtol=0, atol=1e-12)
    assert not (found == rows[:, None]).any()  # never itself
    assert all(len(set(row)) == k for row in found)  # k different rows
    np.testing.assert_allclose(every[rows[:, None], found], distances, rtol=0, atol=1e-12)  # each at its distance


@settings(max_examples=150, deadline=None)
@given(repeated_points(), st.integers(1, 9), st.sampled_from([2, np.inf]), st.sampled_from([np.inf, 1.5]))
def test_a_query_counts_every_copy(points, k, p, bound):
    tree = NeighbourTree(points)
    queries = np.vstack([points[:3], points[:1] + 0.5])
    distances, found = tree.query(queries, k, p=p, distance_upper_bound=bound)
    every = brute_distances(points, queries, p)
    expected = np.sort(every, axis=1)[:, :k]
    expected = np.pad(expected, ((0, 0), (0, k - expected.shape[1])), constant_values=np.inf)
    expected[expected >= bound] = np.inf  # scipy's bound is strict
    np.testing.assert_allclose(distances, expected, rtol=0, atol=1e-12)
    missing = ~np.isfinite(distances)
    assert (found[missing] == len(points)).all()
    assert all(len(set(row[~gone])) == (~gone).sum() for row, gone in zip(found, missing, strict=True))
    reached = every[np.arange(len(queries))[:, None].repeat(k, axis=1)[~missing], found[~missing]]
    np.testing.assert_allclose(reached, distances[~missing], rtol=0, atol=1e-12)


def test_without_repeats_the_answers_are_scipys():
    points = np.random.default_rng(3).normal(size=(500, 4))
    distances, found = NeighbourTree(points).query_excluding_self(np.arange(500), 5)
    expected_distances, expected_found = cKDTree(points).query(points, k=6)
    np.testing.assert_array_equal(found, expected_found[:, 1:])
    np.testing.assert_array_equal(distances, expected_distances[:, 1:])


def test_copies_of_one_point_serve_equally_and_never_themselves():
    # six copies of one point, by hand: row i takes the copies after it, in turn
    points = np.zeros((6, 2))
    _, found = NeighbourTree(points).query_excluding_self(np.arange(6), 2)
    np.testing.assert_array_equal(found, [[1, 2], [2, 3], [3, 4], [4, 5], [5, 0], [0, 1]])
    assert np.bincount(found.ravel(), minlength=6).tolist() == [2] * 6


def test_a_copy_short_of_k_takes_the_next_point():
    # rows 0 and 2 at the origin, row 1 at distance 1, row 3 at distance 2: row 0's two nearest are 2 then 1
    points = np.array([[0.0], [1.0], [0.0], [2.0]])
    distances, found = NeighbourTree(points).query_excluding_self(np.array([0, 3]), 2)
    np.testing.assert_array_equal(found, [[2, 1], [1, 2]])  # row 3 takes the origin's copies from its 3rd (mod 2)
    np.testing.assert_array_equal(distances, [[0.0, 1.0], [1.0, 2.0]])


@settings(max_examples=100, deadline=None)
@given(repeated_points(), st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 2**16]))
def test_the_nearest_within_a_bound_is_the_unbounded_nearest_where_it_is_within(points, seed, chunk):
    """Bounds at 0, on the distance itself (ties), below and above it; chunks of one, two or all queries."""
    rng = np.random.default_rng(seed)
    queries = np.vstack([points, rng.integers(0, 4, size=(5, points.shape[1])).astype(float) + 0.5])
    nearest = brute_distances(points, queries).min(axis=1)
    bounds = nearest * rng.choice([0.0, 0.5, 1.0, 2.0], size=len(queries)) + rng.choice([0.0, 1.0], size=len(queries))
    with mock.patch.object(neighbours, "BOUNDED_CHUNK", chunk):
        found = neighbours.nearest_within(NeighbourTree(points), queries, bounds)
    np.testing.assert_array_equal(found, np.where(nearest <= bounds, found, np.inf))
    np.testing.assert_allclose(found[nearest <= bounds], nearest[nearest <= bounds], rtol=0, atol=1e-12)
