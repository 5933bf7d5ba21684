"""Relations declared in one line (``--relation``, a schema's ``relations``): each form read and learned on the
data, a line the workbench cannot read or a column the table lacks refused in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.dataset.relations import Determined, Intervals, Monotone, Order, Total, declared_relation
from core.errors import InputError


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame({
        "bwt": [1800, 2200, 2499, 2500, 3100, 3900], "low": [1, 1, 0, 0, 0, 0],  # one row off the threshold
        "wage": [10.0, 20.0, 40.0, 80.0, 160.0, 320.0], "logwage": np.log([10, 20, 40, 80, 160, 320]).round(3),
        "a": [1, 2, 3, 4, 5, 6], "b": [10, 20, 30, 40, 50, 60], "total": [11, 22, 33, 44, 55, 66],
        "town": ["Lyon", "Lyon", "Nice", "Nice", "Nice", "Lyon"], "region": ["AURA", "AURA", "PACA", "PACA", "PACA", "X"],
        "my weight": [1.0, 2, 3, 4, 5, 6],
    })


def test_a_threshold_takes_the_label_of_most_rows_on_each_side(frame):
    relation = declared_relation("low = bwt < 2500", frame)
    assert relation == Intervals("bwt", "low", (2500.0,), (1, 0))
    assert relation.breaking_share(frame) == pytest.approx(1 / 6)  # 2499 marked 0


def test_an_order_a_total_a_form_and_a_set_column(frame):
    assert declared_relation("a <= b", frame) == Order("a", "b")
    total = declared_relation("total = a + b", frame)
    assert total == Total("total", ("a", "b"), 0, True) and total.breaking_share(frame) == 0
    form = declared_relation("logwage = log(wage)", frame)
    assert isinstance(form, Monotone) and form.form == "log" and form.places == 3
    assert form.slope == pytest.approx(1, abs=1e-3) and form.intercept == pytest.approx(0, abs=1e-2)
    assert declared_relation("region = town", frame) == Determined("town", "region", (("Lyon", "AURA"),
                                                                                      ("Nice", "PACA")))


def test_a_name_with_a_space_in_quotes(frame):
    assert declared_relation("'my weight' <= b", frame) == Order("my weight", "b")


@pytest.mark.parametrize(("line", "message"), [
    ("low == bwt", "is not one the workbench reads: write it as one of low = bwt < 2500"),
    ("low = bwt < 25x", "is not one the workbench reads"),
    ("low = bmi < 25", "names the column 'bmi', which the table does not have"),
    ("my weight <= b", "is not one the workbench reads"),
    ("low = a < 0", "the rows on each side of 0 do not hold two different values of 'low'"),
    ("low = bwt", "'bwt' holds numbers, which the avatars average, so no value of the originals' would set 'low'"),
])
def test_a_line_that_cannot_be_read_is_refused(frame, line, message):
    with pytest.raises(InputError, match=message):
        declared_relation(line, frame)
