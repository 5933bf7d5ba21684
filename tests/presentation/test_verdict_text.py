"""The verdict in words (core/presentation/verdict_text.py): which avatars it is about, the relationships beside
it, a risk judged on its upper bound, the report's first screen."""

import warnings

from core.engine.parameters import Parameters
from core.metrics.registry import DEFINITIONS
from core.presentation.report import build_html_report
from core.presentation.verdict_text import bound_note, relationships, subject
from core.workflows.run import ColumnPlan
from core.workflows.verdict import generate_judged
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
    assert said == ("The relationships between variables are distorted: Correlation Difference Ratio 12.0 / 100 "
                    "(gaps over 2x the natural ones).")
    report = build_html_report(run)
    first_screen = report[:report.index("<h2>")]
    assert "The relationships between variables are distorted" in first_screen
    run.evaluation.signal["correlation_difference_ratio"] = correlation.result(91.0, breakdown=measured.breakdown)
    assert relationships(run.evaluation).startswith("Relationships between variables: Correlation Difference Ratio 91.0")


def test_a_risk_missed_on_its_upper_bound_says_so_and_what_would_settle_it():
    """birthwt, 189 rows: "Inference risk 0.0 %, missed" without a word on the upper end of its interval."""
    inference = DEFINITIONS["inference_risk"]
    missed = inference.result(0.0, judged=22.7, breakdown={"high": 22.7, "low": 0.0, "against": "control",
                                                          "members_attacked": 95})
    assert bound_note(missed) == ("Its value meets the target, but the target is read on the upper end of the 95 % "
                                  "interval, 22.7 %: with 95 people attacked, the interval is wide. More rows would "
                                  "settle it.")
    baseline = inference.result(3.0, judged=14.0, breakdown={"high": 14.0, "against": "baseline",
                                                            "members_attacked": 189})
    assert "no real holdout" in bound_note(baseline) and "a real holdout (the control)" in bound_note(baseline)
    assert bound_note(inference.result(25.0, judged=30.0, breakdown={"high": 30.0})) is None  # its value misses
    assert bound_note(inference.result(1.0, judged=4.0, breakdown={"high": 4.0})) is None  # met
