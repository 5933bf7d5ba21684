import pytest

from core.metrics.batch_summary import batch_summary


def batch(hellinger, hidden, distance, passed_distance, linkability=None):
    return {
        "holdout": "real",
        "signal": {"hellinger_mean": hellinger, "correlation_difference_ratio": None},
        "privacy": {"hidden_rate": hidden, "distance_to_closest": distance, "linkability_risk": linkability,
                    "replicated_uniques": None},
        "privacy_targets": {"hidden_rate": {"passed": hidden > 90, "target": 90.0},
                            "distance_to_closest": {"passed": passed_distance, "target": 0.2},
                            "linkability_risk": {"passed": None, "awaits_choice": linkability is None, "target": 10.0},
                            # synthpop's measure awaits the known variables too, with no target: never held back
                            "replicated_uniques": {"passed": None, "awaits_choice": True, "target": None}},
    }


def test_the_mean_and_the_worst_batch_follow_each_metrics_goal():
    summary = batch_summary([batch(88.0, 95.0, 0.30, True), batch(91.0, 92.0, 0.25, True),
                             batch(85.0, 97.0, 0.10, False)])
    assert summary["mean"]["signal"]["hellinger_mean"] == pytest.approx(88.0)  # (88 + 91 + 85) / 3
    assert summary["worst"]["signal"]["hellinger_mean"] == {"value": 85.0, "batch": 3}  # to maximise: the lowest
    assert summary["worst"]["privacy"]["hidden_rate"] == {"value": 92.0, "batch": 2}  # numbered from 1
    assert summary["mean"]["privacy"]["distance_to_closest"] == pytest.approx(0.65 / 3)
    assert summary["targets_met"]["distance_to_closest"] == {"batches": 2, "of": 3, "failing": [3]}
    assert summary["targets_met"]["hidden_rate"] == {"batches": 3, "of": 3, "failing": []}
    assert "correlation_difference_ratio" not in summary["mean"]["signal"]  # applies to no batch
    assert "linkability_risk" not in summary["mean"]["privacy"] and "linkability_risk" not in summary["targets_met"]
    assert summary["not_assessed"] == ["linkability_risk"] and summary["holdouts"] == ["real"]
    assert summary["ready"] is False and summary["status"] == "not ready"


def test_batches_that_meet_every_target_assessed_are_not_called_ready_when_an_attack_awaits_its_variables():
    summary = batch_summary([batch(88.0, 95.0, 0.30, True), batch(91.0, 92.0, 0.25, True)])
    assert summary["status"] == "partly assessed" and not summary["ready"]
    assessed = batch_summary([batch(88.0, 95.0, 0.30, True, linkability=1.0)])
    assert assessed["status"] == "ready" and assessed["ready"]

