"""Linked tables dealt to batches by family: a family never split, one batch the tables themselves, identifiers
numbered one batch after the other."""

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.dataset import Dataset, Kind, Link
from core.dataset.keys import unparented_of
from core.engine.batches import read_batch, stage_rows
from core.engine.family_batches import (
    batch_seed,
    check_family_tree,
    deal_table,
    parent_rows,
    dealt_file,
    read_raw_column,
    renumbered,
    whole_kind,
    with_whole_kinds,
)
from core.engine.identifiers import IdentifierForm
from core.engine.io import read_table
from core.engine.linked_tables import parent_rows_of
from core.engine.sources import TableInput, TypedColumns
from core.errors import InputError

SCHEMA = {"tables": {"patients": {"path": "patients.csv", "primary_key": "patient_id"},
                     "stays": {"path": "stays.csv", "primary_key": "stay_id"},
                     "prescriptions": {"path": "prescriptions.csv"}},
          "links": [{"parent": "patients", "key": "patient_id", "child": "stays", "foreign_key": "patient_id"},
                    {"parent": "stays", "key": "stay_id", "child": "prescriptions", "foreign_key": "stay_id"}]}


def families(rng: np.random.Generator, n_patients: int) -> dict[str, pd.DataFrame]:
    """Patients -> stays -> prescriptions, some stays naming no patient or one that does not exist."""
    patients = pd.DataFrame({"patient_id": [f"P{i:04d}" for i in range(n_patients)],
                             "age": rng.integers(18, 90, n_patients)})
    n_stays = int(rng.integers(1, 4 * n_patients))
    owner = rng.choice([*patients.patient_id, "P9999", None], n_stays)
    stays = pd.DataFrame({"stay_id": np.arange(n_stays) + 100, "patient_id": owner,
                          "days": rng.integers(1, 30, n_stays)})
    n_prescriptions = int(rng.integers(1, 3 * n_stays + 2))
    prescriptions = pd.DataFrame({"stay_id": rng.choice(stays.stay_id, n_prescriptions),
                                  "dose": rng.normal(100, 20, n_prescriptions).round(1)})
    return {"patients": patients, "stays": stays, "prescriptions": prescriptions}


def staged(folder: Path, frames: dict[str, pd.DataFrame]) -> dict[str, TypedColumns]:
    columns = {}
    for name, frame in frames.items():
        frame.to_csv(folder / f"{name}.csv", index=False)
        table = TableInput.open(str(folder / f"{name}.csv"))
        (folder / name).mkdir()
        raw = [read_raw_column(table, position, folder / name, name) for position in range(len(table.columns))]
        columns[name] = TypedColumns(folder / name, table.columns, tuple(range(len(table.columns))),
                                     raw[0].group_rows)
    return columns


def dealt(folder: Path, frames: dict[str, pd.DataFrame], seed: int, n_batches: int) -> dict[str, np.ndarray]:
    dataset = Dataset.from_dict(SCHEMA, folder)
    columns = staged(folder, frames)
    for name in dataset.top_down():
        deal_table(dataset, name, columns, seed, n_batches, folder)
    return {name: np.load(dealt_file(folder, name)) for name in frames}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 7))
def test_every_child_is_in_its_parents_batch_and_a_child_without_one_in_some_batch(seed, n_patients, n_batches):
    frames = families(np.random.default_rng(seed), n_patients)
    with tempfile.TemporaryDirectory() as folder:
        batches = dealt(Path(folder), frames, seed, n_batches)
    patient_batch = dict(zip(frames["patients"].patient_id, batches["patients"], strict=True))
    stays = frames["stays"]
    placed = stays.patient_id.isin(patient_batch).to_numpy()
    assert (batches["stays"][placed] == stays.patient_id[placed].map(patient_batch).to_numpy()).all()
    stay_batch = dict(zip(stays.stay_id, batches["stays"], strict=True))
    assert (batches["prescriptions"] == frames["prescriptions"].stay_id.map(stay_batch).to_numpy()).all()
    assert all(((values >= 0) & (values < n_batches)).all() for values in batches.values())


