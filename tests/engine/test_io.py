import io

import numpy as np
import pandas as pd
import pytest

from core.engine.io import (
    csv_bytes,
    csv_writer,
    read_table,
    read_workbook,
    together,
    write_csv,
    write_json,
    write_table,
)
from core.errors import InputError
from tests.support import excel_zip_bomb


def write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_semicolon_delimiter_and_decimal_comma(tmp_path):
    path = write(tmp_path, "t.csv", "poids;ville\n72,5;Lyon\n80,25;Brest\n".encode())
    frame = read_table(path)
    assert list(frame.columns) == ["poids", "ville"]
    assert frame["poids"].tolist() == [72.5, 80.25]


def test_tab_delimiter_with_quoted_commas(tmp_path):
    path = write(tmp_path, "t.tsv", b'a\tb\n"x, y"\t1.5\nz\t2\n')
    frame = read_table(path)
    assert frame["a"].tolist() == ["x, y", "z"]
    assert frame["b"].tolist() == [1.5, 2.0]


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1", "utf-16", "utf-8-sig"])
def test_other_encodings(tmp_path, encoding):
    path = write(tmp_path, "t.csv", "nom,âge\nHélène,30\nJérôme,41\n".encode(encoding))
    frame = read_table(path)
    assert list(frame.columns) == ["nom", "âge"]
    assert frame["nom"].tolist() == ["Hélène", "Jérôme"]


def test_missing_value_markers(tmp_path):
    frame = read_table(write(tmp_path, "t.csv", b"x,y\n1,NA\n,b\n3,\n"))
    assert frame["x"].isna().tolist() == [False, True, False]
    assert frame["y"].isna().tolist() == [True, False, True]


def test_empty_header_cell_is_named_and_spaces_around_a_name_removed_each_said(tmp_path):
    with pytest.warns(UserWarning, match=r"t.csv: column names changed .*: '' -> 'column_1' and ' y ' -> 'y'\."):
        frame = read_table(write(tmp_path, "t.csv", b", y ,x\n0,1,2\n1,2,3\n"))
    assert list(frame.columns) == ["column_1", "y", "x"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "t.csv is empty"),
        (b"  \n\n", "t.csv is empty"),
        (b"a,b\n", "t.csv has a header but no data rows"),
        (b"\x00\x01\x02garbage\xff" * 20, "t.csv is not a text table"),
        (b"a,b,a\n1,2,3\n", "t.csv has two columns named 'a'"),
        (b"a,b\n1,2\n3\n", "t.csv could not be read as a table: a row has 1 field where the header has 2"),
    ],
)
def test_bad_files_name_the_file_and_the_fix(tmp_path, content, expected):
    with pytest.raises(InputError, match=expected):
        read_table(write(tmp_path, "t.csv", content))


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="nope.csv: no such file"):
        read_table(tmp_path / "nope.csv")


def test_excel_and_parquet_recognised_by_content(tmp_path):
    frame = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None], "c": [0.5, np.nan, 1.5]})
    excel = tmp_path / "table.xlsx"
    frame.to_excel(excel, index=False)
    parquet = tmp_path / "table.parquet"
    frame.to_parquet(parquet)
    disguised = write(tmp_path, "really_excel.csv", excel.read_bytes())
    for path in (excel, parquet, disguised):
        loaded = read_table(path)
        assert loaded["a"].tolist() == [1, 2, 3]
        assert loaded["b"].tolist()[:2] == ["x", "y"] and pd.isna(loaded["b"].iloc[2])
        assert pd.isna(loaded["c"].iloc[1])


def test_excel_duplicate_columns_refused(tmp_path):
    path = tmp_path / "dup.xlsx"
    pd.DataFrame([["a", "a"], [1, 2]]).to_excel(path, index=False, header=False)
    with pytest.raises(InputError, match="dup.xlsx has two columns named 'a'"):
        read_table(path)


