"""What the user asks the analyses (--analysis KEY=VALUE) and running them."""

import json

import pandas as pd
import pytest

from core.engine.schema import Kind
from core.errors import InputError
from core.metrics.analysis.request import AnalysisNotRun, AnalysisRequest, run_analyses, suggested_request
from core.metrics.evaluation import evaluate
from tests.metrics.analysis.test_prediction import halves


def test_options_become_a_request_and_name_its_analyses():
    request = AnalysisRequest.from_options([("outcome", "group"), ("predictors", "age, weight,"), ("time", "age"),
                                            ("event", "group"), ("adjust", "score")])
    assert request.predictors == ("age", "weight") and request.adjust == ("score",)
    assert request.names() == ("prediction", "regression", "survival", "missing_shares")
    assert AnalysisRequest(group="colour").names() == ("group_statistics", "missing_shares")
    assert request.to_json() == {"outcome": "group", "predictors": ["age", "weight"], "model": "boosting",
                                 "time": "age", "event": "group", "adjust": ["score"]}


@pytest.mark.parametrize(("options", "message"), [
    ([("outcome", "group"), ("outcome", "age")], "--analysis outcome= is given twice: keep one"),
    ({"outcome": "group", "predictors": "age,age"}, "--analysis predictors: 'age' is named twice"),
    ({"outcome": " "}, "--analysis outcome= is empty"),
    ({"value": "age"}, "--analysis value= needs group=: it does nothing without it"),
    ({"time": "age", "event": "group", "adjust": "score"}, "--analysis adjust= needs covariate= \\(or group=\\)"),
    ({"covariate": "age"}, "--analysis covariate= needs time="),
    ({"outcome": "group", "predictors": "group,age"}, "--analysis predictors: 'group' is the outcome"),
    ({"outcom": "x"}, "--analysis takes outcome=NAME .*; got 'outcom='"),
    ({"time": "age"}, "--analysis time= and event= go together"),
    ({"outcome": "grup"}, "--analysis outcome: 'grup' is not a column of the table"),
    ({"group": "colour", "value": "wieght"}, "--analysis value: 'wieght' is not a column"),
    ({"outcome": "group", "model": "forest"}, "--analysis model must be one of boosting, linear, got 'forest'"),
    ({"predictors": "age"}, "--analysis predictors= needs outcome="),
])
def test_a_wrong_request_is_refused_before_any_work(options, message):
    working, _, kinds = halves(n=40)
    with pytest.raises(InputError, match=message):
        AnalysisRequest.from_options(options).checked(kinds)


def test_names_are_read_without_surrounding_spaces_and_a_left_out_column_says_why():
    assert AnalysisRequest.from_options({"outcome": " group "}).outcome == "group"
    with pytest.raises(InputError, match="--analysis outcome: 'pid' looks like an identifier"):
        AnalysisRequest(outcome="pid").checked(["age"], {"pid": "looks like an identifier"})


def test_values_no_original_has_are_missing_for_the_analyses_as_for_the_metrics():
    working, holdout, kinds = halves(n=600)
    stray = working.assign(group=working["group"].astype(object).where(working.index >= 5, "Z"))
    evaluation = evaluate(pd.concat([working, holdout], ignore_index=True), stray, seed=0, paired=False,
                          analysis=AnalysisRequest(outcome="group", predictors=("age",)))
    assert evaluation.analyses["prediction"].task == "binary"  # "Z" did not make it three classes
    assert any("count them as missing" in warning for warning in evaluation.warnings)


def test_each_analysis_runs_alone_and_says_when_it_starts():
    working, holdout, kinds = halves(n=400)
    request = AnalysisRequest(outcome="weight", group="colour", time="age", event="group", event_value="younger")
    heard = []
    results = run_analyses(working, holdout, working, kinds, request, seed=0, progress=heard.append)
    assert heard == list(results) == ["prediction", "regression", "survival", "group_statistics", "missing_shares"]
    (missing,) = run_analyses(working, holdout, working, kinds, AnalysisRequest(), seed=0, names=["survival"]).values()
    assert missing == AnalysisNotRun("Survival needs a time column and an event column: choose them.")
    again = run_analyses(working, holdout, working, kinds, request, seed=0, names=["survival"])
    assert list(again) == ["survival"] and again["survival"] == results["survival"]


def test_a_first_guess_at_the_study_from_the_columns():
    frame = pd.DataFrame({"arms": list("01230123"), "age": [30, 41, 52, 63, 34, 45, 56, 67],
                          "days": [10, 200, 31, 44, 500, 61, 70, 80], "cens": [0, 1, 0, 1, 1, 0, 0, 1],
                          "sex": list("FMFMFMFM")})
    kinds = {"arms": Kind.CATEGORICAL, "age": Kind.NUMERIC, "days": Kind.NUMERIC, "cens": Kind.CATEGORICAL,
             "sex": Kind.CATEGORICAL}
    assert suggested_request(frame, kinds) == AnalysisRequest(outcome="sex", time="days", event="cens", group="arms",
                                                              value="days")
    no_event = frame.drop(columns=["cens", "sex"])
    fewer = {name: kind for name, kind in kinds.items() if name in no_event}
    assert suggested_request(no_event, fewer) == AnalysisRequest(outcome="days", group="arms", value="days")


def test_an_analysis_the_data_do_not_allow_says_why_and_the_others_stand():
    working, holdout, kinds = halves(n=400)
    constant = working.assign(group=pd.Categorical(["older"] * len(working), categories=["older", "younger"]))
    request = AnalysisRequest(outcome="group", time="age", event="group", group="colour")
    results = run_analyses(constant, holdout, constant, kinds, request, seed=0)
    assert results["prediction"] == AnalysisNotRun(
        "The outcome 'group' takes a single value in the real rows: there is nothing to predict.")
    assert results["survival"].reason.startswith("The event column 'group' must have two values")
    assert results["group_statistics"].tables and results["missing_shares"].variables
    assert results["survival"].to_json() == {"not_run": results["survival"].reason}


def test_the_json_of_every_analysis_holds_only_numbers_json_can_hold():
    """A holdout with one class leaves the ROC AUC undefined (NaN): the JSON says null, as the Report page and
    write_json (allow_nan=False) need."""
    working, holdout, kinds = halves(n=600)
    one_class = holdout.assign(group=pd.Categorical(["older"] * len(holdout), categories=["older", "younger"]))
    evaluation = evaluate(pd.concat([working, one_class], ignore_index=True), working, seed=0,
                          holdout=one_class, analysis=AnalysisRequest(outcome="group", time="age", event="group",
                                                                      group="colour"))
    document = evaluation.to_json()["analyses"]
    assert document["prediction"]["real"]["value"] is None
    json.dumps(document, allow_nan=False)
