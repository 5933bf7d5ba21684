"""The attack metrics of SPEC 6.2 (core/metrics/attack.py, linkability_risk.py, inference_risk.py): hand-computed
figures, and the expected directions on copies and on independent columns."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from core.errors import InputError
from core.metrics.attack import AttackRisk, Knowledge, KnownSpace, excess, wilson_interval
from core.metrics.evaluation import evaluate
from tests.support import mixed_table, typed

KNOWN = ("weight", "age", "score", "visit")  # halves (weight, age) and (score, visit): each picks out a person


def shuffled(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Each column permuted on its own: avatars drawn independently of the originals."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({name: frame[name].to_numpy()[rng.permutation(len(frame))] for name in frame.columns})


def test_wilson_interval_by_hand():
    # 8 of 10: centre (0.8 + 1.92^2/20) / (1 + 1.96^2/10) = 0.7167, half-width 0.2263 -> (0.490, 0.943)
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(0, 50)[0] == 0.0 and wilson_interval(50, 50)[1] == 1.0


def test_risk_is_the_members_success_beyond_the_control():
    assert excess(0.6, 0.2) == pytest.approx(0.5)  # (0.6 - 0.2) / (1 - 0.2)
    assert excess(0.1, 0.2) == 0.0 and excess(0.5, 1.0) == 0.0
    risk = AttackRisk.of(np.array([1.0] * 60 + [0.0] * 40), np.array([1.0] * 20 + [0.0] * 80))
    assert (risk.members, risk.controls, risk.risk) == (0.6, 0.2, pytest.approx(0.5))
    a_low, a_high = wilson_interval(60, 100)
    c_low, c_high = wilson_interval(20, 100)
    assert risk.low == pytest.approx(excess(a_low, c_high)) and risk.high == pytest.approx(excess(a_high, c_low))
    assert risk.low < risk.risk < risk.high


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 40), levels=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_the_nearest_avatar_on_the_known_variables_is_a_nearest_one(n, levels, seed):
    """The tree's answer is at the brute-force minimum distance (ties: any of the tied avatars)."""
    rng = np.random.default_rng(seed)
    originals = pd.DataFrame({"a": rng.integers(0, levels + 1, n).astype(float) + rng.normal(size=n),
                              "b": rng.choice(list("xyz")[:levels], n)})
    avatars = pd.DataFrame({"a": rng.integers(0, levels + 1, n).astype(float), "b": rng.choice(list("xyz")[:levels], n)})
    (originals, avatars), kinds = typed(originals, avatars)
    space = KnownSpace(originals, avatars, ["a", "b"], kinds)
    chosen = space.nearest_avatar(originals)
    distances = cdist(space.coordinates(originals), space.coordinates(avatars))
    np.testing.assert_allclose(distances[np.arange(n), chosen], distances.min(axis=1), atol=1e-6)


def test_knowledge_halves_and_checks():
    assert Knowledge(known=("a", "b", "c")).halves == (("a", "b"), ("c",))
    assert Knowledge(known=("a", "b", "c"), groups=(("a",), ("b", "c"))).halves == (("a",), ("b", "c"))
    kinds = {"a": "numeric", "b": "numeric"}
    with pytest.raises(InputError, match="The known variable 'z' is not a column"):
        Knowledge(known=("z",)).checked(kinds)
    with pytest.raises(InputError, match="'a' is both known and sensitive"):
        Knowledge(known=("a",), sensitive=("a",)).checked(kinds)


def attacked(avatars_of, seed=0, n=1_200, sensitive=("colour",)):
    originals, holdout = mixed_table(n, seed=seed), mixed_table(n, seed=seed + 100)
    return evaluate(originals, avatars_of(originals), holdout=holdout, seed=0,
                    knowledge=Knowledge(known=KNOWN, sensitive=sensitive)).privacy


def test_copies_are_linked_and_reveal_the_sensitive_variable():
    privacy = attacked(lambda originals: originals.copy())
    linkability, inference = privacy["linkability_risk"], privacy["inference_risk"]
    assert linkability.value > 95 and linkability.passed is False
    assert linkability.breakdown["members"] > 95 and linkability.breakdown["controls"] < 20
    assert inference.value > 95 and inference.passed is False
    assert inference.breakdown["per_variable"][0]["beats_guessing"]
    assert privacy["closest_rate"].value == 0.0  # every avatar sits on a real person


@pytest.mark.parametrize("seed", range(3))
def test_independent_columns_give_risks_whose_interval_contains_0(seed):
    privacy = attacked(lambda originals: shuffled(originals, seed), seed=seed, sensitive=("group", "colour"))
    linkability = privacy["linkability_risk"].breakdown
    assert linkability["low"] == 0.0
    for entry in privacy["inference_risk"].breakdown["per_variable"]:
        assert entry["low"] == 0.0, entry


def test_without_known_variables_the_attacks_say_what_to_choose():
    privacy = evaluate(mixed_table(300), mixed_table(300, seed=1), seed=0).privacy
    for name in ("linkability_risk", "inference_risk", "correlation_protection_rate"):
        assert privacy[name].value is None and "Choose the variables an attacker could know" in \
            privacy[name].not_applicable
    only_known = evaluate(mixed_table(300), mixed_table(300, seed=1), seed=0,
                          knowledge=Knowledge(known=("age", "group"))).privacy
    assert "Choose the sensitive variables" in only_known["inference_risk"].not_applicable
    one_known = evaluate(mixed_table(300), mixed_table(300, seed=1), seed=0, knowledge=Knowledge(known=("age",)))
    assert "at least two known variables" in one_known.privacy["linkability_risk"].not_applicable


def test_an_attack_no_better_than_guessing_counts_as_no_risk():
    """A sensitive flag the known variables say nothing about, 90 % "no": guessing "no" beats the nearest avatar."""
    rng = np.random.default_rng(3)
    originals, holdout = (pd.DataFrame({"x": rng.normal(size=600), "y": rng.normal(size=600),
                                        "flag": rng.choice(["no", "yes"], 600, p=[0.9, 0.1])}) for _ in range(2))
    avatars = shuffled(originals, 1)
    privacy = evaluate(originals, avatars, holdout=holdout, seed=0,
                       knowledge=Knowledge(known=("x", "y"), sensitive=("flag",))).privacy
    entry = privacy["inference_risk"].breakdown["per_variable"][0]
    assert entry["baseline"] > entry["members"] and not entry["beats_guessing"]
    assert privacy["inference_risk"].value == 0.0 and privacy["inference_risk"].passed is True
