"""Reading user tables (CSV, Excel, Parquet) and writing results without half-written files.

Decisions (SPEC section 2, step 1):
- the format is recognised from the file's first bytes (a ``.csv`` that is really an
  Excel workbook still loads), then from its extension;
- CSV: the delimiter is the candidate among ``, ; TAB |`` that splits the first lines
  into the same, largest number of fields; the decimal comma is assumed when the
  delimiter is not a comma and numbers written ``12,5`` appear but ``12.5`` never does;
  the encoding is UTF-8 (with or without BOM), UTF-16 with a BOM, else Windows-1252,
  else Latin-1;
- a header cell left empty (the index column of many exports) is named ``column_N``;
  duplicate column names are refused, naming the column;
- an Excel workbook (a zip of XML parts) may expand to at most ``EXCEL_MAX_BYTES`` of XML, read from its
  directory before any parsing: 6 MB can hold 50 million rows, and the parser takes about 4 s and 3 bytes of
  memory per byte of XML (256 MB: about 5 million cells, a minute); larger tables go as CSV or Parquet;
- every problem raises an :class:`~core.errors.InputError` that names the file.
"""

from __future__ import annotations

import codecs
import csv
import ctypes
import decimal
import errno
import io
import itertools
import json
import os
import re
import tempfile
import warnings
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pa_compute
import pyarrow.csv as pa_csv

from core.errors import InputError
from core.i18n import _, ngettext, number

CSV_DELIMITERS = (",", ";", "\t", "|")
SNIFF_BYTES = 256 * 1024
SNIFF_LINES = 50
_DECODE_PIECE = 1 << 20
WRITE_ROWS = 1 << 16
EXCEL_MAX_BYTES = 256 * 2**20
_EXCEL_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0")
_PARQUET_MAGIC = b"PAR1"
_UTF8_BOM = b"\xef\xbb\xbf"
_FORMULA_START = re.compile(r"^[=+\-@\t\r]")
_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+,\d+\s*$")
_DECIMAL_POINT = re.compile(r"^\s*[-+]?\d*\.\d+\s*$")


