"""``avatarize --tables SCHEMA.json`` (SPEC 12): a schema of one table makes the plain command's avatars, and a
schema of two tables that breaks a rule is refused in one line, before any work."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.dataset import Column, Dataset, Role, Table
from tests.support import mixed_table

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "demo_clinical.csv"


def run(*arguments):
    return subprocess.run([sys.executable, "-m", "core", *map(str, arguments)], capture_output=True, text=True,
                          cwd=ROOT)


def test_a_schema_of_one_table_written_then_read_makes_the_plain_commands_avatars(tmp_path):
    plain = tmp_path / "plain.csv"
    result = run("avatarize", DEMO, "--k", 10, "--seed", 2, "--drop", "department", "--out", plain,
                 "--json", tmp_path / "plain.json")
    assert result.returncode == 0, result.stderr
    schema = tmp_path / "schema.json"
    Dataset.of_table(Table("clinic", path=str(DEMO), primary_key="patient_id",
                           columns={"department": Column(Role.DROPPED)}), folder=tmp_path).write(schema)
    result = run("avatarize", "--tables", schema, "--k", 10, "--seed", 2, "--out", tmp_path / "out",
                 "--json", tmp_path / "schema_run.json")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "clinic.csv").read_bytes() == plain.read_bytes()
    timed = ("timings_s",)
    same = [json.loads((tmp_path / name).read_text()) for name in ("plain.json", "schema_run.json")]
    assert [{key: value for key, value in metrics.items() if key not in timed} for metrics in same][0] == \
        [{key: value for key, value in metrics.items() if key not in timed} for metrics in same][1]
    assert "looks like an identifier" not in result.stderr  # declared the primary key: not a guess to warn of


def test_a_tables_own_parameters_win_over_the_command_lines(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"tables": {"clinic": {"path": str(DEMO), "fast_dp_epsilon": 2.0,
                                                        "mechanism": "histogram"}}}))
    result = run("avatarize", "--tables", schema, "--k", 10, "--seed", 1, "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "AvatarFastDP (histogram), epsilon = 2" in result.stderr
    assert len(pd.read_csv(tmp_path / "out" / "clinic.csv")) == 1000


def _two_tables(tmp_path, patients=None, stays=None, links=None, entries=None):
    (pd.DataFrame({"patient_id": [1, 2, 3, 4], "age": [40, 51, 62, 33]}) if patients is None else patients).to_csv(
        tmp_path / "patients.csv", index=False)
    (pd.DataFrame({"stay_id": range(1, 7), "patient_id": [1, 1, 2, 3, 3, 4], "days": [2, 5, 1, 7, 3, 4]})
     if stays is None else stays).to_csv(tmp_path / "stays.csv", index=False)
    link = {"parent": "patients", "key": "patient_id", "child": "stays", "foreign_key": "patient_id"}
    schema = {"tables": {"patients": {"path": "patients.csv", "primary_key": "patient_id", **(entries or {})},
                         "stays": {"path": "stays.csv", "primary_key": "stay_id"}},
              "links": [link] if links is None else links(link)}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    return path


RULES = {
    "a primary key repeated": (dict(patients=pd.DataFrame({"patient_id": [1, 1, 2, 3], "age": [1, 2, 3, 4]})),
                               "Table 'patients', column 'patient_id': the primary key repeats 1 values"),
    "a primary key missing": (dict(patients=pd.DataFrame({"patient_id": [1, None, 2, 3], "age": [1, 2, 3, 4]})),
                              "Table 'patients', column 'patient_id': the primary key is missing on 1 row"),
    "a link not from the parent's primary key": (dict(links=lambda link: [{**link, "key": "age"}]),
                                                 "Table 'patients', column 'age': a link goes from the parent's "
                                                 "primary key"),
    "a link to a column the child lacks": (dict(links=lambda link: [{**link, "foreign_key": "patient"}]),
                                           "Table 'stays', column 'patient' (the foreign key of the link from "
                                           "'patients'): the table has no such column"),
    "a cycle": (dict(links=lambda link: [link, {"parent": "stays", "key": "stay_id", "child": "patients",
                                                "foreign_key": "age"}]), "the links make a cycle"),
    "a parent referenced twice": (dict(links=lambda link: [link, {**link, "foreign_key": "days"}]),
                                  "'stays' references 'patients' twice"),
    "a table without a parent not individual-level": (dict(entries={"individual_level": False}),
                                                       "it has no parent, so it must be individual-level"),
    "a parameter that does not exist": (dict(entries={"kk": 3}), "Table 'patients': 'kk' is not a parameter"),
    # a hostile hunt: the entry's column_weights were replaced by the columns' description without a word (exit 0)
    "a column's weight set as a parameter": (dict(entries={"column_weights": {"age": 2}}),
                                              "Table 'patients': \"column_weights\" is said by the table's \"columns\""),
    "the holdout set for a table": (dict(entries={"holdout": False}), "set it for the run (--no-holdout)"),
}


@pytest.mark.parametrize("rule", RULES)
def test_a_two_table_schema_breaking_a_rule_is_refused_in_one_line(tmp_path, rule):
    changes, expected = RULES[rule]
    result = run("avatarize", "--tables", _two_tables(tmp_path, **changes), "--k", 2, "--out", tmp_path / "out")
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], result.stderr
    assert not (tmp_path / "out").exists()


def test_a_valid_two_table_schema_says_its_orphans_and_writes_every_table_linked(tmp_path):
    rng = np.random.default_rng(0)
    patients = pd.DataFrame({"patient_id": range(1, 41), "age": rng.integers(20, 90, 40)})
    stays = pd.DataFrame({"stay_id": range(1, 101), "patient_id": rng.integers(1, 41, 100).astype(float),
                          "days": rng.integers(1, 15, 100)})
    stays.loc[:9, "patient_id"] = [99.0] * 5 + [np.nan] * 5
    result = run("avatarize", "--tables", _two_tables(tmp_path, patients=patients, stays=stays), "--k", 4,
                 "--seed", 3, "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().startswith("warning: Table 'stays', column 'patient_id': 10 of 100 rows (10.0 %) "
                                            "have no 'patients'")
    written = {name: pd.read_csv(tmp_path / "out" / f"{name}.csv", dtype=str) for name in ("patients", "stays")}
    assert len(written["patients"]) == 40 and len(written["stays"]) == 100
    present = written["stays"]["patient_id"].dropna()
    assert len(present) == 90 and present.isin(written["patients"]["patient_id"]).all()
    assert "avatars of stays written to" in result.stdout and "linked to patients by linear_sum_assignment" in result.stdout
    assert run("avatarize", "--tables", tmp_path / "schema.json", "--k", 4, "--seed", 3, "--out", tmp_path / "again").returncode == 0
    assert all((tmp_path / "again" / f"{name}.csv").read_bytes() == (tmp_path / "out" / f"{name}.csv").read_bytes()
               for name in written)


def test_outputs_not_built_for_linked_tables_are_refused_in_one_line_before_any_work(tmp_path):
    for option, value, said in (("--paired-out", tmp_path / "p.csv", "--paired-out is not available yet"),
                                ("--known", "ghost", "The known and sensitive variables (ghost) must all be columns"),
                                ("--relation", "days < 10", "--relation concerns one table's columns"),
                                ("--report", tmp_path / "nofolder" / "r.html", "does not exist"),
                                ("--json", tmp_path / "nofolder" / "m.json", "does not exist")):
        result = run("avatarize", "--tables", _two_tables(tmp_path), "--k", 2, "--out", tmp_path / "out",
                     option, value)
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert said in result.stderr and not (tmp_path / "out").exists()


def test_linked_tables_metrics_and_verdict_go_to_the_json(tmp_path):
    rng = np.random.default_rng(1)
    patients = pd.DataFrame({"patient_id": range(1, 61), "age": rng.integers(20, 90, 60)})
    stays = pd.DataFrame({"stay_id": range(1, 151), "patient_id": rng.integers(1, 61, 150),
                          "days": rng.integers(1, 15, 150)})
    result = run("avatarize", "--tables", _two_tables(tmp_path, patients=patients, stays=stays), "--k", 4,
                 "--seed", 3, "--out", tmp_path / "out", "--json", tmp_path / "m.json")
    assert result.returncode == 0, result.stderr
    document = json.loads((tmp_path / "m.json").read_text())
    assert set(document) == {"tables", "links", "persons", "parameters", "verdict", "release"}
    link = document["links"]["patients.patient_id -> stays.patient_id"]
    assert link["referential_integrity"]["value"] == 100.0 and link["referential_integrity"]["passed"] is True
    assert 0 <= link["children_per_parent"]["value"] <= 100
    assert set(document["verdict"]["persons"]) == {"patients"} and document["verdict"]["broken_links"] == []
    assert document["parameters"]["links"] == {"patients.patient_id -> stays.patient_id": "linear_sum_assignment"}
    # the columns a link adds are passed to the synthesis, not parameters of the table: none shown, as one table's
    assert document["parameters"]["tables"]["stays"]["column_weights"] == {}
    assert document["parameters"]["tables"]["stays"]["column_kinds"] == {}
    assert "Link patients.patient_id -> stays.patient_id" in result.stdout and "patients: Verdict:" in result.stdout
    report = run("avatarize", "--tables", tmp_path / "schema.json", "--k", 4, "--seed", 3, "--out", tmp_path / "fr",
                 "--report", tmp_path / "r.html", "--report-language", "fr")
    assert report.returncode == 0, report.stderr
    assert "Relations entre les tables" in (tmp_path / "r.html").read_text()
    attacked = run("avatarize", "--tables", tmp_path / "schema.json", "--k", 4, "--seed", 3, "--out", tmp_path / "a",
                   "--json", tmp_path / "a.json", "--known", "age", "--sensitive", "stays: mean days")
    assert attacked.returncode == 0, attacked.stderr
    person = json.loads((tmp_path / "a.json").read_text())["persons"]["patients"]["privacy"]
    assert person["inference_risk"] is not None and person["criteria"]["inference"]["state"] != "not assessed"


def test_linked_tables_not_ready_name_a_fix_checked_by_a_re_run_and_no_fix_skips_it(tmp_path):
    # issue 48: the clinical demo, not ready for an attacker who knows age, sex, bmi and smoking and wants diabetes,
    # gets a fix of its person table checked by a re-run (linked tables had none: "No fix was checked here")
    schema = json.loads((ROOT / "assets" / "demo_hospital" / "schema.json").read_text())
    for entry in schema["tables"].values():
        entry["path"] = str(ROOT / "assets" / "demo_hospital" / entry["path"])
    schema["tables"]["stays"]["k"] = 2
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    attacker = ["--known", "age", "sex", "bmi", "smoker", "--sensitive", "diabetes", "--seed", 1, "--k", 10]
    result = run("avatarize", "--tables", tmp_path / "schema.json", *attacker, "--out", tmp_path / "out",
                 "--json", tmp_path / "m.json")
    assert result.returncode == 0, result.stderr
    verdict = json.loads((tmp_path / "m.json").read_text())["verdict"]["persons"]["patients"]
    k = verdict["fix_settings"]["k"]
    assert verdict["status"] == "not ready" and k > 10 and verdict["tried"][-1]["ready"]
    assert "patients: Verdict: NOT READY TO SHARE." in result.stdout
    assert f"Fix: raise k from 10 to {k} in table patients (checked by a re-run: inference risk" in result.stdout
    assert "in table patients" in verdict["fix"]
    unsearched = run("avatarize", "--tables", tmp_path / "schema.json", *attacker, "--out", tmp_path / "plain",
                     "--json", tmp_path / "p.json", "--no-fix")
    assert unsearched.returncode == 0 and "No fix was checked here" in unsearched.stdout


def test_the_analyses_of_one_table_run_on_each_person_with_everything_about_them(tmp_path):
    # issue 48: --analysis with --tables was the trend of a time series only
    schema = ROOT / "assets" / "demo_hospital" / "schema.json"
    result = run("avatarize", "--tables", schema, "--k", 10, "--seed", 1, "--no-fix", "--out", tmp_path / "out",
                 "--json", tmp_path / "m.json", "--analysis", "group=sex", "value=stays: number", "outcome=diabetes",
                 "predictors=age,bmi,stays: number")
    assert result.returncode == 0, result.stderr
    analyses = json.loads((tmp_path / "m.json").read_text())["persons"]["patients"]["analyses"]
    assert {"prediction", "regression", "group_statistics", "missing_shares"} <= set(analyses)
    assert "Group statistics: Mean stays: number by sex:" in result.stdout
    for options, said in ((["outcome=nope"], "Table 'patients', each row with its descendants' aggregates (such as "
                                             "\"stays: number\"): --analysis outcome: 'nope' is not a column"),
                          (["table=stays", "outcome=department"], "name the table to analyse with table=NAME, an "
                                                                  "individual-level table (patients)"),
                          (["table=patients", "table=stays", "outcome=sex"], "table= is given twice: keep one."),
                          # the hunt of issue 48: a key called misspelt, the options said without table=
                          (["table=patients", "outcome=patient_id"], "'patient_id' is a key of the table: the avatars "
                                                                     "get new keys of the same form"),
                          (["tabel=patients", "outcome=sex"], "--analysis with --tables takes table=NAME with "
                                                              "outcome=NAME")):
        refused = run("avatarize", "--tables", schema, "--k", 10, "--out", tmp_path / "no", "--analysis", *options)
        assert refused.returncode == 2 and said in refused.stderr and not (tmp_path / "no").exists()


@pytest.mark.parametrize("arguments, expected", [
    (["--drop", "age"], "--drop names a column of one table"),
    (["INPUT"], "not both"),
])
def test_options_of_one_table_file_are_refused_with_a_schema(tmp_path, arguments, expected):
    table = tmp_path / "t.csv"
    mixed_table(50).to_csv(table, index=False)
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"tables": {"t": {"path": "t.csv"}}}))
    arguments = [str(table) if argument == "INPUT" else argument for argument in arguments]
    result = run("avatarize", *arguments, "--tables", schema, "--k", 5, "--out", tmp_path / "out")
    assert result.returncode == 2 and expected in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_no_input_nor_schema_is_refused_in_one_line(tmp_path):
    result = run("avatarize", "--k", 5, "--out", tmp_path / "out.csv")
    assert result.returncode == 2 and "give the table to avatarize (INPUT) or the schema" in result.stderr


def test_a_tables_missing_file_is_named_with_the_table_and_the_folder_it_is_read_from(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"tables": {"patients": {"path": "nothere.csv", "primary_key": "id"}}, "links": []}))
    result = run("avatarize", "--tables", schema, "--k", 10, "--out", tmp_path / "out")
    assert result.returncode == 2 and not (tmp_path / "out").exists()
    assert result.stderr == (f"error: Table 'patients': its file {tmp_path / 'nothere.csv'} does not exist (its "
                             "\"path\", 'nothere.csv', is read from the schema's folder); check the path.\n")


def test_evaluate_scores_linked_avatars_made_elsewhere_from_their_folder(tmp_path):
    rng = np.random.default_rng(2)
    patients = pd.DataFrame({"patient_id": range(1, 61), "age": rng.integers(20, 90, 60)})
    stays = pd.DataFrame({"stay_id": range(1, 151), "patient_id": rng.integers(1, 61, 150),
                          "days": rng.integers(1, 15, 150)})
    schema = _two_tables(tmp_path, patients=patients, stays=stays)
    (tmp_path / "other").mkdir()
    patients.assign(patient_id=range(101, 161)).to_csv(tmp_path / "other" / "patients.csv", index=False)
    stays.assign(patient_id=np.r_[stays.patient_id[:140] + 100, [999] * 10]).to_csv(tmp_path / "other" / "stays.csv",
                                                                                   index=False)
    result = run("evaluate", "--tables", schema, "--avatars", tmp_path / "other", "--json", tmp_path / "e.json")
    assert result.returncode == 0, result.stderr
    document = json.loads((tmp_path / "e.json").read_text())
    integrity = document["links"]["patients.patient_id -> stays.patient_id"]["referential_integrity"]
    assert integrity["value"] == pytest.approx(100 * 140 / 150) and integrity["passed"] is False
    assert document["verdict"]["ready"] is False and document["verdict"]["broken_links"] == [
        "patients.patient_id -> stays.patient_id"]
    assert "Table 'stays': 150 of the avatars' primary keys are keys of the originals" in result.stderr
    (tmp_path / "empty").mkdir()
    empty = run("evaluate", "--tables", schema, "--avatars", tmp_path / "empty")
    assert empty.returncode == 2 and len(empty.stderr.strip().splitlines()) == 1
    assert "no file for table 'patients'" in empty.stderr


def test_linked_tables_written_as_parquet(tmp_path):
    rng = np.random.default_rng(4)
    patients = pd.DataFrame({"patient_id": [f"00{i:03d}" for i in range(40)], "age": rng.integers(20, 90, 40)})
    stays = pd.DataFrame({"stay_id": range(1, 101), "patient_id": rng.choice(patients.patient_id.to_numpy(), 100),
                          "days": rng.integers(1, 15, 100)})
    result = run("avatarize", "--tables", _two_tables(tmp_path, patients=patients, stays=stays), "--k", 4,
                 "--seed", 1, "--out", tmp_path / "out", "--part-format", "parquet")
    assert result.returncode == 0, result.stderr
    written = {name: pd.read_parquet(tmp_path / "out" / f"{name}.parquet") for name in ("patients", "stays")}
    assert written["stays"]["patient_id"].isin(written["patients"]["patient_id"]).all()
    assert not (tmp_path / "out" / "stays.csv").exists()


def test_a_linked_run_refused_during_the_work_leaves_nothing_and_no_output_is_an_input(tmp_path):
    schema = _two_tables(tmp_path)
    too_large = run("avatarize", "--tables", schema, "--k", 50, "--out", tmp_path / "out")
    assert too_large.returncode == 2 and "Table 'patients': k must be smaller" in too_large.stderr
    assert not (tmp_path / "out").exists()  # the folder made for it is gone again
    onto_schema = run("avatarize", "--tables", schema, "--k", 2, "--out", tmp_path / "out", "--json", schema)
    assert onto_schema.returncode == 2 and "is also an input or another output" in onto_schema.stderr
    assert json.loads(schema.read_text())["links"]  # the schema untouched


def test_evaluate_takes_avatars_with_other_columns_and_never_writes_onto_them(tmp_path):
    rng = np.random.default_rng(3)
    patients = pd.DataFrame({"patient_id": range(1, 61), "age": rng.integers(20, 90, 60), "bmi": rng.normal(25, 3, 60)})
    stays = pd.DataFrame({"stay_id": range(1, 151), "patient_id": rng.integers(1, 61, 150),
                          "days": rng.integers(1, 15, 150)})
    schema = _two_tables(tmp_path, patients=patients, stays=stays)
    (tmp_path / "other").mkdir()
    patients.drop(columns="bmi").assign(junk=1).to_csv(tmp_path / "other" / "patients.csv", index=False)
    stays.to_csv(tmp_path / "other" / "stays.csv", index=False)
    result = run("evaluate", "--tables", schema, "--avatars", tmp_path / "other")
    assert result.returncode == 0, result.stderr
    onto = run("evaluate", "--tables", schema, "--avatars", tmp_path / "other", "--json",
               tmp_path / "other" / "stays.csv")
    assert onto.returncode == 2 and "is also an input" in onto.stderr
    assert pd.read_csv(tmp_path / "other" / "stays.csv").equals(stays)


def test_evaluate_names_the_avatars_file_lacking_a_column_the_analysis_names(tmp_path):
    """The hunt of issue 48: "--analysis outcome: 'diabetes' is not a column of the table: check its spelling", the
    column being in the originals and missing from the avatars' file."""
    schema = ROOT / "assets" / "demo_hospital" / "schema.json"
    made = run("avatarize", "--tables", schema, "--k", 10, "--no-fix", "--out", tmp_path / "av")
    assert made.returncode == 0, made.stderr
    patients = pd.read_csv(tmp_path / "av" / "patients.csv")
    patients.drop(columns="diabetes").to_csv(tmp_path / "av" / "patients.csv", index=False)
    refused = run("evaluate", "--tables", schema, "--avatars", tmp_path / "av", "--analysis", "outcome=diabetes")
    assert refused.returncode == 2, refused.stderr
    assert (f"--analysis outcome: 'diabetes' is in the originals but not in the avatars ({tmp_path / 'av' / 'patients.csv'})"
            in refused.stderr)


def test_a_person_s_own_column_named_like_an_aggregate_is_refused_not_shadowed(tmp_path):
    """The hunt of issue 48: patients' own "stays: number" was replaced by the count of their stays without a
    word; and nothing is written when the scoring refuses it."""
    folder = tmp_path / "data"
    folder.mkdir()
    for path in (ROOT / "assets" / "demo_hospital").iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    patients = pd.read_csv(folder / "patients.csv")
    patients["stays: number"] = 1
    patients.to_csv(folder / "patients.csv", index=False)
    refused = run("avatarize", "--tables", folder / "schema.json", "--k", 10, "--out", tmp_path / "out", "--json",
                  tmp_path / "m.json")
    assert refused.returncode == 2 and "Table 'patients': its column 'stays: number' has the name of what its rows in "\
        "'stays' add up to" in refused.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "m.json").exists()

