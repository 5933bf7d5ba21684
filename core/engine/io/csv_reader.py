"""Reading a CSV file (SPEC section 2, step 1).

- the delimiter is the candidate among ``, ; TAB |`` that splits the first lines into the same, largest number of
  fields; the decimal comma is assumed when the delimiter is not a comma and numbers written ``12,5`` appear but
  ``12.5`` never does;
- the encoding is UTF-8 (with or without BOM), UTF-16 with a BOM, else Windows-1252, else Latin-1;
- "NA", "null" and the like are missing values where the column's other values are numbers or dates, or are not
  written like them; codes written with leading zeros stay text;
- a column can be read alone exactly as the whole file reads it (:func:`read_csv_columns`), for tables beyond memory."""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pa_compute
import pyarrow.csv as pa_csv

from core.engine.io.column_names import name_columns
from core.engine.io.memory import release_freed_memory
from core.engine.io.messages import empty_message, first_line
from core.engine.io.said import say
from core.errors import InputError
from core.i18n import _, ngettext, number

CSV_DELIMITERS = (",", ";", "\t", "|")
SNIFF_BYTES = 256 * 1024
SNIFF_LINES = 50
_DECODE_PIECE = 1 << 20
UTF8_BOM = b"\xef\xbb\xbf"
_OFFSET = r"(?P<offset>[+-]\d\d(?::?\d\d)?|Z)\s*$"  # a time's UTC offset as written at its end (+05, +0530, Z)
SHOWN_OFFSETS = 4
_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+,\d+\s*$")
_DECIMAL_POINT = re.compile(r"^\s*[-+]?\d*\.\d+\s*$")


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
        alone = [cells.column(name) if name in text else _in_written_offset(
            _typed_as_written(cells.column(name), name, dialect), cells.column(name), name, dialect.file_name)
            for name in columns]
    except pa.ArrowInvalid as error:
        raise InputError(_unreadable(dialect.file_name, error)) from None
    table = pa.table(dict(zip(columns, alone, strict=True)))
    return _to_pandas(_missing_tokens(table, dialect, keep_text=set(dialect.codes), as_text=as_text))


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


def read_csv(content: bytes | Path, head: bytes, file_name: str) -> pd.DataFrame:
    return _parse_csv(content, _csv_dialect(content, head, file_name))


def _csv_dialect(content: bytes | Path, head: bytes, file_name: str) -> CsvDialect:
    encoding = _detect_encoding(content, head, file_name)
    sample = head.removeprefix(UTF8_BOM).decode(encoding, errors="replace")
    if not sample.strip():
        raise InputError(empty_message(file_name))
    delimiter = _detect_delimiter(sample)
    reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)  # any line ending, \r alone too
    header = name_columns(next(reader), file_name)
    rows = _sample_rows(sample, delimiter)[1:]
    return CsvDialect(
        file_name=file_name, encoding=encoding, delimiter=delimiter, header=tuple(header),
        header_lines=reader.line_num, decimal_point="," if delimiter != "," and _uses_decimal_comma(rows) else ".",
        codes=tuple(_leading_zero_columns(rows, header)),
    )


def _parse_csv(content: bytes | Path, dialect: CsvDialect) -> pd.DataFrame:
    """The table read with ``dialect``, some columns read again as text: a column of whole numbers one of which is
    written with a leading zero beyond the lines sniffed (``SNIFF_LINES``), so that no code loses its zeros; a column
    of whole numbers beyond 64 bits, which a float would round (issue 47: 200 keys from 1180591620717411303424 read
    as one); times with a UTC offset, for the offset they were written with (:func:`_in_written_offset`)."""
    source = str(content) if isinstance(content, Path) else io.BytesIO(content)
    codes = set(dialect.codes)
    try:
        table = pa_csv.read_csv(source, *_csv_options(dialect, codes))  # skips a UTF-8 byte-order mark itself
        whole = [name for name in table.column_names if pa.types.is_integer(table.column(name).type)]
        huge = [name for name in table.column_names if pa.types.is_floating(table.column(name).type)
                and (pa_compute.max(pa_compute.abs(table.column(name))).as_py() or 0.0) >= 2.0**63]
        zoned = [name for name in table.column_names if _zoned(table.column(name).type)]
        if whole or huge or zoned:
            if not isinstance(source, str):
                source.seek(0)
            read, parse, convert = _csv_options(dialect, set(whole + huge + zoned))
            convert.include_columns = whole + huge + zoned
            written = pa_csv.read_csv(source, read, parse, convert)
            for name in whole + huge:
                text = written.column(name)
                if (pa_compute.any(pa_compute.match_substring_regex(text, _LEADING_ZERO.pattern)).as_py()
                        if name in whole else pa_compute.all(pa_compute.match_substring_regex(text, _WHOLE.pattern))
                        .as_py()):
                    table = table.set_column(table.column_names.index(name), name, text)
                    codes.add(name)
            for name in zoned:
                table = table.set_column(table.column_names.index(name), name, _in_written_offset(
                    table.column(name), written.column(name), name, dialect.file_name))
    except pa.ArrowInvalid as error:
        raise InputError(_unreadable(dialect.file_name, error)) from None
    return _to_pandas(_missing_tokens(table, dialect, keep_text=codes))


