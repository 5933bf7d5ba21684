"""The dashboard under Streamlit's AppTest: every page renders without an exception."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_data_page_shows_the_demo_table_and_its_warnings():
    app = AppTest.from_file(APP, default_timeout=60).run()
    assert not app.exception
    assert app.session_state["table_name"] == "demo_clinical.csv"
    assert "2,000 rows" in app.subheader[0].value
    warnings = app.dataframe[1].value["warnings"].tolist()
    assert any("patient_id" in text and "identifier" in text for text in warnings)


def test_choosing_upload_asks_for_a_file():
    app = AppTest.from_file(APP, default_timeout=60).run()
    app.radio[0].set_value("Upload a file").run()
    assert not app.exception
    assert "Upload a table to begin" in app.info[0].value
