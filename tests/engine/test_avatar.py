import numpy as np
import pytest
from scipy import stats

from core.engine import avatar
from core.engine.avatar import avatarize_rows, combine_neighbours, neighbour_weights, neighbours_excluding_self
from core.engine.encoding import EncodedTable


def test_neighbours_exclude_self_and_are_sorted():
    points = np.array([[0.0], [1.0], [3.0], [7.0]])
    distances, indices = neighbours_excluding_self(points, 2)
    assert indices.tolist() == [[1, 2], [0, 2], [1, 0], [2, 1]]
    assert distances.tolist() == [[1.0, 3.0], [1.0, 2.0], [2.0, 3.0], [4.0, 6.0]]


def test_duplicates_never_make_a_row_its_own_neighbour():
    points = np.zeros((6, 2))
    _, indices = neighbours_excluding_self(points, 3)
    assert not np.any(indices == np.arange(6)[:, None])
    assert indices.shape == (6, 3)


def test_repeated_rows_share_the_neighbour_role_and_cost_one_point_each():
    # 8 distinct rows, 500 copies each (three yes/no columns): the tree holds 8 points, not 4 000 (a leaf of 500
    # equal points is scanned by every query into it: n^2), and every copy is a neighbour as often as another
    points = np.repeat(np.array([[a, b, c] for a in (0.0, 1.0) for b in (0.0, 1.0) for c in (0.0, 1.0)]), 500, axis=0)
    distances, indices = neighbours_excluding_self(points, 5)
    assert avatar.NeighbourTree(points).tree_.n == 8
    assert (distances == 0).all() and not np.any(indices == np.arange(len(points))[:, None])
    assert np.all(points[indices] == points[:, None, :])  # its own copies
    assert set(np.bincount(indices.ravel(), minlength=len(points))) == {5}


def test_weights_hand_computed():
    # With the generator's draws E and permutation pi, w_j = (1/d_j) E_j 2^-pi_j / sum.
    distances = np.array([[1.0, 2.0, 4.0]])
    weights = neighbour_weights(distances, np.random.default_rng(0))
    rng = np.random.default_rng(0)
    exponential = rng.exponential(1.0, size=(1, 3))
    ranks = rng.permuted(np.arange(3)[None, :], axis=1)
    expected = exponential / distances * 2.0 ** -ranks
    np.testing.assert_allclose(weights, expected / expected.sum())
    assert weights.sum() == pytest.approx(1.0)


def test_zero_distances_are_floored_at_the_smallest_positive_one():
    weights = neighbour_weights(np.array([[0.0, 0.5, 1.0], [0.0, 0.0, 0.0]]), np.random.default_rng(1))
    same_draws = neighbour_weights(np.array([[0.5, 0.5, 1.0], [1.0, 1.0, 1.0]]), np.random.default_rng(1))
    np.testing.assert_allclose(weights, same_draws)
    assert np.isfinite(weights).all()


def two_neighbour_weight_cdf(x):
    """CDF of w_1 for two equidistant neighbours: with R = E_1/E_2, P(R <= r) = r / (1 + r).
    pi_1 = 0 (prob. 1/2): w_1 = 2R / (2R + 1), so P(w_1 <= x) = x / (2 - x);
    pi_1 = 1 (prob. 1/2): w_1 = R / (R + 2), so P(w_1 <= x) = 2x / (1 + x)."""
    return 0.5 * (x / (2 - x) + 2 * x / (1 + x))


@pytest.mark.parametrize("seed", range(5))
def test_weight_law_matches_the_spec_for_two_equidistant_neighbours(seed):
    weights = neighbour_weights(np.ones((20_000, 2)), np.random.default_rng(seed))
    assert stats.kstest(weights[:, 0], two_neighbour_weight_cdf).pvalue > 1e-3


@pytest.mark.parametrize("seed", range(5))
def test_weights_are_inversely_proportional_to_distance_on_average(seed):
    # log(w1 / w2) = log(d2 / d1) + log(E1 / E2) + (pi2 - pi1) log 2; the last two have mean 0.
    n = 40_000
    weights = neighbour_weights(np.tile([1.0, 3.0], (n, 1)), np.random.default_rng(seed))
    log_ratio = np.log(weights[:, 0] / weights[:, 1])
    standard_error = log_ratio.std() / np.sqrt(n)
    assert abs(log_ratio.mean() - np.log(3.0)) < 4 * standard_error


def test_combination_closed_form():
    table = EncodedTable(
        numeric=np.array([[0.0], [10.0], [20.0]]),
        codes=np.array([[0], [1], [1]], dtype=np.int32),
        numeric_names=("x",),
        categorical_names=("c",),
        categories=(np.array(["a", "b"], dtype=object),),
    )
    indices = np.tile([[1, 2]], (30_000, 1))
    weights = np.tile([[0.25, 0.75]], (30_000, 1))
    indices[:, 0] = 0  # neighbours 0 (modality a, weight 0.25) and 2 (b, 0.75)
    numeric, codes = combine_neighbours(table, indices, weights, np.random.default_rng(0))
    np.testing.assert_allclose(numeric[:, 0], 0.25 * 0 + 0.75 * 20)
    assert np.mean(codes[:, 0] == 0) == pytest.approx(0.25, abs=0.01)


