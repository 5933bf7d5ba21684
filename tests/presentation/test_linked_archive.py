"""The zip of linked avatars (core/presentation/linked_archive.py): every table, the metrics and the report; the
keys joining as in the run; the same bytes for the same run."""

import io
import json
import zipfile

import pandas as pd

from core.dataset import Dataset
from core.engine.parameters import Parameters
from core.presentation.linked_archive import linked_archive
from core.workflows.linked_run import generate_linked
from tests.engine.test_linked_tables import clinical, schema


def test_the_zip_holds_every_table_the_metrics_and_the_report():
    run = generate_linked(Dataset.from_dict(schema()), clinical(200), Parameters(seed=2))
    data = linked_archive(run)
    assert data == linked_archive(run)  # fixed member dates: the same run, the same bytes
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == ["patients.csv", "stays.csv", "prescriptions.csv", "metrics.json", "report.html"]
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
