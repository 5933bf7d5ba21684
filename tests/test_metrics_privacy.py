import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from core.engine.pipeline import Avatarizer
from core.engine.schema import apply_kinds, resolve_kinds
from core.metrics import local_cloaking as privacy
from core.metrics.context import PrivacyReference
from core.metrics.evaluation import evaluate
from core.metrics.local_cloaking import count_closer_avatars
from core.metrics.registry import privacy_metrics
from tests.conftest import mixed_table


def brute_force(originals_xy, avatars_xy):
    """The O(n^2) definitions of SPEC section 6."""
    distances = cdist(originals_xy, avatars_xy)
    own = np.diag(distances)
    closer = (distances < own[:, None]).sum(axis=1)
    to_originals = np.sort(cdist(avatars_xy, originals_xy), axis=1)
    ratio = np.where(to_originals[:, 1] > 0, to_originals[:, 0] / np.where(to_originals[:, 1] > 0, to_originals[:, 1], 1), 1.0)
    return {
        "hidden_rate": 100 * np.mean(closer >= 1),
        "local_cloaking": np.median(closer),
        "distance_to_closest": np.median(to_originals[:, 0]),
        "closest_distances_ratio": np.median(ratio),
    }


def frames(n):
    frame = pd.DataFrame({"x": np.arange(n, dtype=float)})
    kinds = resolve_kinds(frame)
    return apply_kinds(frame, kinds), kinds