def test_chunks_searched_or_given_make_the_same_avatars(monkeypatch):
    monkeypatch.setattr(avatar, "SYNTHESIS_ROWS", 7)  # 100 rows in 15 chunks
    rng = np.random.default_rng(5)
    points = rng.normal(size=(100, 3))
    points[10:13] = points[10]  # duplicates: the row itself may not come first
    table = EncodedTable(
        numeric=rng.normal(size=(100, 2)),
        codes=rng.integers(0, 3, size=(100, 1)).astype(np.int32),
        numeric_names=("x", "y"),
        categorical_names=("c",),
        categories=(np.array(["a", "b", "c"], dtype=object),),
    )
    searched = avatarize_rows(table, points, 4, np.random.default_rng(0))
    given_ = avatarize_rows(table, points, 4, np.random.default_rng(0), neighbours_excluding_self(points, 4))
    np.testing.assert_array_equal(searched.numeric, given_.numeric)
    np.testing.assert_array_equal(searched.codes, given_.codes)
    _, indices = neighbours_excluding_self(points, 4)
    around = table.numeric[:, 0][indices]
    assert np.all((around.min(axis=1) <= searched.numeric[:, 0] + 1e-12) & (searched.numeric[:, 0] <= around.max(axis=1) + 1e-12))


def test_local_deviation_hand_computed():
    # neighbours 0, 10, 20 (mean c = 10) with weights 0.5, 0.25, 0.25: sum(w^2) = 0.375, k = 3, so
    # t = sqrt((3 + 1 - 3 * 0.375) / 2) = sqrt(1.4375); r drawn among the three: t (x_r - c) in {-10t, 0, 10t}
    values = np.array([[0.0], [10.0], [20.0]])
    indices, weights = np.tile([[0, 1, 2]], (30_000, 1)), np.tile([[0.5, 0.25, 0.25]], (30_000, 1))
    deviations = avatar.local_deviations(values, indices, weights, np.random.default_rng(0))[:, 0]
    t = np.sqrt(1.4375)
    np.testing.assert_allclose(np.unique(deviations), [-10 * t, 0.0, 10 * t])
    for value in (-10 * t, 0.0, 10 * t):
        assert np.mean(np.isclose(deviations, value)) == pytest.approx(1 / 3, abs=0.01)


def test_local_deviation_gives_the_neighbourhoods_unbiased_variance():
    # over the neighbours' order, the weighted deviation from c has variance (k sum(w^2) - 1) / (k - 1) S and the
    # drawn one t^2 S: together k S / (k - 1), S = the neighbours' variance (divisor k)
    rng = np.random.default_rng(1)
    values, k, n_rows = np.array([[0.0], [1.0], [4.0], [9.0]]), 4, 200_000
    weights = rng.dirichlet(np.full(k, 0.3), size=n_rows)
    indices = rng.permuted(np.tile(np.arange(k), (n_rows, 1)), axis=1)
    weighted = np.einsum("ij,ij->i", values[:, 0][indices], weights) - values.mean()
    deviations = avatar.local_deviations(values, indices, weights, rng)[:, 0]
    total = weighted + deviations
    assert np.mean(total**2) == pytest.approx(values.var(ddof=1), rel=0.02)


def test_restored_spread_hand_computed():
    # originals' variance 2/3 (0, 1, 2); weighted means 1, 1, 1 (variance 0); deviations -1, 0, 1 (variance 2/3):
    # m = sqrt((2/3 - 0) / (2/3)) = 1, so 0, 1, 2
    values = np.array([[0.0], [1.0], [2.0]])
    restored = avatar.restored_spread(values, np.ones((3, 1)), np.array([[-1.0], [0.0], [1.0]]))
    np.testing.assert_allclose(restored[:, 0], [0.0, 1.0, 2.0])
    halved = avatar.restored_spread(values, np.ones((3, 1)), np.array([[-0.5], [0.0], [0.5]]))
    np.testing.assert_allclose(halved[:, 0], [0.0, 1.0, 2.0])  # m = 2: the same spread from smaller deviations
    wide = avatar.restored_spread(values, np.array([[0.0], [1.0], [2.0]]), np.array([[-1.0], [0.0], [1.0]]))
    np.testing.assert_allclose(wide[:, 0], [0.0, 1.0, 2.0])  # the means hold the spread already: m = 0


