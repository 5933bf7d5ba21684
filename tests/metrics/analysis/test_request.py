"""What the user asks the analyses (--analysis KEY=VALUE) and running them."""

import json

import numpy as np
import pandas as pd
import pytest

from core.dataset import Kind
from core.engine.schema import apply_kinds
from core.errors import InputError
from core.metrics.analysis.design import MAX_LEVELS, default_predictors
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
    assert suggested_request(frame, kinds) == AnalysisRequest(outcome="cens", time="days", event="cens", group="arms",
                                                              value="days")
    no_event = frame.drop(columns=["cens", "sex"])
    fewer = {name: kind for name, kind in kinds.items() if name in no_event}
    assert suggested_request(no_event, fewer) == AnalysisRequest(group="arms")  # no outcome, no survival named


def test_no_guess_a_statistician_would_not_make():
    """Wage and birthwt: a yes/no column that happens to be last as the outcome, an age as the survival's time, the
    first categorical as groups, a date averaged by group: none of them is guessed."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"year": rng.integers(2003, 2010, 50), "age": rng.integers(18, 80, 50),
                          "jobclass": rng.choice(["industrial", "information"], 50),
                          "visit": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 300, 50), unit="D"),
                          "health_ins": rng.choice(["yes", "no"], 50)})
    kinds = {"year": Kind.CATEGORICAL, "age": Kind.NUMERIC, "jobclass": Kind.CATEGORICAL, "visit": Kind.DATETIME,
             "health_ins": Kind.CATEGORICAL}
    assert suggested_request(frame, kinds) == AnalysisRequest()


def test_predictors_that_give_the_outcome_exactly_are_left_out_of_the_default():
    """birthwt: ``low`` is ``bwt < 2500`` on every row; Wage: ``logwage`` is ``log(wage)``. Neither is a default
    predictor of the other, and the result says so."""
    rng = np.random.default_rng(1)
    weight = rng.normal(3000, 700, 400).round()
    wage = rng.gamma(5, 20, 400)
    frame = pd.DataFrame({"bwt": weight, "low": np.where(weight < 2500, "1", "0"), "age": rng.integers(15, 45, 400),
                          "wage": wage, "logwage": np.log(wage), "code": rng.choice(["a", "b"], 400)})
    frame["label"] = frame["code"].map({"a": "alpha", "b": "beta"})
    kinds = {"bwt": Kind.NUMERIC, "low": Kind.CATEGORICAL, "age": Kind.NUMERIC, "wage": Kind.NUMERIC,
             "logwage": Kind.NUMERIC, "code": Kind.CATEGORICAL, "label": Kind.CATEGORICAL}
    typed = apply_kinds(frame, kinds)
    predictors, left_out = default_predictors(kinds, typed, "low")
    assert left_out == {"bwt": "low", "logwage": "wage"} and predictors == ("age", "wage", "code", "label")
    assert default_predictors(kinds, typed, "label")[1] == {"code": "label", "logwage": "wage"}
    assert default_predictors(kinds, typed, "wage")[1] == {"logwage": "wage"}
    near = typed.assign(low=typed["low"].where(np.arange(400) != 7, "1" if typed["low"][7] == "0" else "0"))
    assert "bwt" not in default_predictors(kinds, near, "low")[1]  # one row off: not exact
    result = run_analyses(typed, typed, typed, kinds, AnalysisRequest(outcome="low"), seed=0, names=["prediction"])
    assert result["prediction"].predictors == predictors
    assert str(result["prediction"].notes[0]).startswith("Left out of the predictors: bwt (low), logwage (wage)")


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


def test_a_predictor_whose_squares_overflow_is_not_run_with_the_reason_not_a_traceback():
    """`outcome=y model=linear` with `x` near 1e200 ended in "ValueError: Input X contains NaN" (issue 28, item 6)."""
    working, holdout, kinds = halves()
    working, holdout = (frame.assign(score=frame["score"] * 1e200) for frame in (working, holdout))
    results = run_analyses(working, holdout, working, kinds, AnalysisRequest(outcome="age", model="linear"), seed=0)
    for name in ("prediction", "regression"):
        assert isinstance(results[name], AnalysisNotRun)
        assert results[name].reason.startswith("The predictor 'score' holds values as large as ")
        assert "Rescale it" in results[name].reason


def test_an_outcome_of_hundreds_of_classes_is_not_run_as_groups_are_not():
    """A 1 000-class outcome ran over 300 s on 1 200 rows (issue 28, item 6): capped at MAX_LEVELS classes."""
    working, holdout, kinds = halves()
    working, holdout = (frame.assign(colour=pd.Series([f"c{i}" for i in range(len(frame))], dtype="category"))
                        for frame in (working, holdout))
    result = run_analyses(working, holdout, working, kinds, AnalysisRequest(outcome="colour"), seed=0)["prediction"]
    assert isinstance(result, AnalysisNotRun)
    assert result.reason == (f"The outcome 'colour' has 800 values: a prediction is scored for at most {MAX_LEVELS}; "
                             "choose an outcome with fewer, or group its values.")