@st.composite
def keys_and_foreign_keys(draw) -> tuple[pd.Series, pd.Series]:
    """A parent's unique keys (whole numbers, texts with leading zeros, whole numbers read as decimals) and its
    children's foreign keys, of the same type or read as texts: its keys, values no parent has, missing ones, keys
    written apart by spaces or zeros."""
    form = draw(st.sampled_from(["int", "text", "float"]))
    numbers = draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=20, unique=True))
    keys = pd.Series(numbers) if form == "int" else pd.Series([f"{n:07d}" for n in numbers]) if form == "text" \
        else pd.Series([float(n) for n in numbers])
    if draw(st.booleans()):  # the foreign key of the keys' type (a decimal where one is missing)
        foreign = draw(st.lists(st.sampled_from([*keys, keys.iloc[0] * 0 + (10**7 if form != "text" else "x"),
                                                 None]), max_size=40))
        return keys, pd.Series(foreign, dtype=float if form == "float" or None in foreign and form == "int"
                               else object)
    texts = [str(key) for key in keys] + ["x", f" {keys.iloc[0]} ", f"00{keys.iloc[0]}", "2.5"]
    return keys, pd.Series(draw(st.lists(st.one_of(st.none(), st.sampled_from(texts)), max_size=40)), dtype=object)


@settings(max_examples=200, deadline=None)
@given(keys_and_foreign_keys(), st.sampled_from(["minimum_distance", "time_series"]))
def test_parent_rows_in_arrow_are_the_rows_and_children_without_a_parent_of_the_tables_in_memory(drawn, method):
    keys, foreign = drawn
    link = Link(parent="p", key="key", child="c", foreign_key="fk", method=method)
    frames = {"p": pd.DataFrame({"key": keys}), "c": pd.DataFrame({"fk": foreign})}

    def arrow(frame: pd.DataFrame) -> pa.ChunkedArray:
        return pa.Table.from_pandas(frame, preserve_index=False).column(0)

    try:
        expected = parent_rows_of(link, frames), unparented_of(link, foreign, keys)
    except InputError as error:
        with pytest.raises(InputError, match=str(error)[:40]):
            parent_rows(link, arrow(frames["c"]), arrow(frames["p"]))
        return
    rows, unparented = parent_rows(link, arrow(frames["c"]), arrow(frames["p"]))
    assert rows.tolist() == expected[0].tolist()
    assert unparented == expected[1]


def test_the_rows_of_a_batch_are_read_as_the_file_is_and_one_batch_is_the_table(tmp_path):
    frames = families(np.random.default_rng(3), 30)
    columns = staged(tmp_path, frames)
    dataset = Dataset.from_dict(SCHEMA, tmp_path)
    for name in dataset.top_down():
        deal_table(dataset, name, columns, 5, 1, tmp_path)
        (tmp_path / f"{name}-batches").mkdir()
        stage_rows(columns[name], 0, np.load(dealt_file(tmp_path, name)), tmp_path / f"{name}-batches")
        pd.testing.assert_frame_equal(read_batch(columns[name], tmp_path / f"{name}-batches", 0),
                                      read_table(tmp_path / f"{name}.csv"))


def test_a_primary_key_repeated_across_the_table_is_refused_before_any_batch(tmp_path):
    frames = families(np.random.default_rng(1), 10)
    frames["stays"].loc[5, "stay_id"] = frames["stays"].stay_id[0]
    columns = staged(tmp_path, frames)
    dataset = Dataset.from_dict(SCHEMA, tmp_path)
    deal_table(dataset, "patients", columns, 1, 3, tmp_path)
    with pytest.raises(InputError, match="Table 'stays', column 'stay_id': the primary key repeats 1 values"):
        deal_table(dataset, "stays", columns, 1, 3, tmp_path)


def test_a_table_of_several_parents_is_refused_in_one_line():
    schema = {"tables": {"a": {"primary_key": "a_id"}, "b": {"primary_key": "b_id"}, "c": {}},
              "links": [{"parent": "a", "key": "a_id", "child": "c", "foreign_key": "a_id"},
                        {"parent": "b", "key": "b_id", "child": "c", "foreign_key": "b_id"}]}
    with pytest.raises(InputError, match=r"Table 'c' has several parents \(a, b\)"):
        check_family_tree(Dataset.from_dict(schema))


