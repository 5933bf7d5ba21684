"""The verdict in words (core/presentation/verdict_text.py): which avatars it is about, the relationships beside
it, a risk met or missed on its estimate and uncertain on its interval, the report's first screen."""

import warnings

from core.engine.parameters import Parameters
from core.metrics.criteria import criteria_of
from core.metrics.registry import DEFINITIONS
from core.presentation.format import uncertainty_note
from tests.support import html_of as build_html_report
from core.presentation.verdict_text import relationships, subject
from core.workflows.plan import ColumnPlan
from core.workflows.run import generate_judged
from tests.support import mixed_table


def made(parameters: Parameters, rows: int = 600):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return generate_judged(mixed_table(rows, seed=2), ColumnPlan(), parameters, table_name="t.csv", fingerprint="f")


def test_a_verdict_says_which_avatars_it_is_about():
    assessed, every_row = made(Parameters(k=10, seed=1)), made(Parameters(k=10, seed=1, holdout=False))
    assert subject(assessed) == ("About the 300 avatars made from half of the rows, measured against the other half "
                                 "(the holdout).")
    assert subject(every_row) == "About the 600 avatars made from every row: the ones to share."


def test_distorted_relationships_are_said_next_to_the_verdict_in_the_reports_first_screen():
    """FastDP's Hellinger Mean alone read better than Avatar's while its correlations were lost: the relationships
    are said beside the verdict, plainly when in the distortion band."""
    run = made(Parameters(k=10, seed=1))
    correlation, measured = DEFINITIONS["correlation_difference_ratio"], run.evaluation.signal["correlation_difference_ratio"]
    run.evaluation.signal["correlation_difference_ratio"] = correlation.result(12.0, breakdown=measured.breakdown)
    said = relationships(run.evaluation)
    assert said.startswith("The relationships between variables are distorted: Correlation Difference Ratio 12.0 / "
                           "100 (far beyond natural variability). A correlation differs from the originals' by ")
    report = build_html_report(run)
    first_screen = report[:report.index("<h2>")]
    assert "The relationships between variables are distorted" in first_screen
    run.evaluation.signal["correlation_difference_ratio"] = correlation.result(91.0, breakdown=measured.breakdown)
    assert relationships(run.evaluation).startswith("Relationships between variables: Correlation Difference Ratio 91.0")


def attack(risk, high, members, controls, baseline, against="control", people=14_078):
    """An inference risk's result as inference_risk.compute builds it (one sensitive variable, parttime)."""
    entry = {"variable": "parttime", "members": members, "controls": controls, "baseline": baseline, "risk": risk,
             "low": 0.0, "high": high, "against": against, "members_attacked": people, "controls_attacked": people,
             "baseline_guess": "the most common value"}
    return DEFINITIONS["inference_risk"].result(risk, judged=high, breakdown={
        "per_variable": [entry], "worst": "parttime", "widest": "parttime", "low": 0.0, "high": high,
        "against": against, "members_attacked": people})


def test_a_risk_is_met_or_missed_on_its_estimate_and_uncertain_on_its_interval():
    """AER's CPS1988, k = 10, sensitive parttime: "Inference risk 8.2 %, 95 % interval 0.0 to 15.8 %, target < 10 %:
    missed" while the attack was right for 87.9 % of the people used, 86.9 % of people never used, and guessing "no"
    for everyone 91.0 %; "more rows would settle it" was untrue at 28 000 rows (SPEC 6.2, revised again)."""
    uncertain = attack(8.2, 15.8, 87.9, 86.9, 91.0)
    assert uncertain.passed is None and uncertain.uncertain
    assert uncertainty_note(uncertain) == (
        "Uncertain: its estimate, 8.2 %, meets the target, but its 95 % interval reaches 15.8 %. For parttime, the "
        "attack is right for 87.9 % of the people the avatars come from, 86.9 % of people never used; 91.0 % by the "
        "baseline (the most common value). The attack does no better than the baseline. The interval is wide because "
        "the risk is read on the 13.1 % of people never used whom the attack gets wrong.")  # nothing would narrow it
    # two sensitive variables: the figure is the worst's, the doubt the widest interval's, named (a helper's pass,
    # issue 48: birthwt's card said 2.5 %, for bwt, and "its estimate, 0.0 %", which was ht's)
    worst, widest = (dict(uncertain.breakdown["per_variable"][0], variable=name, risk=risk, high=high)
                     for name, risk, high in (("bwt", 2.5, 11.3), ("ht", 0.0, 16.9)))
    two = DEFINITIONS["inference_risk"].result(2.5, judged=16.9, breakdown={
        **uncertain.breakdown, "per_variable": [worst, widest], "worst": "bwt", "widest": "ht", "high": 11.3})
    assert uncertainty_note(two, with_rates=False).startswith(
        "Uncertain: for ht, the estimate, 0.0 %, meets the target, but its 95 % interval reaches 16.9 %.")
    missed, met = attack(12.0, 20.0, 30.0, 20.0, 10.0), attack(1.0, 4.0, 30.0, 29.0, 10.0)
    assert (missed.passed, missed.uncertain, met.passed, met.uncertain) == (False, False, True, False)
    assert uncertainty_note(missed) is None and uncertainty_note(met) is None
    # (12 - 2) / (10 - 2) = 1.25, squared 1.5625: 1.5625 x 250 people = 391, about 400 would narrow it
    narrow = attack(2.0, 12.0, 30.0, 28.6, 10.0, people=250)
    assert uncertainty_note(narrow).endswith("About 400 people attacked on each side (1.6 times as many) would narrow "
                                             "it below the target at these rates.")
    assert "does no better" not in uncertainty_note(narrow)
    baseline = attack(3.0, 14.0, 30.0, None, 28.0, against="baseline", people=189)
    assert uncertainty_note(baseline).endswith("Avatars made with a real holdout (real people never used, as the "
                                               "control) would narrow it.")
    criteria = criteria_of({"inference_risk": uncertain})
    assert criteria["inference"].state == "uncertain" and criteria["inference"].met is None
