import pytest

from core.metrics.evaluation import Evaluation
from core.metrics.registry import TARGETS
from core.metrics.result import MetricResult
from core.workflows.advice import privacy_advice


def evaluation_missing(*missed, per_variable=()):
    privacy = {
        name: MetricResult(name=name, label=name, value=0.0, goal="maximize", interpretation="", target=target,
                           passed=name not in missed,
                           breakdown={"per_variable": list(per_variable)} if name.startswith("column") else {})
        for name, target in TARGETS.items()
    }
    return Evaluation(holdout="real", rows={"avatars": 1000}, signal={}, privacy=privacy)


def test_nothing_to_do_when_every_target_is_met():
    assert privacy_advice(evaluation_missing(), "avatar") == []


@pytest.mark.parametrize("method, k, epsilon, knob", [
    ("avatar", 10, 1.0, "raise k from 10 to 15"), ("avatar", 5, 1.0, "raise k from 5 to 10"),
    ("avatar", 100, 1.0, "raise k from 100 to 200"), ("fast_dp", 10, 1.0, "lower epsilon from 1 to 0.3"),
    ("fast_dp", 10, 0.5, "lower epsilon from 0.5 to 0.3"),
])
def test_one_sentence_per_kind_of_failure_with_the_run_s_own_knob(method, k, epsilon, knob):
    advice = privacy_advice(evaluation_missing("hidden_rate", "local_cloaking", "distance_to_closest"), method, k,
                            epsilon)
    assert len(advice) == 2  # the two linkage metrics share one sentence, the two distance metrics another
    assert advice[0].startswith("Too many people can be linked to their own avatar: " + knob)
    assert advice[1].startswith("Some avatars sit very close to one real person: " + knob)


def test_copied_rows_and_the_most_exposed_column_are_named():
    rows = [{"variable": "zip", "protection": 20.0}, {"variable": "age", "protection": 70.0}]
    advice = privacy_advice(
        evaluation_missing("row_direct_match_protection", "column_direct_match_protection", per_variable=rows), "avatar"
    )
    assert "identical, among the avatars" in advice[0] and "identifiers, exact dates" in advice[0]
    assert advice[1].startswith("Avatars copy 'zip' from their own original too often: set it aside")


def test_the_knob_at_its_end_says_so():
    small = evaluation_missing("hidden_rate")
    small.rows["avatars"] = 16  # k can go up to 15 on 16 avatarized rows
    assert privacy_advice(small, "avatar", 10)[0].endswith("raise k from 10 to 15: each avatar then mixes more people.")
    assert privacy_advice(small, "avatar", 15)[0].endswith(
        "k is already at its largest for this table (15); set aside or drop the columns that make people unique.")
    assert "epsilon is already at the smallest value offered (0.01)" in privacy_advice(small, "fast_dp", 10, 0.01)[0]
