import numpy as np
import pandas as pd
import pytest

from core.dataset import Kind
from core.engine.schema import (
    WarningKind,
    apply_kinds,
    column_warning_lines,
    detect_kind,
    profile_columns,
    resolve_kinds,
)
from core.errors import InputError


def test_detected_kinds():
    frame = pd.DataFrame({
        "n": [1, 2, 3],
        "f": [1.5, np.nan, 2.0],
        "s": ["a", "b", None],
        "b": [True, False, True],
        "d": pd.to_datetime(["2020-01-01", "2020-02-01", None]),
        "iso": ["2020-01-01", "2020-02-03", None],
        "eu": ["31/12/2020", "01/02/2021", "15/03/2021"],
        "codes": ["1-2", "x", "3"],
    })
    kinds = resolve_kinds(frame)
    assert kinds == {
        "n": Kind.CATEGORICAL,  # three whole values: codes (SPEC section 2 step 1, revised)
        "f": Kind.NUMERIC, "s": Kind.CATEGORICAL, "b": Kind.CATEGORICAL,
        "d": Kind.DATETIME, "iso": Kind.DATETIME, "eu": Kind.DATETIME, "codes": Kind.CATEGORICAL,
    }
    typed = apply_kinds(frame, kinds)
    assert typed["eu"].iloc[0] == pd.Timestamp("2020-12-31")
    assert typed["iso"].isna().tolist() == [False, False, True]


def test_overrides_convert_and_keep_values():
    frame = pd.DataFrame({"code": [1.0, 2.0, np.nan], "text_number": ["1.5", "2", None]})
    kinds = resolve_kinds(frame, {"code": "categorical", "text_number": "numeric"})
    typed = apply_kinds(frame, kinds)
    assert typed["code"].tolist()[:2] == [1, 2] and pd.isna(typed["code"].iloc[2])
    assert list(typed["code"].cat.categories) == [1, 2]
    assert typed["text_number"].tolist()[:2] == [1.5, 2.0]



def test_conversion_in_place_changes_the_given_frame_and_equals_a_copy():
    frame = pd.DataFrame({"code": [1.0, 2.0, np.nan], "text_number": ["1.5", "2", None], "day": ["2024-01-02"] * 3})
    kinds = resolve_kinds(frame, {"code": "categorical", "text_number": "numeric"})
    copied = apply_kinds(frame, kinds)
    assert frame["text_number"].dtype != "float64"  # the copy left the frame alone
    converted = apply_kinds(frame, kinds, in_place=True)
    assert converted is frame
    pd.testing.assert_frame_equal(frame, copied)

@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"nope": "numeric"}, "column_kinds names column 'nope', which is not in the table"),
        ({"s": "text"}, r"column_kinds\['s'\] must be one of 'numeric', 'categorical', 'datetime', got 'text'"),
    ],
)
def test_bad_overrides(overrides, message):
    with pytest.raises(InputError, match=message):
        resolve_kinds(pd.DataFrame({"s": ["a"]}), overrides)


def test_unconvertible_override_names_column_and_value():
    frame = pd.DataFrame({"s": ["1", "abc"]})
    with pytest.raises(InputError, match="Column 's' cannot be numeric: 'abc' is not a number"):
        apply_kinds(frame, resolve_kinds(frame, {"s": "numeric"}))
    with pytest.raises(InputError, match="Column 's' cannot be read as dates"):
        apply_kinds(frame, resolve_kinds(frame, {"s": "datetime"}))


def warning_kinds(frame):
    kinds = resolve_kinds(frame)
    return {p.name: [w.kind for w in p.warnings] for p in profile_columns(apply_kinds(frame, kinds), kinds)}


def test_warnings():
    n = 60
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "patient_id": np.arange(1000, 1000 + n),
        "code": [f"C{i}" for i in range(n)],
        "constant": ["same"] * n,
        "flag": rng.integers(0, 2, n),
        "free_text": [f"t{i % 40}" for i in range(n)],
        "measure": rng.normal(size=n),
        "empty": [None] * n,
    })
    found = warning_kinds(frame)
    assert found["patient_id"] == [WarningKind.IDENTIFIER]
    assert found["code"] == [WarningKind.IDENTIFIER]
    assert found["constant"] == [WarningKind.CONSTANT]
    assert found["flag"] == [WarningKind.CODES]  # categorical by default: said, with the reason
    assert found["free_text"] == [WarningKind.MANY_MODALITIES]
    assert found["measure"] == []
    assert found["empty"] == [WarningKind.EMPTY]


