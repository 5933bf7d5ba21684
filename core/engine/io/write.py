"""Writing results, each file atomically: JSON, text, and tables as CSV or Parquet by their suffix."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from core.engine.io.atomic import write_atomically
from core.engine.io.csv_writer import write_csv_rows


def json_text(data: object) -> str:
    """``data`` as indented JSON; numpy numbers and arrays become JSON numbers and lists, NaN is refused."""
    return json.dumps(data, indent=2, default=_json_default, allow_nan=False)


def write_json(data: object, path: str | os.PathLike[str]) -> None:
    """Write ``data`` as indented JSON (:func:`json_text`), atomically."""
    write_text(json_text(data), path)


def write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` as UTF-8, atomically."""
    write_atomically(lambda stream: stream.write(text.encode()), Path(path))


def write_bytes(data: bytes, path: str | os.PathLike[str]) -> None:
    """Write ``data`` as they are, atomically."""
    write_atomically(lambda stream: stream.write(data), Path(path))


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
    write_atomically(lambda stream: write_csv_rows(frame, stream), Path(path), private)


TABLE_SUFFIXES = (".csv", ".parquet", ".pq")  # what write_table writes; a table is read from .xlsx too


def write_table(frame: pd.DataFrame, path: str | os.PathLike[str], private: bool = False) -> None:
    """Write ``frame`` as its path's suffix says, atomically: Parquet for ``.parquet`` or ``.pq`` (types kept: a
    duration stays one), else CSV (see :func:`write_csv`)."""
    path = Path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        write_atomically(lambda stream: frame.to_parquet(stream, index=False), path, private)
    else:
        write_csv(frame, path, private=private)
