"""The dashboard in French (SPEC section 11): every page driven in French shows no English message, and switching
the language keeps the table, the run and the widgets' values."""

import base64
import json
import re

import pyarrow as pa
import pytest
from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

from core.i18n import _, language
from tests.dashboard.test_app import APP, PAGES, visit
from tests.support import english_fragments, english_left, mixed_table, settled

NOT_SHOWN = {"id", "formId", "key", "icon", "type", "url", "pageScriptHash", "dataType", "width", "height"}


def strings_in(value, key: str = "") -> list[str]:
    """Every string a rendered element holds for a reader: labels, bodies, helps, options, a figure's titles and
    names, a table's headers and cells."""
    if key in NOT_SHOWN:
        return []
    if isinstance(value, dict):
        if key == "arrowData" and "data" in value:
            table = pa.ipc.open_stream(base64.b64decode(value["data"])).read_all()
            cells = [str(cell) for column in table.columns if pa.types.is_string(column.type)
                     for cell in column.to_pylist()]
            return [*table.column_names, *cells]
        return [text for name, item in value.items() for text in strings_in(item, name)]
    if isinstance(value, list):
        return [text for item in value for text in strings_in(item, key)]
    if isinstance(value, str):
        if key == "columns" and value.startswith("{"):  # a table's column configuration: its labels, not its values
            return [found for found in re.findall(r'"label": "((?:[^"\\]|\\.)*)"', value)]
        if key == "spec":  # a plotly figure
            figure = json.loads(value)
            return strings_in({"layout": figure.get("layout", {}),
                               "data": [{name: trace.get(name) for name in ("name", "hovertemplate", "text")
                                         if trace.get(name) is not None} for trace in figure.get("data", [])]})
        return [value]
    return []


def shown_texts(app: AppTest) -> list[str]:
    texts = []
    for node in app._tree:
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "DESCRIPTOR"):
            texts += strings_in(MessageToDict(proto))
    return texts


@pytest.fixture
def in_french():
    """The test's own thread in French too: AppTest formats a choice's shown options there (``format_func``)."""
    with language("fr"):
        yield


def french_app() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=180)
    app.session_state["language"] = "fr"
    app.run()
    assert not app.exception
    return app


def click(app: AppTest, label: str) -> AppTest:
    """The button whose label, in the current language, is ``label``'s translation."""
    [button] = [button for button in app.button if button.label == _(label)]
    settled(button.click().run())
    assert not app.exception, app.exception
    return app


def test_every_page_in_french_shows_no_english_message(in_french):
    """Every page before and after a run, a refused setting, the avatars of every row, the analyses run again, the
    attacks, a sweep: each text shown checked against the English messages of the catalogue."""
    fragments, left = english_fragments(), []

    def check(where: str) -> None:
        assert not app.exception, (where, app.exception)
        left.extend(english_left(shown_texts(app), fragments, where))

    app = french_app()
    check("data")
    for page in PAGES[1:]:
        visit(app, page)
        check(f"{page}, no avatars yet")
    visit(app, "pages/generate.py")
    app.number_input[0].set_value(40)  # ncp larger than the scaled columns: refused in one line
    click(app, "Generate avatars")
    assert app.error, "the refused setting is said"
    check("generate, a refused setting")
    app.number_input[0].set_value(5)
    click(app, "Generate avatars")
    check("generate")
    settled(app.button(key="release").click().run())
    check("generate, the avatars of every row")
    visit(app, "pages/privacy.py")
    app.multiselect[0].set_value(["age", "sex", "bmi"])
    app.multiselect[1].set_value(["diabetes"])
    click(app, "Run the attacks")
    check("privacy, after the attacks")
    visit(app, "pages/analysis.py")
    app.selectbox(key="survival_time").set_value("length_of_stay_days")
    app.selectbox(key="survival_event").set_value("readmitted_30d")
    app.selectbox(key="survival_group").set_value("sex")
    click(app, "Run the survival analysis")
    check("analysis, with the survival")
    for page in ("pages/utility.py", "pages/report.py", "pages/data.py"):
        visit(app, page)
        check(page)
    metrics = app.session_state["run_files"][0][-1]["metrics"]  # the JSON stays English, the contract of SPEC 7
    assert "ready to share" in json.loads(metrics)["verdict"]["headline"].lower()
    assert not re.search("[éèàçù«]", metrics), "French in the metrics JSON"
    visit(app, "pages/tradeoff.py")
    app.multiselect[0].set_value([2, 10])
    app.multiselect[1].set_value([])
    app.slider[0].set_value(1)
    click(app, "Run the sweep")
    check("trade-off, after a sweep")
    assert not left, "\n".join(sorted(set(left)))


