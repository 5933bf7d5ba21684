"""The dataset's description (SPEC 12): its JSON read and written back equal, its roles and order, and every rule
that needs no data refused in one line naming the table and the column."""

import json

import pytest

from core.dataset import Column, Dataset, Kind, Link, LinkMethod, Role, Table
from core.errors import InputError

SCHEMA = {
    "tables": {
        "patients": {"path": "patients.csv", "primary_key": "patient_id", "individual_level": True, "k": 10,
                     "columns": {"age": {"kind": "numeric", "weight": 2.0}, "notes": {"role": "dropped"},
                                 "site": {"role": "set_apart"}}},
        "stays": {"path": "stays.csv", "primary_key": "stay_id", "k": 20},
        "labs": {"path": "labs.csv", "time": "taken_at"},
    },
    "links": [
        {"parent": "patients", "key": "patient_id", "child": "stays", "foreign_key": "patient_id"},
        {"parent": "stays", "key": "stay_id", "child": "labs", "foreign_key": "stay_id", "method": "time_series"},
    ],
}


def test_the_schema_of_spec_12_is_read_and_written_back_equal(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    dataset = Dataset.read(path)
    assert dataset.folder == tmp_path
    assert dataset.path_of("stays") == tmp_path / "stays.csv"
    assert dataset.to_dict() == SCHEMA
    written = tmp_path / "again.json"
    dataset.write(written)
    assert Dataset.read(written) == dataset


def test_roles_keys_first_then_what_the_columns_say():
    dataset = Dataset.from_dict(SCHEMA)
    assert dataset.roles("patients") == {"patient_id": Role.KEY, "age": Role.SYNTHESIZED, "notes": Role.DROPPED,
                                         "site": Role.SET_APART}
    assert dataset.roles("stays") == {"stay_id": Role.KEY, "patient_id": Role.FOREIGN_KEY}
    assert dataset.roles("labs") == {"stay_id": Role.FOREIGN_KEY, "taken_at": Role.TIME}
    patients = dataset.tables["patients"]
    assert patients.column_kinds == {"age": "numeric"} and patients.column_weights == {"age": 2.0}
    assert patients.with_role(Role.DROPPED) == ["notes"] and patients.parameters == {"k": 10}
    assert dataset.links[1].method is LinkMethod.TIME_SERIES


def test_tables_top_down_and_individual_level_by_default_for_those_without_a_parent():
    dataset = Dataset.from_dict({"tables": {"labs": SCHEMA["tables"]["labs"], "stays": SCHEMA["tables"]["stays"],
                                            "patients": SCHEMA["tables"]["patients"]}, "links": SCHEMA["links"]})
    assert dataset.top_down() == ["patients", "stays", "labs"]
    assert [dataset.is_individual_level(name) for name in ("patients", "stays", "labs")] == [True, False, False]


def test_a_single_table_is_a_dataset_of_one_table():
    dataset = Dataset.of_table(Table("wage", path="wage.csv", columns={"rownames": Column(Role.DROPPED)}))
    assert list(dataset.tables) == ["wage"] and dataset.links == () and dataset.is_individual_level("wage")
    assert Dataset.from_dict(dataset.to_dict()) == dataset
    assert dataset.to_dict() == {"tables": {"wage": {"path": "wage.csv", "columns": {"rownames": {"role": "dropped"}}}}}


def _two(parent=None, child=None, links=None):
    tables = {"patients": {"primary_key": "patient_id", **(parent or {})},
              "stays": {"primary_key": "stay_id", **(child or {})}}
    return {"tables": tables, "links": links if links is not None else [
        {"parent": "patients", "key": "patient_id", "child": "stays", "foreign_key": "patient_id"}]}


LINK = {"parent": "patients", "key": "patient_id", "child": "stays", "foreign_key": "patient_id"}
BROKEN = {
    "a link from a column that is not the parent's primary key": (
        _two(links=[{**LINK, "key": "name"}]), "Table 'patients', column 'name': a link goes from the parent's primary key"),
    "a link from a parent without a primary key": (
        {"tables": {"patients": {}, "stays": {}}, "links": [LINK]}, "'patients' has none"),
    "a link to a table that is not in the schema": (
        _two(links=[{**LINK, "child": "visits"}]), "'visits' is not a table of the schema"),
    "a cycle": (
        _two(links=[LINK, {"parent": "stays", "key": "stay_id", "child": "patients", "foreign_key": "stay_id"}]),
        "the links make a cycle through patients, stays"),
    "a table its own parent": (
        _two(links=[{"parent": "patients", "key": "patient_id", "child": "patients", "foreign_key": "referrer"}]),
        "Table 'patients', column 'referrer': a table cannot be its own parent"),
    "a child referencing a parent twice": (
        _two(links=[LINK, {**LINK, "foreign_key": "referred_by"}]),
        "Table 'stays', column 'referred_by': 'stays' references 'patients' twice (patient_id, referred_by)"),
    "one column the foreign key of two links": (
        {"tables": {"patients": {"primary_key": "patient_id"}, "wards": {"primary_key": "ward_id"}, "stays": {}},
         "links": [LINK, {"parent": "wards", "key": "ward_id", "child": "stays", "foreign_key": "patient_id"}]},
        "Table 'stays', column 'patient_id': it is the foreign key of the links from 'patients', 'wards'"),
    "a primary key that is also the foreign key": (
        _two(child={"primary_key": "patient_id"}),
        "Table 'stays', column 'patient_id': it is both the table's primary key and its foreign key"),
    "a table without a parent that is not individual-level": (
        _two(parent={"individual_level": False}), "Table 'patients': it has no parent, so it must be individual-level"),
    "a foreign key dropped": (
        _two(child={"columns": {"patient_id": {"role": "dropped"}}}),
        "Table 'stays', column 'patient_id': it is the foreign key of the link from 'patients'"),
    "a primary key set apart": (
        _two(parent={"columns": {"patient_id": {"role": "set_apart"}}}),
        "Table 'patients', column 'patient_id': it is the table's primary key"),
    "a time series without a time column": (
        _two(links=[{**LINK, "method": "time_series"}]), "Table 'stays': the link from 'patients' is a time series"),
    "an unknown link method": (_two(links=[{**LINK, "method": "nearest"}]), "\"method\" must be one of"),
    "an unknown role": (_two(child={"columns": {"x": {"role": "key"}}}), "Table 'stays', column 'x': \"role\" must"),
    "an unknown entry": ({"tables": {}, "link": []}, "The schema: \"link\" is not an entry it takes"),
    "no table": ({"tables": {}}, "The schema has no table"),
    "a name that is a path": ({"tables": {"../outside": {}}}, "Table '../outside': a table's name is also its"),
}


@pytest.mark.parametrize("rule", BROKEN)
def test_a_schema_that_breaks_a_rule_is_refused_in_one_line_naming_the_table_and_column(rule):
    schema, expected = BROKEN[rule]
    with pytest.raises(InputError) as refused:
        Dataset.from_dict(schema)
    assert expected in str(refused.value) and "\n" not in str(refused.value)


def test_a_schema_that_is_not_json_is_refused_in_one_line(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text('{"tables": {')
    with pytest.raises(InputError, match=r"schema.json: the schema is not valid JSON"):
        Dataset.read(path)
    with pytest.raises(InputError, match=r"could not be read"):
        Dataset.read(tmp_path / "missing.json")


def test_weights_kinds_and_entries_are_checked():
    for column, expected in (({"weight": 0}, "greater than 0"), ({"weight": True}, "greater than 0"),
                             ({"kind": "text"}, "\"kind\" must be one of numeric"), ({"colour": 1}, "\"colour\"")):
        with pytest.raises(InputError, match=expected):
            Dataset.from_dict({"tables": {"t": {"columns": {"a": column}}}})
    assert Dataset.from_dict({"tables": {"t": {"columns": {"a": {"kind": "datetime"}}}}}).tables["t"].columns[
        "a"] == Column(kind=Kind.DATETIME)
    assert Link("a", "id", "b", "a_id").describe() == "a.id -> b.a_id"


def test_a_schema_naming_a_table_twice_is_refused_in_one_line(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text('{"tables": {"p": {"primary_key": "id"}, "p": {}}}')
    with pytest.raises(InputError, match='^The schema names "p" twice in one object'):
        Dataset.read(path)
