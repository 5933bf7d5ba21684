import numpy as np
import pandas as pd
import pytest

from core.engine.encoding import TableCodec
from core.engine.imputation import add_missing_indicators, impute, most_frequent, restore_missing
from core.engine.schema import apply_kinds, resolve_kinds


def encode(frame):
    kinds = resolve_kinds(frame, {name: "numeric" for name in frame.columns if frame[name].dtype == float})
    typed = apply_kinds(frame, kinds)
    return TableCodec(kinds).fit(typed).encode(typed)


def test_indicators_are_added_and_removed():
    table = encode(pd.DataFrame({"x": [1.0, np.nan, 3.0], "y": [1.0, 2.0, 3.0], "c": ["a", "b", None]}))
    extended, n_categorical = add_missing_indicators(table)
    assert n_categorical == 1
    assert extended.categorical_names == ("c", "x (missing)", "c (missing)")
    assert extended.codes[:, 1].tolist() == [0, 1, 0] and extended.codes[:, 2].tolist() == [0, 0, 1]
    complete = impute(extended, "mean", np.random.default_rng(0))
    restored = restore_missing(complete, n_categorical)
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


def test_fast_knn_is_deterministic_for_a_seed():
    frame = pd.DataFrame({"x": np.r_[np.arange(5000.0), np.nan], "y": np.r_[np.nan, np.arange(5000.0)]})
    first = impute(encode(frame), "fast_knn", np.random.default_rng(5)).numeric
    second = impute(encode(frame), "fast_knn", np.random.default_rng(5)).numeric
    np.testing.assert_array_equal(first, second)


def test_most_frequent_breaks_ties_by_nearest():
    codes = np.array([[2, 1, 1, 2, 0], [3, 4, 5, 6, 7], [0, 1, 1, 1, 0]])
    assert most_frequent(codes).tolist() == [2, 3, 1]
