"""The CSV text of a frame, block by block: dates as dates, floats with their point, durations as pandas writes them,
text quoted where needed; and the columns a spreadsheet could run as formulas."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable
from typing import BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pa_compute
import pyarrow.csv as pa_csv

WRITE_ROWS = 1 << 16
_FORMULA_START = re.compile(r"^[=+\-@\t\r]")


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
    write_csv_rows(frame, buffer)
    return buffer.getvalue()


def write_csv_rows(frame: pd.DataFrame, stream: BinaryIO) -> None:
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
    texts: Iterable[pa.Array]
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
            return lambda block: pa.array(block.dt.strftime("%Y-%m-%d %H:%M:%S%z").str.replace(  # +05:30, as read
                r"([+-]\d\d)(\d\d)$", r"\1:\2", regex=True), type=pa.string(), from_pandas=True)
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