@given(
    n=st.integers(3, 60),
    seed=st.integers(0, 10_000),
    spread=st.sampled_from([0.01, 0.3, 3.0]),
    duplicates=st.booleans(),
)
def test_fast_paths_equal_the_brute_force_definitions(n, seed, spread, duplicates):
    rng = np.random.default_rng(seed)
    originals = rng.normal(size=(n, 3))
    if duplicates:
        originals[: n // 2] = originals[0]
    avatars = originals + rng.normal(scale=spread, size=(n, 3))
    frame, kinds = frames(n)
    results = privacy_metrics(PrivacyReference.of(originals, frame, kinds), avatars, frame, paired=True)
    expected = brute_force(originals, avatars)
    for name, value in expected.items():
        assert results[name].value == pytest.approx(value), name


def test_local_cloaking_cap_bounds_the_query():
    assert privacy.local_cloaking_cap(2_000) == 256
    assert privacy.local_cloaking_cap(1_000_000) == 16
    assert privacy.local_cloaking_cap(200_000) == 83


@pytest.mark.parametrize("exact_pairs", [0, privacy.EXACT_COUNT_PAIRS])
@pytest.mark.parametrize("seed", range(4))
def test_both_counting_paths_equal_the_brute_force_counts(monkeypatch, exact_pairs, seed):
    monkeypatch.setattr(privacy, "EXACT_COUNT_PAIRS", exact_pairs)  # 0: growing k-NN queries
    rng = np.random.default_rng(seed)
    originals = rng.normal(size=(400, 3))
    originals[:50] = originals[0]  # duplicates
    avatars = originals + rng.normal(scale=[0.05, 0.5, 2.0][seed % 3], size=(400, 3))
    avatars[:5] = originals[:5]  # copies: nothing is strictly closer
    closer = count_closer_avatars(originals, avatars)
    distances = cdist(originals, avatars)
    expected = (distances < np.diag(distances)[:, None]).sum(axis=1)
    assert (closer.censored_at is None) == (exact_pairs > 0) and not closer.at_least
    # growing queries: counts at the last k mean "at least"
    censored = expected if closer.censored_at is None else np.minimum(expected, closer.censored_at)
    assert np.array_equal(closer.counts, censored)
    assert closer.median == np.median(expected)


@pytest.mark.parametrize(("spread", "expected_levels"), [(0.2, [16, 64]), (30.0, [16, 256])])
def test_growing_queries_go_straight_to_the_cap_when_the_median_lies_beyond(monkeypatch, spread, expected_levels):
    monkeypatch.setattr(privacy, "EXACT_COUNT_PAIRS", 0)
    levels = []

    class RecordingTree(cKDTree):
        def query(self, points, k, **options):
            levels.append(k)
            return super().query(points, k=k, **options)

    monkeypatch.setattr(privacy, "cKDTree", RecordingTree)
    rng = np.random.default_rng(7)
    originals = rng.normal(size=(3_000, 2))
    avatars = originals + rng.normal(scale=spread, size=originals.shape)  # 30: own avatars far away
    closer = count_closer_avatars(originals, avatars)
    distances = cdist(originals, avatars)
    expected = (distances < np.diag(distances)[:, None]).sum(axis=1)
    assert list(dict.fromkeys(levels)) == expected_levels
    assert np.array_equal(closer.counts, np.minimum(expected, closer.censored_at))
    if closer.at_least:
        assert closer.median == 256 and np.median(expected) >= 256
    else:
        assert closer.median == np.median(expected)


def test_local_cloaking_reports_a_lower_bound_past_the_cap(monkeypatch):
    monkeypatch.setattr(privacy, "EXACT_COUNT_PAIRS", 0)
    monkeypatch.setattr(privacy, "LOCAL_CLOAKING_MAX_CAP", 4)
    originals = np.arange(100.0)[:, None]
    avatars = originals[::-1].copy()  # own avatars far away
    closer = count_closer_avatars(originals, avatars)
    assert closer.at_least and closer.median == 4
    rng = np.random.default_rng(0)
    originals = rng.normal(size=(200, 2))
    avatars = originals + rng.normal(scale=0.01, size=(200, 2))  # close pairs: exact below the cap
    closer = count_closer_avatars(originals, avatars)
    assert not closer.at_least and closer.median == pytest.approx(brute_force(originals, avatars)["local_cloaking"])


def test_copies_have_hidden_rate_0_and_no_row_protection():
    table = mixed_table(300, missing=0.1)
    evaluation = evaluate(table, table.copy(), seed=0)
    assert evaluation.privacy["hidden_rate"].value == 0.0
    assert evaluation.privacy["local_cloaking"].value == 0.0
    assert evaluation.privacy["row_direct_match_protection"].value == 0.0
    assert evaluation.privacy["distance_to_closest"].value == 0.0
    assert evaluation.privacy["closest_distances_ratio"].value == 0.0
    assert evaluation.privacy["hidden_rate"].passed is False


def test_direct_match_protections_hand_computed():
    originals = pd.DataFrame({"id_like": [1.0, 2.0, 3.0, 4.0], "flag": ["a", "a", "b", "b"]})
    avatars = pd.DataFrame({"id_like": [1.0, 9.0, 9.0, 9.0], "flag": ["a", "a", "a", "a"]})
    kinds = resolve_kinds(originals)
    originals, avatars = apply_kinds(originals, kinds), apply_kinds(avatars, kinds)
    coordinates = np.arange(4.0)[:, None]
    results = privacy_metrics(PrivacyReference.of(coordinates, originals, kinds), coordinates + 0.5, avatars, paired=True)
    # row (1, a) is found among the avatars: 1 of 4 rows
    assert results["row_direct_match_protection"].value == 75.0
    # id_like: m = 1/4, u = 4/4 -> 75; flag: m = 2/4, u = 2/4 -> 75; min 75
    per_variable = {row["variable"]: row for row in results["column_direct_match_protection"].breakdown["per_variable"]}
    assert per_variable["id_like"]["protection"] == 75.0 and per_variable["flag"]["protection"] == 75.0
    assert results["column_direct_match_protection"].value == 75.0


def test_unpaired_avatars_make_pairing_metrics_not_applicable():
    table = mixed_table(300)
    evaluation = evaluate(table, table.sample(frac=1.0, random_state=0).reset_index(drop=True), paired=False, seed=0)
    for name in ("hidden_rate", "local_cloaking", "column_direct_match_protection"):
        result = evaluation.privacy[name]
        assert result.value is None and result.passed is None and "paired" in result.not_applicable
    assert evaluation.privacy["distance_to_closest"].value is not None


@pytest.mark.slow
def test_larger_k_hides_more_on_average():
    table = mixed_table(1_000, seed=1)
    rates = {2: [], 30: []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(4):
            for k in rates:
                result = Avatarizer(k=k, seed=seed, holdout=False).fit(table)
                rates[k].append(evaluate(table, result.paired_avatars_, seed=seed).privacy["hidden_rate"].value)
    gap = np.array(rates[30]) - np.array(rates[2])
    assert gap.mean() > 3 * gap.std(ddof=1) / np.sqrt(len(gap))