def test_unsorted_unique_integers_are_not_identifiers_without_an_id_name():
    values = np.random.default_rng(1).permutation(100)
    assert warning_kinds(pd.DataFrame({"income": values}))["income"] == []
    assert warning_kinds(pd.DataFrame({"record_id": values}))["record_id"] == [WarningKind.IDENTIFIER]


def test_warning_lines_merge_the_notes_on_code_columns():
    frame = pd.DataFrame({"a": [0, 1] * 15, "b": [1, 2, 3] * 10, "c": list(range(30))})
    kinds = resolve_kinds(frame)
    lines = column_warning_lines(profile_columns(apply_kinds(frame, kinds), kinds))
    assert lines == [
        "'c' looks like an identifier (a different value on almost every row): it takes no part in the synthesis "
        "and the avatars get new identifiers of the same form. Drop it to leave it out, or give it a kind to "
        "synthesise it on purpose.",
        "'a', 'b' hold at most 10 different whole values: taken as categorical codes, so the avatars keep exactly "
        "those values. If one is a quantity to average instead, set its kind to numeric.",
    ]
    numeric = {"a": Kind.NUMERIC, "b": Kind.NUMERIC, "c": Kind.NUMERIC}  # the user's choice: nothing to say
    assert len(column_warning_lines(profile_columns(apply_kinds(frame, numeric), numeric), {"a": "numeric",
                                                                                             "b": "numeric"})) == 1


@pytest.mark.parametrize(("values", "kind"), [
    ([70, 80, 90, 100] * 10, Kind.CATEGORICAL),  # a score: codes
    ([4.0, 6.0, 8.0, None] * 10, Kind.CATEGORICAL),  # cylinders, with a missing value (read as floats)
    (list(range(11)) * 4, Kind.NUMERIC),  # eleven whole values: a quantity
    ([0.5, 1.0, 1.5] * 10, Kind.NUMERIC),  # not whole
])
def test_whole_numbers_with_at_most_ten_values_are_codes(values, kind):
    assert detect_kind(pd.Series(values)) is kind


def test_warning_lines_leave_out_what_is_already_done():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "id": [f"P{i:03d}" for i in range(60)], "code": [1, 2] * 30, "site": [f"s{i % 40}" for i in range(60)],
        "x": rng.normal(size=60),
    })
    kinds = resolve_kinds(frame)
    profiles = profile_columns(apply_kinds(frame, kinds), kinds)
    everything = column_warning_lines(profiles)
    assert [line.split("'")[1] for line in everything] == ["id", "site", "code"]
    assert column_warning_lines(profiles, dropped=["id", "site", "code"]) == []
    # an excluded column is re-attached as it is: an identifier must still be dropped, the rest no longer matters
    assert [line.split("'")[1] for line in column_warning_lines(profiles, excluded=["id", "site", "code"])] == ["id"]
    assert [line.split("'")[1] for line in column_warning_lines(profiles, reduced=True)] == ["id", "code"]
    assert [line.split("'")[1] for line in column_warning_lines(profiles, {"code": "numeric"})] == ["id", "site"]


def test_detect_kind_on_object_timestamps():
    column = pd.Series([pd.Timestamp("2020-01-01"), None], dtype=object)
    assert detect_kind(column) is Kind.DATETIME


def test_numbers_with_a_few_non_numbers_say_which_values_keep_them_text():
    values = ["-" if i % 10 == 0 else "<5" if i % 13 == 0 else str(i) for i in range(60)]
    frame = pd.DataFrame({"count": values, "label": [f"x{i % 7}" for i in range(60)]})
    lines = column_warning_lines(profile_columns(frame, resolve_kinds(frame)))
    assert lines[0] == ("'count' is read as text because 10 of its values are not numbers ('-', '<5'): its other "
                        "values are numbers. Correct those values or leave them empty, then make it numeric.")
    assert not any("'label'" in line for line in lines)  # text is text


def test_durations_are_quantities_whether_typed_or_written_by_pandas():
    typed = pd.Series(pd.to_timedelta([1, 30, 7], unit="h"))
    written = pd.Series(["1 days 02:00:00", "0 days 00:30:00.500000", None, "-1 days +23:00:00"])
    assert detect_kind(typed) is Kind.NUMERIC and detect_kind(written) is Kind.NUMERIC
    assert detect_kind(pd.Series(["12:30:00", "08:00:00"])) is Kind.CATEGORICAL  # times of day are not durations
    converted = apply_kinds(pd.DataFrame({"stay": written}), {"stay": Kind.NUMERIC})["stay"]
    assert converted.tolist()[:2] == [pd.Timedelta(hours=26), pd.Timedelta(minutes=30, milliseconds=500)]
    assert converted.isna().tolist() == [False, False, True, False] and converted.iloc[3] == pd.Timedelta(hours=-1)


