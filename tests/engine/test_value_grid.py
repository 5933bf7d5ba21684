import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from core.dataset import Kind
from core.engine.encoding import TableCodec
from core.engine.schema import apply_kinds, resolve_kinds
from core.engine.value_grid import ValueGrid


def written(originals, values, overrides=None):
    """``values`` decoded by the codec fitted on the column ``originals``: what an avatar holding them is written as."""
    frame = pd.DataFrame({"x": originals, "other": ["a", "b"] * (len(originals) // 2) + ["a"] * (len(originals) % 2)})
    kinds = resolve_kinds(frame, overrides)
    codec = TableCodec(kinds).fit(apply_kinds(frame, kinds))
    table = codec.encode(apply_kinds(frame.iloc[:len(values)], kinds))
    numeric = table.numeric.copy()
    numeric[:, 0] = values
    return codec.decode(table.with_arrays(numeric, table.codes))["x"].tolist(), codec.grids()[0]


def test_a_half_year_column_is_written_in_half_years():
    education = np.arange(0.0, 20.5, 0.5).repeat(3)  # 41 values, each a half-year
    values, grid = written(education, [12.3, 12.2, 0.26, 19.74])
    assert (grid.scale, grid.anchor, grid.regular_step) == (10.0, 0, 5)  # 0.5 = 5 tenths
    assert values == [12.5, 12.0, 0.5, 19.5]  # by hand: the nearest multiple of 0.5


def test_a_multiple_of_5_column_is_written_in_fives():
    weights = np.arange(40, 160, 5).repeat(2)  # 24 whole values, every one a multiple of 5
    values, grid = written(weights, [37.0, 38.0, 101.4, 102.6], {"x": "numeric"})
    assert (grid.scale, grid.regular_step) == (1.0, 5)
    assert values == [35, 40, 100, 105]


def test_a_money_column_keeps_its_cents_and_its_price_endings():
    prices = np.round(np.arange(4, 100) + 0.99, 2)  # 4.99 ... 99.99: 96 prices ending in .99
    values, grid = written(prices, [12.40, 12.60, 50.0])
    assert (grid.scale, grid.anchor, grid.regular_step) == (100.0, 499, 100)
    assert values == [11.99, 12.99, 49.99]  # 1240 cents: 499 + 100 * round(7.41) = 1199
    amounts = np.round(np.random.default_rng(0).uniform(0, 500, 300), 2)  # any cent
    values, grid = written(amounts, [12.346, 0.004])
    assert grid.regular_step == 1 and values == [12.35, 0.0]  # to the cent, as written before issue 49


def test_a_few_valued_column_takes_only_values_five_people_hold():
    originals = np.array([0.19] * 40 + [0.22] * 30 + [0.27] * 30 + [0.5] * 3 + [0.72] * 20)  # 0.5: three people
    values, grid = written(originals, [0.2, 0.21, 0.26, 0.49, 0.52, 0.7, 0.63, 0.55])
    assert grid.targets.tolist() == [19.0, 22.0, 27.0, 72.0]  # in hundredths
    assert values == [0.19, 0.22, 0.27, 0.49, 0.52, 0.72, 0.72, 0.55]  # nearest 0.5 (rare): the decimals alone
    assert 0.5 not in values


def test_a_rare_value_is_never_a_target_and_too_few_common_values_leave_the_decimals():
    grid = ValueGrid.of_decimals(0, np.array([1.0] * 3 + [2.0] * 3 + [3.0] * 100))  # one common value
    assert grid.targets is None  # a column of one value would be no avatar's truth
    assert grid.written(np.array([1.4, 2.6])).tolist() == [1.0, 3.0]  # whole numbers, as before
    mostly_rare = ValueGrid.of_decimals(0, np.array([1.0] * 10 + [2.0] * 10 + list(range(3, 20))))
    assert mostly_rare.targets is None  # the common values hold 20 of 37 rows, under 95 %


def test_a_step_is_never_read_into_a_few_values():
    three = ValueGrid.of_decimals(0, np.array([3.0, 7.0, 11.0]))  # step 4 by chance: 1 in 4^2 = 16
    assert three.step == 4 and three.regular_step == 1
    six = ValueGrid.of_decimals(0, np.array([3.0, 7.0, 11.0, 15.0, 19.0, 23.0]))  # 1 in 4^5 = 1024
    assert six.regular_step == 4
    one_off = ValueGrid.of_decimals(0, np.array([*range(0, 200, 5), 37.0]))  # a typo among multiples of 5
    assert one_off.regular_step == 1  # no guess: written as whole numbers
    # kilograms to 5 decimals, every one a multiple of 0.00004 (as the AIDS trial's weights, converted from pounds)
    weights = (3_100_000 + 4 * np.random.default_rng(0).integers(0, 3_000_000, 2_000)) / 1e5
    artefact = ValueGrid.of_decimals(5, weights)
    assert artefact.step == 4 and artefact.regular_step == 1  # 3 million values of it in the range, for 2 000 rows


def test_a_value_beside_a_spike_goes_to_the_next_grid_value_on_its_side():
    steps = ValueGrid.of_decimals(1, np.arange(0.0, 20.5, 0.5))
    assert steps.beside(12.0, np.array([11.9, 12.1])).tolist() == [11.5, 12.5]
    few = ValueGrid.of_decimals(0, np.array([0.0] * 50 + [2.0] * 10 + [7.0] * 10))
    assert few.beside(2.0, np.array([1.9, 2.2])).tolist() == [0.0, 7.0]
    assert few.beside(0.0, np.array([-0.1, 0.3])).tolist() == [2.0, 2.0]  # nothing below the lowest: above


def test_dates_keep_their_resolution():
    days = pd.Series(pd.to_datetime(["2024-01-01", "2024-02-03", "2024-03-05"] * 4))
    values, grid = written(days, [pd.Timestamp("2024-01-01 13:00").timestamp()])
    assert grid.regular_step == 86_400 and values == [pd.Timestamp("2024-01-02")]


@given(step=st.sampled_from([2, 5, 25, 50]), anchor=st.integers(-100, 100), size=st.integers(21, 60),
       seed=st.integers(0, 1_000), cuts=st.sets(st.integers(1, 59), max_size=4))
@settings(max_examples=60, deadline=None)
def test_grids_of_parts_merge_to_the_grid_of_the_whole(step, anchor, size, seed, cuts):
    units = anchor + step * np.random.default_rng(seed).integers(0, 40, size)
    values = units / 10.0
    parts = [values[start:stop] for start, stop in zip([0, *sorted(c for c in cuts if c < size)],
                                                       [*sorted(c for c in cuts if c < size), size], strict=True)]
    merged = ValueGrid.of_decimals(1, parts[0])
    for part in parts[1:]:
        merged = merged.merged(ValueGrid.of_decimals(1, part))
    assert merged == ValueGrid.of_decimals(1, values)
    on_grid = merged.written(np.linspace(values.min(), values.max(), 101))
    assert np.allclose((on_grid * 10 - merged.anchor) % merged.regular_step, 0) or merged.targets is not None


def planted_coarse_table(seed):
    """Every number few-valued, as in a health survey (age in bands, income in steps, counts of days)."""
    rng = np.random.default_rng(seed)
    n = 1_200
    age = rng.choice([0.19, 0.22, 0.27, 0.32, 0.37, 0.42, 0.47, 0.52, 0.57, 0.62, 0.67, 0.72], n)
    age[:3] = 0.8  # a rare exact value: three people
    income = np.round(np.clip(rng.normal(0.3 + 0.5 * age, 0.2), 0, 1.5) * 20) / 20  # 0.05 steps
    return pd.DataFrame({
        "age": age, "income": income,
        "days": np.clip(np.round(rng.exponential(2 + 5 * age)), 0, 14).astype(int),
        "sex": rng.choice(["f", "m"], n), "insured": rng.choice(["yes", "no"], n, p=[0.3, 0.7]),
    })


def test_avatars_lie_on_the_grid_and_never_on_a_rare_value_or_a_rare_row_the_grid_made(monkeypatch):
    from core.engine.pipeline import Avatarizer
    from core.metrics.context import comparable

    for seed in (1, 2, 3):
        frame = planted_coarse_table(seed)
        gridded = Avatarizer(k=10, seed=seed).fit(frame)
        avatars = gridded.paired_avatars_
        with monkeypatch.context() as plain_only:  # the same run written with the decimals alone
            plain_only.setattr(ValueGrid, "departs", property(lambda self: False))
            plain_only.setattr(ValueGrid, "targets", property(lambda self: None))
            plain_only.setattr(ValueGrid, "regular_step", property(lambda self: 1))
            plain = Avatarizer(k=10, seed=seed).fit(frame).paired_avatars_
        kinds = gridded.kinds_
        categories = {name: "category" for name, kind in kinds.items() if kind is Kind.CATEGORICAL}
        avatars, plain = avatars.astype(categories), plain.astype(categories)
        originals = comparable(gridded.working_data_, kinds)
        hashes = pd.util.hash_pandas_object(originals, index=False)
        rare = set(hashes[hashes.map(hashes.value_counts()) < 5])
        found = pd.util.hash_pandas_object(comparable(avatars, kinds), index=False).isin(rare).to_numpy()
        found_plain = pd.util.hash_pandas_object(comparable(plain, kinds), index=False).isin(rare).to_numpy()
        assert not (found & ~found_plain).any()  # a rare row found only where the decimals alone find it too
        guarded = (avatars["age"] != plain["age"]).mean()
        on_grid = avatars["age"].isin(frame["age"][3:]) & np.isclose(np.round(avatars["income"] * 20), avatars["income"] * 20)
        assert (on_grid | (avatars[["age", "income"]] == plain[["age", "income"]]).all(axis=1)).all()
        assert 0.8 not in set(avatars["age"]) - set(plain["age"])  # three people's value: never a target
        assert guarded > 0.3 and on_grid.mean() > 0.6, (guarded, on_grid.mean())  # the grid moved many values
