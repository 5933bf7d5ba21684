"""Counting the avatars closer than a person's own (core/metrics/local_cloaking.py): exact, capped, growing."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.engine.neighbours import NeighbourTree
from core.metrics import local_cloaking
from core.metrics.local_cloaking import count_closer_avatars
from tests.support import brute_force, brute_force_ties


def test_local_cloaking_cap_bounds_the_query():
    assert local_cloaking.local_cloaking_cap(2_000) == 64
    assert local_cloaking.local_cloaking_cap(1_000_000) == 16
    assert local_cloaking.local_cloaking_cap(200_000) == 64 and local_cloaking.local_cloaking_cap(500_000) == 33


@pytest.mark.parametrize("exact_pairs", [0, local_cloaking.EXACT_COUNT_PAIRS])
@pytest.mark.parametrize("seed", range(4))
def test_both_counting_paths_equal_the_brute_force_counts(monkeypatch, exact_pairs, seed):
    monkeypatch.setattr(local_cloaking, "EXACT_COUNT_PAIRS", exact_pairs)  # 0: growing k-NN queries
    rng = np.random.default_rng(seed)
    originals = rng.normal(size=(400, 3))
    originals[:50] = originals[0]  # duplicates
    avatars = originals + rng.normal(scale=[0.05, 0.5, 2.0][seed % 3], size=(400, 3))
    avatars[:5] = originals[:5]  # copies: nothing is strictly closer
    closer = count_closer_avatars(originals, avatars)
    expected, tied = brute_force_ties(originals, avatars)
    assert (closer.censored_at is None) == (exact_pairs > 0) and (closer.at_least <= (exact_pairs == 0))
    exact = np.ones(len(expected), bool) if closer.censored_at is None else expected + tied + 1 < closer.censored_at
    assert np.array_equal(closer.counts[exact], expected[exact]) and np.array_equal(closer.tied[exact], tied[exact])
    # growing queries: an original whose k nearest are all as close as its own avatar is "at least"
    if closer.censored_at is not None:
        assert np.all(closer.counts[~exact] + closer.tied[~exact] >= closer.censored_at - 1)
    if closer.at_least:  # more than half reach the cap: the median said as the cap, "at least"
        assert closer.median == closer.censored_at and np.median(expected + tied / 2) >= closer.censored_at - 1
    else:
        assert closer.median == np.median(expected + tied / 2)


@pytest.mark.parametrize(("spread", "expected_levels"), [(0.2, [16, 64]), (30.0, [16, 256])])
def test_growing_queries_go_straight_to_the_cap_when_the_median_lies_beyond(monkeypatch, spread, expected_levels):
    monkeypatch.setattr(local_cloaking, "EXACT_COUNT_PAIRS", 0)
    monkeypatch.setattr(local_cloaking, "LOCAL_CLOAKING_MAX_CAP", 256)  # a cap beyond four times the first query
    levels = []

    class RecordingTree(NeighbourTree):
        def query(self, points, k, **options):
            levels.append(k)
            return super().query(points, k, **options)

    monkeypatch.setattr(local_cloaking, "NeighbourTree", RecordingTree)
    rng = np.random.default_rng(7)
    originals = rng.normal(size=(3_000, 2))
    avatars = originals + rng.normal(scale=spread, size=originals.shape)  # 30: own avatars far away
    closer = count_closer_avatars(originals, avatars)
    expected, _ = brute_force_ties(originals, avatars)
    assert list(dict.fromkeys(levels)) == expected_levels
    assert np.array_equal(closer.counts, np.minimum(expected, closer.censored_at))
    if closer.at_least:
        assert closer.median == 256 and np.median(expected) >= 256
    else:
        assert closer.median == np.median(expected)


def test_local_cloaking_reports_a_lower_bound_past_the_cap(monkeypatch):
    monkeypatch.setattr(local_cloaking, "EXACT_COUNT_PAIRS", 0)
    monkeypatch.setattr(local_cloaking, "LOCAL_CLOAKING_MAX_CAP", 4)
    originals = np.arange(100.0)[:, None]
    avatars = originals[::-1].copy()  # own avatars far away
    closer = count_closer_avatars(originals, avatars)
    assert closer.at_least and closer.median == 4
    rng = np.random.default_rng(0)
    originals = rng.normal(size=(200, 2))
    avatars = originals + rng.normal(scale=0.01, size=(200, 2))  # close pairs: exact below the cap
    closer = count_closer_avatars(originals, avatars)
    assert not closer.at_least and closer.median == pytest.approx(brute_force(originals, avatars)["local_cloaking"])


def test_ties_by_hand():
    """Original 0 at 0 with its avatar at 1, two others at 1 (tied) and one at 0.5 (closer); original 1 is copied
    by its avatar, and one other avatar sits on it too."""
    originals = np.array([[0.0], [10.0], [20.0], [30.0], [40.0]])
    avatars = np.array([[1.0], [10.0], [-1.0], [0.5], [10.0]])
    closer = count_closer_avatars(originals, avatars)
    assert closer.counts[:2].tolist() == [1, 0] and closer.tied[:2].tolist() == [1, 1]
    assert closer.ranks[:2].tolist() == [1.5, 0.5]
    assert closer.hidden[:2].tolist() == [1.0, 0.5]


@settings(max_examples=50, deadline=None)
@given(n_rows=st.integers(3, 60), levels=st.integers(1, 4), seed=st.integers(0, 10_000),
       exact_pairs=st.sampled_from([0, local_cloaking.EXACT_COUNT_PAIRS]))
@example(n_rows=3, levels=1, seed=99, exact_pairs=0)  # every own distance 0: a bound whose square is 0 found nothing
def test_counts_and_ties_on_coarse_tables_equal_the_brute_force(n_rows, levels, seed, exact_pairs):
    """Coarse values (a few levels per column): repeated rows and equal distances everywhere."""
    rng = np.random.default_rng(seed)
    originals = rng.integers(0, levels + 1, size=(n_rows, 2)).astype(float)
    avatars = rng.integers(0, levels + 1, size=(n_rows, 2)).astype(float)
    original_limit = local_cloaking.EXACT_COUNT_PAIRS
    local_cloaking.EXACT_COUNT_PAIRS = exact_pairs
    try:
        closer = count_closer_avatars(originals, avatars)
    finally:
        local_cloaking.EXACT_COUNT_PAIRS = original_limit
    expected, tied = brute_force_ties(originals, avatars)
    exact = np.ones(n_rows, bool) if closer.censored_at is None else expected + tied + 1 < closer.censored_at
    assert np.array_equal(closer.counts[exact], expected[exact]) and np.array_equal(closer.tied[exact], tied[exact])