def read_table(source: str | os.PathLike[str] | BinaryIO, *, file_name: str | None = None) -> pd.DataFrame:
    """Load a CSV, Excel or Parquet table from a path or an open binary file.

    ``file_name`` names the source in messages (and gives its extension) when
    ``source`` is a file object, as for a Streamlit upload; one opened in text mode gives its text, read as UTF-8. A
    CSV path is parsed from the file itself, never held whole in memory beside the table.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        file_name = file_name or path.name
        if path.is_dir():  # issue 47: a folder, a pipe or a device was "no such file"
            raise InputError(_("{file_name}: this is a folder, not a file; give the path of a CSV, Excel or Parquet "
                               "file.").format(file_name=file_name))
        if path.exists() and not path.is_file():
            raise InputError(_("{file_name}: this is not a regular file (a pipe or a device, which never ends); save "
                               "the table as a CSV, Excel or Parquet file and give its path.").format(
                                   file_name=file_name))
        if not path.is_file():
            raise InputError(_("{file_name}: no such file. Check the path.").format(file_name=file_name))
        with path.open("rb") as stream:
            head = stream.read(SNIFF_BYTES)
        content: bytes | Path = path
        is_whole = path.stat().st_size <= len(head)
    else:
        file_name = file_name or (source.name if hasattr(source, "name") else _("the uploaded file"))
        try:
            content = source.read()
        except UnicodeDecodeError as error:  # issue 47: a traceback from a file opened in text mode
            raise InputError(_("{file_name}: opened as text in an encoding its bytes do not follow ({reason}); open "
                               "it in binary mode ('rb'), and the workbench finds its encoding.").format(
                                   file_name=file_name, reason=error.reason)) from None
        if isinstance(content, str):  # a file opened in text mode: its text, as UTF-8
            content = content.encode("utf-8")
        head, is_whole = content[:SNIFF_BYTES], len(content) <= SNIFF_BYTES
    if is_whole and (not head or head.isspace()):
        raise InputError(_empty(file_name))

    suffix = Path(file_name).suffix.lower()
    if head.startswith(_PARQUET_MAGIC) or suffix in {".parquet", ".pq"}:  # by name too: a damaged one says so
        frame = _read_parquet(_bytes_of(content), file_name)
    elif head.startswith(_EXCEL_MAGIC) or (suffix == ".xlsx" and b"\x00" in head):  # a damaged one says so
        frame = _read_excel(_bytes_of(content), file_name)
    elif suffix in {".json", ".jsonl"} or head.removeprefix(_UTF8_BOM).lstrip().startswith(b"{"):  # issue 47
        raise InputError(_("{file_name}: this is JSON, not a table; the workbench reads CSV, Excel and Parquet files "
                           "(a schema of linked tables is given with --tables).").format(file_name=file_name))
    else:
        if suffix in {".xlsx", ".xls"}:  # issue 47: a CSV saved under a workbook's name, read before, was refused
            warnings.warn(_("{file_name} is a text table (CSV), not an Excel workbook: it is read as CSV.").format(
                file_name=file_name), stacklevel=2)
        frame = _read_csv(content, head, file_name)
    del content
    release_freed_memory()  # the parser's buffers: 70 MB at a million rows

    if frame.shape[1] == 0:
        raise InputError(_("{file_name} has no columns: choose a file with a header row.").format(file_name=file_name))
    if len(frame) == 0:
        raise InputError(
            _("{file_name} has a header but no data rows: add the rows to avatarize.").format(file_name=file_name)
        )
    return frame


def _bytes_of(content: bytes | Path) -> bytes:
    return content.read_bytes() if isinstance(content, Path) else content


def _pieces(content: bytes | Path) -> Iterator[bytes | memoryview]:
    """The content in pieces of ``_DECODE_PIECE`` bytes, without reading a file whole."""
    if isinstance(content, Path):
        with content.open("rb") as stream:
            while piece := stream.read(_DECODE_PIECE):
                yield piece
    else:
        view = memoryview(content)
        for start in range(0, len(view), _DECODE_PIECE):
            yield view[start : start + _DECODE_PIECE]


def use_system_memory_pool() -> None:
    """Make Arrow allocate with the C allocator, process-wide: called by the programs (the command line, the
    dashboard), never on import.

    Arrow's own allocator (mimalloc) keeps what the parser and pandas' text columns free for later use: a
    million-row table left 70 MB held that way. The C allocator's memory goes back with release_freed_memory.
    """
    pa.set_memory_pool(pa.system_memory_pool())


def release_freed_memory() -> None:
    """Hand the memory the C allocator keeps after large frees back to the system (glibc's ``malloc_trim``).

    Reading a file frees several times the table's size in buffers that glibc would
    otherwise keep for the rest of the process. Elsewhere (no glibc) this does nothing.
    """
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _glibc_malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, Windows, musl)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None


_MALLOC_TRIM = _glibc_malloc_trim()


def _read_parquet(data: bytes, file_name: str) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(io.BytesIO(data), engine="pyarrow")
    except (OSError, ValueError, pa.ArrowException) as error:
        raise InputError(
            _("{file_name} is not a valid Parquet file ({error}): export it again, or save it as CSV.").format(
                file_name=file_name, error=_first_line(error))
        ) from None
    return normalised_parquet_frame(frame, file_name)


def normalised_parquet_frame(frame: pd.DataFrame, file_name: str) -> pd.DataFrame:
    """A frame read from Parquet as the engine takes it: an index written by pandas kept as columns (it is data),
    names as text, decimals as numbers (see :func:`_plain_values`)."""
    if not isinstance(frame.index, pd.RangeIndex):
        frame = frame.reset_index()
    _check_column_names([str(name) for name in frame.columns], file_name)
    frame.columns = [str(name) for name in frame.columns]
    for name in frame.columns:
        frame[name] = _plain_values(frame[name], name, file_name)
    return frame.reset_index(drop=True)


def _plain_values(column: pd.Series, name: str, file_name: str) -> pd.Series:
    """Decimals as numbers when float64 holds them exactly; nested values (lists, structures) refused."""
    sample = column.dropna().iloc[:1000]
    if sample.empty or column.dtype != object:
        return column
    if all(isinstance(value, decimal.Decimal) for value in sample):
        numbers = column.astype("float64")
        exact = all(decimal.Decimal(float(number)) == value for number, value in zip(numbers.dropna(), column.dropna(), strict=False))
        if not exact:
            raise InputError(_("{file_name}: column '{name}' holds decimals that float64 cannot hold exactly: "
                               "round them to 15 significant digits, or store them as text.").format(
                file_name=file_name, name=name))
        return numbers
    if any(isinstance(value, (list, dict, tuple, np.ndarray)) for value in sample):
        raise InputError(_("{file_name}: column '{name}' holds lists or structures, not single values: flatten it "
                           "into one column per value, or drop it.").format(file_name=file_name, name=name))
    return column


def _read_excel(data: bytes, file_name: str) -> pd.DataFrame:
    """The workbook's first sheet that holds a table."""
    sheets = _filled_sheets(data, file_name)
    if not sheets:
        raise InputError(_empty(file_name))
    return _sheet_table(next(iter(sheets.values())), file_name)


def read_workbook(data: bytes, file_name: str) -> dict[str, pd.DataFrame]:
    """Every sheet of an Excel workbook that holds a table, by sheet name (a dataset of several tables in one
    file), each read as :func:`read_table` reads the first; a sheet of a header only refused in one line."""
    sheets = _filled_sheets(data, file_name)
    if not sheets:
        raise InputError(_empty(file_name))
    tables = {}
    for sheet, raw in sheets.items():
        where = _("{file_name}, sheet '{sheet}'").format(file_name=file_name, sheet=sheet)
        tables[sheet] = _sheet_table(raw, where)
        if len(tables[sheet]) == 0:
            raise InputError(_("{file_name} has a header but no data rows: add the rows to avatarize.").format(
                file_name=where))
    return tables


def _filled_sheets(data: bytes, file_name: str) -> dict[str, pd.DataFrame]:
    """The workbook's sheets that hold a cell, by name, their empty rows and columns left out."""
    _refuse_excel_bomb(data, file_name)
    try:
        sheets = pd.read_excel(io.BytesIO(data), sheet_name=None, header=None, engine="openpyxl")
    except Exception as error:  # openpyxl raises many unrelated types for a damaged workbook
        raise InputError(
            _("{file_name} could not be read as an Excel workbook ({error}): "
              "save it again as .xlsx or export it as CSV.").format(file_name=file_name, error=_first_line(error))
        ) from None
    filled = {str(name): sheet.dropna(how="all").dropna(axis=1, how="all") for name, sheet in sheets.items()}
    return {name: sheet for name, sheet in filled.items() if not sheet.empty}


def _sheet_table(raw: pd.DataFrame, file_name: str) -> pd.DataFrame:
    """A sheet's table: title lines above its header (a single filled cell while the header fills several)
    skipped."""
    widths = raw.notna().sum(axis=1).to_numpy()
    start = 0
    while start + 1 < len(raw) and widths[start] == 1 and widths[start + 1] > 1:  # a title line
        start += 1
    raw = raw.iloc[start:].dropna(axis=1, how="all")
    header = _name_columns([None if pd.isna(cell) else str(cell) for cell in raw.iloc[0]], file_name)
    frame = raw.iloc[1:].reset_index(drop=True)
    frame.columns = header
    _refuse_second_header_row(frame, file_name)
    return frame.infer_objects()


def _refuse_excel_bomb(data: bytes, file_name: str) -> None:
    """Refused when the workbook's parts expand beyond ``EXCEL_MAX_BYTES``: their sizes as its zip directory
    declares them (the reader stops at the declared size, so a part that lies is cut short and fails its
    checksum). Not a zip (a damaged file, an old .xls): left to the parser, which says so."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as workbook:
            expanded = sum(part.file_size for part in workbook.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return
    if expanded > EXCEL_MAX_BYTES:
        raise InputError(
            _("{file_name} expands to {size} MB of spreadsheet data, more than the {limit} MB (about 5 million "
              "cells) read from an Excel workbook: save the table as CSV or Parquet, which have no such limit.").format(
                file_name=file_name, size=number(expanded / 2**20, ",.0f"), limit=number(EXCEL_MAX_BYTES / 2**20, ",.0f"))
        )


def _refuse_second_header_row(frame: pd.DataFrame, file_name: str) -> None:
    """A header spanning two rows (``weight`` under ``Body``, then the weights) read its second row as data: a
    word atop a column of numbers. Refused in one line, naming the columns, rather than read as a row."""
    if len(frame) < 3:
        return
    first, rest = frame.iloc[0], frame.iloc[1:]
    numbers = [name for name in frame.columns if isinstance(first[name], str)
               and rest[name].notna().any() and pd.to_numeric(rest[name].dropna(), errors="coerce").notna().all()
               and pd.to_numeric(pd.Series([first[name]]), errors="coerce").isna().all()]
    if numbers:
        raise InputError(_("{file_name}: the first row under the header holds words ({examples}) atop columns of "
                           "numbers: a header on two rows? Keep the header on one row (merge the two), then load the "
                           "file again.").format(file_name=file_name, examples=", ".join(
                               repr(first[name]) for name in numbers[:3])))


@dataclass(frozen=True)
class CsvDialect:
    """What reading a CSV decides from its first bytes (see the module docstring): the encoding, the delimiter,
    the header (``header_lines`` lines: a quoted name may hold a line break), the decimal mark and the columns of
    codes written with leading zeros (read as text)."""

    file_name: str
    encoding: str
    delimiter: str
    header: tuple[str, ...]
    header_lines: int
    decimal_point: str
    codes: tuple[str, ...]

    @property
    def other_point(self) -> str | None:
        """The other decimal mark a column may be written with (none in a comma-delimited file)."""
        return "." if self.decimal_point == "," else "," if self.delimiter != "," else None


def csv_dialect(path: str | os.PathLike[str]) -> CsvDialect:
    """The :class:`CsvDialect` of the CSV file at ``path``, as :func:`read_table` decides it."""
    path = Path(path)
    with path.open("rb") as stream:
        head = stream.read(SNIFF_BYTES)
    return _csv_dialect(path, head, path.name)


def read_csv_columns(path: str | os.PathLike[str], dialect: CsvDialect, columns: list[str], *,
                     as_text: bool = False) -> pd.DataFrame:
    """The ``columns`` of the CSV at ``path``, each exactly as :func:`read_table` reads it: a column's type and its
    missing-value spellings are decided on the column alone, so reading a few columns of a file that does not
    fit in memory gives the same values as reading all of it. ``as_text``: as written (a column that another file
    of the same table writes as text), "NA" and the like missing unless written like the column's other values.

    The file is read block by block, each column's text alone kept (Arrow's reader would hold the whole file's
    parsed text while it infers a type); the column's text, written again as a one-column CSV, is then read with
    the file's options: Arrow infers its type from the same values."""
    text = set(columns) if as_text else set(dialect.codes)
    read_options, parse_options = _csv_options(dialect, text)[:2]
    try:
        cells = pa_csv.open_csv(str(path), read_options=read_options, parse_options=parse_options,
                                convert_options=pa_csv.ConvertOptions(
                                    strings_can_be_null=True, null_values=[""], include_columns=columns,
                                    column_types={name: pa.string() for name in columns})).read_all()
        alone = [cells.column(name) if name in text else _typed_as_written(cells.column(name), name, dialect)
                 for name in columns]
    except pa.ArrowInvalid as error:
        raise InputError(_unreadable(dialect.file_name, error)) from None
    table = pa.table(dict(zip(columns, alone, strict=True)))
    return _to_pandas(_missing_tokens(table, dialect.decimal_point, dialect.other_point, keep_text=set(dialect.codes),
                                      as_text=as_text))


