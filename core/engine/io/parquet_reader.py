"""Reading a Parquet file: an index kept as columns, names as text, exact decimals as numbers, nested values refused."""

from __future__ import annotations

import decimal
import io

import numpy as np
import pandas as pd
import pyarrow as pa

from core.engine.io.column_names import check_column_names
from core.engine.io.messages import first_line
from core.errors import InputError
from core.i18n import _

PARQUET_MAGIC = b"PAR1"


def read_parquet(data: bytes, file_name: str) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(io.BytesIO(data), engine="pyarrow")
    except (OSError, ValueError, pa.ArrowException) as error:
        raise InputError(
            _("{file_name} is not a valid Parquet file ({error}): export it again, or save it as CSV.").format(
                file_name=file_name, error=first_line(error))
        ) from None
    return normalised_parquet_frame(frame, file_name)


def normalised_parquet_frame(frame: pd.DataFrame, file_name: str) -> pd.DataFrame:
    """A frame read from Parquet as the engine takes it: an index written by pandas kept as columns (it is data),
    names as text, decimals as numbers (see :func:`_plain_values`)."""
    if not isinstance(frame.index, pd.RangeIndex):
        frame = frame.reset_index()
    check_column_names([str(name) for name in frame.columns], file_name)
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
