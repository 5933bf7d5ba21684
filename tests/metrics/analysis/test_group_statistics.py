"""Group statistics and missing shares, real against avatars (SPEC section 9), by hand."""

import numpy as np
import pandas as pd
import pytest

from core.dataset import Kind
from core.errors import InputError
from core.metrics.analysis.group_statistics import group_statistics
from core.metrics.analysis.missing_shares import missing_shares

KINDS = {"ward": Kind.CATEGORICAL, "stay": Kind.NUMERIC, "cost": Kind.NUMERIC}


def test_count_mean_and_median_by_group_by_hand():
    real = pd.DataFrame({"ward": ["a", "a", "a", "b", "b", None], "stay": [1.0, 2.0, 6.0, 10.0, np.nan, 4.0],
                         "cost": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]})
    avatars = pd.DataFrame({"ward": ["a", "a", "b", "b"], "stay": [2.0, 4.0, 9.0, 13.0], "cost": [1.0] * 4})
    holdout = pd.DataFrame({"ward": ["a", "b"], "stay": [3.0, 10.0], "cost": [1.0, 1.0]})
    result = group_statistics(real, holdout, avatars, KINDS, "ward", ["stay"])
    (table,) = result.tables
    a, b, missing = table.groups
    assert (a.group, b.group, missing.group) == ("a", "b", "(missing)")
    assert a.counts == {"real": 3, "avatars": 2, "holdout": 1} and a.shares["real"] == pytest.approx(0.5)
    assert a.means == {"real": 3.0, "avatars": 3.0, "holdout": 3.0} and a.medians["real"] == 2.0
    assert b.means == {"real": 10.0, "avatars": 11.0, "holdout": 10.0}  # the missing stay left out
    assert missing.means == {"real": 4.0, "avatars": None, "holdout": None}
    assert table.largest_difference("avatars") == 1.0 and table.largest_difference("holdout") == 0.0
    assert table.largest_difference("avatars", "medians") == 1.0  # a: 2 against 3; b: 10 against 11


def test_every_number_by_default_identical_avatars_and_refusals():
    real = pd.DataFrame({"ward": ["a", "b"] * 5, "stay": np.arange(10.0), "cost": np.arange(10.0) * 2})
    result = group_statistics(real, real, real.copy(), KINDS, "ward")
    assert [table.value for table in result.tables] == ["stay", "cost"]
    assert all(table.largest_difference("avatars") == 0 for table in result.tables)
    with pytest.raises(InputError, match="Group statistics need numbers other than the group, got 'ward'"):
        group_statistics(real, real, real, KINDS, "ward", ["ward"])
    many = pd.DataFrame({"ward": [str(i) for i in range(30)], "stay": np.arange(30.0), "cost": 1.0})
    with pytest.raises(InputError, match="The group column 'ward' has 30 values; group statistics take at most 20"):
        group_statistics(many, many, many, KINDS, "ward")


def test_missing_shares_by_hand():
    real = pd.DataFrame({"x": [1.0, np.nan, 3.0, np.nan], "y": ["a", "b", None, "c"]})
    avatars = pd.DataFrame({"x": [1.0, 2.0, 3.0, np.nan], "y": ["a", "b", "c", "c"]})
    holdout = pd.DataFrame({"x": [np.nan, 1.0], "y": ["a", "b"]})
    result = missing_shares(real, holdout, avatars)
    x, y = result.variables
    assert x.shares == {"real": 0.5, "avatars": 0.25, "holdout": 0.5}
    assert (x.difference, x.reference_difference) == (-0.25, 0.0)
    assert y.shares == {"real": 0.25, "avatars": 0.0, "holdout": 0.0}
    assert result.largest_difference() is x