def test_an_uploaded_table_a_refused_file_and_avatarfastdp_in_french_show_no_english(in_french):
    """A first French user's other path: a file refused, a table uploaded (its warnings), AvatarFastDP's pages."""
    fragments, left = english_fragments(), []

    def check(where: str) -> None:
        assert not app.exception, (where, app.exception)
        left.extend(english_left(shown_texts(app), fragments, where))

    app = french_app()
    app.radio(key="source").set_value("Upload files").run()
    app.file_uploader(key="upload").set_value(("dup.csv", b"a,a\n1,2\n", "text/csv")).run()
    assert "dup.csv" in app.error[0].value and "deux colonnes nommées" in app.error[0].value
    check("data, a refused file")
    data = mixed_table(1_200, missing=0.05).assign(code=lambda frame: frame.index % 7).to_csv(index=False)
    app.file_uploader(key="upload").set_value(("patients.csv", data.encode(), "text/csv")).run()
    check("data, an uploaded table")
    visit(app, "pages/generate.py")
    [method] = [radio for radio in app.radio if radio.key.startswith("method_")]
    method.set_value("AvatarFastDP: sample from a noisy model").run()
    check("generate, AvatarFastDP chosen")
    click(app, "Generate avatars")
    assert app.session_state["run"].parameters.fast_dp_epsilon is not None
    check("generate, AvatarFastDP")
    for page in PAGES[2:]:
        visit(app, page)
        check(page)
    assert not left, "\n".join(sorted(set(left)))


def switch_to(app: AppTest, code: str) -> AppTest:
    """What the sidebar's switch does (AppTest runs the page alone after the first run, without the router)."""
    app.session_state["language"] = code
    app.run()
    assert not app.exception
    return app


def test_switching_the_language_keeps_the_table_the_run_and_the_widgets():
    app = AppTest.from_file(APP, default_timeout=180).run()
    table = app.session_state["plan_table"].copy()
    table.loc[table["column"] == "department", "role"] = "set_apart"  # the column plan, edited
    app.session_state["plan_table"] = table
    app.run()
    visit(app, "pages/generate.py")
    [k] = [slider for slider in app.slider if slider.key.startswith("k_")]
    k.set_value(7)
    settled(app.button(key="FormSubmitter:settings-Generate avatars").click().run())
    table, run = app.session_state["table"], app.session_state["run"]
    assert run.parameters.k == 7 and run.plan.excluded == ("department",)
    visit(app, "pages/utility.py")
    app.selectbox(key="distribution_variable").set_value("bmi").run()
    app.segmented_control(key="latent_view").set_value("3-D").run()
    switch_to(app, "fr")
    with language("fr"):
        assert app.title[0].value == "Utilité"
        assert app.session_state["table"] is table and app.session_state["run"] is run
        assert app.selectbox(key="distribution_variable").value == "bmi"
        assert app.segmented_control(key="latent_view").value == "3-D"
        visit(app, "pages/data.py")
        assert app.session_state["plan"].excluded == ("department",)
        visit(app, "pages/generate.py")
        assert [slider.value for slider in app.slider if slider.key.startswith("k_")] == [7]
        switch_to(app, "en")
    assert app.title[0].value == "Generate avatars" and app.session_state["run"] is run
    assert [slider.value for slider in app.slider if slider.key.startswith("k_")] == [7]
