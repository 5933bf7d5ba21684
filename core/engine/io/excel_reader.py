"""Reading an Excel workbook: its first sheet holding a table, or every such sheet (a dataset of several tables).

A workbook (a zip of XML parts) may expand to at most ``EXCEL_MAX_BYTES`` of XML, read from its directory before any
parsing: 6 MB can hold 50 million rows, and the parser takes about 4 s and 3 bytes of memory per byte of XML
(256 MB: about 5 million cells, a minute); larger tables go as CSV or Parquet; a title line above the header is
skipped, a header on two rows refused."""

from __future__ import annotations

import io
import zipfile

import pandas as pd

from core.engine.io.column_names import name_columns
from core.engine.io.messages import empty_message, first_line
from core.errors import InputError
from core.i18n import _, number

EXCEL_MAX_BYTES = 256 * 2**20
EXCEL_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0")


def read_excel(data: bytes, file_name: str) -> pd.DataFrame:
    """The workbook's first sheet that holds a table."""
    sheets = _filled_sheets(data, file_name)
    if not sheets:
        raise InputError(empty_message(file_name))
    return _sheet_table(next(iter(sheets.values())), file_name)


def read_workbook(data: bytes, file_name: str) -> dict[str, pd.DataFrame]:
    """Every sheet of an Excel workbook that holds a table, by sheet name (a dataset of several tables in one
    file), each read as :func:`read_table` reads the first; a sheet of a header only refused in one line."""
    sheets = _filled_sheets(data, file_name)
    if not sheets:
        raise InputError(empty_message(file_name))
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
              "save it again as .xlsx or export it as CSV.").format(file_name=file_name, error=first_line(error))
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
    header = name_columns([None if pd.isna(cell) else str(cell) for cell in raw.iloc[0]], file_name)
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
