import warnings

import numpy as np
import pandas as pd
import pytest

from core.dataset.relations.columns import FrameColumns
from core.engine.io import read_table
from core.engine.sources import TableInput, TypedColumns
from core.engine.table_typing import type_column
from core.errors import InputError

HOSTILE_CSV = (
    "id;poids;code;groupe;date;note\n"
    "1;72,5;01000;NA;2020-01-05;\"a; b\"\n"
    "2;NA;02100;EU;2020-02-05;\"line\nbreak\"\n"
    "3;80,25;75000;AS;;plain\n"
    "4;61;00042;EU;2021-12-31;plain\n"
)


def whole(table: TableInput) -> pd.DataFrame:
    return pd.DataFrame({name: table.read_column(name) for name in table.columns})


def test_a_csv_column_reads_as_read_table_reads_it(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(HOSTILE_CSV)
    table = TableInput.open(str(path))
    assert table.file_format == "csv" and table.columns == ("id", "poids", "code", "groupe", "date", "note")
    columns = whole(table)
    pd.testing.assert_frame_equal(columns, read_table(path))
    assert columns["code"].tolist() == ["01000", "02100", "75000", "00042"]
    assert columns["groupe"].notna().all()  # "NA" is a region code here, among "EU" and "AS"
    assert columns["poids"].isna().tolist() == [False, True, False, False]  # and a missing value there


def test_files_of_a_glob_follow_each_other_as_pandas_concatenates_them(tmp_path):
    (tmp_path / "a.csv").write_text("x,y\n1,a\n2,b\n")
    (tmp_path / "b.csv").write_text("x,y\n2.5,c\n,a\n")
    columns = whole(TableInput.open(str(tmp_path / "*.csv")))
    expected = pd.concat([read_table(tmp_path / "a.csv"), read_table(tmp_path / "b.csv")], ignore_index=True)
    pd.testing.assert_frame_equal(columns, expected)
    assert columns["x"].dtype == np.float64


def test_a_folder_of_parquet_files_keeps_their_categories_and_index(tmp_path):
    frame = pd.DataFrame({"kind": pd.Categorical(["a"] * 3 + ["b"] * 3 + ["c"] * 2), "value": np.arange(8.0)},
                         index=pd.Index(list("pqrstuvw"), name="person"))
    frame.iloc[:4].to_parquet(tmp_path / "part-0.parquet", row_group_size=3)
    frame.iloc[4:].to_parquet(tmp_path / "part-1.parquet", row_group_size=3)
    table = TableInput.open(str(tmp_path))
    assert table.file_format == "parquet" and table.columns == ("person", "kind", "value")
    columns = whole(table)
    expected = pd.concat([read_table(path) for path in table.files], ignore_index=True)
    pd.testing.assert_frame_equal(columns, expected)
    assert columns["person"].tolist() == list("pqrstuvw")


def test_inputs_that_cannot_be_read_in_batches_say_why(tmp_path):
    with pytest.raises(InputError, match="no such file or folder"):
        TableInput.open(str(tmp_path / "missing.csv"))
    with pytest.raises(InputError, match="no file matches"):
        TableInput.open(str(tmp_path / "*.csv"))
    with pytest.raises(InputError, match="holds no Parquet file"):
        TableInput.open(str(tmp_path))
    (tmp_path / "a.csv").write_text("x,y\n1,2\n")
    (tmp_path / "b.csv").write_text("x,z\n1,2\n")
    with pytest.raises(InputError, match="b.csv does not have the columns of .*a.csv"):
        TableInput.open(str(tmp_path / "*.csv"))
    pd.DataFrame({"x": [1]}).to_parquet(tmp_path / "c.parquet")
    with pytest.raises(InputError, match="mixes CSV and Parquet"):
        TableInput.open(str(tmp_path / "*"))
    (tmp_path / "d.xlsx").write_bytes(b"PK\x03\x04 not really a workbook")
    with pytest.raises(InputError, match="Excel workbook cannot be read in batches"):
        TableInput.open(str(tmp_path / "d.xlsx"))
    (tmp_path / "e.csv").write_text("x,y\n")
    with pytest.raises(InputError, match="header but no data rows"):
        TableInput.open(str(tmp_path / "e.csv")).read_column("x")


def test_csv_files_that_write_a_column_differently_give_its_text_as_written(tmp_path):
    (tmp_path / "a.csv").write_text("zip,age,flag\n01000,18,True\n75000,NA,False\n")
    (tmp_path / "b.csv").write_text("zip,age,flag\n13001,18y,1\n69002,40,0\n")
    columns = whole(TableInput.open(str(tmp_path / "*.csv")))
    assert columns["zip"].tolist() == ["01000", "75000", "13001", "69002"]  # the leading zero kept
    assert columns["age"].tolist()[2:] == ["18y", "40"] and columns["age"].tolist()[0] == "18"
    assert pd.isna(columns["age"].iloc[1])  # "NA" among text still means missing
    assert columns["flag"].tolist() == ["True", "False", "1", "0"]


def test_parquet_files_that_type_a_column_differently_are_refused_naming_them(tmp_path):
    when = pd.Series(pd.to_datetime(["2020-01-04 19:45", "2020-01-05 10:00"]))
    pd.DataFrame({"ts": when.dt.tz_localize("UTC"), "x": [1, 2]}).to_parquet(tmp_path / "p0.parquet")
    pd.DataFrame({"ts": when, "x": ["a", "b"]}).to_parquet(tmp_path / "p1.parquet")
    table = TableInput.open(str(tmp_path))
    with pytest.raises(InputError, match=r"column 'ts' holds datetime64\[\w+, UTC\] in p0.parquet and "
                                         r"datetime64\[\w+\] in p1.parquet: write it alike in every file"):
        table.read_column("ts")
    with pytest.raises(InputError, match="column 'x' holds int64 in p0.parquet and str in p1.parquet"):
        table.read_column("x")


def test_a_column_empty_in_one_file_takes_the_type_of_the_others(tmp_path):
    (tmp_path / "a.csv").write_text("x,n,when,flag\n,,,\n,,,\n")
    (tmp_path / "b.csv").write_text("x,n,when,flag\n")  # a header only
    (tmp_path / "c.csv").write_text("x,n,when,flag\n1.5,3,2024-01-02,True\n2.5,4,2024-01-03,False\n")
    columns = whole(TableInput.open(str(tmp_path / "*.csv")))
    assert columns["x"].dtype == np.float64 and columns["x"].tolist()[2:] == [1.5, 2.5]
    assert columns["n"].dtype == np.float64 and columns["n"].isna().sum() == 2  # as one file with empty cells
    assert pd.api.types.is_datetime64_any_dtype(columns["when"]) and columns["when"].isna().sum() == 2
    assert columns["flag"].tolist()[2:] == ["True", "False"] and columns["flag"].isna().sum() == 2


def test_a_file_named_like_a_pattern_is_the_file(tmp_path):
    (tmp_path / "data[1].csv").write_text("x\n1\n2\n3\n")
    (tmp_path / "data1.csv").write_text("x\n9\n")
    assert TableInput.open(str(tmp_path / "data[1].csv")).read_column("x").tolist() == [1, 2, 3]
    (tmp_path / "zero.csv").write_bytes(b"")
    with pytest.raises(InputError, match="zero.csv is empty"):
        TableInput.open(str(tmp_path / "zero.csv"))


def test_typed_columns_read_as_the_relations_read_a_frame(tmp_path):
    """A batch run's typed column files give the relations the sample, columns and counts the typed frame gives."""
    generator = np.random.default_rng(2)
    frame = pd.DataFrame({"code": generator.choice(["01", "02", "10"], 250), "amount": generator.normal(size=250),
                          "day": pd.Timestamp("2024-01-01") + pd.to_timedelta(generator.integers(0, 9, 250), "D")})
    frame.loc[::9, "amount"] = np.nan
    frame.to_parquet(tmp_path / "t.parquet")
    (tmp_path / "columns").mkdir()
    table = TableInput.open(str(tmp_path / "t.parquet"))
    typing = [type_column(table, position, None, tmp_path / "columns") for position in range(3)]
    columns = TypedColumns(tmp_path / "columns", tuple(frame.columns), (0, 1, 2), typing[0].group_rows)
    typed = FrameColumns(columns.whole(list(frame.columns)))
    positions = np.array([0, 7, 100, 249])
    assert columns.names == typed.names and columns.n_rows == typed.n_rows == 250
    pd.testing.assert_frame_equal(columns.sample(positions).reset_index(drop=True),
                                  typed.sample(positions).reset_index(drop=True))
    assert [columns.distinct(name) for name in frame.columns] == [3, frame["amount"].nunique(), frame["day"].nunique()]
    assert list(columns.whole(["day", "code"]).columns) == ["day", "code"]
    assert columns.whole(["code"])["code"].tolist() == frame["code"].tolist()  # codes with leading zeros as text


def test_times_keep_the_utc_offset_they_were_written_with_and_several_offsets_are_said(tmp_path):
    """Never silently: '+05:30' times were written '+0000' (the same instants, their offset lost)."""
    one = tmp_path / "one.csv"
    one.write_text("x,when\n1,2024-02-10 13:00:00+05:30\n2,2024-02-11 08:30:00+0530\n3,\n")
    for columns in (read_table(one), whole(TableInput.open(str(one)))):  # in memory and a column at a time alike
        assert str(columns["when"].dt.tz) == "UTC+05:30"
        assert columns["when"].iloc[0] == pd.Timestamp("2024-02-10 07:30:00", tz="UTC") and columns["when"].isna()[2]
        assert columns["when"].iloc[1].strftime("%H:%M%z") == "08:30+0530"
    hours = tmp_path / "hours.csv"  # +05 is +05:00, and Z is +00:00
    hours.write_text("x,when\n1,2024-02-10 13:00:00+05\n2,2024-02-11 08:30:00+05:00\n")
    assert str(read_table(hours)["when"].dt.tz) == "UTC+05:00"
    several = tmp_path / "paris.csv"
    several.write_text("x,when\n1,2024-01-10 13:00:00+01:00\n2,2024-07-10 13:00:00+02:00\n3,2024-07-11 13:00:00Z\n")
    for read in (lambda: read_table(several), lambda: whole(TableInput.open(str(several)))):
        with pytest.warns(UserWarning, match=r"paris.csv: column 'when' holds times at 3 UTC offsets \(\+00:00, "
                                             r"\+01:00, \+02:00\).* written in UTC"):
            columns = read()
        assert str(columns["when"].dt.tz) == "UTC" and columns["when"].iloc[1] == pd.Timestamp("2024-07-10 11:00Z")
    with_na = tmp_path / "na.csv"  # "NA" among them: they were text, then categorical codes
    with_na.write_text("x,when\n1,2024-02-10 13:00:00+05:30\n2,NA\n3,2024-02-11 08:30:00+05:30\n")
    for columns in (read_table(with_na), whole(TableInput.open(str(with_na)))):
        assert str(columns["when"].dt.tz) == "UTC+05:30" and columns["when"].isna().tolist() == [False, True, False]


def test_files_each_at_their_own_utc_offset_are_read_in_utc_and_said(tmp_path):
    """Winter in one file, summer in the other: a column of Timestamps of two zones (object), not times."""
    (tmp_path / "a.csv").write_text("x,when\n1,2024-01-10 13:00:00+01:00\n")
    (tmp_path / "b.csv").write_text("x,when\n2,2024-07-10 13:00:00+02:00\n")
    (tmp_path / "c.csv").write_text("x,when\n3,\n")  # a file without a time
    with pytest.warns(UserWarning, match=r"column 'when' holds times at 2 UTC offsets \(\+01:00, \+02:00\)"):
        when = TableInput.open(str(tmp_path / "*.csv")).read_column("when")
    assert str(when.dtype) == "datetime64[s, UTC]" and when.tolist()[:2] == [pd.Timestamp("2024-01-10 12:00Z"),
                                                                             pd.Timestamp("2024-07-10 11:00Z")]
    assert when.isna().tolist() == [False, False, True]


def test_minus_zero_is_utc_as_plus_zero_and_z_are(tmp_path):
    path = tmp_path / "utc.csv"
    path.write_text("x,when\n1,2024-02-10 13:00:00-00:00\n2,2024-02-10 14:00:00+00:00\n3,2024-02-10T15:00:00Z\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one offset: nothing said
        assert str(read_table(path)["when"].dt.tz) == "UTC"


def test_what_reading_says_is_gathered_by_each_thread_for_itself(tmp_path):
    """A dashboard session reads in its own thread: it never gathers what another session's reading said."""
    import threading

    from core.engine.io import gathering

    (tmp_path / "a.csv").write_text(" a ,x\n1,2\n")
    (tmp_path / "b.csv").write_text(" b ,x\n1,2\n")
    both, gathered = threading.Barrier(2), {}

    def read(name):
        with gathering() as said:
            both.wait()
            read_table(tmp_path / name)
            both.wait()
        gathered[name] = said

    threads = [threading.Thread(target=read, args=(name,)) for name in ("a.csv", "b.csv")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [len(gathered[name]) for name in ("a.csv", "b.csv")] == [1, 1]
    assert gathered["a.csv"][0].startswith("a.csv: ") and gathered["b.csv"][0].startswith("b.csv: ")
