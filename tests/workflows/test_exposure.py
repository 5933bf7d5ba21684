"""Who is most exposed (core/workflows/exposure.py): levels and the records listed, by hand."""

import numpy as np
import pandas as pd

from core.metrics.evaluation import Evaluation
from core.metrics.registry import DEFINITIONS
from core.workflows.exposure import exposure_levels, most_exposed, rare_values
from tests.support import typed


def evaluation_of(hidden, ranks):
    privacy = {
        "hidden_rate": DEFINITIONS["hidden_rate"].result(100 * float(np.mean(hidden)),
                                                         breakdown={"hidden": np.asarray(hidden, float)}),
        "local_cloaking": DEFINITIONS["local_cloaking"].result(float(np.median(ranks)),
                                                               breakdown={"counts": np.asarray(ranks, float)}),
    }
    return Evaluation(holdout="real", rows={}, signal={}, privacy=privacy)


def test_levels_by_hand():
    # hidden with probability 0 (own avatar nearest), 0.5 (tied with one other), 1 with 2 closer, 1 with 7 closer
    evaluation = evaluation_of([0.0, 0.5, 1.0, 1.0], [0.0, 0.5, 2.0, 7.0])
    assert exposure_levels(evaluation).tolist() == [0, 1, 1, 2]
    unpaired = Evaluation(holdout="real", rows={}, signal={}, privacy={
        name: DEFINITIONS[name].result(None, not_applicable="n/a") for name in ("hidden_rate", "local_cloaking")})
    assert exposure_levels(unpaired) is None and most_exposed(pd.DataFrame(), {}, unpaired) is None


def test_the_most_exposed_come_first_with_what_makes_them_stand_out():
    frame = pd.DataFrame({"sex": ["F", "M", "M", "M", "M"], "age": [30.5, 31.5, 32.5, 33.5, 90.5],
                          "city": ["a", "a", "b", "b", "a"]})
    (originals,), kinds = typed(frame)
    evaluation = evaluation_of([1.0, 1.0, 0.0, 1.0, 0.5], [3.0, 9.0, 0.0, 4.0, 0.5])
    listed = most_exposed(originals, kinds, evaluation, n_records=3)
    assert listed["age"].tolist() == [32.5, 90.5, 30.5]  # own avatar nearest, then tied, then fewest closer
    assert listed["avatars closer than its own"].tolist() == [0.0, 0.5, 3.0]
    assert listed["stands out on"].tolist() == ["", "", ""]  # of 5 people, no value is held by 10 % or fewer


def test_only_rare_values_stand_out_with_how_rare():
    # 20 people: one woman (5 %), ages 1 to 20, one missing income, city b held by 3 (15 %: not rare)
    frame = pd.DataFrame({"sex": ["F"] + ["M"] * 19, "age": np.arange(1.0, 21.0),
                          "city": ["b"] * 3 + ["a"] * 17, "income": [np.nan] + list(np.linspace(10, 100, 19))})
    (originals,), kinds = typed(frame)
    words = rare_values(originals, kinds, np.array([0, 19, 10, 1]))
    # row 0: the woman (5 %), missing income (5 %), the youngest (1 of 20 at or below: 5 %, rarity 10 %)
    assert words[0] == "income: missing for 5.0 % of the people, sex: 5.0 % of the people, age: the lowest 5.0 %"
    # row 19: the oldest (5 %) and the highest income (1 of 19: 5.3 %, rarity 10.5 %: not rare)
    assert words[1] == "age: the highest 5.0 %"
    assert words[2] == ""  # age 11, a man of city a: nothing rare
    # row 1: age 2 (2 of 20 at or below: 10 %, rarity 20 %), the lowest income (1 of 19: rarity 10.5 %): nothing
    assert words[3] == ""
