"""Identifier protection (issue 28): no avatar may carry a real identifier, repeated identifiers included."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine.pipeline import Avatarizer
from core.metrics.evaluation import evaluate, evaluate_avatarization
from core.metrics.identifier_protection import copied_values
from core.workflows.verdict import verdict_of


def test_copied_values_by_hand():
    originals = pd.Series([1000, 1001, 1002])
    assert copied_values(originals, pd.Series([1000.0, 5.0, np.nan, 1002.0])).tolist() == [True, False, False, True]
    texts = pd.Series(["a@x.org", "b@x.org", None])
    assert copied_values(texts, pd.Series(["b@x.org", "None", None, "c@x.org"])).tolist() == [
        True, False, False, False]  # a missing value is never a real identifier, nor the text "None"


def visits(ids: list[int], text: bool, seed: int = 0) -> pd.DataFrame:
    """One row per visit of each person id in ``ids`` (a person's id on each of their rows)."""
    rng = np.random.default_rng(seed)
    n = len(ids)
    return pd.DataFrame({
        "patient_id": [f"P{i:05d}" for i in ids] if text else ids,
        "visit_value": rng.normal(50, 10, n).round(1), "arm": rng.choice(["A", "B"], n),
        "age": rng.integers(20, 80, n)})


@settings(max_examples=12, deadline=None)
@given(rows_per_id=st.lists(st.integers(1, 5), min_size=30, max_size=80), text=st.booleans(),
       seed=st.integers(0, 1_000))
def test_identifiers_that_repeat_never_reach_the_avatars(rows_per_id, text, seed):
    """300 patients x 2 visits: every avatar carried a real patient_id, "Ready to share" (beeaff8)."""
    ids = [1000 + person for person, count in enumerate(rows_per_id) for _ in range(count)]
    frame = visits(ids, text, seed).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    avatarizer = Avatarizer(k=3, seed=seed).fit(frame)
    assert "patient_id" in avatarizer.identifier_columns_
    assert not copied_values(frame["patient_id"], avatarizer.avatars_["patient_id"]).any()
    assert evaluate_avatarization(avatarizer).privacy["identifier_protection"].value == 100.0


def test_real_identifiers_in_avatars_fail_the_verdict_however_they_were_made():
    """`evaluate` of avatars whose pid holds real ids: no warning, `verdict.ready` true (beeaff8)."""
    ids = [1000 + person for person in range(300) for _ in range(2)]
    frame = visits(ids, text=False)
    avatars = Avatarizer(k=5, seed=0).fit(frame).avatars_.copy()
    avatars.loc[:9, "patient_id"] = frame["patient_id"].iloc[:10].to_numpy()  # ten real ids among 300 avatars
    evaluation = evaluate(frame, avatars, seed=0)
    protection = evaluation.privacy["identifier_protection"]
    assert protection.value == 100 * (1 - 10 / 300) and protection.passed is False
    assert protection.breakdown["avatars_with_a_real_identifier"] == 10
    verdict = verdict_of(evaluation)
    assert verdict.status == "not ready" and "identifier_protection" in str(verdict.failing)
    # synthesised on purpose, a repeated id is averaged from real ones: the verdict says so
    on_purpose = Avatarizer(k=5, seed=0, column_kinds={"patient_id": "categorical"}).fit(frame)
    assert evaluate_avatarization(on_purpose).privacy["identifier_protection"].passed is False
