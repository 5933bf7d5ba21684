"""The names of a person's aggregates (core/metrics/aggregates.py), and the rule they serve: the shares of one
child column add up together, so that a share as an outcome is never predicted from its siblings."""

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.metrics.aggregates import mean_name, number_name, share_name, share_siblings
from core.metrics.analysis.design import default_predictors


def test_the_names_of_a_person_s_aggregates():
    assert number_name("stays") == "stays: number"
    assert mean_name("stays", "days") == "stays: mean days"
    assert share_name("stays", "ward", "A") == "stays: share ward = A"


def test_a_share_s_siblings_are_the_other_shares_of_its_column_only():
    columns = ["age", "stays: number", "stays: share ward = A", "stays: share ward = B", "stays: share ward = C = D",
               "stays: share unit = A", "stays: mean days"]
    assert share_siblings("stays: share ward = A", columns) == ["stays: share ward = B", "stays: share ward = C = D"]
    assert share_siblings("stays: share ward = C = D", columns) == ["stays: share ward = A", "stays: share ward = B"]
    assert share_siblings("stays: mean days", columns) == [] and share_siblings("age", columns) == []


def test_a_share_outcome_is_not_predicted_from_the_shares_it_adds_up_with():
    """The hunt of issue 48: "stays: share ward = A" predicted from "= B" and "= C", which give it as 1 - B - C."""
    rng = np.random.default_rng(0)
    shares = rng.dirichlet([1, 1, 1], 200)
    frame = pd.DataFrame({"age": rng.integers(20, 90, 200), "stays: share ward = A": shares[:, 0],
                          "stays: share ward = B": shares[:, 1], "stays: share ward = C": shares[:, 2]})
    kinds = dict.fromkeys(frame, Kind.NUMERIC)
    predictors, left_out = default_predictors(kinds, frame, "stays: share ward = A")
    assert predictors == ("age",)
    assert left_out == {"stays: share ward = B": "stays: share ward = A", "stays: share ward = C": "stays: share ward = A"}
    np.testing.assert_allclose(1 - frame["stays: share ward = B"] - frame["stays: share ward = C"],
                               frame["stays: share ward = A"])  # what the siblings give
