"""The command line and the schema with relations (issue 30): said on stderr before the work, kept in the avatars,
listed in the JSON with their breaking shares; --no-relations, --relation and a schema's entries."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.dataset import Dataset
from core.dataset.relations import RelationsAsked
from tests.cli.test_cli import run


@pytest.fixture
def births(tmp_path):
    generator = np.random.default_rng(4)
    frame = pd.DataFrame({"id": [f"B{i:04d}" for i in range(300)], "bwt": generator.integers(1000, 4500, 300),
                          "age": generator.integers(15, 45, 300), "smoke": generator.integers(0, 2, 300)})
    frame["low"] = (frame["bwt"] < 2500).astype(int)
    path = tmp_path / "births.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_relation_found_is_said_kept_and_listed(births, tmp_path):
    out, metrics = tmp_path / "a.csv", tmp_path / "m.json"
    result = run("avatarize", births, "--k", 10, "--seed", 1, "--out", out, "--json", metrics)
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("relation: ")]
    assert len(said) == 1 and said[0].startswith("relation: 'low' is 1 exactly when 'bwt' < ")
    assert "kept, 'low' computed from 'bwt' in every avatar." in said[0]
    assert result.stderr.index("relation: ") < result.stderr.index("avatars of births.csv written")
    avatars = pd.read_csv(out)
    cut = json.loads(metrics.read_text())["signal"]["relations"][0]["cuts"][0]
    assert ((avatars["bwt"] < cut).astype(int) == avatars["low"]).all()
    document = json.loads(metrics.read_text())
    assert document["signal"]["broken_relations"] == 0.0
    assert document["signal"]["relations"][0] | {"cuts": None} == {
        "kind": "intervals", "source": "bwt", "target": "low", "cuts": None, "originals_broken": 0.0,
        "avatars_broken": 0.0, "sentence": said[0].removeprefix("relation: ").split(": kept")[0]}
    assert "Broken relations" in result.stdout


def test_no_relations_and_a_declared_one(births, tmp_path):
    result = run("avatarize", births, "--k", 10, "--seed", 1, "--out", tmp_path / "a.csv", "--no-relations",
                 "--relation", "age <= bwt")
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("relation: ")]
    assert said == ["relation: 'age' <= 'bwt' on every row: kept, 'bwt' synthesized as its difference from 'age', "
                    "never below it."]


@pytest.mark.parametrize(("line", "message"), [
    ("age <= weight", "error: The relation \"age <= weight\" names the column 'weight', which the table does not have"),
    ("low = bwt", "'bwt' holds numbers, which the avatars average"),  # no avatar's value in a mapping
    ("id <= bwt", "'id' does not hold numbers or dates"),  # an identifier's codes (B0001): no order of numbers
    ("low = bwt +", "is not one the workbench reads"),
])
def test_a_declared_relation_that_cannot_be_kept_is_refused_in_one_line(births, tmp_path, line, message):
    out = tmp_path / "a.csv"
    result = run("avatarize", births, "--k", 10, "--out", out, "--relation", line)
    assert result.returncode == 2 and "Traceback" not in result.stderr and not out.exists()
    assert message in result.stderr and len(result.stderr.strip().splitlines()[-1]) > 0


def test_a_schema_holds_the_relations_asked(tmp_path):
    schema = {"tables": {"births": {"path": "births.csv", "find_relations": False,
                                    "relations": ["low = bwt < 2500", "age <= bwt"], "ignored_relations": ["smoke"]}}}
    dataset = Dataset.from_dict(schema)
    assert dataset.tables["births"].relations == RelationsAsked(False, ("low = bwt < 2500", "age <= bwt"),
                                                                       ("smoke",))
    assert dataset.to_dict() == schema
    with pytest.raises(Exception, match="\"relations\" must be a list of lines"):
        Dataset.from_dict({"tables": {"births": {"relations": "low = bwt < 2500"}}})


def parts(folder):
    return pd.concat([pd.read_parquet(path) for path in sorted(folder.glob("part-*.parquet"))], ignore_index=True)


def test_batches_keep_the_relations_found_on_the_whole_table(births, tmp_path):
    result = run("avatarize", births, "--k", 5, "--seed", 1, "--out", tmp_path / "parts", "--batch-rows", 100,
                 "--json", tmp_path / "m.json")
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("relation: ")]
    assert len(said) == 1 and said[0].startswith("relation: 'low' is 1 exactly when 'bwt' < ")
    assert result.stderr.index("relation: ") < result.stderr.index("batch 1 of 3 written")
    avatars = parts(tmp_path / "parts")
    assert len(avatars) == 300 and ((avatars["bwt"] < 2500).astype(int) == avatars["low"]).all()
    batches = json.loads((tmp_path / "m.json").read_text())["per_batch"]
    assert [batch["signal"]["broken_relations"] for batch in batches] == [0.0, 0.0, 0.0]


def test_batches_take_no_relations_and_declared_ones(births, tmp_path):
    result = run("avatarize", births, "--k", 5, "--seed", 1, "--out", tmp_path / "parts", "--batch-rows", 100,
                 "--no-relations", "--relation", "age <= bwt")
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("relation: ")]
    assert said == ["relation: 'age' <= 'bwt' on every row: kept, 'bwt' synthesized as its difference from 'age', "
                    "never below it."]
    assert (parts(tmp_path / "parts")["age"] <= parts(tmp_path / "parts")["bwt"]).all()
    refused = run("avatarize", births, "--k", 5, "--out", tmp_path / "other", "--batch-rows", 100,
                  "--relation", "age <= weight")
    assert refused.returncode == 2 and "names the column 'weight', which the table does not have" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "other").exists()
