import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.share_calibration import SHARE_TOLERANCE, calibrated_offsets


def picked_shares(scores, offsets):
    return np.bincount(np.argmax(scores + offsets[:, None], axis=0), minlength=len(scores)) / scores.shape[1]


def test_two_modalities_by_hand():
    # margins score[1] - score[0] of the 10 rows: 0.1 .. 1.0; a share of 0.3 for modality 1 takes the top three
    margins = np.arange(1, 11) / 10
    scores = np.vstack([np.zeros(10), margins])
    offsets = calibrated_offsets(scores, np.array([0.7, 0.3]))
    assert picked_shares(scores, offsets).tolist() == [0.7, 0.3]
    assert (np.argmax(scores + offsets[:, None], axis=0) == 1).tolist() == [False] * 7 + [True] * 3


def test_scores_that_already_give_the_shares_are_left_alone():
    scores = np.eye(3)[:, [0, 0, 1, 2]]  # exact one-hot weights: shares 1/2, 1/4, 1/4
    np.testing.assert_array_equal(calibrated_offsets(scores, np.array([0.5, 0.25, 0.25])), 0.0)


def test_a_modality_of_share_zero_is_never_picked_and_one_modality_needs_no_offset():
    scores = np.random.default_rng(0).normal(size=(3, 500))
    scores[2] += 10
    offsets = calibrated_offsets(scores, np.array([0.6, 0.4, 0.0]))
    assert picked_shares(scores, offsets)[2] == 0
    assert calibrated_offsets(np.ones((1, 5)), np.array([1.0])).tolist() == [0.0]


@settings(max_examples=60, deadline=None)
@given(n_modalities=st.integers(2, 8), seed=st.integers(0, 10_000), skew=st.floats(0.0, 3.0))
def test_shares_reached_on_random_scores(n_modalities, seed, skew):
    rng = np.random.default_rng(seed)
    shares = rng.dirichlet(np.ones(n_modalities))
    scores = rng.normal(size=(n_modalities, 5_000)) + skew * rng.normal(size=(n_modalities, 1))
    offsets = calibrated_offsets(scores, shares)
    np.testing.assert_allclose(picked_shares(scores, offsets), shares, atol=SHARE_TOLERANCE + 2 / 5_000)


def test_rows_keep_their_order_within_a_modality_pair():
    """With two modalities the decision is a threshold on score[1] - score[0]: the rows most like modality 1 get it."""
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(2, 1_000))
    offsets = calibrated_offsets(scores, np.array([0.9, 0.1]))
    chosen = np.argmax(scores + offsets[:, None], axis=0) == 1
    margin = scores[1] - scores[0]
    assert margin[chosen].min() > margin[~chosen].max()
    assert chosen.mean() == pytest.approx(0.1, abs=SHARE_TOLERANCE)