def _typed_as_written(cells: pa.ChunkedArray, name: str, dialect: CsvDialect) -> pa.ChunkedArray:
    """A column's cells (text) written again as a one-column CSV and read with the file's options: the type Arrow
    infers from the same values."""
    if len(cells) == 0:  # a header without rows: no type, as Arrow reads it
        return pa.chunked_array([], type=pa.null())
    written = io.BytesIO()  # every cell quoted, a missing one "": a blank line would be skipped, its row lost
    pa_csv.write_csv(pa.table({name: pa_compute.fill_null(cells, "")}), written,
                     write_options=pa_csv.WriteOptions(include_header=False, quoting_style="all_valid"))
    single = CsvDialect(dialect.file_name, "utf8", ",", (name,), 0, dialect.decimal_point, ())
    read_options, parse_options, convert_options = _csv_options(single, set())
    return pa_csv.read_csv(io.BytesIO(written.getvalue()), read_options=read_options, parse_options=parse_options,
                           convert_options=convert_options).column(name)


def _read_csv(content: bytes | Path, head: bytes, file_name: str) -> pd.DataFrame:
    return _parse_csv(content, _csv_dialect(content, head, file_name))


def _csv_dialect(content: bytes | Path, head: bytes, file_name: str) -> CsvDialect:
    encoding = _detect_encoding(content, head, file_name)
    sample = head.removeprefix(_UTF8_BOM).decode(encoding, errors="replace")
    if not sample.strip():
        raise InputError(_empty(file_name))
    delimiter = _detect_delimiter(sample)
    reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)  # any line ending, \r alone too
    header = _name_columns(next(reader), file_name)
    rows = _sample_rows(sample, delimiter)[1:]
    return CsvDialect(
        file_name=file_name, encoding=encoding, delimiter=delimiter, header=tuple(header),
        header_lines=reader.line_num, decimal_point="," if delimiter != "," and _uses_decimal_comma(rows) else ".",
        codes=tuple(_leading_zero_columns(rows, header)),
    )


