"""Who is most exposed (core/workflows/exposure.py): levels and the records listed, by hand."""

import numpy as np
import pandas as pd

from core.metrics.evaluation import Evaluation
from core.metrics.registry import DEFINITIONS
from core.workflows.exposure import exposure_levels, most_exposed
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
    # the 90.5-year-old: the oldest (a tail), then city a and sex M are common
    assert listed["stands out on"].iloc[1].split(", ")[0] == "age"
    assert listed["stands out on"].iloc[2].split(", ")[0] == "sex"  # the only F
