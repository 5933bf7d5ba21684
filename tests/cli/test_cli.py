"""The command line, run as a user runs it: a subprocess, its exit code, its stderr and its files."""

import hashlib
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.support import english_fragments, english_left, excel_zip_bomb, mixed_table, report_texts

ROOT = Path(__file__).resolve().parents[2]


def run(*arguments, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "core", *map(str, arguments)], capture_output=True, text=True, cwd=cwd or ROOT
    )


@pytest.fixture
def table_csv(tmp_path):
    path = tmp_path / "table.csv"
    mixed_table(600, missing=0.1).to_csv(path, index=False)
    return path


def test_avatarize_writes_the_shuffled_avatars(table_csv, tmp_path):
    out = tmp_path / "avatars.csv"
    result = run("avatarize", table_csv, "--k", 10, "--seed", 3, "--out", out)
    assert result.returncode == 0, result.stderr
    avatars = pd.read_csv(out)
    assert len(avatars) == 300 and list(avatars.columns) == list(pd.read_csv(table_csv).columns)
    assert "300 avatars of table.csv written" in result.stderr and "300 rows set aside as the holdout" in result.stderr
    again = tmp_path / "again.csv"
    run("avatarize", table_csv, "--k", 10, "--seed", 3, "--out", again)
    assert out.read_bytes() == again.read_bytes()


@pytest.mark.parametrize("mechanism", ["gaussian", "gmm", "histogram"])
def test_fast_dp(table_csv, tmp_path, mechanism):
    out = tmp_path / "avatars.csv"
    result = run("avatarize", table_csv, "--fast-dp-epsilon", 2, "--mechanism", mechanism, "--seed", 1, "--out", out)
    assert result.returncode == 0, result.stderr
    assert len(pd.read_csv(out)) == 300 and "not end-to-end DP" in result.stderr


def test_exclusion_and_reduction_options(table_csv, tmp_path):
    out = tmp_path / "avatars.csv"
    result = run(
        "avatarize", table_csv, "--k", 5, "--exclude", "colour", "--exclude-strategy", "row_order",
        "--categorical-reduction", "--out", out,
    )
    assert result.returncode == 0, result.stderr
    assert set(pd.read_csv(out)["colour"].dropna()) <= {"red", "green", "blue"}


def test_options_reach_the_engine(table_csv, tmp_path):
    out = tmp_path / "avatars.csv"
    result = run(
        "avatarize", table_csv, "--k", 5, "--no-holdout", "--ncp", 3, "--imputation", "median",
        "--column-kind", "age=categorical", "--column-weight", "score=2", "--out", out,
    )
    assert result.returncode == 0, result.stderr
    assert len(pd.read_csv(out)) == 600 and "ncp = 3" in result.stderr


def write(tmp_path, name, content: bytes):
    path = tmp_path / name
    path.write_bytes(content)
    return path


