"""The risk profile of SPEC 6.4: uniqueness on the known variables, small groups, the greedy removals."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.metrics.risk_profile import risk_profile
from tests.support import typed


def profile(frame, known):
    (typed_frame,), kinds = typed(frame)
    return risk_profile(typed_frame, kinds, known)


def test_by_hand():
    # (M, a) x3, (F, a) x1, (F, b) x1, (M, b) x1: unique on both: rows 4, 5, 6 -> 50 %; all six in groups under 5
    frame = pd.DataFrame({"sex": ["M", "M", "M", "F", "F", "M"], "city": ["a", "a", "a", "a", "b", "b"],
                          "flag": ["x"] * 6})
    result = profile(frame, ["sex", "city"])
    assert result.unique_share == 50.0 and result.small_group_share == 100.0
    # without sex: city a x4, b x2 -> none unique; without city: M x4, F x2 -> none unique; tie: the first listed
    assert result.removals == (("sex", 0.0),)
    # no one unique on city alone: nothing to remove ("without city: 0.0 % unique" said nothing)
    assert profile(frame, ["city", "flag"]).removals == ()


def test_numbers_count_by_decile_and_missing_values_are_a_value():
    frame = pd.DataFrame({"income": np.arange(100, dtype=float) + 0.5, "sex": ["M", "F"] * 50})
    frame.loc[0, "income"] = np.nan
    result = profile(frame, ["income", "sex"])
    # ten deciles x two sexes: groups of about 5, the missing income alone
    assert result.unique_share == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), levels=st.integers(1, 4), seed=st.integers(0, 10_000))
def test_shares_equal_a_brute_force_count(n, levels, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(list("pqrs")[:levels], n), "b": rng.choice(list("xyz")[:levels], n),
                          "c": rng.choice(["u", "v"], n)})
    result = profile(frame, ["a", "b", "c"])
    sizes = frame.groupby(["a", "b", "c"])["a"].transform("size").to_numpy()
    assert result.unique_share == pytest.approx(100 * np.mean(sizes == 1))
    assert result.small_group_share == pytest.approx(100 * np.mean(sizes < 5))
    if result.unique_share == 0:
        assert result.removals == ()
        return
    first, share = result.removals[0]
    rest = [name for name in "abc" if name != first]
    expected = frame.groupby(rest)[rest[0]].transform("size").to_numpy()
    assert share == pytest.approx(100 * np.mean(expected == 1))
