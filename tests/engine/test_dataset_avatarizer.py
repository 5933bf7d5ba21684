"""The Python API's entry for a dataset (core/engine/dataset_avatarizer.py): a dataset of one table makes the
avatars the Avatarizer makes of that table as described; what cannot be done is refused in one line."""

import pandas as pd
import pytest

from core.dataset import Column, Dataset, Kind, Role, Table
from core.engine.dataset_avatarizer import DatasetAvatarizer
from core.engine.io import read_table
from core.engine.pipeline import Avatarizer
from core.errors import InputError
from tests.support import mixed_table


def patients(n_rows=300):
    return mixed_table(n_rows, seed=3).assign(patient_id=[f"P{i:05d}" for i in range(n_rows)], note="x")


SCHEMA = {"tables": {"patients": {"primary_key": "patient_id", "k": 7, "columns": {
    "note": {"role": "dropped"}, "colour": {"role": "set_apart"}, "score": {"kind": "categorical"},
    "age": {"weight": 2.0}}}}}


def test_a_dataset_of_one_table_makes_the_avatars_of_the_table_as_described():
    frame = patients()
    fitted = DatasetAvatarizer(SCHEMA, seed=4, ncp=3).fit({"patients": frame})
    by_hand = Avatarizer(k=7, seed=4, ncp=3, exclude_variable_names=("colour",), column_kinds={"score": "categorical"},
                         column_weights={"age": 2.0}).fit(frame.drop(columns="note"), keys=["patient_id"])
    pd.testing.assert_frame_equal(fitted.avatars_["patients"], by_hand.avatars_)
    avatars = fitted.avatars_["patients"]
    assert "note" not in avatars and not set(avatars["patient_id"]) & set(frame["patient_id"])  # new keys only
    assert fitted.avatarizers_["patients"].method_.k == 7 and fitted.unparented_ == []


def test_the_schema_as_a_dict_as_a_dataset_and_as_a_file_are_one_dataset(tmp_path):
    patients(200).to_csv(tmp_path / "patients.csv", index=False)
    frame = read_table(tmp_path / "patients.csv")
    dataset = Dataset.from_dict(SCHEMA)
    on_disk = Dataset.from_dict({"tables": {"patients": {**SCHEMA["tables"]["patients"], "path": "patients.csv"}}},
                                folder=tmp_path)
    runs = [DatasetAvatarizer(dataset, seed=1).fit({"patients": frame}), DatasetAvatarizer(SCHEMA, seed=1).fit(
        {"patients": frame}), DatasetAvatarizer(on_disk, seed=1).fit()]
    for other in runs[1:]:
        pd.testing.assert_frame_equal(runs[0].avatars_["patients"], other.avatars_["patients"])


def test_a_tables_own_method_replaces_the_runs_and_the_runs_fills_the_rest():
    dataset = Dataset.of_table(Table("t", parameters={"fast_dp_epsilon": 2.0}, columns={"age": Column(kind=Kind.NUMERIC)}))
    fitted = DatasetAvatarizer(dataset, k=10, seed=2, ncp=2).fit({"t": mixed_table(600)})
    avatarizer = fitted.avatarizers_["t"]
    assert avatarizer.method_.name == "fast_dp" and avatarizer.ncp_ == 2 and avatarizer.parameters.k is None


@pytest.mark.parametrize("frames, expected", [
    ({"stays": mixed_table(10)}, "A frame is given for 'stays', which is not a table of the dataset (patients)."),
    ({}, "Table 'patients': the dataset gives no \"path\" to its file nor its data"),
])
def test_a_table_without_data_or_data_without_a_table_is_refused_in_one_line(frames, expected):
    with pytest.raises(InputError) as raised:
        DatasetAvatarizer(SCHEMA, seed=1).fit(frames)
    assert str(raised.value).startswith(expected) and "\n" not in str(raised.value)


def test_linked_tables_have_every_rule_checked_on_their_data_before_any_work():
    schema = {"tables": {"patients": {"primary_key": "id"}, "stays": {}},
              "links": [{"parent": "patients", "key": "id", "child": "stays", "foreign_key": "patient"}]}
    frames = {"patients": pd.DataFrame({"id": [1, 1], "age": [30, 40]}),
              "stays": pd.DataFrame({"patient": [1, 1, 3], "days": [2, 3, 4]})}
    with pytest.raises(InputError, match="^Table 'patients', column 'id': the primary key repeats"):
        DatasetAvatarizer(schema, k=2).fit(frames)


def test_a_dropped_column_the_table_does_not_have_is_named_with_its_table():
    schema = {"tables": {"t": {"columns": {"ghost": {"role": "dropped"}}}}}
    with pytest.raises(InputError, match="ghost"):
        DatasetAvatarizer(schema, k=5).fit({"t": mixed_table(50)})


def test_the_dataset_avatarizer_reads_the_same_roles_as_the_schema_writes():
    table = Dataset.from_dict(SCHEMA).tables["patients"]
    assert table.keys == ["patient_id"] and table.with_role(Role.DROPPED) == ["note"]


def test_a_table_keeps_the_relations_its_description_asks_for():
    """A dataset of several tables is avatarized table by table (issue 31): each as its own description says."""
    births = mixed_table(400, seed=2).assign(score=lambda frame: frame["score"].round().astype(int))
    births["high"] = (births["score"] >= 6).astype(int)
    tables = {"found": {}, "declared": {"find_relations": False, "relations": ["age <= weight"]},
              "none": {"find_relations": False}}
    frames = {"found": births, "declared": births.assign(weight=births["age"] + 5), "none": births}
    fitted = {name: DatasetAvatarizer({"tables": {name: table}}, k=10, seed=1).fit({name: frames[name]})
              for name, table in tables.items()}
    sentences = {name: [r.sentence() for r in run.avatarizers_[name].relations_] for name, run in fitted.items()}
    assert sentences == {"found": ["'high' is 0 exactly when 'score' < 6, else 1"],
                         "declared": ["'age' <= 'weight' on every row"], "none": []}
    found, declared = fitted["found"].avatars_["found"], fitted["declared"].avatars_["declared"]
    assert ((found["score"] >= 6).astype(int) == found["high"]).all() and (declared["age"] <= declared["weight"]).all()


def test_a_table_whose_every_column_is_set_apart_is_told_to_synthesise_one_by_its_role():
    """The hunt of issue 48: a table whose columns were all set apart by their role was told to give one a kind,
    which changes nothing; its primary key, never synthesised, is not counted among them."""
    frame = patients(60)[["patient_id", "age", "colour"]]
    schema = {"tables": {"patients": {"primary_key": "patient_id", "k": 5, "columns": {
        "age": {"role": "set_apart"}, "colour": {"role": "set_apart"}}}}}
    with pytest.raises(InputError) as raised:
        DatasetAvatarizer(schema, seed=1).fit({"patients": frame})
    assert str(raised.value).endswith(
        "Every column is set aside ('age', 'colour'): there is nothing to synthesise. Synthesise at "
        "least one: drop it from --exclude on the command line, give it the role \"synthesized\" in a schema, or "
        "choose \"synthesize\" as its role on the Data page.")
