"""The zip of linked avatars (core/presentation/run_files.py): every table, the metrics and the report; the
keys joining as in the run; the same bytes for the same run."""

import io
import json
import zipfile

import pandas as pd
from pypdf import PdfReader

from core.dataset import Dataset
from core.engine.parameters import Parameters
from core.presentation.run_files import linked_archive
from core.workflows.linked_run import generate_linked
from tests.engine.test_linked_tables import clinical, schema


def test_the_zip_holds_every_table_the_metrics_and_the_report():
    run = generate_linked(Dataset.from_dict(schema()), clinical(200), Parameters(seed=2))
    data = linked_archive(run)
    assert data == linked_archive(run)  # fixed member dates: the same run, the same bytes
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == ["patients.csv", "stays.csv", "prescriptions.csv", "metrics.json", "report.html",
                                      "report.pdf"]
        pdf = PdfReader(io.BytesIO(archive.read("report.pdf")))
        tables = {name: pd.read_csv(archive.open(f"{name}.csv"), dtype={"patient_id": str})
                  for name in ("patients", "stays", "prescriptions")}
        metrics = json.loads(archive.read("metrics.json"))
        report = archive.read("report.html").decode("utf-8")
    for name, frame in tables.items():
        assert len(frame) == len(run.fitted.avatars_[name])
    named = tables["stays"]["patient_id"].dropna()
    assert named.isin(tables["patients"]["patient_id"]).all()  # every foreign key names an avatar
    assert not set(tables["patients"]["patient_id"]) & set(clinical(200)["patients"]["patient_id"])  # no real key
    assert set(metrics) >= {"tables", "links", "persons", "parameters", "verdict"}
    assert metrics["parameters"]["seed"] == 2 and "<html" in report
    text = " ".join(" ".join(page.extract_text() for page in pdf.pages).split())
    at = [text.index(section) for section in ("1. Purpose", "2. The data", "3. The attacker", "4. Method",
                                              "5. Who stood out", "6. Privacy", "7. Verdict", "8. Limitations")]
    assert at == sorted(at) and "Relations between the tables" in text and "patients, with everything" in text


def test_one_table_s_files_are_its_csv_its_json_and_its_report():
    from core.engine.io import csv_bytes
    from core.presentation.metrics_json import run_json
    from core.presentation.run_files import metrics_text, report_bytes, shared_file
    from core.workflows.plan import ColumnPlan
    from core.workflows.run import generate_judged
    from tests.support import mixed_table

    run = generate_judged(mixed_table(300, seed=1), ColumnPlan(), Parameters(k=5, seed=1), table_name="t.csv",
                          fingerprint="f")
    shared = shared_file(run)
    assert (shared.data, shared.suffix, shared.mime) == (csv_bytes(run.avatars), ".csv", "text/csv")
    assert json.loads(metrics_text(run)) == json.loads(json.dumps(run_json(run)))
    html = report_bytes(run, ".html").decode("utf-8")
    assert html.startswith("<!DOCTYPE html>") and "t.csv" in html
    assert report_bytes(run, ".pdf").startswith(b"%PDF")
    linked = generate_linked(Dataset.from_dict(schema()), clinical(200), Parameters(seed=2), search=False)
    assert shared_file(linked).suffix == ".zip" and shared_file(linked).data == linked_archive(linked)