def test_an_excel_zip_bomb_is_refused_from_its_directory_before_parsing(tmp_path):
    # 11 million rows in 0.3 MB: parsed, the server passed 4.8 GB and took minutes (issue 28, item 3)
    bomb = excel_zip_bomb(tmp_path / "bomb.xlsx")
    assert bomb.stat().st_size < 2**20
    with pytest.raises(InputError, match=r"^bomb.xlsx expands to 2\d\d MB of spreadsheet data, more than the 256 MB "
                                         r"\(about 5 million cells\) read from an Excel workbook: save the table as "
                                         r"CSV or Parquet"):
        read_table(bomb)
    small = excel_zip_bomb(tmp_path / "small.xlsx", rows=80_000)  # the same form, small: a table read as any
    assert read_table(small).shape == (80_000, 1)


def test_damaged_excel(tmp_path):
    with pytest.raises(InputError, match="bad.xlsx could not be read as an Excel workbook"):
        read_table(write(tmp_path, "bad.xlsx", b"PK\x03\x04" + b"\x00junk" * 50))


def test_file_object_with_name():
    frame = read_table(io.BytesIO(b"x;y\n1;2\n"), file_name="upload.csv")
    assert frame.shape == (1, 2)
    with pytest.raises(InputError, match="upload.csv is empty"):
        read_table(io.BytesIO(b""), file_name="upload.csv")


def test_write_csv_round_trip_and_formats(tmp_path):
    frame = pd.DataFrame({
        "int": pd.array([1, None, 3], dtype="Int64"),
        "float": [0.5, np.nan, 2.25],
        "day": pd.to_datetime(["2024-01-02", None, "2024-03-04"]),
        "moment": pd.to_datetime(["2024-01-02 10:30:00", "2024-01-02 11:00:05", None]),
        "text": ["a, b", None, 'say "hi"'],
    })
    path = tmp_path / "out.csv"
    write_csv(frame, path)
    text = path.read_text()
    assert text.splitlines()[1] == '1,0.5,2024-01-02,2024-01-02 10:30:00,"a, b"'
    loaded = read_table(path)
    assert loaded["int"].tolist()[::2] == [1, 3]
    assert loaded["text"].tolist()[0] == "a, b" and loaded["text"].tolist()[2] == 'say "hi"'
    assert not list(tmp_path.glob("*.partial"))


