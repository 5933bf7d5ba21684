"""The risk profile of SPEC 6.4 (revised): uniqueness on the known variables counted on the values as an attacker
knows them, small groups, the greedy removals."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.metrics.risk_profile import default_step, risk_profile
from tests.support import typed


def profile(frame, known, steps=None):
    (typed_frame,), kinds = typed(frame)
    return risk_profile(typed_frame, kinds, known, steps)


def test_by_hand():
    # (M, a) x3, (F, a) x1, (F, b) x1, (M, b) x1: unique on both: rows 4, 5, 6 -> 3 of 6; all six in groups under 5
    frame = pd.DataFrame({"sex": ["M", "M", "M", "F", "F", "M"], "city": ["a", "a", "a", "a", "b", "b"],
                          "flag": ["x"] * 6})
    result = profile(frame, ["sex", "city"])
    assert (result.unique, result.small_groups, result.rows) == (3, 6, 6)
    assert result.unique_share == 50.0 and result.small_group_share == 100.0
    # without sex: city a x4, b x2 -> none unique; without city: M x4, F x2 -> none unique; tie: the first listed
    assert result.removals == (("sex", 0),)
    # no one unique on city alone: nothing to remove ("without city: 0.0 % unique" said nothing)
    assert profile(frame, ["city", "flag"]).removals == ()


def test_whole_numbers_count_as_written():
    # Years of schooling, 19 values an attacker knows exactly (AER's CPS1988): deciles cut them into 7 bins and
    # said 0.1 % unique where the values as written single out 4.0 %. Here 19 people, one per year: all unique.
    frame = pd.DataFrame({"education": np.arange(19) % 19, "region": ["north"] * 19})
    result = profile(frame, ["education", "region"])
    assert result.unique == 19 and result.steps == {}


def test_dates_count_to_the_day_and_missing_values_are_a_value():
    # A birth date known to the day: 40 days, 2 people each, one missing: the missing one is alone
    days = pd.to_datetime("2020-01-01") + pd.to_timedelta(np.repeat(np.arange(40), 2), unit="D")
    frame = pd.DataFrame({"born": days, "sex": ["M", "F"] * 40})
    frame["born"] = frame["born"].astype(object)
    frame.loc[0, "born"] = None
    result = profile(frame, ["born", "sex"])
    # (day, sex): every pair is one person: 80 unique, the missing birth date too
    assert result.unique == 80
    assert profile(frame, ["born"]).unique == 2  # day 0 holds one person (the other is missing), missing alone


def test_numbers_with_decimals_count_at_a_stated_precision():
    # weights 60.0 to 79.9 by 0.1: 3 significant digits of the median (about 70) is 0.1, the written precision
    weights = np.round(np.arange(600, 800) / 10, 1)
    assert default_step(weights) == pytest.approx(0.1)
    # incomes written to the cent around 2 000: counted to the nearest 10
    assert default_step(np.array([1_999.99, 2_000.5, 2_010.25])) == pytest.approx(10.0)
    assert default_step(np.array([1.0, 2.0, 30.0])) is None  # whole: as written
    frame = pd.DataFrame({"income": [1_001.0, 1_004.9, 1_012.0, 1_016.0, 1_024.99], "sex": ["M"] * 5})
    # by default to the nearest 10: 1 000 (x2), 1 010, 1 020 (x2) -> one unique
    assert profile(frame, ["income", "sex"]).unique == 1
    # to the nearest 1: 1 001, 1 005, 1 012, 1 016, 1 025: all unique; to the nearest 100: none
    assert profile(frame, ["income", "sex"], {"income": 1.0}).unique == 5
    assert profile(frame, ["income", "sex"], {"income": 100.0}).unique == 0
    assert profile(frame, ["income"], {"income": 1.0}).steps == {"income": 1.0}


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 60), levels=st.integers(1, 4), step=st.sampled_from([None, 0.5, 2.0]),
       seed=st.integers(0, 10_000))
def test_counts_equal_a_pandas_count_on_the_values_as_counted(n, levels, step, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(list("pqrs")[:levels], n), "b": rng.integers(0, 3 * levels, n),
                          "c": np.round(rng.normal(10, 3, n), 1)})
    frame.loc[rng.random(n) < 0.1, "c"] = np.nan
    steps = None if step is None else {"c": step}
    result = profile(frame, ["a", "b", "c"], steps)
    counted = frame.copy()
    used = step if step is not None else result.steps.get("c")
    if used is not None:
        counted["c"] = np.floor(counted["c"] / used + 0.5)
    sizes = counted.groupby(["a", "b", "c"], dropna=False)["a"].transform("size").to_numpy()
    assert result.unique == int(np.sum(sizes == 1))
    assert result.small_groups == int(np.sum(sizes < 5))
    if result.unique == 0:
        assert result.removals == ()
        return
    first, count = result.removals[0]
    rest = [name for name in "abc" if name != first]
    expected = counted.groupby(rest, dropna=False)[rest[0]].transform("size").to_numpy()
    assert count == int(np.sum(expected == 1))


def test_a_step_finer_than_the_values_counts_them_as_written():
    """--known-precision wage=1e-308: wage / step overflowed to inf and every wage counted as one value (105 people
    unique on CPS1988 instead of 17 106)."""
    frame = pd.DataFrame({"wage": [100.25, 200.5, 200.5, 300.75]})
    for step in (1e-308, 0.001):
        result = profile(frame, ["wage"], {"wage": step})
        assert result.unique == 2 and result.steps == {}  # 100.25 and 300.75 alone; said "as written"
    assert profile(frame, ["wage"], {"wage": 0.01}).steps == {"wage": 0.01}  # its own decimals: said


def test_many_known_variables_are_counted_exactly_and_in_bounded_time():
    """16 known variables on 1 000 000 rows took 50 s (each removal counted afresh: v^3 combinations); the runs
    before and after each variable are built once per step. The removals equal a brute-force count."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({f"v{j}": rng.integers(0, 4, 3_000) for j in range(9)})
    result = profile(frame, list(frame.columns))
    kept = list(frame.columns)
    for name, count in result.removals:
        kept.remove(name)
        sizes = frame.groupby(kept)[kept[0]].transform("size")
        assert count == int((sizes == 1).sum())
