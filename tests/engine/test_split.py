"""The real holdout of SPEC section 5: the half, the draw, and the holdout case as a type."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.engine.split import Holdout, split_holdout, working_rows
from core.metrics.evaluation import Evaluation


def test_the_working_half_is_the_larger_from_the_minimum_rows():
    assert working_rows(1_001) == 501 and working_rows(1_000) == 500 and working_rows(500) == 250
    assert working_rows(499) == 499 and working_rows(1_000, holdout=False) == 1_000
    assert working_rows(9, min_rows=0) == 5


@given(st.integers(min_value=1, max_value=3_000), st.integers(min_value=0, max_value=2**32 - 1))
def test_the_halves_part_every_row_in_file_order(n_rows, seed):
    working, holdout = split_holdout(n_rows, np.random.default_rng(seed))
    assert len(working) == working_rows(n_rows, min_rows=0) and len(working) + len(holdout) == n_rows
    assert np.all(np.diff(working) > 0) and np.all(np.diff(holdout) > 0)
    np.testing.assert_array_equal(np.sort(np.concatenate([working, holdout])), np.arange(n_rows))


def test_the_holdout_case_is_a_type_that_reads_and_writes_its_word():
    assert Holdout("given") is Holdout.GIVEN
    assert json.dumps({"holdout": Holdout.APPROXIMATE}) == '{"holdout": "approximate"}'
    assert Evaluation(holdout="real", rows={}, signal={}, privacy={}).holdout is Holdout.REAL
    with pytest.raises(ValueError, match="'halves' is not a valid Holdout"):
        Evaluation(holdout="halves", rows={}, signal={}, privacy={})
