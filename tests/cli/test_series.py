"""``avatarize --tables`` and ``evaluate --tables`` with a time series (SPEC 13): the series' metrics and trend
printed and in the JSON, the trend's options checked before any work, a measure without its person refused before
any warning."""

import json
import subprocess
import sys
from pathlib import Path

from tests.engine.test_series_tables import longitudinal, schema

ROOT = Path(__file__).resolve().parents[2]


def run(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", *arguments], cwd=ROOT, capture_output=True, text=True)


def written(folder: Path, frames: dict) -> Path:
    described = schema()
    for name, frame in frames.items():
        frame.to_csv(folder / f"{name}.csv", index=False)
        described["tables"][name]["path"] = f"{name}.csv"
    (folder / "schema.json").write_text(json.dumps(described))
    return folder / "schema.json"


def test_the_series_metrics_and_trend_are_printed_and_written(tmp_path):
    path = written(tmp_path, longitudinal(200, dates=True))
    result = run("avatarize", "--tables", str(path), "--seed", "1", "--out", str(tmp_path / "out"), "--json",
                 str(tmp_path / "m.json"), "--analysis", "value=lab", "group=patients.treatment")
    assert result.returncode == 0, result.stderr
    assert "Time series patients.patient_id -> labs.patient_id" in result.stdout
    assert "Trend of lab over time (per day;" in result.stdout and "patients.treatment = A: real" in result.stdout
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert set(metrics["series"]["patients.patient_id -> labs.patient_id"]) == {
        "pointwise_hellinger", "density_hellinger", "series_timing", "series_dynamics"}
    trend = metrics["trends"]["patients.patient_id -> labs.patient_id"]
    assert [slope["term"] for slope in trend["slopes"]] == ["A", "B"]
    assert trend["slopes"][0]["real"]["value"] < 0 < trend["slopes"][1]["real"]["value"]  # the planted trends
    evaluated = run("evaluate", "--tables", str(path), "--avatars", str(tmp_path / "out"), "--analysis", "value=lab")
    assert evaluated.returncode == 0, evaluated.stderr
    assert "Trend of lab over time" in evaluated.stdout


def test_a_trend_of_a_column_that_is_not_a_series_number_is_refused_before_any_work(tmp_path):
    path = written(tmp_path, longitudinal(60))
    for options, said in ((["value=age"], "takes a numeric column of the series 'labs' (lab), got 'age'"),
                          (["value=lab", "group=nope"], "group must be a column of 'labs' or of its person"),
                          (["table=labs", "outcome=lab"], "takes value=NAME [group=NAME] [table=NAME]; got outcome="),
                          (["outcome=lab"], "'lab' is not a column of the table")):  # patients' analyses (issue 48)
        result = run("avatarize", "--tables", str(path), "--out", str(tmp_path / "out"), "--analysis", *options)
        assert result.returncode == 2 and said in result.stderr and len(result.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "out").exists()


def test_a_measure_without_its_person_is_refused_with_no_warning_before(tmp_path):
    frames = longitudinal(60)
    frames["labs"].loc[0, "patient_id"] = "GHOST"
    result = run("avatarize", "--tables", str(written(tmp_path, frames)), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: Table 'labs', column 'patient_id': 1 measures name no 'patients' row (0 missing, 1 whose value no "
        "'patients' row has); a time series is each person's measures: give them their person or remove them."]
