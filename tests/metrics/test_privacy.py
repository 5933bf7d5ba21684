"""The privacy metrics of SPEC section 6 through the registry: brute-force definitions, hand-computed cases."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.engine.pipeline import Avatarizer
from core.engine.schema import apply_kinds, resolve_kinds
from core.metrics.context import PrivacyContext, PrivacyReference
from core.metrics.evaluation import evaluate, evaluate_avatarization
from core.metrics.registry import privacy_metrics
from tests.support import brute_force, mixed_table, typed


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
    reference = PrivacyReference.of(originals, frame, kinds)
    results = privacy_metrics(PrivacyContext(reference, avatars, frame, paired=True))
    expected = brute_force(originals, avatars)
    for name, value in expected.items():
        assert results[name].value == pytest.approx(value), name


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
    reference = PrivacyReference.of(coordinates, originals, kinds)
    results = privacy_metrics(PrivacyContext(reference, coordinates + 0.5, avatars, paired=True))
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


def repeated_table(n_distinct=30, repeats=20, seed=0):
    """Titanic-like: four coarse categorical columns, every row shared by ``repeats`` people."""
    rng = np.random.default_rng(seed)
    rows = pd.DataFrame({"class": rng.choice(["1st", "2nd", "3rd", "crew"], n_distinct),
                         "sex": rng.choice(["male", "female"], n_distinct),
                         "age": rng.choice(["child", "adult"], n_distinct),
                         "survived": rng.choice(["yes", "no"], n_distinct)}).drop_duplicates()
    return rows.loc[rows.index.repeat(repeats)].reset_index(drop=True)


def test_a_table_where_every_row_repeats_20_times_hides_its_people():
    """SPEC 6.1: with ties broken at random, an attacker's nearest avatar is one of dozens alike."""
    table = repeated_table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        avatarizer = Avatarizer(k=10, seed=0, holdout=False).fit(table)
    privacy = evaluate_avatarization(avatarizer).privacy
    assert privacy["hidden_rate"].value > 90
    assert privacy["row_direct_match_protection"].value == 100.0  # every row is shared by 20: none is rare
    for name in ("distance_to_closest", "closest_distances_ratio"):
        assert privacy[name].passed is None and "repeated exactly" in privacy[name].note


def test_only_rare_rows_count_against_row_direct_match_protection():
    # five people share (1, a): found among the avatars but identifies nobody; (2, b) is rare and found
    originals = pd.DataFrame({"x": [1.0] * 5 + [2.0, 3.0, 4.0], "flag": ["a"] * 5 + ["b", "b", "b"]})
    avatars = pd.DataFrame({"x": [1.0, 2.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0], "flag": ["a", "b"] + ["a"] * 6})
    (originals, avatars), kinds = typed(originals, avatars)
    reference = PrivacyReference.of(np.arange(8.0)[:, None], originals, kinds)
    result = privacy_metrics(PrivacyContext(reference, np.arange(8.0)[:, None] + 0.5, avatars, paired=True))
    assert result["row_direct_match_protection"].value == 100 * (1 - 1 / 8)
    assert result["row_direct_match_protection"].breakdown == {"rows_found": 6, "rare_rows_found": 1}


def test_a_distance_target_real_newcomers_miss_leaves_the_verdict():
    """SPEC 6.3, revised again. AER's CPS1988: "distance to closest 0.028 (target > 0.2)" missed while the holdout's
    own median distance to its nearest original was 0.03: 14 settings tried, none could pass. Originals at 0..9; real
    people never used at 0.05, 1.1, 2.05, 3.1, 4.05: nearest 0.05, 0.1, 0.05, 0.1, 0.05 (median 0.05 < 0.2), ratios
    0.05/0.95, 0.1/0.9... (median 0.0526 < 0.3): both targets leave the verdict, said in words."""
    from core.metrics.attack import Knowledge
    from core.metrics.context import AttackSides

    (originals, controls), kinds = typed(pd.DataFrame({"x": np.arange(10.0)}),
                                         pd.DataFrame({"x": [0.05, 1.1, 2.05, 3.1, 4.05]}))
    coordinates = np.arange(10.0)[:, None]
    reference = PrivacyReference.of(coordinates, originals, kinds)

    def results(control_coordinates, avatar_offset):
        sides = AttackSides(originals, controls, control_coordinates, None, Knowledge())
        return privacy_metrics(PrivacyContext(reference, coordinates + avatar_offset, originals, paired=True,
                                              sides=sides))

    near = results(controls[["x"]].to_numpy(), 0.01)
    for name, median in (("distance_to_closest", "0.050"), ("closest_distances_ratio", "0.053")):
        assert near[name].passed is None and near[name].note is not None, name
        assert f"the median is {median} (the avatars': " in near[name].note
        assert "the holdout (real people never used)" in near[name].note
    assert near["distance_to_closest"].value == pytest.approx(0.01)
    far = results(np.arange(5.0)[:, None] + 0.5, 0.01)  # newcomers halfway: 0.5 and ratio 1 meet both targets
    assert far["distance_to_closest"].passed is False and far["distance_to_closest"].note is None
    assert far["closest_distances_ratio"].passed is False and far["closest_distances_ratio"].note is None