def test_restored_spread_of_huge_numbers_is_the_same_in_their_units():
    # a hostile file: numbers near 1e200, whose variances overflow, made every avatar's value NaN without a word
    values, means, deviations = np.array([[0.0], [1.0], [2.0]]), np.array([[0.5], [1.0], [1.5]]), np.array([[-1.0], [0.0], [1.0]])
    np.testing.assert_allclose(avatar.restored_spread(values * 1e200, means * 1e200, deviations * 1e200),
                               avatar.restored_spread(values, means, deviations) * 1e200)


def test_restored_spread_reflects_a_value_past_the_range():
    # means 0.5, 1, 1.5 (variance 1/6), deviations -1, 0, 1 (2/3): m = sqrt((2/3 - 1/6) / (2/3)) = sqrt(0.75);
    # 0.5 - 0.866 = -0.366 is reflected at 0 to 0.366, and 2.366 at 2 to 1.634: never cut onto the value of the one
    # person who holds the lowest or the highest
    values = np.array([[0.0], [1.0], [2.0]])
    restored = avatar.restored_spread(values, np.array([[0.5], [1.0], [1.5]]), np.array([[-1.0], [0.0], [1.0]]))
    m = np.sqrt(0.75)
    np.testing.assert_allclose(restored[:, 0], [m - 0.5, 1.0, 2.5 - m])


def test_the_reference_draws_exactly_the_weights_and_the_categories(monkeypatch):
    # spread "local_mean", the engine's: its avatars and the generator's state after them are a replay of the
    # weights' and the categories' draws, chunk by chunk, and nothing more
    monkeypatch.setattr(avatar, "SYNTHESIS_ROWS", 7)
    rng = np.random.default_rng(3)
    points = rng.normal(size=(40, 3))
    table = EncodedTable(numeric=rng.normal(size=(40, 2)), codes=rng.integers(0, 3, size=(40, 1)).astype(np.int32),
                         numeric_names=("x", "y"), categorical_names=("c",),
                         categories=(np.array(["a", "b", "c"], dtype=object),))
    made, replayed = np.random.default_rng(0), np.random.default_rng(0)
    reference = avatarize_rows(table, points, 4, made)
    distances, indices = neighbours_excluding_self(points, 4)
    for start in range(0, 40, 7):
        rows = slice(start, start + 7)
        numeric, codes = combine_neighbours(table, indices[rows], neighbour_weights(distances[rows], replayed), replayed)
        np.testing.assert_array_equal(reference.numeric[rows], numeric)
        np.testing.assert_array_equal(reference.codes[rows], codes)
    assert made.bit_generator.state == replayed.bit_generator.state


def test_restored_spread_over_chunks_is_seeded_and_leaves_embeddings_alone(monkeypatch):
    monkeypatch.setattr(avatar, "SYNTHESIS_ROWS", 7)  # 300 rows in 43 chunks: a deviation drawn in each
    rng = np.random.default_rng(2)
    points = rng.normal(size=(300, 3))
    table = EncodedTable(numeric=np.column_stack([points[:, :2] + rng.normal(scale=0.5, size=(300, 2)),
                                                  rng.normal(size=300)]),
                         codes=np.zeros((300, 0), dtype=np.int32), numeric_names=("x", "y", "embedded #1"),
                         categorical_names=(), categories=())
    first = avatarize_rows(table, points, 5, np.random.default_rng(0), restore_spread=True, numbers=2)
    again = avatarize_rows(table, points, 5, np.random.default_rng(0), restore_spread=True, numbers=2)
    reference = avatarize_rows(table, points, 5, np.random.default_rng(0))
    np.testing.assert_array_equal(first.numeric, again.numeric)
    assert first.numeric[:, :2].std(axis=0) == pytest.approx(table.numeric[:, :2].std(axis=0), rel=0.05)
    # the embedding stays a weighted mean: the reference's in the first chunk (drawn alike until its deviations),
    # its spread not put back
    np.testing.assert_array_equal(first.numeric[:7, 2], reference.numeric[:7, 2])
    assert first.numeric[:, 2].std() < 0.8 * table.numeric[:, 2].std()


def test_the_reference_spread_draws_nothing_more():
    # spread "local_mean" is the engine's: restoring draws after the reference's draws, never before them
    rng = np.random.default_rng(5)
    points = rng.normal(size=(300, 3))
    table = EncodedTable(numeric=points[:, :2] + rng.normal(scale=0.5, size=(300, 2)), codes=rng.integers(0, 3, size=(300, 1)).astype(np.int32),
                         numeric_names=("x", "y"), categorical_names=("c",),
                         categories=(np.array(["a", "b", "c"], dtype=object),))
    reference = avatarize_rows(table, points, 5, np.random.default_rng(0))
    restored = avatarize_rows(table, points, 5, np.random.default_rng(0), restore_spread=True)
    np.testing.assert_array_equal(reference.codes, restored.codes)  # one chunk: its categories' draws alike
    assert restored.numeric.std(axis=0) == pytest.approx(table.numeric.std(axis=0), rel=0.05)
    assert np.all(reference.numeric.std(axis=0) < 0.9 * table.numeric.std(axis=0))