def _zoned(column_type: pa.DataType) -> bool:
    """Times Arrow read with a UTC offset (``2024-02-10 13:00:00+05:30``): as instants in UTC."""
    return pa.types.is_timestamp(column_type) and column_type.tz is not None


def _in_written_offset(typed: pa.ChunkedArray, text: pa.ChunkedArray, name: str, file_name: str) -> pa.ChunkedArray:
    """Times written with a UTC offset in the offset they were written with, when they share one (``+05:30``
    stays ``+05:30``, the avatars' times written so); with several (a zone's summer and winter times), in UTC,
    said: the same instants, written ``+00:00``."""
    if not _zoned(typed.type):
        return typed
    found = pa_compute.drop_null(pa_compute.extract_regex(text, _OFFSET)).combine_chunks().field("offset")
    hours = pa_compute.replace_substring_regex(pa_compute.replace_substring(found, "Z", "+00"), r"^([+-]\d\d)$", r"\1:00")
    written = pa_compute.replace_substring_regex(hours, r"^([+-]\d\d)(\d\d)$", r"\1:\2").to_pylist()
    offsets = sorted({"+00:00" if offset == "-00:00" else offset for offset in written})  # -00:00 is UTC too
    if len(offsets) == 1:
        return typed.cast(pa.timestamp(typed.type.unit, tz=offsets[0]))
    say_several_offsets(file_name, name, offsets)
    return typed


def say_several_offsets(file_name: str, name: str, offsets: list[str]) -> None:
    """Times of one column written at several UTC offsets (``+01:00``...) are read and written in UTC: said."""
    say(_("{file_name}: column '{name}' holds times at {count} UTC offsets ({offsets}): they are read as the same "
          "instants in UTC, and the avatars' times are written in UTC (+00:00).").format(
        file_name=file_name, name=name, count=len(offsets), offsets=", ".join(offsets[:SHOWN_OFFSETS])
        + (", ..." if len(offsets) > SHOWN_OFFSETS else "")))


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


def _missing_tokens(table: pa.Table, dialect: CsvDialect, keep_text: set[str], as_text: bool = False) -> pa.Table:
    """Where "NA", "null", "N/A"... mean a missing value, read them so (SPEC section 2 step 1: never change a value
    silently); a column written with the other decimal mark than most of the file (``other_point``) is read as
    numbers too. In a column whose other values are numbers or dates they are missing values, and the column is
    numeric or a date; in a text column they are missing too, unless they have the form of its other values (a
    region code "NA" among "EU", "AS"). ``as_text``: the columns stay text (no number or date is read)."""
    decimal_point, other_point = dialect.decimal_point, dialect.other_point
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
        table = table.set_column(position, name, blanked if as_text or converted is None else _in_written_offset(
            converted, blanked, name, dialect.file_name))
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
    for target in (pa.int64(), pa.float64(), pa.timestamp("s"), pa.timestamp("s", tz="UTC")):  # UTC: with offsets
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
    if head.startswith(UTF8_BOM):
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


def _unreadable(file_name: str, error: pa.ArrowInvalid) -> str:
    """The message for a CSV Arrow could not parse: a row with another number of fields said plainly."""
    message = first_line(error)
    expected = re.search(r"Expected (\d+) columns, got (\d+)", message)
    if expected:
        return _("{file_name} could not be read as a table: a row has {found} where the header has {expected}. "
                 "Check the delimiter and the quotes of that row, or export the file again.").format(
            file_name=file_name, found=_fields(expected.group(2)), expected=_fields(expected.group(1)))
    return _("{file_name} could not be read as a table: {error}. Export the file again as CSV.").format(
        file_name=file_name, error=message)


def _fields(count: str) -> str:
    return ngettext("{count} field", "{count} fields", int(count)).format(count=number(int(count)))
