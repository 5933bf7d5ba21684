"""The pipeline's steps composed by hand give the Avatarizer's avatars: the steps are the pipeline."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.engine.io import csv_bytes
from core.engine.methods import method_of
from core.engine.parameters import Parameters
from core.engine.pipeline import Avatarizer
from core.engine.stages import (
    as_text,
    decode,
    encode,
    fitted_reduction,
    project,
    resolve_ncp,
    seed_generator,
    split_table,
    type_table,
    with_ncp,
)
from core.errors import InputError
from tests.support import mixed_table


def by_hand(frame, parameters):
    """Every step of SPEC section 2, one function after the other, with one generator."""
    method, rng = method_of(parameters), seed_generator(parameters.seed)
    split = split_table(type_table(frame, parameters), parameters, rng)
    split.check_rows(method)
    encoded = encode(split, parameters, rng)
    encoded.reduced(fitted_reduction(parameters, encoded.complete))
    projected = project(encoded, parameters, split.relations)
    synthetic = method.synthesize(encoded.model_table, projected.coordinates, projected.projection, rng)
    return decode(synthetic, method, (split, encoded, projected), parameters, rng), split


@pytest.mark.parametrize("values", [
    {"k": 5, "holdout_min_rows": 100},
    {"k": 8, "holdout": False, "exclude_variable_names": ("score",), "use_categorical_reduction": True},
    {"fast_dp_epsilon": 1.0, "mechanism": "gmm", "holdout_min_rows": 100},
])
def test_the_steps_composed_by_hand_are_the_fit(values):
    frame = mixed_table(400, missing=0.1)
    parameters = Parameters(seed=3, **values)
    synthesized, split = by_hand(frame, parameters)
    fitted = Avatarizer(parameters).fit(frame)
    assert csv_bytes(synthesized.avatars) == csv_bytes(fitted.avatars_)
    assert (synthesized.paired_order is None) == (fitted.paired_avatars_ is None)
    assert split.n_working == len(fitted.working_data_) == (200 if parameters.holdout else 400)


def test_the_split_sets_half_aside_from_the_minimum_rows_and_keeps_the_row_order():
    frame = pd.DataFrame({"x": np.arange(10.0), "y": list("ababababab")})
    parameters = Parameters(k=2, holdout_min_rows=10)
    split = split_table(type_table(frame, parameters), parameters, seed_generator(0))
    assert (split.n_working, split.holdout_rows, split.holdout) == (5, 5, "real")
    assert split.working_data["x"].is_monotonic_increasing and split.holdout_data["x"].is_monotonic_increasing
    assert sorted([*split.working_data["x"], *split.holdout_data["x"]]) == list(np.arange(10.0))
    short = split_table(type_table(frame.head(9), parameters), parameters, seed_generator(0))
    assert (short.n_working, short.holdout_rows, short.holdout, short.holdout_data) == (9, 0, "none", None)


def test_ncp_is_the_default_or_the_one_asked_at_most_the_scaled_columns():
    assert resolve_ncp(Parameters(), 3) == 3 and resolve_ncp(Parameters(), 12) == 5
    assert resolve_ncp(Parameters(ncp=7), 12) == 7
    with pytest.raises(InputError, match=r"^ncp must be at most 4, the number of scaled columns of this table, got 6"):
        resolve_ncp(Parameters(ncp=6), 4)


def test_another_ncp_takes_the_first_axes_of_the_same_projection():
    frame = mixed_table(300)
    fitted = Avatarizer(k=5, seed=1, holdout=False).fit(frame)
    fewer = with_ncp(fitted.projected_, fitted.encoded_, Parameters(ncp=2))
    assert fewer.projection is fitted.projection_ and fewer.ncp == 2
    np.testing.assert_array_equal(fewer.coordinates, fitted.coordinates_[:, :2])
    assert with_ncp(fitted.projected_, fitted.encoded_, Parameters()) is fitted.projected_


def test_a_batch_stream_draws_apart_from_the_seed_and_stream_0_is_the_seed():
    assert seed_generator(4, 0).random() == seed_generator(4).random() == np.random.default_rng(4).random()
    assert seed_generator(4, 1).random() == np.random.default_rng([4, 1]).random() != seed_generator(4).random()


@given(st.lists(st.integers(-1, 3), min_size=1, max_size=40), st.sampled_from(["object", "str", "string"]))
def test_text_given_back_equals_pandas_own_conversion(codes, dtype):
    # the fast path (each category's text converted once, then taken) against astype on every row
    column = pd.Series(pd.Categorical.from_codes(codes, categories=["a", "b,c", "", "d"]), name="town")
    given = np.dtype(object) if dtype == "object" else pd.StringDtype(na_value=np.nan) if dtype == "str" else \
        pd.StringDtype()
    made = as_text(pd.DataFrame({"town": column, "n": range(len(codes))}), {"town": given})
    expected = column.astype(given)
    assert made["town"].dtype == expected.dtype and made["town"].equals(expected)
    assert made["n"].tolist() == list(range(len(codes)))  # other columns untouched
