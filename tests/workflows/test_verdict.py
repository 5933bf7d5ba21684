"""The verdict of SPEC 6.3 (core/workflows/verdict.py, core/presentation/verdict_text.py)."""

import warnings

import pytest

from core.metrics.evaluation import Evaluation
from core.metrics.registry import DEFINITIONS, TARGETS
from core.presentation.verdict_text import verdict_json, verdict_line
from core.workflows.run import ColumnPlan, Settings, evaluation_with, generate
from core.workflows.verdict import candidate_fixes, checked_verdict, judged, verdict_of
from tests.support import mixed_table

PASSING = {"hidden_rate": 95.0, "local_cloaking": 10.0, "row_direct_match_protection": 100.0, "closest_rate": 96.0,
           "linkability_risk": 1.0, "correlation_protection_rate": 99.0, "distance_to_closest": 0.5,
           "closest_distances_ratio": 0.6, "inference_risk": 2.0, "column_direct_match_protection": 90.0}


def evaluation_with_values(**values):
    figures = {**PASSING, **values}
    privacy = {name: DEFINITIONS[name].result(figures[name], breakdown={"per_variable": [
        {"variable": "zip", "protection": 20.0}, {"variable": "age", "protection": 80.0}]} if name.startswith("column")
        else {}) for name in TARGETS}
    return Evaluation(holdout="real", rows={"avatars": 1000}, signal={}, privacy=privacy)


def test_ready_when_every_applicable_target_is_met():
    verdict = verdict_of(evaluation_with_values())
    assert verdict.ready and not verdict.failing and not verdict.not_assessed
    assert verdict_line(verdict) == "Verdict: Ready to share."


def test_not_ready_names_each_criterion_and_metric():
    verdict = verdict_of(evaluation_with_values(hidden_rate=84.25, linkability_risk=30.0))
    assert not verdict.ready and list(verdict.failing) == ["singling out", "linkability"]
    line = verdict_line(verdict)
    assert line.startswith("Verdict: NOT READY TO SHARE. Singling out: hidden rate 84.2 %, target > 90 %. "
                           "Linkability: linkability risk 30.0 %, target < 10 %.")
    assert "No fix was checked here" in line  # scored elsewhere: nothing re-run here
    assert verdict_json(verdict)["failing"] == {"singling out": ["hidden_rate"], "linkability": ["linkability_risk"]}


def test_attacks_not_run_are_said():
    verdict = verdict_of(evaluation_with_values(linkability_risk=None, inference_risk=None))
    assert verdict.ready and [result.name for result in verdict.not_assessed] == ["linkability_risk", "inference_risk"]
    assert "Not assessed: linkability risk and inference risk. Choose the variables an attacker could know" in \
        verdict_line(verdict)


def test_candidates_set_the_copied_column_aside_first_then_spread_the_knob():
    failing = evaluation_with_values(column_direct_match_protection=40.0, hidden_rate=80.0)
    candidates = candidate_fixes(failing, Settings(k=10), ColumnPlan(), n_avatarized=1_000)
    assert [instruction for instruction, _, _ in candidates] == [
        "set 'zip' aside (re-attached from similar people)", "raise k from 10 to 15",
        "switch to AvatarFastDP (gaussian, epsilon 1)"]
    assert candidates[0][2].excluded == ("zip",)
    fast = candidate_fixes(evaluation_with_values(hidden_rate=None, closest_rate=50.0),
                           Settings(method="fast_dp", epsilon=1.0), ColumnPlan(), 1_000)
    assert [instruction for instruction, _, _ in fast] == [
        "lower epsilon from 1 to 0.3", "lower epsilon from 1 to 0.03", "lower epsilon from 1 to 0.01"]
    assert [instruction for instruction, _, _ in candidate_fixes(
        evaluation_with_values(hidden_rate=80.0), Settings(k=99), ColumnPlan(), 100)] == [
        "switch to AvatarFastDP (gaussian, epsilon 1)"]  # k already at its largest


def test_the_fix_kept_is_the_first_that_a_rerun_shows_ready():
    tried = []

    def rerun(settings, plan):
        tried.append(settings.k)
        return evaluation_with_values(hidden_rate=95.0 if settings.k >= 30 else 85.0)

    verdict = checked_verdict(evaluation_with_values(hidden_rate=80.0), Settings(k=10), ColumnPlan(), 1_000, rerun)
    assert tried == [15, 100] and verdict.fix.settings.k == 100 and verdict.fix.ready
    assert verdict_line(verdict).endswith("Fix: raise k from 10 to 100 (checked by a re-run: hidden rate 95.0 %; "
                                          "every target is then met).")
    never = checked_verdict(evaluation_with_values(hidden_rate=80.0), Settings(k=10), ColumnPlan(), 1_000,
                            lambda settings, plan: evaluation_with_values(hidden_rate=85.0))
    assert never.fix is None and [fix.instruction for fix in never.tried] == [
        "raise k from 10 to 15", "raise k from 10 to 100", "switch to AvatarFastDP (gaussian, epsilon 1)"]
    assert "No setting tried meets every target (raise k from 10 to 15: hidden rate 85.0 %; raise k from 10 to " \
        "100: hidden rate 85.0 %; switch to AvatarFastDP (gaussian, epsilon 1): hidden rate 85.0 %)" in \
        verdict_line(never)


def test_a_real_run_not_ready_gets_a_fix_that_a_fresh_run_confirms():
    frame = mixed_table(600, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = generate(frame, ColumnPlan(), Settings(k=2, seed=1), table_name="t", fingerprint="f")
    run = judged(run, lambda: frame)
    verdict = run.verdict
    assert not verdict.ready and verdict.tried
    fix = verdict.fix or verdict.tried[-1]
    again = evaluation_with(frame, fix.plan, fix.settings)
    for name, result in fix.evaluation.privacy.items():
        assert again.privacy[name].value == pytest.approx(result.value), name  # the same seed: the same figures
