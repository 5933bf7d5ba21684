"""Reading a user's table (CSV, Excel, Parquet) from a path or an open file: the format recognised from the file's
first bytes (a ``.csv`` that is really an Excel workbook still loads), then from its extension; every problem an
:class:`~core.errors.InputError` naming the file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from core.engine.io.csv_reader import SNIFF_BYTES, UTF8_BOM, read_csv
from core.engine.io.excel_reader import EXCEL_MAGIC, read_excel
from core.engine.io.memory import release_freed_memory
from core.engine.io.messages import empty_message
from core.engine.io.parquet_reader import PARQUET_MAGIC, read_parquet
from core.engine.io.said import say
from core.errors import InputError
from core.i18n import _


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
        raise InputError(empty_message(file_name))

    suffix = Path(file_name).suffix.lower()
    if head.startswith(PARQUET_MAGIC) or suffix in {".parquet", ".pq"}:  # by name too: a damaged one says so
        frame = read_parquet(_bytes_of(content), file_name)
    elif head.startswith(EXCEL_MAGIC) or (suffix == ".xlsx" and b"\x00" in head):  # a damaged one says so
        frame = read_excel(_bytes_of(content), file_name)
    elif suffix in {".json", ".jsonl"} or head.removeprefix(UTF8_BOM).lstrip().startswith(b"{"):  # issue 47
        raise InputError(_("{file_name}: this is JSON, not a table; the workbench reads CSV, Excel and Parquet files "
                           "(a schema of linked tables is given with --tables).").format(file_name=file_name))
    else:
        if suffix in {".xlsx", ".xls"}:  # issue 47: a CSV saved under a workbook's name, read before, was refused
            say(_("{file_name} is a text table (CSV), not an Excel workbook: it is read as CSV.").format(
                file_name=file_name))
        frame = read_csv(content, head, file_name)
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
