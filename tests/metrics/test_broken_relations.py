"""Broken relations: the share of avatars breaking each relation beside the originals' share, by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from core.dataset.relations import Intervals, Order
from core.metrics import broken_relations
from core.metrics.context import SignalContext
from core.metrics.metrics_json import relations_json


def context(relations) -> SignalContext:
    working = pd.DataFrame({"bwt": [2000, 2400, 2600, 3000], "low": [1, 1, 0, 1], "start": [1, 2, 3, 4],
                            "end": [1, 3, 5, 7]})
    avatars = pd.DataFrame({"bwt": [2100, 2450, 2700, 3100, 3500], "low": [1, 0, 0, 0, 1], "start": [1, 2, 3, 4, 5],
                            "end": [2, 1, 5, 3, 9]})
    return SignalContext(working, working, avatars, {}, space=None, relations=relations)


def test_the_largest_share_of_avatars_breaking_a_relation_beside_the_originals():
    threshold, order = Intervals("bwt", "low", (2500.0,), (1, 0)), Order("start", "end")
    result = broken_relations.compute(context([threshold, order]))
    # low: the originals break it once in 4 (3000 marked 1), the avatars twice in 5 (2450 marked 0, 3500 marked 1);
    # the order: no original, two avatars in 5 (2 > 1, 4 > 3)
    assert result.breakdown["per_relation"] == [(threshold, 25.0, 40.0), (order, 0.0, 40.0)]
    assert result.value == 40.0 and result.level == "poor"
    entries = relations_json(result)
    assert entries[1] == {"kind": "order", "low": "start", "high": "end", "sentence": "'start' <= 'end' on every row",
                          "originals_broken": 0.0, "avatars_broken": 40.0}


def test_no_relation_is_not_applicable_and_a_kept_one_reads_good():
    assert broken_relations.compute(context([])).not_applicable.startswith("Not applicable: no relation")
    kept = broken_relations.compute(context([Order("start", "start")]))
    assert kept.value == 0.0 and kept.level == "good"
    assert relations_json(None) == []


@pytest.mark.parametrize(("value", "level"), [(0.0, "good"), (0.5, "fair"), (1.0, "poor")])
def test_the_readings(value, level):
    assert broken_relations.DEFINITION.band(value)[0] == level
