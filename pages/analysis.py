"""Analysis: would my study give the same answer on the avatars? (SPEC section 9)"""

import streamlit as st

from core.i18n import N_, _
from core.metrics.analysis.request import TITLES
from dashboard import language, state
from dashboard.analysis import (
    GROUP_LEVELS,
    columns_of,
    pick,
    predictors_box,
    request,
    run_analyses,
    show_result,
    shown,
)
from dashboard.widgets import choose

MODELS = {"boosting": N_("boosting"), "linear": N_("linear")}  # option values: the names shown

language.use_session_language()  # first: this run's messages in the session's language
st.title(_("Does my analysis still hold?"))
run = state.require_run()
evaluation = run.evaluation
st.write(_("Each analysis runs on the real rows the avatars were made from and on the avatars, side by side. A third "
           "sample, the **holdout** (real rows kept apart), shows how much two real samples of the same population "
           "differ: the avatars do as well as real data when their gap is no larger than that."))
study = request(run)
if "missing_shares" not in evaluation.analyses:  # always (SPEC section 9): each variable's missing share
    run_analyses(run, {}, ["missing_shares"])
suggested = [name for name in study.names() if name not in evaluation.analyses]
if suggested:  # nothing runs, nor reaches the report, that the user did not ask for
    st.caption(_("The forms below start from what the columns' names suggest: {analyses}.").format(
        analyses=", ".join(_(TITLES[name]).lower() for name in suggested)))
    if st.button(_("Run the suggested analyses"), icon=":material/play_arrow:", key="run_suggested"):
        run_analyses(run, {}, suggested)
        st.rerun()


@st.fragment
def prediction_section() -> None:
    st.header(_("Prediction"))
    st.caption(_("A model trained on the real rows and the same model trained on the avatars, both tested on real "
                 "people neither has seen: does a model learnt from the avatars predict as well?"))
    first, second = st.columns([2, 1])
    with first:  # outside the form: the predictors offered follow the outcome chosen
        outcome = pick(_("Outcome to predict"), list(evaluation.kinds),
                       shown(run, "prediction", "outcome", study.outcome), optional=True, key="prediction_outcome")
    with second:
        current = shown(run, "prediction", "model", study.model)
        model = st.radio(_("Model"), list(MODELS), index=list(MODELS).index(current), horizontal=True,
                         format_func=lambda name: _(MODELS[name]), key="prediction_model",
                         help=_("boosting: gradient-boosted trees; linear: logistic or linear regression."))
    with st.form("prediction_form"):
        predictors = predictors_box(run, "prediction", outcome)
        if st.form_submit_button(_("Run the prediction"), icon=":material/play_arrow:",
                                 key="FormSubmitter:prediction_form-Run the prediction"):
            run_analyses(run, {"outcome": outcome, "model": model, "predictors": predictors}, ["prediction"])
    show_result(run, "prediction")


@st.fragment
def regression_section() -> None:
    st.header(_("Regression coefficients"))
    st.caption(_("The same regression fitted on the real rows and on the avatars: does each variable's effect keep "
                 "its size, sign and significance? Bars that overlap mean the same conclusion."))
    options = columns_of(run, numeric=True) + columns_of(run, levels=(2, 2), numeric=False)
    outcome = pick(_("Outcome (a number or a yes/no column)"), options,  # outside the form: see the prediction's
                   shown(run, "regression", "outcome", study.outcome), optional=True, key="regression_outcome")
    with st.form("regression_form"):
        predictors = predictors_box(run, "regression", outcome)
        if st.form_submit_button(_("Fit the regressions"), icon=":material/play_arrow:",
                                 key="FormSubmitter:regression_form-Fit the regressions"):
            run_analyses(run, {"outcome": outcome, "predictors": predictors}, ["regression"])
    show_result(run, "regression")


@st.fragment
def survival_section() -> None:
    st.header(_("Survival"))
    st.caption(_("Kaplan-Meier curves and the Cox hazard ratio, from a time and an event column: would a survival "
                 "study conclude the same on the avatars?"))
    times, events = columns_of(run, numeric=True), columns_of(run, levels=(2, 2))
    with st.form("survival_form"):
        first, second, third = st.columns(3)
        with first:
            time = pick(_("Time (until the event or the end of follow-up)"), times,
                        shown(run, "survival", "time", study.time), optional=True, key="survival_time")
        with second:
            event = pick(_("Event (two values: it happened or not)"), events,
                         shown(run, "survival", "event", study.event), optional=True, key="survival_event")
        with third:
            group = pick(_("Curves by"), columns_of(run, levels=(2, 10)),
                         shown(run, "survival", "group", study.group), optional=True, key="survival_group")
        first, second, third = st.columns(3)
        with first:
            covariate = pick(_("Hazard ratio of (none: the groups')"), list(evaluation.kinds),
                             shown(run, "survival", "covariate", study.covariate), optional=True,
                             key="survival_covariate")
        with second:
            adjust = choose(_("Adjusted for"), list(evaluation.kinds), key="survival_adjust",
                            default=list(shown(run, "survival", "adjust", study.adjust)))
        with third:
            event_value = st.text_input(_("The value that means the event"), key="survival_event_value",
                                        value=study.event_value or "",
                                        help=_("Empty: read from the values (1 of 0/1, True, yes, death...)."))
        if st.form_submit_button(_("Run the survival analysis"), icon=":material/play_arrow:",
                                 key="FormSubmitter:survival_form-Run the survival analysis"):
            run_analyses(run, {"time": time, "event": event, "group": group, "covariate": covariate,
                               "adjust": tuple(adjust), "event_value": event_value.strip() or None}, ["survival"])
    show_result(run, "survival")


@st.fragment
def group_section() -> None:
    st.header(_("Group statistics"))
    st.caption(_("The mean and median of a number in each group, real against avatars."))
    groups, numbers = columns_of(run, numeric=False, levels=GROUP_LEVELS), columns_of(run, numeric=True, dates=False)
    with st.form("group_form"):
        first, second = st.columns(2)
        with first:
            group = pick(_("Groups"), groups, shown(run, "group_statistics", "group", study.group), optional=True,
                         key="group_group")
        with second:
            value = pick(_("Number (none: every number)"), numbers,
                         shown(run, "group_statistics", "value", study.value), optional=True, key="group_value")
        if st.form_submit_button(_("Compare the groups"), icon=":material/play_arrow:",
                                 key="FormSubmitter:group_form-Compare the groups"):
            run_analyses(run, {"group": group, "value": value}, ["group_statistics"])
    show_result(run, "group_statistics")


prediction_section()
regression_section()
survival_section()
group_section()
st.header(_("Missing values"))
show_result(run, "missing_shares")