def _parse_csv(content: bytes | Path, dialect: CsvDialect) -> pd.DataFrame:
    """The table read with ``dialect``, read again as text: a column of whole numbers one of which is written with
    a leading zero beyond the lines sniffed (``SNIFF_LINES``), so that no code loses its zeros, and a column of whole
    numbers beyond 64 bits, which a float would round (issue 47: 200 keys from 1180591620717411303424 read as one)."""
    source = str(content) if isinstance(content, Path) else io.BytesIO(content)
    codes = set(dialect.codes)
    try:
        table = pa_csv.read_csv(source, *_csv_options(dialect, codes))  # skips a UTF-8 byte-order mark itself
        whole = [name for name in table.column_names if pa.types.is_integer(table.column(name).type)]
        huge = [name for name in table.column_names if pa.types.is_floating(table.column(name).type)
                and (pa_compute.max(pa_compute.abs(table.column(name))).as_py() or 0.0) >= 2.0**63]
        if whole or huge:
            if not isinstance(source, str):
                source.seek(0)
            read, parse, convert = _csv_options(dialect, set(whole + huge))
            convert.include_columns = whole + huge
            written = pa_csv.read_csv(source, read, parse, convert)
            for name in whole + huge:
                text = written.column(name)
                if (pa_compute.any(pa_compute.match_substring_regex(text, _LEADING_ZERO.pattern)).as_py()
                        if name in whole else pa_compute.all(pa_compute.match_substring_regex(text, _WHOLE.pattern))
                        .as_py()):
                    table = table.set_column(table.column_names.index(name), name, text)
                    codes.add(name)
    except pa.ArrowInvalid as error:
        raise InputError(_unreadable(dialect.file_name, error)) from None
    return _to_pandas(_missing_tokens(table, dialect.decimal_point, dialect.other_point, keep_text=codes))


def _csv_options(dialect: CsvDialect, text: set[str]
                 ) -> tuple[pa_csv.ReadOptions, pa_csv.ParseOptions, pa_csv.ConvertOptions]:
    """Arrow's options for reading with ``dialect``, the columns ``text`` as text."""
    return (
        pa_csv.ReadOptions(encoding=dialect.encoding, column_names=list(dialect.header),
                           skip_rows=dialect.header_lines),
        pa_csv.ParseOptions(delimiter=dialect.delimiter, newlines_in_values=True),
        # true/false stay text, spelt as in the file (Arrow would turn True and true alike into a boolean); only an
        # empty cell is missing here: "NA" and the like are decided per column by _missing_tokens; codes written
        # with leading zeros (01000) stay text
        pa_csv.ConvertOptions(decimal_point=dialect.decimal_point, strings_can_be_null=True, true_values=[],
                              false_values=[], null_values=[""], column_types={name: pa.string() for name in text}),
    )


