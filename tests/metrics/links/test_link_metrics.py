"""The metrics of a link (core/metrics/links): referential integrity and children per parent, by hand."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp

from core.dataset import Dataset, Link
from core.metrics.context import NO_JOINED_CHILD, LinkContext
from core.metrics.links import (
    children_per_parent,
    join_correlation_difference_ratio,
    join_hellinger_mean,
    referential_integrity,
)

LINK = Link("patients", "id", "stays", "patient")
PATIENTS = pd.DataFrame({"id": ["a", "b", "c", "d"]})


def test_referential_integrity_by_hand():
    # 5 foreign keys named (one missing left out), 4 resolve: 80 %; whole numbers read as decimals still resolve
    stays = pd.DataFrame({"patient": ["a", "a", "c", "zz", None, "d"]})
    result = referential_integrity.referential_integrity(PATIENTS, stays, LINK)
    assert result.value == 80.0 and result.passed is False and result.breakdown == {"unresolved": 1, "named": 5}
    numbers = referential_integrity.referential_integrity(pd.DataFrame({"id": [1, 2]}), pd.DataFrame({"patient": [1.0, 2.0, None]}),
                                            LINK)
    assert numbers.value == 100.0 and numbers.passed is True
    assert referential_integrity.referential_integrity(PATIENTS, pd.DataFrame({"patient": [None]}), LINK).value is None


def test_children_per_parent_by_hand():
    # real: a 2, b 0, c 1, d 1 -> shares of 0, 1, 2 children: 1/4, 2/4, 1/4
    # avatars: a 1, b 1, c 1, d 1 -> 0, 1, 0
    # H = sqrt(((sqrt(.25) - 0)^2 + (sqrt(.5) - 1)^2 + (sqrt(.25) - 0)^2) / 2) = sqrt((0.25 + 0.0857864 + 0.25) / 2)
    real = pd.DataFrame({"patient": ["a", "a", "c", "d", None]})
    made = pd.DataFrame({"patient": ["a", "b", "c", "d"]})
    result = children_per_parent.children_per_parent(PATIENTS, real, PATIENTS, made, LINK)
    expected = 100 * (1 - np.sqrt((0.25 + (np.sqrt(0.5) - 1) ** 2 + 0.25) / 2))
    assert result.value == pytest.approx(expected) and round(result.value, 2) == 45.88
    # cumulative shares 0.25, 0.75, 1 against 0, 1, 1: the largest gap 0.25, as scipy's two-sample KS says
    assert result.breakdown["cardinality_shape_similarity"] == pytest.approx(0.75)
    assert 1 - ks_2samp([2, 0, 1, 1], [1, 1, 1, 1]).statistic == pytest.approx(0.75)
    assert children_per_parent.children_per_parent(PATIENTS, real, PATIENTS, real, LINK).value == 100.0


def test_the_joins_metrics_do_not_apply_when_a_real_half_has_no_child_beside_its_parent():
    """The working half's join without a row: its kinds read on no row made the holdout's 'M' "not a number"."""
    patients = pd.DataFrame({"id": ["a", "b", "c", "d"], "sex": ["M", "F", "M", "F"]})
    stays = pd.DataFrame({"patient": ["c", "c", "d"], "days": [1.0, 2.0, 3.0]})
    working, holdout = (patients.iloc[:2], stays.iloc[:0]), (patients.iloc[2:], stays)
    context = LinkContext(Dataset.from_dict({"tables": {"patients": {"primary_key": "id"}, "stays": {}}, "links": [
        {"parent": "patients", "key": "id", "child": "stays", "foreign_key": "patient"}]}), LINK, (patients, stays),
        (working, holdout), (patients, stays), ["id", "patient"], {})
    for module in (join_hellinger_mean, join_correlation_difference_ratio):
        result = module.compute(context)
        assert result.value is None and result.not_applicable == NO_JOINED_CHILD