def test_write_csv_refuses_missing_folder_and_leaves_nothing(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        write_csv(pd.DataFrame({"a": [1]}), tmp_path / "no" / "out.csv")
    assert not list(tmp_path.rglob("*"))


def test_csv_without_special_characters_is_not_quoted():
    text = csv_bytes(pd.DataFrame({"a b": [1, 2], "c": ["x", None]})).decode()
    assert text == "a b,c\n1,x\n2,\n"


def test_csv_bytes_is_deterministic():
    frame = pd.DataFrame({"a": [1.0, 2.5], "b": ["x", "y"]})
    assert csv_bytes(frame) == csv_bytes(frame.copy())


def test_csv_written_by_blocks_equals_one_block_and_decides_formats_on_whole_columns(monkeypatch):
    # The second block alone would write "moment" as dates and "text" unquoted: the whole column decides.
    frame = pd.DataFrame({
        "moment": pd.to_datetime(["2024-01-02", "2024-01-03", "2024-01-04 10:30:00"], format="ISO8601"),
        "text": ["a, b", "c", "d"],
        "group": pd.Categorical(["x", None, "y"]),
        "count": pd.array([1, None, 3], dtype="Int64"),
    })
    whole = csv_bytes(frame)
    monkeypatch.setattr(csv_writer, "WRITE_ROWS", 1)
    assert csv_bytes(frame) == whole
    assert whole.decode().splitlines() == [
        "moment,text,group,count",
        '2024-01-02 00:00:00,"a, b","x",1',
        '2024-01-03 00:00:00,"c",,',
        '2024-01-04 10:30:00,"d","y",3',
    ]


def test_a_path_and_its_bytes_read_alike(tmp_path):
    content = "nom;poids;jour\nHélène;72,5;2024-01-02\nJérôme;;2024-01-03\n".encode("cp1252")
    from_path = read_table(write(tmp_path, "t.csv", content))
    from_upload = read_table(io.BytesIO(content), file_name="t.csv")
    pd.testing.assert_frame_equal(from_path, from_upload)
    assert from_path["nom"].tolist() == ["Hélène", "Jérôme"]


@pytest.mark.parametrize("name, content, expected", [
    ("broken.parquet", bytes(range(256)) * 8, "broken.parquet is not a valid Parquet file"),  # no magic at all
    ("cut.parquet", b"PAR1" + b"\x00\x01" * 100, "cut.parquet is not a valid Parquet file"),  # magic, no footer
    ("broken.xlsx", bytes(range(256)) * 8, "broken.xlsx could not be read as an Excel workbook"),
])
def test_a_damaged_parquet_or_excel_file_is_named_as_such(tmp_path, name, content, expected):
    with pytest.raises(InputError, match=expected):
        read_table(write(tmp_path, name, content))


def test_true_and_false_are_written_back_as_they_were_spelt(tmp_path):
    text = "flag,low,x\nTrue,true,1\nFalse,false,2\nTrue,true,3\n"
    loaded = read_table(write(tmp_path, "flags.csv", text.encode()))
    assert loaded["flag"].tolist() == ["True", "False", "True"] and loaded["low"].tolist()[0] == "true"
    assert csv_bytes(loaded).decode() == text
    booleans = pd.DataFrame({"b": pd.array([True, None, False], dtype="boolean"), "c": [True, False, True]})
    assert csv_bytes(booleans).decode() == "b,c\nTrue,True\n,False\nFalse,True\n"  # Parquet's booleans, as pandas


def test_codes_with_leading_zeros_and_na_spellings_are_read_faithfully(tmp_path):
    text = ("zip,region,amount,day,sex\n01000,EU,1.5,2020-01-01,M\n75001,NA,NA,NA,NA\n"
            "02100,AS,2.5,2021-02-02,F\n")
    loaded = read_table(write(tmp_path, "codes.csv", text.encode()))
    assert loaded["zip"].tolist() == ["01000", "75001", "02100"]  # the zero kept
    assert loaded["region"].tolist() == ["EU", "NA", "AS"]  # a region code, written like the others
    assert pd.isna(loaded["amount"].iloc[1]) and loaded["amount"].dtype == float  # R's NA in a numeric column
    assert pd.isna(loaded["day"].iloc[1]) and pd.api.types.is_datetime64_any_dtype(loaded["day"])
    assert pd.isna(loaded["sex"].iloc[1])  # "NA" is not written like "M" and "F": missing
    assert csv_bytes(loaded).decode().splitlines()[1].startswith("01000,EU,1.5,2020-01-01")


def test_parquet_index_decimals_and_nested_values(tmp_path):
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    indexed = tmp_path / "indexed.parquet"
    pd.DataFrame({"x": [1.5, 2.5]}, index=pd.Index(["a", "b"], name="key")).to_parquet(indexed)
    assert read_table(indexed).to_dict("list") == {"key": ["a", "b"], "x": [1.5, 2.5]}  # the index is data
    amounts = pa.array([decimal.Decimal("1.25"), decimal.Decimal("2.50")], pa.decimal128(10, 2))
    pq.write_table(pa.table({"amount": amounts}), tmp_path / "decimals.parquet")
    assert read_table(tmp_path / "decimals.parquet")["amount"].tolist() == [1.25, 2.5]  # numbers, not categories
    pq.write_table(pa.table({"amount": amounts, "tags": pa.array([[1], [2, 3]])}), tmp_path / "nested.parquet")
    with pytest.raises(InputError, match="column 'tags' holds lists or structures"):
        read_table(tmp_path / "nested.parquet")


def test_text_mode_files_empty_first_sheets_and_title_lines(tmp_path):
    path = write(tmp_path, "t.csv", b"a,b\n1.5,x\n2.5,y\n")
    with open(path) as text_mode:
        assert read_table(text_mode, file_name="t.csv").shape == (2, 2)
    workbook = tmp_path / "w.xlsx"
    with pd.ExcelWriter(workbook) as writer:
        pd.DataFrame().to_excel(writer, sheet_name="cover")
        pd.DataFrame([["Clinic export, 2024", None], ["a", "b"], [1.5, "x"], [2.5, "y"]]).to_excel(
            writer, sheet_name="data", header=False, index=False)
    assert read_table(workbook).to_dict("list") == {"a": [1.5, 2.5], "b": ["x", "y"]}


def test_a_dotted_column_in_a_file_of_decimal_commas(tmp_path):
    loaded = read_table(write(tmp_path, "m.csv", "a;b;c\n1,5;2.25;x\n2,5;3.5;y\n3,75;1.0;z\n".encode()))
    assert loaded["a"].tolist() == [1.5, 2.5, 3.75] and loaded["b"].tolist() == [2.25, 3.5, 1.0]


def test_durations_are_written_as_pandas_writes_them_and_read_back_as_durations(tmp_path):
    stays = pd.Series(pd.to_timedelta([3_600, -3_600, 90_061.25, None, 400 * 86_400], unit="s"))
    assert csv_writer.duration_text(stays).to_pylist() == [
        "0 days 01:00:00", "-1 days 23:00:00", "1 days 01:01:01.250000", None, "400 days 00:00:00"]
    path = tmp_path / "stays.csv"
    write_csv(pd.DataFrame({"stay": stays, "ward": list("abcde")}), path)
    read = read_table(path)["stay"]
    pd.testing.assert_series_equal(pd.to_timedelta(read), stays.astype("timedelta64[us]"), check_names=False)  # the text pandas parses, missing where it was missing


@pytest.mark.parametrize("values", [[1.0, np.nan, 3.0], ["a", None, "b,c"], pd.to_datetime(["2024-01-01", None, "2024-02-01"])])
def test_a_one_column_table_with_a_missing_value_keeps_that_row(tmp_path, values):
    """An empty field alone on its line is a blank line, which CSV readers skip: the row was lost."""
    path = tmp_path / "one.csv"
    write_csv(pd.DataFrame({"x": values}), path)
    read = read_table(path)["x"]
    assert len(read) == 3 and read.isna().tolist() == [False, True, False]


def test_a_quoted_header_name_with_a_line_break_is_one_name(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text('"two\nlines";x\n1,5;a\n2,5;b\n')
    table = read_table(path)
    assert list(table.columns) == ["two\nlines", "x"] and table["two\nlines"].tolist() == [1.5, 2.5]


def test_numbers_written_with_thousands_separators_are_read_as_numbers(tmp_path):
    """``1,972`` and ``10,608`` were read as text, judged identifier-like and replaced (issue 27)."""
    grouped = read_table(write(tmp_path, "t.csv", b'amount,name\n"1,972",a\n"10,608",b\n950,c\n"1,000,000.5",d\n'))
    assert grouped["amount"].tolist() == [1972, 10608, 950, 1000000.5]
    european = read_table(write(tmp_path, "e.csv", "amount;name\n1.972,5;a\n10 608,25;b\n950,0;c\n".encode()))
    assert european["amount"].tolist() == [1972.5, 10608.25, 950.0]
    for text in (b'x\n"1,97"\n"2,50"\n', b'x\n"1,972"\nabc\n'):  # not thousands: decimals, or a word among them
        assert not pd.api.types.is_numeric_dtype(read_table(write(tmp_path, "n.csv", text))["x"])


def test_floats_written_as_floats_stay_floats_and_whole_numbers_with_a_gap_stay_whole(tmp_path):
    """A constant 70.0 came back as 70, codes 1.0 as 1."""
    from core.engine.pipeline import Avatarizer

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"const": ["70.0"] * 80, "code": [f"{v}.0" for v in rng.integers(1, 3, 80)],
                          "count": [str(v) if v % 5 else "" for v in rng.integers(1, 40, 80)],
                          "x": rng.normal(size=80).round(2).astype(str)})
    path = tmp_path / "f.csv"
    frame.to_csv(path, index=False)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        avatars = Avatarizer(k=5, seed=0, holdout=False).fit(read_table(path)).avatars_
    written = tmp_path / "a.csv"
    write_csv(avatars, written)
    rows = written.read_text().splitlines()
    header = rows[0].split(",")
    cells = [dict(zip(header, row.split(","), strict=True)) for row in rows[1:]]
    assert {cell["const"] for cell in cells} == {"70.0"} and {cell["code"] for cell in cells} <= {"1.0", "2.0"}
    assert all(cell["count"] == "" or "." not in cell["count"] for cell in cells)  # read as 1, 2, 4: written so


