"""The rules on the data (SPEC 12): named columns present, primary keys unique and never missing, children
without a parent counted; and the keys and links the data suggest."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.dataset import Dataset, Link
from core.dataset.keys import (
    check_keys,
    key_texts,
    key_values,
    primary_key_candidates,
    proposed_links,
    proposed_primary_keys,
)
from core.errors import InputError

SCHEMA = {"tables": {"patients": {"primary_key": "patient_id"}, "stays": {"primary_key": "stay_id"}},
          "links": [{"parent": "patients", "key": "patient_id", "child": "stays", "foreign_key": "patient_id"}]}


def _frames(patients=None, stays=None):
    return {"patients": pd.DataFrame({"patient_id": [1, 2, 3], "age": [40, 50, 60]}) if patients is None else patients,
            "stays": pd.DataFrame({"stay_id": ["S1", "S2", "S3", "S4", "S5"],
                                   "patient_id": [1.0, 1.0, 3.0, np.nan, 9.0]}) if stays is None else stays}


def test_children_without_a_parent_are_counted_missing_and_orphans_apart():
    (unparented,) = check_keys(Dataset.from_dict(SCHEMA), _frames())
    assert (unparented.missing, unparented.orphans, unparented.rows, unparented.count) == (1, 1, 5, 2)
    assert unparented.message.startswith("Table 'stays', column 'patient_id': 2 of 5 rows (40.0 %) have no "
                                         "'patients' (1 missing, 1 whose value no 'patients' row has)")


def test_every_foreign_key_resolving_says_nothing():
    stays = pd.DataFrame({"stay_id": ["S1", "S2"], "patient_id": [3, 1]})
    assert check_keys(Dataset.from_dict(SCHEMA), _frames(stays=stays)) == []


@pytest.mark.parametrize("patients, stays, expected", [
    (pd.DataFrame({"patient_id": [1, 1, 2]}), None,
     "Table 'patients', column 'patient_id': the primary key repeats 1 values (1); a primary key is unique"),
    (pd.DataFrame({"patient_id": [1, None, 2]}), None,
     "Table 'patients', column 'patient_id': the primary key is missing on 1 row; a primary key is never missing"),
    (pd.DataFrame({"id": [1, 2]}), None, "Table 'patients', column 'patient_id' (primary_key): the table has no "
                                         "such column"),
    (None, pd.DataFrame({"stay_id": ["S1"], "patient": [1]}),
     "Table 'stays', column 'patient_id' (the foreign key of the link from 'patients'): the table has no such column"),
])
def test_a_key_broken_in_the_data_is_refused_in_one_line(patients, stays, expected):
    with pytest.raises(InputError) as refused:
        check_keys(Dataset.from_dict(SCHEMA), _frames(patients, stays))
    assert str(refused.value).startswith(expected) and "\n" not in str(refused.value)


def test_key_values_compare_whole_numbers_read_as_decimals_with_their_whole_numbers():
    assert list(key_values(pd.Series([1.0, 12.0]))) == ["1", "12"]
    assert list(key_values(pd.Series([1.5]))) == ["1.5"]
    # value by value: one decimal that is not whole leaves the others whole (a batch holding only 12.0 says the same)
    assert list(key_values(pd.Series([12.0, 3.5, np.nan]))) == ["12", "3.5", pd.NA]
    assert list(key_values(pd.Series(["007", "P1"]))) == ["007", "P1"]  # codes keep their leading zeros


KEY_COLUMNS = st.one_of(
    st.lists(st.integers(-2**62, 2**62), max_size=30).map(lambda values: pd.Series(values, dtype="int64")),
    st.lists(st.one_of(st.none(), st.integers(-2**40, 2**40).map(float)), max_size=30).map(
        lambda values: pd.Series(values, dtype="float64")),
    st.lists(st.one_of(st.none(), st.floats(-2**53, 2**53)), max_size=30).map(  # beyond: refused (check_exact_keys)
        lambda values: pd.Series(values, dtype="float64")),
    st.lists(st.one_of(st.none(), st.text(max_size=6)), max_size=30).map(lambda values: pd.Series(values, dtype=object)),
    st.lists(st.one_of(st.none(), st.booleans()), max_size=30).map(lambda values: pd.Series(values, dtype=object)),
    st.lists(st.datetimes(), max_size=30).map(lambda values: pd.Series(pd.to_datetime(values))),
)


@settings(max_examples=200, deadline=None)
@given(KEY_COLUMNS, st.integers(1, 7))
def test_key_texts_in_arrow_are_key_values(column, chunk_rows):
    """The Arrow fast path of the key rule, read in chunks as a batch run's column file is, writes each key as
    :func:`key_values` does."""
    table = pa.Table.from_pandas(column.to_frame("key"), preserve_index=False)
    chunked = pa.chunked_array(table.column("key").chunks[0].slice(start, chunk_rows) if table.num_rows else
                               table.column("key").chunks[0] for start in range(0, max(table.num_rows, 1), chunk_rows))
    assert key_texts(chunked).to_pylist() == \
        [None if value is pd.NA else value for value in key_values(column).tolist()]


def test_primary_keys_and_links_are_proposed_from_names_and_values():
    frames = _frames(stays=pd.DataFrame({"stay_id": ["S1", "S2", "S3"], "patient_id": [1, 2, 2],
                                         "ward_id": [1, 1, 2]}))
    assert primary_key_candidates(frames["patients"]) == ["patient_id"]
    assert primary_key_candidates(frames["stays"]) == ["stay_id"]
    assert proposed_links(frames, {"patients": "patient_id"}) == [Link("patients", "patient_id", "stays",
                                                                       "patient_id")]
    frames["stays"]["patient_id"] = [1, 7, 8]  # a third of the values among the parent's: no link proposed
    assert proposed_links(frames, {"patients": "patient_id"}) == []


def test_whole_number_keys_too_large_for_a_decimal_are_refused():
    # a child's column of keys with an empty cell is read as decimals: 2^53 + 1 becomes 2^53 + 2, another parent
    dataset = Dataset.from_dict({"tables": {"p": {"primary_key": "id"}, "c": {}},
                                 "links": [{"parent": "p", "key": "id", "child": "c", "foreign_key": "p"}]})
    frames = {"p": pd.DataFrame({"id": [2**53 + 1, 2**53 + 2]}),
              "c": pd.DataFrame({"p": [float(2**53 + 2), None]})}
    with pytest.raises(InputError, match="^Table 'c', column 'p': its keys are whole numbers read as decimals"):
        check_keys(dataset, frames)


def test_a_person_named_without_id_is_proposed_when_another_table_names_it_too():
    cows = pd.DataFrame({"Cow": ["B01", "B02", "L01"], "Diet": ["barley", "barley", "lupins"]})
    milk = pd.DataFrame({"Cow": ["B01", "B01", "B02", "L01"], "Time": [1, 2, 1, 1], "protein": [3.6, 3.5, 3.2, 3.4]})
    keys = proposed_primary_keys({"cows": cows, "milk": milk})
    assert keys == {"cows": "Cow", "milk": None}  # milk's Cow repeats; Time is not named in another table
    assert [(link.parent, link.child, link.foreign_key) for link in proposed_links(
        {"cows": cows, "milk": milk}, {"cows": "Cow"})] == [("cows", "milk", "Cow")]
    named = pd.DataFrame({"cow_id": ["B01"], "Cow": ["B01"]})
    assert proposed_primary_keys({"cows": named, "milk": milk})["cows"] == "cow_id"  # a name saying id first


def test_a_key_written_apart_by_spaces_or_the_leading_zeros_of_its_number_is_found():
    from core.dataset.keys import written_apart

    assert written_apart(pd.Series(["X", "P052"]), pd.Series(["P1", "P52"])) == ("P052", "P52")  # zeros after letters
    assert written_apart(pd.Series(["00007"]), pd.Series([7, 8])) == ("00007", "7")
    assert written_apart(pd.Series([" P1001 "]), pd.Series(["P1001"])) == (" P1001 ", "P1001")
    assert written_apart(pd.Series(["000"]), pd.Series(["0"])) == ("000", "0")
    assert written_apart(pd.Series(["P10", "1.05"]), pd.Series(["P1", "1.5"])) is None  # other keys, not zeros apart