NA_TOKENS = ("#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "N/A", "NA",
             "NULL", "NaN", "n/a", "nan", "null")  # Arrow's own list of missing-value spellings, the empty cell apart
_LEADING_ZERO = re.compile(r"^\s*0\d+\s*$")
_WHOLE = re.compile(r"^\s*[+-]?\d+\s*$")


def _sample_rows(sample: str, delimiter: str) -> list[list[str]]:
    """The first ``SNIFF_LINES`` records of the sample, header included, read as CSV (a quoted value may hold a
    line break); a last line the sample cuts is left out."""
    if len(sample.splitlines()) > 1 and not sample.endswith(("\n", "\r")):
        sample = sample[:max(sample.rfind("\n"), sample.rfind("\r")) + 1]
    try:
        return [row for row in itertools.islice(csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter),
                                                SNIFF_LINES) if row]
    except csv.Error:
        return []


def _leading_zero_columns(rows: list[list[str]], header: list[str]) -> list[str]:
    """Columns whose values in the file's first ``rows`` include a number written with a leading zero (a postcode
    ``01000``, a code ``007``): text, so that the zero is kept."""
    return [name for j, name in enumerate(header)
            if any(j < len(row) and _LEADING_ZERO.match(row[j]) for row in rows)]


def _missing_tokens(table: pa.Table, decimal_point: str, other_point: str | None, keep_text: set[str],
                    as_text: bool = False) -> pa.Table:
    """Where "NA", "null", "N/A"... mean a missing value, read them so (SPEC section 2 step 1: never change a value
    silently); a column written with the other decimal mark than most of the file (``other_point``) is read as
    numbers too. In a column whose other values are numbers or dates they are missing values, and the column is
    numeric or a date; in a text column they are missing too, unless they have the form of its other values (a
    region code "NA" among "EU", "AS"). ``as_text``: the columns stay text (no number or date is read)."""
    for position, name in enumerate(table.column_names):
        column = table.column(name)
        if not pa.types.is_string(column.type) or name in keep_text:
            continue
        is_token = pa_compute.is_in(column, value_set=pa.array(NA_TOKENS))
        if not as_text and (grouped := _grouped_numbers(
                pa_compute.if_else(is_token, pa.scalar(None, pa.string()), column), decimal_point)) is not None:
            table = table.set_column(position, name, grouped)  # 1,972 and 10,608: numbers, their separators dropped
            continue
        if not pa_compute.any(is_token).as_py():
            if not as_text and other_point and (numbers := _as_numbers_or_dates(column, other_point)) is not None:
                table = table.set_column(position, name, numbers)  # a column written 1.5 in a 1,5 file, or back
            continue
        blanked = pa_compute.if_else(is_token, pa.scalar(None, pa.string()), column)
        converted = _as_numbers_or_dates(blanked, decimal_point)
        if converted is None and _of_the_columns_form(column, is_token):
            continue
        table = table.set_column(position, name, blanked if as_text or converted is None else converted)
    return table


_GROUPED = {".": r"^\s*[-+]?\d{1,3}(,\d{3})+(\.\d+)?\s*$",
            ",": r"^\s*[-+]?\d{1,3}([. " + "\u00a0\u202f" + r"]\d{3})+(,\d+)?\s*$"}
_PLAIN = {".": r"^\s*[-+]?\d+(\.\d+)?\s*$", ",": r"^\s*[-+]?\d+(,\d+)?\s*$"}


def _grouped_numbers(column: pa.ChunkedArray, decimal_point: str) -> pa.ChunkedArray | None:
    """A text column of numbers written with thousands separators (``1,972``, ``10,608``; ``1.972,5`` or
    ``1 972,5`` in a file of decimal commas), every value so or a plain number and one at least grouped, as numbers
    (the separators dropped, the value unchanged), else None. A column of ``1,972`` read as text was judged
    identifier-like and its values replaced."""
    present = column.drop_null()
    if len(present) == 0:
        return None
    grouped = pa_compute.match_substring_regex(present, _GROUPED[decimal_point])
    if not pa_compute.any(grouped).as_py():
        return None
    plain = pa_compute.match_substring_regex(present, _PLAIN[decimal_point])
    if not pa_compute.all(pa_compute.or_(grouped, plain)).as_py():
        return None
    separators = r"[,\s]" if decimal_point == "." else r"[.\s" + "\u00a0\u202f" + "]"
    text = pa_compute.replace_substring_regex(column, separators, "")
    return _as_numbers_or_dates(text, decimal_point)


