"""Analysis: would my study give the same answer on the avatars? (SPEC section 9)"""

import streamlit as st

from dashboard import state
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

st.title("Does my analysis still hold?")
run = state.require_run()
evaluation = run.evaluation
st.write("Each analysis runs on the real rows the avatars were made from and on the avatars, side by side. A third "
         "sample, the **holdout** (real rows kept apart), shows how much two real samples of the same people differ: "
         "the avatars do as well as real data when their gap is no larger than that.")
study = request(run)
if "missing_shares" not in evaluation.analyses:  # first visit for these avatars: the analyses the columns suggest
    run_analyses(run, {}, study.names())
    st.rerun()


@st.fragment
def prediction_section() -> None:
    st.header("Prediction")
    st.caption("A model trained on the real rows and the same model trained on the avatars, both tested on real "
               "people neither has seen: does a model learnt from the avatars predict as well?")
    with st.form("prediction_form"):
        first, second = st.columns([2, 1])
        with first:
            outcome = pick("Outcome to predict", list(evaluation.kinds),
                           shown(run, "prediction", "outcome", study.outcome), key="prediction_outcome")
        with second:
            current = shown(run, "prediction", "model", study.model)
            model = st.radio("Model", ["boosting", "linear"], index=["boosting", "linear"].index(current),
                             horizontal=True, key="prediction_model",
                             help="boosting: gradient-boosted trees; linear: logistic or linear regression.")
        predictors = predictors_box(run, "prediction", outcome)
        if st.form_submit_button("Run the prediction", icon=":material/play_arrow:"):
            run_analyses(run, {"outcome": outcome, "model": model, "predictors": predictors}, ["prediction"])
    show_result(run, "prediction")


@st.fragment
def regression_section() -> None:
    st.header("Regression coefficients")
    st.caption("The same regression fitted on the real rows and on the avatars: does each variable's effect keep "
               "its size, sign and significance? Bars that overlap mean the same conclusion.")
    options = columns_of(run, numeric=True) + columns_of(run, levels=(2, 2), numeric=False)
    with st.form("regression_form"):
        outcome = pick("Outcome (a number or a yes/no column)", options,
                       shown(run, "regression", "outcome", study.outcome), key="regression_outcome")
        predictors = predictors_box(run, "regression", outcome)
        if st.form_submit_button("Fit the regressions", icon=":material/play_arrow:"):
            run_analyses(run, {"outcome": outcome, "predictors": predictors}, ["regression"])
    show_result(run, "regression")


@st.fragment
def survival_section() -> None:
    st.header("Survival")
    st.caption("Kaplan-Meier curves and the Cox hazard ratio, from a time and an event column: would a survival "
               "study conclude the same on the avatars?")
    times, events = columns_of(run, numeric=True), columns_of(run, levels=(2, 2))
    with st.form("survival_form"):
        first, second, third = st.columns(3)
        with first:
            time = pick("Time (until the event or the end of follow-up)", times,
                        shown(run, "survival", "time", study.time), key="survival_time")
        with second:
            event = pick("Event (two values: it happened or not)", events, shown(run, "survival", "event", study.event),
                         key="survival_event")
        with third:
            group = pick("Curves by", columns_of(run, levels=(2, 10)), shown(run, "survival", "group", study.group),
                         optional=True, key="survival_group")
        first, second, third = st.columns(3)
        with first:
            covariate = pick("Hazard ratio of (none: the groups')", list(evaluation.kinds),
                             shown(run, "survival", "covariate", study.covariate), optional=True,
                             key="survival_covariate")
        with second:
            adjust = st.multiselect("Adjusted for", list(evaluation.kinds), key="survival_adjust",
                                    default=list(shown(run, "survival", "adjust", study.adjust)))
        with third:
            event_value = st.text_input("The value that means the event", key="survival_event_value",
                                        value=study.event_value or "",
                                        help="Empty: read from the values (1 of 0/1, True, yes, death...).")
        if st.form_submit_button("Run the survival analysis", icon=":material/play_arrow:"):
            run_analyses(run, {"time": time, "event": event, "group": group, "covariate": covariate,
                               "adjust": tuple(adjust), "event_value": event_value.strip() or None}, ["survival"])
    if "survival" not in evaluation.analyses:
        st.caption("No column is named like a time and an event, so nothing was run: choose them above.")
    show_result(run, "survival")


@st.fragment
def group_section() -> None:
    st.header("Group statistics")
    st.caption("The mean and median of a number in each group, real against avatars.")
    groups, numbers = columns_of(run, numeric=False, levels=GROUP_LEVELS), columns_of(run, numeric=True)
    with st.form("group_form"):
        first, second = st.columns(2)
        with first:
            group = pick("Groups", groups, shown(run, "group_statistics", "group", study.group), key="group_group")
        with second:
            value = pick("Number", numbers, shown(run, "group_statistics", "value", study.value), key="group_value")
        if st.form_submit_button("Compare the groups", icon=":material/play_arrow:"):
            run_analyses(run, {"group": group, "value": value}, ["group_statistics"])
    show_result(run, "group_statistics")


prediction_section()
regression_section()
survival_section()
group_section()
st.header("Missing values")
show_result(run, "missing_shares")