def test_a_text_column_different_on_every_row_is_an_identifier_even_in_a_small_table():
    frame = pd.DataFrame({"mail": [f"person{i}@example.org" for i in range(8)], "x": np.arange(8.0)})
    profiles = {p.name: p for p in profile_columns(frame, resolve_kinds(frame))}
    assert [w.kind for w in profiles["mail"].warnings] == [WarningKind.IDENTIFIER]
    small = frame.iloc[:4]  # four rows: too few to call anything an identifier
    assert not {p.name: p for p in profile_columns(small, resolve_kinds(small))}["mail"].warnings


def test_dates_written_in_several_formats_are_said_and_never_made_identifiers():
    """``01/05/2011`` beside ``2011-05-01``, a different date on every row: replaced by new identifiers before."""
    from core.engine.schema import WarningKind, profile_columns, resolve_kinds

    dates = pd.Timestamp("2011-01-01") + pd.to_timedelta(np.arange(300) * 3, unit="D")
    frame = pd.DataFrame({"when": [d.strftime("%d/%m/%Y") if i % 3 == 0 else d.strftime("%Y-%m-%d")
                                   for i, d in enumerate(dates)]})
    kinds = resolve_kinds(frame)
    (profile,) = profile_columns(apply_kinds(frame, kinds), kinds)
    assert [warning.kind for warning in profile.warnings] == [WarningKind.MIXED_DATES]
    assert profile.warnings[0].message.startswith("'when' holds dates written in several formats (01/01/2011, "
                                                  "2011-01-04): read as text, never replaced by new identifiers.")


def test_an_identifier_repeated_on_a_persons_rows_is_an_identifier_and_a_postcode_is_not():
    """300 patients x 2 visits: at 50 % distinct, the 95 % rule took the ids for categories (issue 28)."""
    ids = np.repeat(np.arange(1000, 1300), 2)
    frame = pd.DataFrame({
        "patient_id": ids, "code": [f"P{i:05d}" for i in ids], "email": [f"u{i}@x.org" for i in ids],
        "zip": [f"{75000 + i % 250:05d}" for i in ids],  # digits on few rows each, not named like an id
        "visit": np.tile([1, 2], 300), "rownames": np.random.default_rng(0).permutation(600) + 1,
        "crowd_id": np.repeat(np.arange(100), 6),  # six rows per value: a group, not a person
    })
    profiles = {p.name: p for p in profile_columns(frame, resolve_kinds(frame, {}))}
    identifiers = {name for name, p in profiles.items() if any(w.kind is WarningKind.IDENTIFIER for w in p.warnings)}
    assert identifiers == {"patient_id", "code", "email", "rownames"}
    warning = next(w for w in profiles["email"].warnings if w.kind is WarningKind.IDENTIFIER)
    assert warning.count == 2 and "repeated on a person's rows (many values, each on few rows, 2 at most)" in \
        warning.message


def test_ids_drawn_at_random_are_identifiers_though_some_land_on_many_rows():
    # 400 000 ids for a million rows put up to 12 rows on some: all 367 000 were copied into the avatars (issue 28)
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 8_000, 20_000)
    frame = pd.DataFrame({"pid": [f"P{i:07d}" for i in ids], "ward": [f"W{i % 40:03d}" for i in ids]})
    profiles = {p.name: p for p in profile_columns(frame, resolve_kinds(frame, {}))}
    warning = next(w for w in profiles["pid"].warnings if w.kind is WarningKind.IDENTIFIER)
    assert warning.count == np.bincount(ids).max() > 5
    assert not any(w.kind is WarningKind.IDENTIFIER for w in profiles["ward"].warnings)  # 40 wards: a category


def test_times_with_their_utc_offset_apart_by_a_space_are_times_in_that_offset():
    """'2024-01-01 10:00:00 +05:30' was text, then categorical codes: a time column changed silently."""
    column = pd.Series(["2024-01-01 10:00:00 +05:30", "2024-01-02 11:30:00 +0530", None], name="when")
    kinds = resolve_kinds(column.to_frame())
    assert kinds["when"] is Kind.DATETIME
    typed = apply_kinds(column.to_frame(), kinds)["when"]
    assert str(typed.dt.tz) == "UTC+05:30" and typed.iloc[1] == pd.Timestamp("2024-01-02 06:00Z")
