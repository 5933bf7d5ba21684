"""The dashboard on a time series under Streamlit's AppTest (SPEC 13): the follow-up demo's time column proposed,
a generation with the series' settings, its metrics and figures on Utility, the trend on Analysis, the report; an
upload of one table of persons and one of measures, its time proposed; FastDP refused before any work."""

import pytest
from streamlit.testing.v1 import AppTest

from core.dataset import LinkMethod
from tests.dashboard.test_app_linked import APP, csv, generated_demo, linked, ok, upload
from tests.engine.test_series_tables import longitudinal
from tests.support import as_read

DEMO = "Patients and their lab results over time (demo, time series)"


@pytest.fixture(scope="module")
def generated():
    return generated_demo(DEMO, lambda app: app.number_input(
        key=f"series_points_labs_{app.session_state['run_version']}").set_value(8))


def test_the_demo_s_time_is_proposed_and_its_link_is_a_time_series():
    app = ok(AppTest.from_file(APP, default_timeout=180).run())
    app.radio(key="source").set_value(DEMO).run()
    linked(app)
    schema = app.session_state["schema"]
    assert schema.times == {"labs": "visit_date"}
    said = [as_read(markdown.value) for markdown in app.markdown]
    assert any("Each row of **labs** is a measure of a row of **patients** (by **patient_id**) at the time "
               "**visit_date**" in line for line in said), said
    assert "Time: visit_date." in as_read(" ".join(caption.value for caption in app.caption))


def test_a_generation_with_the_series_settings_then_utility_analysis_and_report(generated):
    app = generated
    run = app.session_state["run"]
    assert run.dataset.tables["labs"].parameters["nb_points"] == 8
    assert [link.method for link in run.dataset.links] == [LinkMethod.TIME_SERIES]
    assert {"Pointwise Hellinger", "Density Hellinger", "Number and span of measures",
            "Levels, trends and changes"} <= {metric.label for metric in app.metric}
    ok(app.switch_page("pages/utility.py").run())
    assert "Measures over time: labs" in [header.value for header in app.header]
    ok(app.switch_page("pages/analysis.py").run())
    app.selectbox(key="trend_group_0").set_value("patients.treatment")
    ok(app.button(key="FormSubmitter:trend_form_0-Fit the trend").click().run())
    trend = run.evaluation.trends["patients.patient_id -> labs.patient_id"]
    assert [slope.term for slope in trend.slopes] == ["diet", "statin"]
    assert all(slope.real.value < 0 and slope.avatars.value < 0 for slope in trend.slopes)  # LDL falls in both arms
    assert "Trend of ldl_mmol_l over time" in as_read(app.info[0].value)
    ok(app.switch_page("pages/report.py").run())


def test_an_upload_of_persons_and_their_measures_gets_its_time_proposed_and_fast_dp_is_refused():
    frames = longitudinal(120, dates=True)
    app = upload([("patients.csv", csv(frames["patients"])), ("labs.csv", csv(frames["labs"].drop(columns="visit_id")))])
    assert app.session_state["schema"].times == {"labs": "day"}
    ok(app.switch_page("pages/generate.py").run())
    app.radio(key=f"method_{app.session_state['run_version']}").set_value(
        "AvatarFastDP: sample from a noisy model").run()
    assert "AvatarFastDP does not support time series (labs)" in as_read(app.error[0].value)
    assert app.button(key="FormSubmitter:settings-Generate avatars").disabled
