import pytest

from core.advice import privacy_advice
from core.metrics.evaluation import Evaluation
from core.metrics.privacy import TARGETS
from core.metrics.result import MetricResult


def evaluation_missing(*missed, per_variable=()):
    privacy = {
        name: MetricResult(name=name, label=name, value=0.0, goal="maximize", interpretation="", target=target,
                           passed=name not in missed,
                           breakdown={"per_variable": list(per_variable)} if name.startswith("column") else {})
        for name, target in TARGETS.items()
    }
    return Evaluation(holdout="real", rows={}, signal={}, privacy=privacy)


def test_nothing_to_do_when_every_target_is_met():
    assert privacy_advice(evaluation_missing(), "avatar") == []


@pytest.mark.parametrize("method, knob", [("avatar", "raise k"), ("fast_dp", "lower epsilon")])
def test_one_sentence_per_kind_of_failure_with_the_method_s_own_knob(method, knob):
    advice = privacy_advice(evaluation_missing("hidden_rate", "local_cloaking", "distance_to_closest"), method)
    assert len(advice) == 2  # the two linkage metrics share one sentence, the two distance metrics another
    assert advice[0].startswith("Too many people can be linked to their own avatar: " + knob)
    assert advice[1].startswith("Some avatars sit very close to one real person: " + knob)


def test_copied_rows_and_the_most_exposed_column_are_named():
    rows = [{"variable": "zip", "protection": 20.0}, {"variable": "age", "protection": 70.0}]
    advice = privacy_advice(
        evaluation_missing("row_direct_match_protection", "column_direct_match_protection", per_variable=rows), "avatar"
    )
    assert "identical, among the avatars" in advice[0] and "identifiers, exact dates" in advice[0]
    assert advice[1].startswith("Avatars copy 'zip' from their own original too often: exclude or drop it")