def test_an_excel_header_on_two_rows_is_refused_in_one_line(tmp_path):
    """Its second row was read as data: 'weight' among the weights, 201 rows for 200."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["Body", None, "Info"])
    sheet.append(["weight", "height", "name"])
    for i in range(20):
        sheet.append([70.0 + i, 170.0 - i, f"p{i}"])
    book.save(tmp_path / "two.xlsx")
    with pytest.raises(InputError, match=r"two.xlsx: the first row under the header holds words \('weight', "
                                         r"'height'\) atop columns of numbers: a header on two rows\?"):
        read_table(tmp_path / "two.xlsx")


def test_text_a_spreadsheet_would_run_as_a_formula_is_found_and_numbers_are_not():
    # written verbatim to the avatars CSV, said nowhere (issue 28, item 9; OWASP CSV injection)
    frame = pd.DataFrame({
        "note": pd.Categorical(['=HYPERLINK("http://e.x","x")', "ok"]), "cmd": ["+cmd|' /C calc'!A0", "fine"],
        "at": ["@SUM(1+1)", None], "=2+5": [1.0, 2.0], "signed": ["-1", "+2"], "plain": ["a", "b"]})
    assert csv_writer.formula_like(frame) == ["note", "cmd", "at", "=2+5"]
    assert csv_bytes(frame).splitlines()[1].startswith(b'"=HYPERLINK(""http://e.x"",""x"")"')  # as written


def test_a_file_of_lone_carriage_returns_reads_with_its_quoted_ones_kept(tmp_path):
    # lines ended by \r alone (classic Mac, some exports): the sniffing's csv reader raised its own message
    path = write(tmp_path, "mac.csv", b'a,b\r1,"x\ry"\r2,z\r3,"\r"\r')
    assert read_table(path).values.tolist() == [[1, "x\ry"], [2, "z"], [3, "\r"]]


def test_write_table_writes_the_format_its_suffix_says_and_nothing_partial(tmp_path):
    frame = pd.DataFrame({"id": ["007", "012"], "x": [1.5, None]})
    write_table(frame, tmp_path / "t.parquet")
    write_table(frame, tmp_path / "t.csv")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t.parquet"), frame)
    assert (tmp_path / "t.csv").read_text() == "id,x\n007,1.5\n012,\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["t.csv", "t.parquet"]


def test_a_code_with_a_leading_zero_beyond_the_lines_sniffed_keeps_its_zeros():
    # the leading zeros were looked for in the first 50 lines only: "0012" on line 102 was read as the number 12
    lines = ["id,x", *(f"{i},{i}" for i in range(1000, 1100)), "0012,5"]
    frame = read_table(io.BytesIO(("\n".join(lines) + "\n").encode()), file_name="t.csv")
    assert frame["id"].iloc[-1] == "0012" and frame["id"].iloc[0] == "1000"
    assert pd.api.types.is_integer_dtype(frame["x"])


def test_a_workbook_of_several_sheets_gives_a_table_per_sheet_and_read_table_its_first(tmp_path):
    path = tmp_path / "hospital.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"patient_id": ["P01", "P02"], "age": [30, 40]}).to_excel(writer, sheet_name="patients",
                                                                             index=False)
        pd.DataFrame().to_excel(writer, sheet_name="notes", index=False)  # an empty sheet: not a table
        pd.DataFrame({"stay_id": [1, 2, 3], "patient_id": ["P01", "P01", "P02"]}).to_excel(
            writer, sheet_name="stays", index=False)
    sheets = read_workbook(path.read_bytes(), "hospital.xlsx")
    assert list(sheets) == ["patients", "stays"]
    assert sheets["patients"]["patient_id"].tolist() == ["P01", "P02"]
    assert sheets["stays"]["stay_id"].tolist() == [1, 2, 3]
    assert read_table(path).equals(sheets["patients"])


def test_a_sheet_of_a_header_only_is_refused_naming_the_sheet(tmp_path):
    path = tmp_path / "two.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"a": [1]}).to_excel(writer, sheet_name="first", index=False)
        pd.DataFrame(columns=["b", "c"]).to_excel(writer, sheet_name="second", index=False)
    with pytest.raises(InputError, match=r"^two.xlsx, sheet 'second' has a header but no data rows"):
        read_workbook(path.read_bytes(), "two.xlsx")


def test_files_written_together_appear_together_or_not_at_all(tmp_path):
    """Issue 47: a linked run on a full disk left one table without the other."""
    frame = pd.DataFrame({"a": [1, 2]})
    with together():
        write_csv(frame, tmp_path / "first.csv")
        assert list(tmp_path.iterdir())[0].name.endswith(".partial")  # beside, not yet in place
        write_json({"b": 1}, tmp_path / "second.json")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["first.csv", "second.json"]
    failed = tmp_path / "failed"
    failed.mkdir()
    with pytest.raises(OSError, match="No space"):
        with together():
            write_csv(frame, failed / "first.csv")
            raise OSError(28, "No space left on device")
    assert list(failed.iterdir()) == []  # neither the file nor its partial copy
    named = tmp_path / "named"
    named.mkdir()
    with pytest.raises(OSError, match="File name too long"):  # refused as it is written, not when moved in
        with together():
            write_csv(frame, named / "first.csv")
            write_csv(frame, named / ("p" * 252 + ".csv"))
    assert list(named.iterdir()) == []


def test_a_file_opened_as_text_is_read_or_refused_in_one_line(tmp_path):
    # issue 47, item 10: its text read as the user decoded it; decoded wrongly, a UnicodeDecodeError traceback
    (tmp_path / "latin.csv").write_bytes(b"name,x\ncaf\xe9,1\nna\xefve,2\n")
    with open(tmp_path / "latin.csv", encoding="latin-1") as stream:
        assert read_table(stream)["name"].tolist() == ["café", "naïve"]
    with open(tmp_path / "latin.csv", encoding="utf-8") as stream, pytest.raises(
            InputError, match=r"latin.csv: opened as text in an encoding its bytes do not follow \(invalid "
                              r"continuation byte\); open it in binary mode \('rb'\)"):
        read_table(stream)


def test_times_are_written_in_their_utc_offset_as_read(tmp_path):
    """Times read '+05:30' were written '+0000'; written '+0530' then: now as read (ISO 8601, as pandas writes)."""
    path = write(tmp_path, "t.csv", b"x,when\n1,2024-02-10 13:00:00+05:30\n2,\n")
    text = csv_bytes(read_table(path)).decode()
    assert text.splitlines()[1:] == ["1,2024-02-10 13:00:00+05:30", "2,"]
    assert csv_bytes(pd.DataFrame({"t": pd.to_datetime(["2024-02-10 13:00Z"])})).decode().splitlines()[1] == \
        "2024-02-10 13:00:00+00:00"