BAD_FILES = {
    "empty": (b"", "empty.csv is empty"),
    "header only": (b"a,b\n", "header only.csv has a header but no data rows"),
    "binary garbage": (bytes(range(256)) * 8, "binary garbage.csv is not a text table"),
    "one row": (b"a,b\n1,x\n", "k must be smaller than the number of rows, 1"),
    "duplicate columns": (b"a,b,a\n1,2,3\n4,5,6\n", "duplicate columns.csv has two columns named 'a'"),
    "every value missing": (b"a,b\n,\nNA,\n,NA\n", "Every value of the table is missing"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_bad_files(tmp_path, case):
    content, message = BAD_FILES[case]
    out = tmp_path / "out.csv"
    result = run("avatarize", write(tmp_path, f"{case}.csv", content), "--k", 2, "--out", out)
    assert_plain_error(result, message)
    assert not out.exists()


BAD_ARGUMENTS = {
    "k >= rows": (["--k", 300], "k must be smaller than the number of rows avatarized, 300"),
    "k < 2": (["--k", 1], "k must be at least 2, got 1"),
    "k not a number": (["--k", "ten"], "argument --k: expected a whole number, got 'ten'"),
    "ncp < 1": (["--k", 5, "--ncp", 0], "ncp must be at least 1, got 0"),
    "unknown option": (["--k", 5, "--colour", "red"], "unrecognized arguments: --colour red"),
    "no method": ([], "give --k K (Avatar, for example --k 10) or --fast-dp-epsilon EPS"),
    "both methods": (["--k", 5, "--fast-dp-epsilon", 1], "argument --fast-dp-epsilon: not allowed with argument --k"),
    "epsilon not a number": (["--fast-dp-epsilon", "lots"], "argument --fast-dp-epsilon: expected a number, got 'lots'"),
    "epsilon <= 0": (["--fast-dp-epsilon", 0], "fast_dp_epsilon must be greater than 0, got 0.0"),
    "unknown mechanism": (["--fast-dp-epsilon", 1, "--mechanism", "magic"], "argument --mechanism: invalid choice: 'magic'"),
    "bounds percentile": (["--fast-dp-epsilon", 1, "--bounds-percentile", 50], "bounds_percentile must be a number between 0 and 50"),
    "histogram bins": (["--fast-dp-epsilon", 1, "--histogram-n-bins", 1], "histogram_n_bins must be at least 2, got 1"),
    "gmm components": (["--fast-dp-epsilon", 1, "--gmm-n-components", 0], "gmm_n_components must be at least 1, got 0"),
    "row order with fast dp": (
        ["--fast-dp-epsilon", 1, "--exclude", "age", "--exclude-strategy", "row_order"], "'row_order' needs avatars paired"
    ),
    "unknown excluded column": (["--k", 5, "--exclude", "nope"], "exclude_variable_names names column 'nope'"),
    "report in missing folder": (["--k", 5, "--report", "no/r.html"], "--report no/r.html: the folder no does not exist"),
    "report language alone": (["--k", 5, "--report-language", "fr"],
                              "--report-language goes with --report REPORT.pdf"),
    "report as a word file": (["--k", 5, "--report", "r.docx"],
                              "--report r.docx: the report is written as PDF (.pdf) or HTML (.html)"),
    "release not found": (["--k", 5, "--json", "m.json", "--release", "nope.json"], "--release nope.json: no such file"),
    "unknown recipient": (["--k", 5, "--recipient", "everyone"], "argument --recipient: invalid choice: 'everyone'"),
    "recipient with nothing measured": (["--k", 5, "--recipient", "open_data"],
                                        "--recipient describes the release the metrics and the report are made for"),
    "unknown report language": (["--k", 5, "--report", "r.html", "--report-language", "de"],
                                "argument --report-language: invalid choice: 'de'"),
    "paired out with fast dp": (["--fast-dp-epsilon", 1, "--paired-out", "p.csv"], "--paired-out needs the Avatar method"),
    "drop unknown": (["--k", 5, "--drop", "nope"], "--drop names column 'nope'"),
    "unknown column kind": (["--k", 5, "--column-kind", "nope=numeric"], "column_kinds names column 'nope'"),
    "bad weight": (["--k", 5, "--column-weight", "age=heavy"], "--column-weight age: expected a number"),
    "kind that does not exist": (["--k", 5, "--column-kind", "age=text"],
                                 "--column-kind age=text: the kind must be one of numeric, categorical, datetime."),
    "dropped and excluded": (["--k", 5, "--drop", "age", "--exclude", "age"],
                             "--drop and --exclude both name 'age': drop it (left out of the avatars) or exclude it"),
}


@pytest.mark.parametrize("case", BAD_ARGUMENTS)
def test_bad_arguments(table_csv, tmp_path, case):
    arguments, message = BAD_ARGUMENTS[case]
    out = tmp_path / "out.csv"
    result = run("avatarize", table_csv, *arguments, "--out", out)
    assert_plain_error(result, message)
    assert not out.exists()


def test_the_pdf_report_documents_the_release_and_the_decision_round_trips_through_the_json(table_csv, tmp_path):
    release = {"purpose": "a course", "controller": "Office", "recipient": "contract", "data_subjects": "pupils",
               "data_kind": "marks", "sensitivity": "personal",
               "decision": {"residual_risk": "low", "accepted_by": "J. Doe", "date": "2026-12-06",
                            "review_date": "2027-12-06"}}
    (tmp_path / "release.json").write_text(json.dumps(release))
    options = ["--k", 10, "--seed", 1, "--known", "age", "--sensitive", "colour", "--release", tmp_path / "release.json"]
    result = run("avatarize", table_csv, *options, "--out", tmp_path / "a.csv", "--json", tmp_path / "m.json",
                 "--report", tmp_path / "r.pdf")
    assert result.returncode == 0, result.stderr
    first = json.loads((tmp_path / "m.json").read_text())
    assert first["release"] == release and first["parameters"]["attacker"]["known"] == ["age"]
    from pypdf import PdfReader

    text = " ".join(" ".join(page.extract_text() for page in PdfReader(tmp_path / "r.pdf").pages).split())
    assert hashlib.sha256(table_csv.read_bytes()).hexdigest() in text  # the input's SHA-256, as sha256sum gives it
    assert "a course" in text and "J. Doe" in text and "2027-12-06" in text and "personal data" in text
    # the metrics JSON read back as the release: the same release, with another recipient over it
    again = run("avatarize", table_csv, *options[:-2], "--release", tmp_path / "m.json", "--recipient", "open_data",
                "--out", tmp_path / "b.csv", "--json", tmp_path / "n.json")
    assert again.returncode == 0, again.stderr
    second = json.loads((tmp_path / "n.json").read_text())
    assert second["release"] == {**release, "recipient": "open_data"}
    assert len(second["parameters"]["attacker"]["known"]) > 1 and "colour" not in second["parameters"]["attacker"]["known"]
    (tmp_path / "bad.json").write_text('{"purpose": "x", }')
    bad = run("avatarize", table_csv, "--k", 5, "--release", tmp_path / "bad.json", "--out", tmp_path / "c.csv",
              "--json", tmp_path / "c.json")
    assert_plain_error(bad, "bad.json: not valid JSON (line 1, column 18")
    assert not (tmp_path / "c.csv").exists()


def test_evaluate_writes_the_report_of_another_tools_avatars(table_csv, tmp_path):
    from pypdf import PdfReader

    made = run("avatarize", table_csv, "--k", 10, "--seed", 1, "--out", tmp_path / "a.csv")
    assert made.returncode == 0, made.stderr
    result = run("evaluate", table_csv, tmp_path / "a.csv", "--not-paired", "--known", "age", "--sensitive", "colour",
                 "--report", tmp_path / "e.pdf", "--recipient", "open_data", "--json", tmp_path / "e.json")
    assert result.returncode == 0, result.stderr
    text = " ".join(" ".join(page.extract_text() for page in PdfReader(tmp_path / "e.pdf").pages).split())
    assert "made by another tool" in text and "8. Limitations and the controller's decision" in text
    assert "The avatars are open data" in text
    assert json.loads((tmp_path / "e.json").read_text())["release"]["recipient"] == "open_data"
    assert hashlib.sha256((tmp_path / "a.csv").read_bytes()).hexdigest() in text  # the avatars' file too
    misspelt = run("evaluate", table_csv, tmp_path / "a.csv", "--known", "agee", "--recipient", "open_data")
    assert_plain_error(misspelt, "The known variable 'agee' is not a column of the table scored")


def test_avatarize_json_and_paired_output(table_csv, tmp_path):
    out, metrics, paired = tmp_path / "avatars.csv", tmp_path / "metrics.json", tmp_path / "paired.csv"
    result = run("avatarize", table_csv, "--k", 10, "--seed", 3, "--out", out, "--json", metrics, "--paired-out", paired)
    assert result.returncode == 0, result.stderr
    data = json.loads(metrics.read_text())
    assert data["holdout"] == "real" and data["rows"] == {"working": 300, "holdout": 300, "avatars": 300}
    assert data["parameters"]["k"] == 10 and data["parameters"]["method"] == "avatar"
    assert "Hidden rate" in result.stdout and "keep it private" in result.stderr
    assert sorted(map(str, pd.read_csv(paired).values.tolist())) == sorted(map(str, pd.read_csv(out).values.tolist()))


def test_avatarize_report(table_csv, tmp_path):
    report = tmp_path / "report.html"
    result = run("avatarize", table_csv, "--fast-dp-epsilon", 1, "--seed", 3, "--out", tmp_path / "a.csv", "--report", report)
    assert result.returncode == 0, result.stderr
    text = report.read_text()
    assert text.startswith("<!DOCTYPE html>") and "table.csv" in text and "not end-to-end" in text
    assert "ratio of the two distances" in text and "closer to them than their own" not in text
    verdict_at = text.index("class='verdict")
    assert verdict_at < text.index("<h2>")  # the verdict first (SPEC 6.3)
    criteria = [text.index(f"<h3>{name}: ") for name in ("Singling out", "Linkability", "Inference")]
    assert criteria == sorted(criteria)
    assert "AvatarFastDP samples new points" in text  # the pairing metrics do not apply
    avatar_report = tmp_path / "avatar.html"
    run("avatarize", table_csv, "--k", 10, "--seed", 3, "--out", tmp_path / "b.csv", "--report", avatar_report)
    text = avatar_report.read_text()
    assert "closer to them than their own" in text
    assert "per-axis distances weighted by their shares of variance" in text
    assert "Largest change:" in text  # which way the avatars move the correlations


def test_the_report_in_french_and_the_command_line_in_english(table_csv, tmp_path):
    report = tmp_path / "rapport.html"
    result = run("avatarize", table_csv, "--k", 10, "--seed", 3, "--out", tmp_path / "a.csv", "--report", report,
                 "--report-language", "fr")
    assert result.returncode == 0, result.stderr
    assert "Hidden rate" in result.stdout and "avatars of table.csv written to" in result.stderr
    text = report.read_text()
    assert "lang='fr'" in text or 'lang="fr"' in text
    assert not english_left(report_texts(text), english_fragments(), "report")


def test_known_and_sensitive_variables_run_the_attacks_and_the_verdict_ends_the_summary(table_csv, tmp_path):
    metrics = tmp_path / "m.json"
    result = run("avatarize", table_csv, "--k", 10, "--seed", 1, "--out", tmp_path / "a.csv", "--json", metrics,
                 "--known", "age", "weight", "group", "--sensitive", "colour")
    assert result.returncode == 0, result.stderr
    data = json.loads(metrics.read_text())
    assert list(data["privacy"]["criteria"]) == ["singling out", "linkability", "inference"]
    assert data["privacy"]["linkability_risk"] is not None and data["privacy"]["inference_risk"] is not None
    assert data["privacy"]["attacks"]["inference_risk"]["per_variable"][0]["variable"] == "colour"
    assert data["parameters"]["attacker"]["known"] == ["age", "weight", "group"]
    assert isinstance(data["verdict"]["ready"], bool)
    assert result.stdout.strip().splitlines()[-1].startswith("Verdict: ")
    misspelt = run("avatarize", table_csv, "--k", 10, "--out", tmp_path / "b.csv", "--json", tmp_path / "b.json",
                   "--known", "agee")
    assert misspelt.returncode == 2 and "The known variable 'agee' is not a column" in misspelt.stderr
    assert "Traceback" not in misspelt.stderr and not (tmp_path / "b.csv").exists()
    scored = run("evaluate", table_csv, tmp_path / "a.csv", "--not-paired", "--known", "age", "group",
                 "--sensitive", "colour")
    assert scored.returncode == 0 and scored.stdout.strip().splitlines()[-1].startswith("Verdict: ")
    swept = run("sweep", table_csv, "--k", "5,10", "--seeds", 1, "--known", "age", "weight", "--json",
                tmp_path / "s.json")
    assert swept.returncode == 0, swept.stderr
    assert json.loads((tmp_path / "s.json").read_text())["parameters"]["attacker"]["known"] == ["age", "weight"]


def test_evaluate_says_whether_a_study_still_holds(table_csv, tmp_path):
    metrics = tmp_path / "m.json"
    result = run("evaluate", table_csv, table_csv, "--seed", 1, "--analysis", "outcome=group", "predictors=age,weight",
                 "time=score", "event=group", "event_value=younger", "group=colour", "value=weight", "--json", metrics)
    assert result.returncode == 0, result.stderr
    analyses = json.loads(metrics.read_text())["analyses"]  # the avatars are the originals: every answer the same
    assert list(analyses) == ["prediction", "regression", "survival", "group_statistics", "missing_shares"]
    assert analyses["prediction"]["task"] == "binary" and analyses["prediction"]["ratio"] == 1.0
    assert analyses["regression"]["mean_overlap"] == 1.0 and analyses["regression"]["model"] == "logistic"
    assert all(ratio["overlap"] == 1.0 for ratio in analyses["survival"]["hazard_ratios"])
    assert analyses["group_statistics"]["values"][0]["largest_mean_difference"] == 0
    assert "A model trained on the avatars" not in result.stdout and "scores exactly as the real one" in result.stdout
    assert "Hazard ratio of colour = green (vs blue): " in result.stdout and "on both: identical." in result.stdout
    not_allowed = run("evaluate", table_csv, table_csv, "--analysis", "time=score", "event=colour", "--json", metrics)
    assert not_allowed.returncode == 0 and "Survival: Not run: The event column 'colour' must have two values" in \
        not_allowed.stdout  # the metrics and the other analyses stand
    assert json.loads(metrics.read_text())["analyses"]["survival"]["not_run"].startswith("The event column")
    wrong = run("evaluate", table_csv, table_csv, "--analysis", "target=group", "--json", tmp_path / "w.json")
    assert wrong.returncode == 2 and "--analysis takes outcome=NAME" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1 and not (tmp_path / "w.json").exists()


def test_avatarize_runs_the_analyses_into_its_json_and_report(table_csv, tmp_path):
    metrics, report = tmp_path / "m.json", tmp_path / "r.html"
    result = run("avatarize", table_csv, "--k", 10, "--seed", 2, "--out", tmp_path / "a.csv", "--no-fix", "--json",
                 metrics, "--report", report, "--analysis", "outcome=weight", "time=score", "event=group", "event_value=younger",
                 "group=colour")
    assert result.returncode == 0, result.stderr
    document = json.loads(metrics.read_text())
    assert document["parameters"]["analysis"]["outcome"] == "weight"
    assert 0 < document["analyses"]["prediction"]["ratio"] < 1.2
    assert document["signal"]["hellinger_std"] > 0
    text = report.read_text()
    assert "Does the analysis still hold" in text and "Kaplan-Meier curves by colour" in text
    assert "Does the analysis still hold" in result.stdout and result.stdout.strip().splitlines()[-1].startswith("Verdict")
    misspelt = run("avatarize", table_csv, "--k", 10, "--out", tmp_path / "b.csv", "--analysis", "outcome=wieght")
    assert misspelt.returncode == 2 and "--analysis outcome: 'wieght' is not a column" in misspelt.stderr
    assert "Traceback" not in misspelt.stderr and not (tmp_path / "b.csv").exists()


def test_evaluate(table_csv, tmp_path):
    avatars, metrics = tmp_path / "avatars.csv", tmp_path / "metrics.json"
    run("avatarize", table_csv, "--k", 10, "--no-holdout", "--seed", 1, "--out", tmp_path / "shuffled.csv", "--paired-out", avatars)
    result = run("evaluate", table_csv, avatars, "--seed", 2, "--json", metrics)
    assert result.returncode == 0, result.stderr
    data = json.loads(metrics.read_text())
    assert data["holdout"] == "approximate" and data["privacy"]["hidden_rate"] is not None
    assert "Hellinger Mean" in result.stdout and "Hidden rate" in result.stdout
    unpaired = run("evaluate", table_csv, avatars, "--not-paired", "--holdout", table_csv)
    assert unpaired.returncode == 0 and "given" in unpaired.stdout and "n/a" in unpaired.stdout


def test_sweep(table_csv, tmp_path):
    out = tmp_path / "sweep.json"
    result = run("sweep", table_csv, "--k", "3,10", "--fast-dp-epsilon", "1", "--mechanism", "gaussian,gmm",
                 "--seeds", 2, "--json", out)
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    assert [(p["method"], p.get("k"), p.get("mechanism")) for p in data["points"]] == [
        ("avatar", 3, None), ("avatar", 10, None), ("fast_dp", None, "gaussian"), ("fast_dp", None, "gmm"),
    ]
    assert all(p["seeds"] == [0, 1] for p in data["points"])
    assert set(data["points"][0]["metrics"]["hellinger_mean"]) == {"mean", "std", "min", "max", "values"}
    ages = data["points"][0]["hellinger_per_variable"]["age"]
    assert len(ages["values"]) == 2 and ages["mean"] == pytest.approx(sum(ages["values"]) / 2)
    assert data["advice"] in result.stdout and "k = 10" in result.stdout
    assert_plain_error(run("sweep", table_csv), "at least one k value or one epsilon value")
    assert_plain_error(run("sweep", table_csv, "--k", "3,x"), "argument --k: expected a whole number, got 'x'")
    assert_plain_error(run("sweep", table_csv, "--fast-dp-epsilon", "1", "--mechanism", "laplace"), "--mechanism must list")


def test_sweep_prepares_the_table_as_avatarize_does(table_csv, tmp_path):
    """The same preparation options give a sweep's run the metrics of the same avatarize run."""
    options = ["--exclude", "colour", "--column-weight", "age=2", "--imputation", "median",
               "--categorical-reduction", "--column-kind", "visit=categorical", "--drop", "score"]
    sweep_json, single_json = tmp_path / "sweep.json", tmp_path / "single.json"
    sweep = run("sweep", table_csv, "--k", "4,8", "--seeds", 1, "--seed", 5, *options, "--json", sweep_json)
    assert sweep.returncode == 0, sweep.stderr
    assert "warning" not in sweep.stderr  # visit's many modalities: the categorical reduction takes care of them
    by_default = run("sweep", table_csv, "--k", 4, "--seeds", 1, "--column-kind", "visit=categorical")
    assert "'visit' has more than 100 different values: it is embedded" in by_default.stderr  # reduced by default
    unreduced = run("sweep", table_csv, "--k", 4, "--seeds", 1, "--column-kind", "visit=categorical",
                    "--no-categorical-reduction")
    assert "warning: 'visit' has " in unreduced.stderr and "turn on categorical reduction" in unreduced.stderr
    single = run("avatarize", table_csv, "--k", 4, "--seed", 5, *options, "--out", tmp_path / "a.csv",
                 "--json", single_json)
    assert single.returncode == 0, single.stderr
    point = json.loads(sweep_json.read_text())["points"][0]
    expected = json.loads(single_json.read_text())
    assert point["metrics"]["hellinger_mean"]["values"] == [expected["signal"]["hellinger_mean"]]
    assert point["metrics"]["hidden_rate"]["values"] == [expected["privacy"]["hidden_rate"]]
    parameters = json.loads(sweep_json.read_text())["parameters"]
    assert parameters["excluded"] == ["colour"] and parameters["column_weights"] == {"age": 2.0}
    assert parameters["imputation"] == "median" and parameters["categorical_reduction"] is True
    assert_plain_error(run("sweep", table_csv, "--k", 4, "--column-weight", "age=heavy"),
                       "--column-weight age: expected a number greater than 0, got 'heavy'")


def test_evaluate_errors(table_csv, tmp_path):
    empty = write(tmp_path, "empty.csv", b"")
    assert_plain_error(run("evaluate", table_csv, empty), "empty.csv is empty")
    other = write(tmp_path, "other.csv", b"u,v\n1,2\n")
    assert_plain_error(run("evaluate", table_csv, other), "no column in common")
    assert_plain_error(run("evaluate", table_csv), "give ORIGINAL and AVATARS, or --tables SCHEMA.json --avatars FOLDER")
    assert_plain_error(run("evaluate", table_csv, table_csv, "--ncp", 0), "ncp must be at least 1, got 0")
    assert_plain_error(run("evaluate", table_csv, table_csv, "--json", tmp_path / "no" / "m.json"), "does not exist")


def test_missing_input_and_output_folder(table_csv, tmp_path):
    assert_plain_error(run("avatarize", tmp_path / "nope.csv", "--k", 5, "--out", tmp_path / "o.csv"), "nope.csv: no such file")
    assert_plain_error(run("avatarize", table_csv, "--k", 5, "--out", tmp_path / "no" / "o.csv"), "does not exist")
    assert_plain_error(run("avatarize", table_csv, "--k", 5, "--out", table_csv), "is also an input")




def assert_plain_error(result, message):
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and message in lines[0], lines[0]
    assert "Traceback" not in result.stderr


def test_identifiers_are_said_before_any_work_and_never_copied(tmp_path):
    frame = mixed_table(600).assign(email=[f"person{i}@example.org" for i in range(600)])
    source, out = tmp_path / "people.csv", tmp_path / "avatars.csv"
    frame.to_csv(source, index=False)
    result = run("avatarize", source, "--k", 10, "--seed", 0, "--out", out)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    said = next(i for i, line in enumerate(lines) if "'email' looks like an identifier" in line)
    assert said < next(i for i, line in enumerate(lines) if "avatars of people.csv written" in line)
    written = out.read_text()
    assert "@example.org" not in written and pd.read_csv(out)["email"].str.startswith("avatar-").all()
    dropped = run("avatarize", source, "--k", 10, "--seed", 0, "--drop", "email", "--out", tmp_path / "d.csv")
    assert "email" not in pd.read_csv(tmp_path / "d.csv").columns and "looks like an identifier" not in dropped.stderr


def test_hostile_inputs_and_outputs_are_refused_in_one_line_before_any_work(tmp_path):
    infinite = tmp_path / "inf.csv"
    infinite.write_text("a,b\n1.5,inf\n2.5,3.1\n3.5,2.2\n4.5,1.1\n5.5,7.7\n")
    out = tmp_path / "out.csv"
    assert_plain_error(run("avatarize", infinite, "--k", 2, "--out", out), "Column 'b' holds an infinite value (inf)")
    assert not out.exists()
    source = tmp_path / "t.csv"
    mixed_table(60).to_csv(source, index=False)
    assert_plain_error(run("avatarize", source, "--k", 3, "--out", tmp_path), "is a folder: give a file name")
    blocked = tmp_path / "a_file"
    blocked.write_text("")
    result = run("avatarize", source, "--k", 3, "--out", out, "--json", blocked / "m.json")
    assert result.returncode == 2 and not out.exists()  # checked before the work: nothing written


def test_an_excel_zip_bomb_is_one_line_on_every_command(tmp_path):
    bomb, out = excel_zip_bomb(tmp_path / "bomb.xlsx"), tmp_path / "out.csv"
    for command in (["avatarize", bomb, "--k", "5", "--out", out], ["sweep", bomb, "--k", "5", "--json", out],
                    ["evaluate", bomb, bomb]):
        assert_plain_error(run(*command), "bomb.xlsx expands to")
    assert not out.exists()


def test_formula_like_cells_are_written_as_they_are_and_said(tmp_path):
    source, out = tmp_path / "formula.csv", tmp_path / "out.csv"
    frame = mixed_table(300)
    frame["note"] = np.where(np.arange(300) % 2, '=HYPERLINK("http://e.x","x")', "@SUM(1)")
    frame.to_csv(source, index=False)
    result = run("avatarize", source, "--k", 5, "--out", out)
    assert result.returncode == 0, result.stderr
    assert "warning: 'note': some values begin with =, +, - or @, which a spreadsheet may run as a formula" in \
        result.stderr
    assert set(pd.read_csv(out)["note"]) <= {'=HYPERLINK("http://e.x","x")', "@SUM(1)"}


def test_the_shared_file_follows_the_umask_and_the_paired_one_stays_private(tmp_path):
    source, out, paired = tmp_path / "t.csv", tmp_path / "a.csv", tmp_path / "p.csv"
    mixed_table(60).to_csv(source, index=False)
    command = [sys.executable, "-m", "core", "avatarize", str(source), "--k", "3", "--out", str(out),
               "--paired-out", str(paired)]
    result = subprocess.run(["sh", "-c", "umask 022 && exec \"$@\"", "sh", *command], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_mode & 0o777 == 0o644 and paired.stat().st_mode & 0o777 == 0o600


def test_when_one_output_fails_none_is_kept(tmp_path):
    from core.cli.avatarize import write_all
    from core.engine.io import write_text
    from core.errors import InputError

    first = tmp_path / "first.csv"

    def fail():
        raise OSError(28, "No space left on device")

    with pytest.raises(InputError, match="could not be written .No space left on device.; no output was kept"):
        write_all([(first, lambda: write_text("a\n", first)), (tmp_path / "second.json", fail)])
    assert list(tmp_path.iterdir()) == []  # neither the first nor its partial copy


def test_sentinel_dates_and_time_zones_go_through_every_command(tmp_path):
    source = tmp_path / "dates.csv"
    rows = [f"{1.5 + i},{'9999-12-31' if i % 5 == 0 else f'2020-{1 + i % 12:02d}-01'},2020-0{1 + i % 9}-01 10:00:00+02:00"
            for i in range(40)]
    source.write_text("a,until,seen\n" + "\n".join(rows) + "\n")
    out, metrics, report = tmp_path / "out.csv", tmp_path / "m.json", tmp_path / "r.html"
    result = run("avatarize", source, "--k", 3, "--seed", 0, "--out", out, "--json", metrics, "--report", report)
    assert result.returncode == 0, result.stderr
    assert "9999-12-31" in out.read_text() and metrics.exists() and report.exists()
    assert run("evaluate", source, out, "--not-paired", "--seed", 0).returncode == 0
    assert run("sweep", source, "--k", "2,3", "--seeds", 1).returncode == 0


def test_the_holdout_written_out_is_the_control_an_outside_audit_attacks_with(table_csv, tmp_path):
    """``--holdout-out``: the real rows set aside, private, so that ``evaluate --holdout`` reproduces the run's own
    attacks against the same control."""
    avatars, holdout, metrics = tmp_path / "a.csv", tmp_path / "holdout.csv", tmp_path / "m.json"
    paired = tmp_path / "paired.csv"
    attacker = ["--known", "age", "weight", "group", "--sensitive", "colour"]
    result = run("avatarize", table_csv, "--k", 10, "--seed", 3, "--out", avatars, "--paired-out", paired,
                 "--holdout-out", holdout, "--json", metrics, *attacker)
    assert result.returncode == 0, result.stderr
    assert "holds real rows (the holdout): keep it private" in result.stderr and holdout.stat().st_mode & 0o077 == 0
    original, set_aside = pd.read_csv(table_csv), pd.read_csv(holdout)
    assert len(set_aside) == 300 and list(set_aside.columns) == list(original.columns)
    working = original.merge(set_aside, how="left", indicator=True).query("_merge == 'left_only'").drop(
        columns="_merge")
    working_csv, audit = tmp_path / "working.csv", tmp_path / "audit.json"
    working.to_csv(working_csv, index=False)
    assert len(working) == 300
    result = run("evaluate", working_csv, avatars, "--holdout", holdout, "--not-paired", "--json", audit, *attacker)
    assert result.returncode == 0, result.stderr
    ours, theirs = (json.loads(path.read_text())["privacy"] for path in (metrics, audit))
    for name in ("linkability_risk", "inference_risk"):
        assert theirs["attacks"][name]["against"] == ours["attacks"][name]["against"] == "control"
        assert theirs[name] == pytest.approx(ours[name]), name
    assert run("avatarize", table_csv, "--k", 5, "--out", tmp_path / "b.csv", "--holdout-out", holdout,
               "--no-holdout").returncode == 2
    small = tmp_path / "small.csv"
    original.head(100).to_csv(small, index=False)
    refused = run("avatarize", small, "--k", 5, "--out", tmp_path / "c.csv", "--holdout-out", tmp_path / "h.csv")
    assert refused.returncode == 2 and "--holdout-out: 100 rows are too few" in refused.stderr
    assert not (tmp_path / "c.csv").exists()


def test_known_groups_split_the_linkability_attack(table_csv, tmp_path):
    metrics = tmp_path / "m.json"
    result = run("avatarize", table_csv, "--k", 10, "--seed", 3, "--out", tmp_path / "a.csv", "--json", metrics,
                 "--known-groups", "age,group", "weight,colour")
    assert result.returncode == 0, result.stderr
    attacker = json.loads(metrics.read_text())["parameters"]["attacker"]
    assert attacker["known"] == ["age", "group", "weight", "colour"]
    assert attacker["groups"] == [["age", "group"], ["weight", "colour"]]
    for groups, message in ((["age", "age,weight"], "'age' is in both known groups"),
                            (["age,visit", "weight"], "The known groups variable 'visit' is not among the known")):
        refused = run("avatarize", table_csv, "--k", 10, "--out", tmp_path / "b.csv", "--known", "age", "weight",
                      "--known-groups", *groups)
        assert refused.returncode == 2 and message in refused.stderr and not (tmp_path / "b.csv").exists()


def test_a_fast_dp_run_says_where_epsilon_goes_and_the_relationships_beside_the_verdict(table_csv, tmp_path):
    metrics = tmp_path / "m.json"
    result = run("avatarize", table_csv, "--fast-dp-epsilon", 2, "--mechanism", "gmm", "--gmm-n-components", 4,
                 "--seed", 1, "--out", tmp_path / "a.csv", "--json", metrics)
    assert result.returncode == 0, result.stderr
    ledger = json.loads(metrics.read_text())["epsilon_ledger"]
    assert [(share["statistic"], share["epsilon"], share["parts"]) for share in ledger["shares"]] == [
        ("weights", 0.4, 4), ("means", 0.8, 4), ("covariances", 0.8, 4)]
    assert "projection" in ledger["not_covered"]
    lines = result.stdout.splitlines()
    assert "Correlation Difference Ratio" in lines[-3]  # the relationships, what epsilon buys, then the verdict
    assert lines[-2].startswith("At epsilon 2 the noise is about") and lines[-2] == ledger["reading"]
    assert lines[-1].startswith("Verdict:")


def warns_like_a_library(arguments):
    warnings.warn("lbfgs failed to converge (status=1):\nSTOP: TOTAL NO. OF ITERATIONS REACHED LIMIT.", UserWarning,
                  stacklevel=2)
    return 0


def test_a_librarys_warning_is_one_line_not_pythons_two(monkeypatch, capsys):
    # raw scikit-learn warnings reached stderr with a file, a line number and a line of source (issue 28, item 9)
    import core.cli

    monkeypatch.setitem(core.cli.COMMANDS, "sweep", ("tests.cli.test_cli", "warns_like_a_library"))
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # put back after the test
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert core.cli.main(["sweep", "x.csv", "--k", "5"]) == 0
    assert capsys.readouterr().err == ("warning: lbfgs failed to converge (status=1): STOP: TOTAL NO. OF ITERATIONS "
                                       "REACHED LIMIT.\n")


def test_a_single_avatar_row_is_never_called_ready(tmp_path):
    # beeaff8: "Ready to share" for one made-up row against 1 000 originals (issue 28, item 9)
    originals, one, metrics = tmp_path / "o.csv", tmp_path / "one.csv", tmp_path / "m.json"
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.normal(size=1_000), "y": rng.normal(size=1_000), "g": rng.choice(["a", "b"], 1_000)}
                 ).to_csv(originals, index=False)
    one.write_text("x,y,g\n5.5,-4.2,a\n")
    result = run("evaluate", originals, one, "--json", metrics, "--known", "x", "--sensitive", "g")
    assert result.returncode == 0, result.stderr
    saved = json.loads(metrics.read_text())
    assert saved["verdict"]["ready"] is False and "Ready to share" not in result.stdout
    shares = [saved["signal"]["hellinger_mean"], *(value for name, value in saved["privacy"].items()
                                                    if name != "distance_to_closest" and isinstance(value, float))]
    assert all(0 <= value <= 100 for value in shares)  # no "102 %"


def test_every_analysis_runs_on_the_command_line_with_predictors_left_out(tmp_path):
    """Issue 46: evaluate on the AIDS table with --analysis outcome=cens time=days event=cens group=arms stopped on
    "AttributeError: 'list' object has no attribute 'items'" (the regression's left-out predictors, a name reused)."""
    rng = np.random.default_rng(3)
    n = 800
    wage = np.round(rng.lognormal(6, 0.4, n), 2)
    table = pd.DataFrame({"wage": wage, "logwage": np.round(np.log(wage), 6), "age": rng.integers(20, 70, n),
                          "arm": rng.choice(["a", "b"], n), "days": rng.integers(1, 900, n),
                          "event": rng.integers(0, 2, n)})
    original, avatars = tmp_path / "original.csv", tmp_path / "avatars.csv"
    table.to_csv(original, index=False)
    shuffled = table.sample(frac=1.0, random_state=1).reset_index(drop=True)
    shuffled["age"] = np.clip(shuffled["age"] + rng.integers(-3, 4, n), 20, 70)
    shuffled.to_csv(avatars, index=False)
    metrics = tmp_path / "m.json"
    result = run("evaluate", original, avatars, "--json", metrics, "--analysis", "outcome=event", "time=days",
                 "event=event", "group=arm")
    assert result.returncode == 0, result.stderr
    analyses = json.loads(metrics.read_text())["analyses"]
    assert set(analyses) == {"prediction", "regression", "survival", "group_statistics", "missing_shares"}
    assert "logwage (wage)" in result.stdout  # the twin of wage left out of the regression, said


def test_the_command_lines_start_imports_no_pandas_numpy_or_scipy():
    """Issue 46: core.engine.parameters -> core.dataset.roles -> the core.dataset package pulled pandas, so --help
    and every refused argument paid 0.5 s of CPU."""
    found = subprocess.run([sys.executable, "-c", "import sys, core.cli; print(sorted(name for name in "
                            "('pandas', 'numpy', 'scipy') if name in sys.modules))"],
                           capture_output=True, text=True, cwd=ROOT)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "[]"
    helped = run("avatarize", "--help")
    assert helped.returncode == 0 and "--known-precision" in helped.stdout


def test_a_run_that_measures_nothing_imports_no_model_of_the_metrics(tmp_path):
    """Issue 51: a plain avatarize imported scikit-learn's logistic regression and scipy.stats for the propensity
    score it never computed: 0.9 s of its 2.2 s at 100 000 rows (1.5 s against 3.0 s on 12 000 rows now)."""
    source = tmp_path / "t.csv"
    mixed_table(300).to_csv(source, index=False)
    found = subprocess.run([sys.executable, "-c", "import sys; from core.cli import main; main(['avatarize', "
                            f"{str(source)!r}, '--k', '5', '--out', {str(tmp_path / 'a.csv')!r}]); print(sorted(name "
                            "for name in ('sklearn.linear_model', 'scipy.stats') if name in sys.modules))"],
                           capture_output=True, text=True, cwd=ROOT)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip().splitlines()[-1] == "[]"
