"""The relations found on the originals and kept (issue 30): hand-made tables per kind, hypothesis with one hidden
relation of each kind among random columns, near-relations not taken as exact."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.dataset.relations import Determined, Intervals, Monotone, Order, Total, find, find_relations
from core.dataset.relations.base import decimals, log_chance_of_blocks, log_chance_of_determination
from core.dataset.relations.intervals import roundest_between


def _random(rows: int, seed: int) -> pd.DataFrame:
    generator = np.random.default_rng(seed)
    return pd.DataFrame({
        "noise": generator.normal(size=rows).round(3),
        "colour": generator.choice(["red", "green", "blue"], rows),
        "count": generator.integers(0, 50, rows),
    })


def test_the_odds_of_blocks_by_hand():
    # 2 groups of 2 among 4 rows: 2! 2! 2! / 4! = 8 / 24
    assert math.exp(log_chance_of_blocks(np.array([2, 2]))) == pytest.approx(1 / 3)


def test_the_odds_of_determination_by_hand():
    # two groups of 3 rows, a target half a, half b: each group one value with odds 2 x 0.5^3 = 0.25
    value = log_chance_of_determination(np.array([3, 3]), np.array([0.5, 0.5]))
    assert math.exp(value) == pytest.approx(0.25**2)


@pytest.mark.parametrize(("below", "upto", "cut"), [(2495, 2523, 2500), (17.9, 18.0, 18), (0.31, 0.37, 0.35),
                                                     (-3.2, -2.9, -3), (99, 100, 100)])
def test_the_roundest_cut(below, upto, cut):
    assert roundest_between(below, upto) == pytest.approx(cut)


def test_decimals():
    assert decimals(np.array([1.5, 2.25, np.nan])) == 2
    assert decimals(np.array([3.0, 4.0])) == 0


def test_a_threshold_found_and_applied():
    frame = _random(300, 1)
    frame["weight"] = np.random.default_rng(2).integers(1000, 4500, 300)
    frame["low"] = (frame["weight"] < 2500).astype(int)
    found = [r for r in find_relations(frame) if r.derived == "low"]
    assert len(found) == 1 and isinstance(found[0], Intervals)
    relation = found[0]
    below, upto = frame.loc[frame.low == 1, "weight"].max(), frame.loc[frame.low == 0, "weight"].min()
    assert below < relation.cuts[0] <= upto
    assert relation.sentence().startswith("'low' is 1 exactly when 'weight' < ")
    avatars = relation.apply(pd.DataFrame({"weight": [100.0, 2499.0, 2500.0, 9000.0, np.nan], "low": 0}))
    assert avatars["low"].iloc[:4].tolist() == [1, 1, 0, 0] if relation.cuts[0] == 2500 else True
    assert pd.isna(avatars["low"].iloc[4])
    assert relation.breaking_share(frame) == 0


def test_bands_with_their_cuts():
    ages = np.arange(18, 90).repeat(5)
    band = pd.cut(ages, [0, 30, 50, 200], right=False, labels=["young", "middle", "old"]).astype(str)
    frame = pd.DataFrame({"age": ages, "band": band})
    (relation,) = find_relations(frame)
    assert isinstance(relation, Intervals) and relation.cuts == (30, 50)
    assert relation.labels == ("young", "middle", "old")
    assert relation.apply(pd.DataFrame({"age": [10, 30, 49.5, 50]}))["band"].tolist() == [
        "young", "middle", "middle", "old"]


def test_a_label_set_by_its_code():
    generator = np.random.default_rng(3)
    codes = generator.choice(["01", "02", "75"], 400)
    frame = pd.DataFrame({"code": codes, "town": pd.Series(codes).map({"01": "Ain", "02": "Aisne", "75": "Paris"}),
                          "x": generator.normal(size=400)})
    (relation,) = find_relations(frame)
    assert isinstance(relation, Determined) and relation.columns == ("code", "town")
    assert relation.apply(pd.DataFrame({"code": ["75", "01"]}))["town"].tolist() == ["Paris", "Ain"]


def test_a_logarithm_named_and_a_monotone_map_kept_through_its_pairs():
    generator = np.random.default_rng(4)
    wage = generator.uniform(20, 300, 500)
    frame = pd.DataFrame({"wage": wage, "logwage": np.log(wage), "cube": wage**3 + wage})
    found = {r.derived: r for r in find_relations(frame)}
    assert isinstance(found["logwage"], Monotone) and found["logwage"].form == "log"
    assert found["logwage"].sentence() == "'logwage' = log('wage') on every row"
    assert found["cube"].form == "pairs" and found["cube"].breaking_share(frame) == 0
    applied = found["logwage"].apply(pd.DataFrame({"wage": [100.0]}))
    assert applied["logwage"].iloc[0] == pytest.approx(math.log(100))


def test_a_unit_conversion():
    kilograms = np.random.default_rng(5).uniform(40, 120, 200).round(1)
    frame = pd.DataFrame({"kg": kilograms, "g": kilograms * 1000})
    (relation,) = find_relations(frame)
    assert (relation.form, relation.slope, relation.intercept) == ("identity", 1000, 0)


def test_an_order_of_dates_with_a_missing_end():
    generator = np.random.default_rng(6)
    start = pd.Timestamp("2024-01-01") + pd.to_timedelta(generator.integers(0, 365, 300), unit="D")
    end = pd.Series(start + pd.to_timedelta(generator.integers(0, 30, 300), unit="D"))
    end[::7] = pd.NaT
    frame = pd.DataFrame({"admission": start, "discharge": end})
    (relation,) = find_relations(frame)
    assert isinstance(relation, Order) and (relation.low, relation.high) == ("admission", "discharge")
    broken = frame.assign(discharge=frame["admission"] - pd.Timedelta(days=1))
    assert relation.breaking_share(broken) == 1


def test_a_column_the_sample_holds_no_value_of_takes_no_order():
    frame = _random(5_000, 3).assign(rare=np.nan)
    sampled = set(np.linspace(0, 4_999, 2_000).astype(int))
    frame.loc[[row for row in range(1, 5_000) if row not in sampled][:3], "rare"] = [101.0, 102.0, 103.0]
    assert not any("rare" in relation.columns for relation in find_relations(frame))  # and no warning


def test_ranges_apart_are_no_order():
    generator = np.random.default_rng(7)
    frame = pd.DataFrame({"age": generator.integers(18, 60, 300), "income": generator.integers(1000, 5000, 300)})
    assert find_relations(frame) == []


def test_a_total_of_three_parts():
    generator = np.random.default_rng(8)
    parts = generator.integers(0, 100, (300, 3)).astype(float) / 10
    frame = pd.DataFrame(parts, columns=["a", "b", "c"]).assign(total=lambda f: (f.a + f.b + f.c).round(1))
    totals = [r for r in find_relations(frame) if isinstance(r, Total)]
    assert [(r.total, r.parts) for r in totals] == [("total", ("a", "b", "c"))]
    assert totals[0].apply(pd.DataFrame({"a": [0.1], "b": [0.2], "c": [0.4]}))["total"].iloc[0] == 0.7


def test_a_near_relation_is_not_exact():
    """99 % of rows following each rule: none is taken."""
    generator = np.random.default_rng(9)
    rows = 1000
    weight = generator.integers(1000, 4500, rows).astype(float)
    start = generator.uniform(0, 100, rows)
    frame = pd.DataFrame({
        "weight": weight, "low": (weight < 2500).astype(int),
        "log_weight": np.log(weight), "start": start, "end": start + generator.uniform(0, 10, rows),
    })
    frame["a"], frame["b"] = generator.integers(-4, 9, rows), generator.integers(-4, 9, rows)
    frame["sum"] = frame["a"] + frame["b"]
    broken = generator.choice(rows, 10, replace=False)
    frame.loc[broken, "low"] = 1 - frame.loc[broken, "low"]
    frame.loc[broken, "log_weight"] += 0.5
    frame.loc[broken, "end"] = frame.loc[broken, "start"] - 1
    frame.loc[broken, "sum"] += 1
    assert find_relations(frame) == []


def test_independent_columns_show_none():
    assert find_relations(_random(2000, 10)) == []


def test_small_tables_show_nothing_by_chance():
    """Ten rows: a category that happens to split a number is not taken as a rule."""
    frame = pd.DataFrame({"x": np.arange(10.0), "group": list("aaaaabbbbb")})
    assert find_relations(frame) == []


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), rows=st.integers(200, 1500))
def test_one_hidden_relation_of_each_kind_found_and_kept(seed, rows):
    """Planted among random columns, each relation is found; applied to new values it leaves 0 breaking rows."""
    generator = np.random.default_rng(seed)
    frame = _random(rows, seed)
    frame["weight"] = generator.integers(1000, 4500, rows)
    frame["low"] = np.where(frame["weight"] < 2500, "yes", "no")
    frame["region"] = frame["colour"].map({"red": "north", "green": "south", "blue": "north"})
    frame["wage"] = generator.uniform(20, 300, rows).round(2)
    frame["logwage"] = np.log(frame["wage"])
    frame["start"] = generator.uniform(0, 100, rows).round(2)
    frame["end"] = (frame["start"] + generator.uniform(0, 20, rows)).round(2)
    frame["x1"], frame["x2"] = generator.integers(0, 20, rows), generator.integers(0, 20, rows)
    frame["x_total"] = frame["x1"] + frame["x2"]
    found = find_relations(frame)
    kinds = {(type(r).__name__, r.derived or r.columns[-1]) for r in found}
    assert {("Intervals", "low"), ("Determined", "region"), ("Monotone", "logwage"), ("Order", "end"),
            ("Total", "x_total")} <= kinds
    # new values (as avatars are) with the derived columns computed: no row breaks a relation
    new = frame.sample(frac=1, random_state=seed).reset_index(drop=True)
    new["weight"] = generator.integers(500, 5000, rows)
    new["wage"] = generator.uniform(20, 300, rows)
    for relation in found:
        new = relation.apply(new)
    assert all(relation.breaking_share(new) == 0 for relation in found if relation.derived is not None)


def _totals_by_brute_force(values: np.ndarray, scale: np.ndarray) -> list[tuple[int, tuple[int, ...]]]:
    """Every 2- or 3-part sum tried against every column (the search before issue 47)."""
    found = []
    for size in (2, 3):
        for parts in combinations(range(values.shape[1]), size):
            close = np.abs(values - values[:, parts].sum(axis=1)[:, None]) <= 1e-6 * scale
            found += [(int(total), parts) for total in np.flatnonzero(close.all(axis=0)) if total not in parts]
    return found


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), columns=st.integers(3, 14), planted=st.integers(0, 3))
def test_the_totals_searched_by_fingerprint_are_those_of_every_sum(seed, columns, planted):
    # small integers (many exact sums by chance), decimals, a duplicated column and planted totals of 2 or 3 parts
    generator = np.random.default_rng(seed)
    values = generator.integers(-3, 4, (40, columns)).astype(float)
    values[:, ::3] = generator.normal(0, 1e3, (40, len(range(0, columns, 3)))).round(2)
    if columns > 4:
        values[:, 1] = values[:, 2]
    for _ in range(planted):
        parts = generator.choice(columns, generator.integers(2, 4), replace=False)
        target = generator.integers(columns)
        if target not in parts:
            values[:, target] = values[:, parts].sum(axis=1)
    scale = np.abs(values).max(axis=0) + 1.0
    assert find._total_candidates(values, scale) == _totals_by_brute_force(values, scale)


def _screened_by_pandas(frame: pd.DataFrame, test: str, source: str, target: str) -> bool:
    """Each screening test of a pair written plainly, on the rows it reads (its brute-force twin)."""
    if test == "determines":
        codes = frame[[source, target]].map(repr)  # a missing value is a value of its own
        return bool(codes.groupby(source)[target].nunique().max() == 1)
    known = frame[[source, target]].dropna(subset=[source] if test == "separates" else [source, target])
    known = known.sort_values(source, kind="stable")
    xs, ys = known[source].to_numpy(), known[target].map(repr).to_numpy()
    if test == "separates":
        runs = [ys[i] for i in range(len(ys)) if i == 0 or ys[i] != ys[i - 1]]
        ties_across = any(ys[i] != ys[i - 1] and xs[i] == xs[i - 1] for i in range(1, len(ys)))
        return len(ys) > 0 and len(runs) == len(set(runs)) and not ties_across
    if test == "monotone":
        values = known[target].to_numpy(dtype=float)
        steps = [(xs[i] == xs[i - 1], values[i] - values[i - 1]) for i in range(1, len(xs))]
        if any(tied and step != 0 for tied, step in steps):
            return False
        moves = [step for tied, step in steps if not tied]
        return all(step > 0 for step in moves) or all(step < 0 for step in moves)
    low, high = frame[source], frame[target]  # orders
    return bool(not (low > high).any() and low.notna().any() and high.notna().any() and low.max() > high.min())


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), rows=st.integers(1, 30))
def test_the_screening_of_many_targets_at_once_is_each_pairs(seed, rows):
    # few values (ties, runs), missing values, a column set by another, one rising with another
    generator = np.random.default_rng(seed)
    frame = pd.DataFrame({name: generator.integers(0, 4, rows).astype(float) for name in "abcd"})
    frame["e"] = frame["a"] * 2 + 1
    frame["f"] = np.where(frame["b"] > 1, "high", "low")
    frame = frame.mask(generator.random(frame.shape) < 0.15)
    sample = find._Sample(frame, list(frame.columns))
    numbers = ["a", "b", "c", "d", "e"]
    for test, sources, targets in [("determines", frame.columns, frame.columns), ("separates", numbers, frame.columns),
                                   ("monotone", numbers, numbers), ("orders", numbers, numbers)]:
        for source in sources:
            others = [target for target in targets if target != source]
            passing = sample.screen(test, source, others)
            assert passing == [target for target in others if _screened_by_pandas(frame, test, source, target)], \
                (test, source)