def test_batch_zero_draws_from_the_runs_seed_and_the_others_from_their_own():
    assert batch_seed(17, 0) == 17
    assert len({batch_seed(17, batch) for batch in range(1, 50)}) == 49 and batch_seed(17, 1) != batch_seed(18, 1)


def test_identifiers_are_numbered_after_the_batches_before_and_foreign_keys_follow_their_parent():
    dataset = Dataset.from_dict(SCHEMA)
    avatars = {"patients": pd.DataFrame({"patient_id": ["PAV1", "PAV2"], "age": [40, 50]}),
               "stays": pd.DataFrame({"stay_id": [101, 102, 103], "patient_id": ["PAV2", None, "PAV1"]}),
               "prescriptions": pd.DataFrame({"stay_id": [103, 101, 101], "dose": [1.0, 2.0, 3.0]})}
    forms = {("patients", "patient_id"): IdentifierForm("patient_id", numeric=False, prefix="PAV", digits=2),
             ("stays", "stay_id"): IdentifierForm("stay_id", numeric=True, start=1001)}
    made = renumbered(dataset, avatars, {"patients": ["patient_id"], "stays": ["stay_id"], "prescriptions": []},
                      forms, {"patients": 7, "stays": 20, "prescriptions": 0}, {"patients": 9, "stays": 30,
                                                                              "prescriptions": 10})
    # patients 8 and 9 of 9 (two digits), stays 21 to 23 after 1 000
    assert made["patients"].patient_id.tolist() == ["PAV08", "PAV09"]
    assert made["stays"].stay_id.tolist() == [1021, 1022, 1023]
    assert made["stays"].patient_id.tolist()[::2] == ["PAV09", "PAV08"] and pd.isna(made["stays"].patient_id[1])
    assert made["prescriptions"].stay_id.tolist() == [1023, 1021, 1021]
    assert made["patients"].age.tolist() == [40, 50] and avatars["stays"].stay_id.tolist() == [101, 102, 103]


@pytest.mark.parametrize(("values", "kind"), [
    ([1, 2, 3, 1, 2, 3, 1, 2, 3, 1], Kind.CATEGORICAL),  # whole numbers, few: codes
    ([1.5, 2.25, 3.0, 1.5, 2.0, 7.0, 1.5, 2.0, 3.0, 1.5], Kind.NUMERIC),
    (list(range(10)), None),  # a different value on every row: an identifier's, decided in each batch
    (["a", "b", "a", "b", "a", "b", "a", "b", "a", "b"], None),  # text: decided alike in every batch
    ([True, False] * 5, None),
])
def test_a_column_of_numbers_gets_its_kind_from_the_whole_table(values, kind):
    assert whole_kind(pd.Series(values)) is kind


def test_the_whole_tables_kinds_leave_the_described_and_named_columns_alone():
    schema = {**SCHEMA, "tables": {**SCHEMA["tables"], "stays": {
        "path": "stays.csv", "primary_key": "stay_id", "columns": {"days": {"kind": "numeric"}}}}}
    dataset = with_whole_kinds(Dataset.from_dict(schema), {
        "patients": {"age": Kind.CATEGORICAL}, "stays": {"days": Kind.CATEGORICAL, "patient_id": Kind.CATEGORICAL},
        "prescriptions": {"stay_id": Kind.CATEGORICAL, "dose": Kind.NUMERIC}})
    assert dataset.tables["patients"].column_kinds == {"age": "categorical"}
    assert dataset.tables["stays"].column_kinds == {"days": "numeric"}
    assert dataset.tables["prescriptions"].column_kinds == {"dose": "numeric"}


def test_an_infinite_value_is_refused_naming_the_files_row_not_a_batchs(tmp_path):
    frame = pd.DataFrame({"stay_id": range(10), "dose": [1.0] * 6 + [float("-inf")] + [2.0] * 3})
    frame.to_csv(tmp_path / "stays.csv", index=False)
    table = TableInput.open(str(tmp_path / "stays.csv"))
    with pytest.raises(InputError, match=r"^Table 'stays': Column 'dose' holds an infinite value \(-inf\) on data "
                                         r"row 7: replace it"):
        read_raw_column(table, 1, tmp_path, "Table 'stays'")