def _as_numbers_or_dates(column: pa.ChunkedArray, decimal_point: str) -> pa.ChunkedArray | None:
    text = pa_compute.replace_substring(column, ",", ".") if decimal_point == "," else column
    for target in (pa.int64(), pa.float64(), pa.timestamp("s")):
        try:
            return pa_compute.cast(text, target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return None


def _of_the_columns_form(column: pa.ChunkedArray, is_token: pa.ChunkedArray) -> bool:
    """Every token is written like the column's other values: as long, and in capitals when they are."""
    others = pa_compute.filter(column, pa_compute.invert(is_token)).drop_null()
    tokens = pa_compute.filter(column, is_token)
    if len(others) == 0:
        return False
    lengths = set(pa_compute.utf8_length(others).to_pylist()[:10_000])
    upper = pa_compute.all(pa_compute.utf8_is_upper(others)).as_py()
    return all(len(token) in lengths and (not upper or token.isupper()) for token in set(tokens.to_pylist()))


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    """The table as a frame, one column at a time, each column's Arrow buffers freed once converted."""
    columns = {}
    for name in table.column_names:
        columns[name] = table.column(name).to_pandas(date_as_object=False)
        table = table.drop_columns([name])
        release_freed_memory()
    return pd.DataFrame(columns, copy=False)


def _detect_encoding(content: bytes | Path, head: bytes, file_name: str) -> str:
    if head.startswith(_UTF8_BOM):
        return "utf-8"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if b"\x00" in head:
        raise InputError(
            _("{file_name} is not a text table (it holds binary data): "
              "choose a CSV, Excel (.xlsx) or Parquet file.").format(file_name=file_name)
        )
    for encoding in ("utf-8", "cp1252"):
        if _decodes(content, encoding):
            return encoding
    return "latin-1"


def _decodes(content: bytes | Path, encoding: str) -> bool:
    """Whether ``content`` is valid in ``encoding``, checked piece by piece (no decoded copy of a large file)."""
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        for piece in _pieces(content):
            decoder.decode(piece)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _detect_delimiter(sample: str) -> str:
    """The delimiter that splits the first records into the same, largest number of fields."""
    best, best_fields = ",", 1
    for delimiter in CSV_DELIMITERS:
        counts = {len(row) for row in _sample_rows(sample, delimiter)}
        if len(counts) == 1 and (fields := counts.pop()) > best_fields:
            best, best_fields = delimiter, fields
    return best


def _uses_decimal_comma(rows: list[list[str]]) -> bool:
    """More numbers written ``1,5`` than ``1.5`` in the first data ``rows`` (one dotted value elsewhere does not
    decide for the whole file; a column written the other way is read by :func:`_missing_tokens`)."""
    cells = [cell for row in rows for cell in row]
    return sum(bool(_DECIMAL_COMMA.match(cell)) for cell in cells) > sum(bool(_DECIMAL_POINT.match(cell)) for cell in cells)


def _name_columns(names: list[str | None], file_name: str) -> list[str]:
    """Strip names, name empty header cells ``column_N`` and refuse duplicates."""
    named = [(name or "").strip() or f"column_{position}" for position, name in enumerate(names, start=1)]
    _check_column_names(named, file_name)
    return named


def _check_column_names(names: list[str], file_name: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(
                _("{file_name} has two columns named '{name}': rename one of them so that every column name is "
                  "unique.").format(file_name=file_name, name=name)
            )
        seen.add(name)


def _empty(file_name: str) -> str:
    return _("{file_name} is empty: choose a file with a header row and at least one data row.").format(
        file_name=file_name)


def _unreadable(file_name: str, error: pa.ArrowInvalid) -> str:
    """The message for a CSV Arrow could not parse: a row with another number of fields said plainly."""
    message = _first_line(error)
    expected = re.search(r"Expected (\d+) columns, got (\d+)", message)
    if expected:
        return _("{file_name} could not be read as a table: a row has {found} where the header has {expected}. "
                 "Check the delimiter and the quotes of that row, or export the file again.").format(
            file_name=file_name, found=_fields(expected.group(2)), expected=_fields(expected.group(1)))
    return _("{file_name} could not be read as a table: {error}. Export the file again as CSV.").format(
        file_name=file_name, error=message)


def _fields(count: str) -> str:
    return ngettext("{count} field", "{count} fields", int(count)).format(count=number(int(count)))


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def write_json(data: object, path: str | os.PathLike[str]) -> None:
    """Write ``data`` as indented JSON, atomically; numpy numbers and arrays become JSON numbers and lists."""
    text = json.dumps(data, indent=2, default=_json_default, allow_nan=False)
    _write_atomically(lambda stream: stream.write(text.encode()), Path(path))


def write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` as UTF-8, atomically."""
    _write_atomically(lambda stream: stream.write(text.encode()), Path(path))


def _json_default(value: object) -> object:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def write_csv(frame: pd.DataFrame, path: str | os.PathLike[str], *, private: bool = False) -> None:
    """Write ``frame`` as a UTF-8, comma-separated CSV, atomically.

    The file appears whole or not at all: it is written next to its destination
    and renamed into place. Datetimes are written in ISO format (date only when
    every value is at midnight); missing values are empty fields (``""`` in a one-column table, where an empty
    field would be a blank line).
    """
    _write_atomically(lambda stream: _write_csv_rows(frame, stream), Path(path), private)


TABLE_SUFFIXES = (".csv", ".parquet", ".pq")  # what write_table writes; a table is read from .xlsx too


def write_table(frame: pd.DataFrame, path: str | os.PathLike[str], private: bool = False) -> None:
    """Write ``frame`` as its path's suffix says, atomically: Parquet for ``.parquet`` or ``.pq`` (types kept: a
    duration stays one), else CSV (see :func:`write_csv`)."""
    path = Path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        _write_atomically(lambda stream: frame.to_parquet(stream, index=False), path, private)
    else:
        write_csv(frame, path, private=private)


def formula_like(frame: pd.DataFrame) -> list[str]:
    """The columns (a header too) holding text that a spreadsheet may run as a formula: beginning with ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return, and not a number (OWASP, CSV injection). Written as they are (a value
    is never changed); said, so that the file is opened with care."""
    names = []
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            column = pd.Series(column.cat.categories)
        if column.dtype != object and not pd.api.types.is_string_dtype(column.dtype):
            texts = pd.Series([str(name)])
        else:
            texts = pd.concat([pd.Series([str(name)]), column.dropna().astype(str)], ignore_index=True)
        risky = texts[texts.str.match(_FORMULA_START)]
        if len(risky) and pd.to_numeric(risky, errors="coerce").isna().any():
            names.append(str(name))
    return names


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """The CSV text of ``frame`` (see :func:`write_csv`) as UTF-8 bytes."""
    buffer = io.BytesIO()
    _write_csv_rows(frame, buffer)
    return buffer.getvalue()


def check_writable(path: Path, what: str) -> None:
    """Refuse, before any work, an output whose folder cannot take a new file (read-only, full, no permission)."""
    directory = path.parent if str(path.parent) else Path(".")
    if _too_long(path):
        raise InputError(_("{what} {path}: the file name is longer than the 255 bytes a file system takes; choose a "
                           "shorter one (for a table of a schema, a shorter table name).").format(what=what, path=path))
    try:
        handle, probe = tempfile.mkstemp(prefix=_temporary_prefix(path), suffix=".probe", dir=directory)
    except OSError as error:
        raise InputError(_("{what} {path}: cannot write in {directory} ({error}). Choose another path.").format(
            what=what, path=path, directory=directory, error=error.strerror)) from None
    os.close(handle)
    os.unlink(probe)


def _too_long(path: Path) -> bool:
    """Whether ``path``'s name is beyond the 255 bytes a file system takes."""
    return len(os.fsencode(path.name)) > 255


def _temporary_prefix(path: Path) -> str:
    """The name a file written beside ``path`` starts with: its name, cut so that the whole temporary name fits in
    a file system's 255 bytes (issue 47: a 250-character table name was refused for its temporary file's name)."""
    return "." + path.name.encode()[:200].decode(errors="ignore") + "."


_staged: ContextVar[list[tuple[str, Path]] | None] = ContextVar("staged", default=None)


@contextmanager
def together() -> Iterator[None]:
    """The files written inside appear together or not at all: each is written whole beside its destination, and
    only once every one is written are they renamed into place; when one fails (a full disk), none is kept (issue 47:
    a linked run left ``patients.csv`` without its ``stays.csv``). A rename in one folder takes no space, so once
    written they all go in."""
    staged: list[tuple[str, Path]] = []
    token = _staged.set(staged)
    try:
        yield
    except BaseException:
        for temporary, _path in staged:
            Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        _staged.reset(token)
    for position, (temporary, path) in enumerate(staged):
        try:
            os.replace(temporary, path)
        except OSError as error:  # none of the others moved in: theirs were checked as this one (_write_atomically)
            for other, _path in staged[position:]:
                Path(other).unlink(missing_ok=True)
            raise OSError(error.errno, error.strerror, str(path)) from error


def _write_atomically(write: Callable[[BinaryIO], object], path: Path, private: bool = False) -> None:
    """The file appears whole or not at all: written next to its destination by ``write``, then renamed (inside
    :func:`together`, with the others). Its permissions follow the user's umask, as any file they create
    (``private``: readable by the owner only)."""
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(_("{path}: the folder {directory} does not exist. Create it or choose another output "
                           "path.").format(path=path, directory=directory))
    if _too_long(path):  # refused before any is written, not at the rename (issue 47)
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), str(path))
    try:
        handle, temporary = tempfile.mkstemp(prefix=_temporary_prefix(path), suffix=".partial", dir=directory)
    except OSError as error:  # named by the file wanted, not by its temporary name
        raise OSError(error.errno, error.strerror, str(path)) from error
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
        os.chmod(temporary, 0o600 if private else 0o666 & ~_umask())
        staged = _staged.get()
        if staged is None:
            os.replace(temporary, path)
        else:
            staged.append((temporary, path))
    except OSError as error:  # a full disk, a rename refused: named by the file wanted
        Path(temporary).unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, str(path)) from error
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_csv_rows(frame: pd.DataFrame, stream: BinaryIO) -> None:
    """The header, then the rows by blocks of ``WRITE_ROWS``: the CSV text is never held whole."""
    header = io.StringIO()
    csv.writer(header, lineterminator="\n").writerow([str(name) for name in frame.columns])
    stream.write(header.getvalue().encode())
    converters = {str(name): _arrow_converter(frame[name]) for name in frame.columns}
    quoting = "needed" if _needs_quotes(frame) else "none"
    lone_blanks = frame.shape[1] == 1 and bool(frame.iloc[:, 0].isna().any())
    if lone_blanks:  # a missing value alone on its line is a blank line, which readers skip: the row would be lost
        quoting = "all_valid"
    options = pa_csv.WriteOptions(include_header=False, quoting_style=quoting)
    for start in range(0, len(frame), WRITE_ROWS):
        block = frame.iloc[start : start + WRITE_ROWS]
        arrays = {name: convert(block[name]) for name, convert in converters.items()}
        if lone_blanks:  # written "" instead, quoted like every value of the column
            arrays = {name: pa_compute.fill_null(pa_compute.cast(array, pa.string()), "")
                      for name, array in arrays.items()}
        pa_csv.write_csv(pa.table(arrays), stream, write_options=options)


def _needs_quotes(frame: pd.DataFrame) -> bool:
    """Whether a text cell holds a comma, a quote or a line break (pyarrow then quotes every text)."""
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            texts = [_text_array(column.cat.categories.to_series())]
        elif column.dtype == object or pd.api.types.is_string_dtype(column):
            texts = (_text_array(column.iloc[start : start + WRITE_ROWS]) for start in range(0, len(column), WRITE_ROWS))
        else:
            continue
        if any(pa_compute.any(pa_compute.match_substring_regex(text, r'[,"\r\n]')).as_py() for text in texts):
            return True
    return False


def duration_text(block: pd.Series) -> pa.Array:
    """Durations written as pandas writes and reads them (``3 days 04:05:06``, ``.250000`` when a second is
    split), empty where missing: vectorised, where ``astype(str)`` formats one value at a time."""
    missing = block.isna().to_numpy()
    microseconds = block.astype("timedelta64[us]").to_numpy().view(np.int64)
    days, rest = np.divmod(microseconds, 86_400_000_000)
    seconds, fraction = np.divmod(rest, 1_000_000)
    hours, seconds = np.divmod(seconds, 3_600)
    minutes, seconds = np.divmod(seconds, 60)

    def text(values: np.ndarray, width: int = 0) -> pa.Array:
        strings = pa_compute.cast(pa.array(values), pa.string())
        return pa_compute.utf8_lpad(strings, width=width, padding="0") if width else strings

    fractions = pa_compute.if_else(pa.array(fraction == 0), "", pa_compute.binary_join_element_wise(
        ".", text(fraction, 6), ""))
    joined = pa_compute.binary_join_element_wise(
        text(days), " days ", text(hours, 2), ":", text(minutes, 2), ":", text(seconds, 2), fractions, "")
    return pa_compute.if_else(pa.array(missing), pa.scalar(None, pa.string()), joined)


def _arrow_converter(column: pd.Series) -> Callable[[pd.Series], pa.Array]:
    """How a block of ``column`` becomes an array for pyarrow's CSV writer: dates as dates, texts as (dictionary)
    strings. Decided on the whole column, so that every block is written alike."""
    if pd.api.types.is_datetime64_any_dtype(column):
        if getattr(column.dt, "tz", None) is not None:
            return lambda block: pa.array(block.dt.strftime("%Y-%m-%d %H:%M:%S%z"), type=pa.string(), from_pandas=True)
        present = column.dropna()
        at_midnight = bool((present == present.dt.normalize()).all())
        whole_seconds = bool((present == present.dt.floor("s")).all())
        target = pa.date32() if at_midnight else pa.timestamp("s") if whole_seconds else pa.timestamp("us")
        return lambda block: pa.array(block, from_pandas=True).cast(target)
    if pd.api.types.is_timedelta64_dtype(column):
        return duration_text
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = pa.array(column.cat.categories.astype(str).to_numpy(dtype=object), type=pa.string())
        return lambda block: pa.DictionaryArray.from_arrays(
            pa.array(block.cat.codes.to_numpy(), mask=block.isna().to_numpy()).cast(pa.int32()), categories
        )
    if column.dtype == object or pd.api.types.is_string_dtype(column):
        return _text_array
    if pd.api.types.is_bool_dtype(column):  # True / False as Python and pandas write them (Arrow: true / false)
        return lambda block: pa.array(block.map({True: "True", False: "False"}).astype(object), type=pa.string(),
                                      from_pandas=True)
    if pd.api.types.is_float_dtype(column) and _has_whole_floats(column):
        return _float_text  # Arrow writes 70.0 as 70: a float column keeps its point, as pandas writes it
    return lambda block: pa.array(block, from_pandas=True)


def _has_whole_floats(column: pd.Series) -> bool:
    values = column.to_numpy(dtype=float, na_value=np.nan)
    finite = values[np.isfinite(values)]
    return bool(finite.size) and bool(np.any(np.mod(finite, 1) == 0))


def _float_text(block: pd.Series) -> pa.Array:
    """Floats written with their point (70.0, 1.5, 1e+20), missing as null: Arrow's text of each, ".0" added to
    a whole one."""
    text = pa_compute.cast(pa.array(block, from_pandas=True), pa.string())
    pointless = pa_compute.invert(pa_compute.match_substring_regex(text, r"[.eEna]"))
    return pa_compute.if_else(pointless, pa_compute.binary_join_element_wise(text, pa.scalar(".0"), ""), text)


def _text_array(block: pd.Series) -> pa.Array:
    """Text cells as strings (other values written with ``str``), missing as null."""
    text = block.to_numpy(dtype=object, na_value=None, copy=True)
    present = block.notna().to_numpy()
    text[present] = text[present].astype(str)
    return pa.array(text, type=pa.string())
