"""A table too large for memory, read one column at a time and then by row groups (SPEC section 10).

Input: a CSV or Parquet file, a folder of Parquet files, or a glob: files in name order, their rows one after
the other. :class:`TableInput` reads one column on every row (:meth:`TableInput.read_column`) exactly as
:func:`~core.engine.io.read_table` reads it (a CSV column's type and missing-value spellings are decided on the
column alone), so that every decision taken on a column (its kind, its conversion, identifiers) is the one a
read of the whole table gives, with one column in memory.

Each column, once typed, is written to its own Arrow IPC file (:func:`write_arrow`: typed, no pickle) in row
groups of ``GROUP_ROWS`` rows; :class:`TypedColumns` then reads the rows of one group from every column file.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.ipc as pa_ipc
import pyarrow.parquet as pq

from core.engine.io import CsvDialect, csv_dialect, normalised_parquet_frame, read_csv_columns, say_several_offsets
from core.errors import InputError

GROUP_ROWS = 100_000
_GLOB_CHARACTERS = frozenset("*?[")
_PARQUET_SUFFIXES = (".parquet", ".pq")


@dataclass(frozen=True)
class TableInput:
    """The files of one table (a CSV or Parquet file, a folder of Parquet files or a glob) and its columns.

    Attributes
    ----------
    name : the input as the user gave it.
    files : the files, in the order their rows are read.
    file_format : ``"csv"`` or ``"parquet"``.
    columns : the column names.
    dialects : each CSV file's dialect (empty for Parquet).
    """

    name: str
    files: tuple[Path, ...]
    file_format: str
    columns: tuple[str, ...]
    dialects: tuple[CsvDialect, ...] = ()

    @classmethod
    def open(cls, spec: str) -> TableInput:
        """The table ``spec`` names; every file must have the same columns, in the same order."""
        files, file_format = input_files(spec)
        dialects = tuple(csv_dialect(path) for path in files) if file_format == "csv" else ()
        headers = [dialect.header for dialect in dialects] or [_parquet_columns(path) for path in files]
        for path, header in zip(files[1:], headers[1:], strict=True):
            if header != headers[0]:
                raise InputError(f"{path} does not have the columns of {files[0]}: every file must have the same "
                                 "columns, in the same order.")
        return cls(spec, tuple(files), file_format, tuple(headers[0]), dialects)

    def read_column(self, name: str) -> pd.Series:
        """Column ``name`` on every row, as one read of the whole table (the files one after the other) gives it.

        Files that disagree on the column's type (numbers in one, text in another; dates with and without a time
        zone) would give a column of mixed values: a CSV column is then read as written in every file (text); a
        Parquet column is refused, naming the files, since its values are typed by whoever wrote them."""
        parts = _without_empty_types(_in_one_offset([self._file_column(position, name)
                                                     for position in range(len(self.files))], self.name, name))
        column = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        if column.empty:
            raise InputError(f"{self.name} has a header but no data rows: add the rows to avatarize.")
        if len(parts) > 1 and _of_mixed_types(column):
            if self.file_format == "csv":
                return pd.concat([self._file_column(position, name, as_text=True)
                                  for position in range(len(self.files))], ignore_index=True)
            (first, first_type), (other, other_type) = _two_types(self.files, parts)
            raise InputError(f"{self.name}: column '{name}' holds {first_type} in {first.name} and {other_type} in "
                             f"{other.name}: write it alike in every file.")
        return column

    def _file_column(self, position: int, name: str, as_text: bool = False) -> pd.Series:
        path = self.files[position]
        if self.file_format == "csv":
            return read_csv_columns(path, self.dialects[position], [name], as_text=as_text)[name]
        parquet = pq.ParquetFile(path)
        names = parquet.schema_arrow.names
        # an index written by pandas comes by itself (with a column "index", reset_index names it "level_0")
        stored = [name] if name in names else ["index"] if "index" in names else []
        return normalised_parquet_frame(parquet.read(columns=stored, use_pandas_metadata=True).to_pandas(),
                                        path.name)[name]


@dataclass(frozen=True)
class TypedColumns:
    """Typed columns, one Arrow IPC file each in ``folder`` (named by the column's ``positions`` in the input),
    cut in the same row groups (``group_rows``); read by row group, or as the relations read a table
    (:class:`~core.dataset.relations.columns.TableColumns`: a sample, a few columns whole, a column's counts)."""

    folder: Path
    columns: tuple[str, ...]
    positions: tuple[int, ...]
    group_rows: tuple[int, ...]

    @property
    def n_rows(self) -> int:
        return sum(self.group_rows)

    def group_start(self, group: int) -> int:
        """The table's row number of ``group``'s first row."""
        return sum(self.group_rows[:group])

    def read_rows(self, group: int) -> pd.DataFrame:
        """The rows of row group ``group``, every column typed."""
        return pd.concat([self._group(position, group).to_pandas() for position in self.positions], axis=1)

    @property
    def names(self) -> list[str]:
        return list(self.columns)

    def sample(self, positions: np.ndarray) -> pd.DataFrame:
        """The rows at ``positions`` of every column, read one column at a time (the relations' sample)."""
        indices = pa.array(positions, type=pa.int64())
        return pd.concat([self._whole(position).take(indices).to_pandas() for position in self.positions], axis=1)

    def whole(self, names: Sequence[str]) -> pd.DataFrame:
        """Every row of the columns ``names``, typed."""
        return pd.concat([self._whole(self.positions[self.columns.index(name)]).to_pandas() for name in names], axis=1)

    def arrow(self, name: str) -> pa.ChunkedArray:
        """Every row of the column ``name`` as Arrow holds it, memory-mapped (no Python object per row)."""
        return self._whole(self.positions[self.columns.index(name)]).column(0)

    def distinct(self, name: str) -> int:
        return int(self.whole([name])[name].nunique())

    def dtypes(self) -> pd.Series:
        """Each column's type, the categories of a categorical column included (read once: an IPC file holds its
        dictionary once, before its row groups)."""
        return pd.concat([self._group(position, 0).slice(0, 0).to_pandas() for position in self.positions],
                         axis=1).dtypes

    def _whole(self, position: int) -> pa.Table:
        with pa_ipc.open_file(pa.memory_map(str(column_file(self.folder, position)))) as reader:
            return reader.read_all()

    def _group(self, position: int, group: int) -> pa.Table:
        with pa_ipc.open_file(pa.memory_map(str(column_file(self.folder, position)))) as reader:
            return pa.Table.from_batches([reader.get_batch(group)])


def _without_empty_types(parts: list[pd.Series]) -> list[pd.Series]:
    """Parts without a value (a file with a header only, a column empty in one file: Arrow's null type) take the
    type of the parts with values, as one file holding every row would read them."""
    filled = [part for part in parts if part.notna().any()]
    if len(filled) in (0, len(parts)):
        return parts
    dtype = pd.concat(filled, ignore_index=True).dtype
    if pd.api.types.is_bool_dtype(dtype):  # booleans with missing values are objects (a bool None is False)
        dtype = object
    return [part if part.notna().any() else pd.Series(None, index=part.index, dtype=dtype, name=part.name)
            for part in parts]  # integers with missing values become decimals, as in one file


def _in_one_offset(parts: list[pd.Series], table: str, name: str) -> list[pd.Series]:
    """Files whose times each keep one UTC offset, not the same (winter in one, summer in another), in UTC, said
    as one file's times at several offsets are (the parts without a zone left as they are)."""
    zoned = [isinstance(part.dtype, pd.DatetimeTZDtype) for part in parts]
    offsets = sorted({str(part.dt.tz).removeprefix("UTC") or "+00:00" for part, has in zip(parts, zoned, strict=True)
                      if has})
    if len(offsets) < 2:
        return parts
    say_several_offsets(table, name, offsets)
    return [part.dt.tz_convert("UTC") if has else part for part, has in zip(parts, zoned, strict=True)]


def _of_mixed_types(column: pd.Series) -> bool:
    """Values of several kinds (numbers and text, dates with and without a time zone) in one column."""
    if column.dtype != object:
        return False
    inferred = pd.api.types.infer_dtype(column, skipna=True)
    if inferred == "datetime":
        return len({value.tzinfo is None for value in column.dropna()}) > 1
    return inferred.startswith("mixed")


def _two_types(files: tuple[Path, ...], parts: list[pd.Series]) -> list[tuple[Path, str]]:
    """Two files and the types of their parts of a column, the first file's and the first that differs."""
    types = [str(part.dtype) for part in parts]
    other = next((position for position, kind in enumerate(types) if kind != types[0]), len(types) - 1)
    return [(files[0], types[0]), (files[other], types[other])]


def column_file(folder: Path, position: int) -> Path:
    """The IPC file of the typed column at ``position``."""
    return folder / f"column-{position:05d}.arrow"


def write_arrow(table: pa.Table, target: Path, group_rows: int) -> list[int]:
    """``table`` written to the Arrow IPC file ``target`` (mode 0600) in groups of ``group_rows`` rows (one group at
    least), whole or not at all; the rows of each group."""
    partial = target.with_name(target.name + ".partial")
    sizes = []
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # real rows: readable by you only
    with os.fdopen(descriptor, "wb") as stream, pa_ipc.new_file(stream, table.schema) as writer:
        for start in range(0, max(table.num_rows, 1), max(group_rows, 1)):
            part = table.slice(start, group_rows).combine_chunks()
            writer.write_batch(part.to_batches()[0] if part.num_rows else pa.RecordBatch.from_pylist([], table.schema))
            sizes.append(part.num_rows)
    os.replace(partial, target)
    return sizes


def read_arrow(path: Path) -> pd.DataFrame:
    """An IPC file written by :func:`write_arrow`, every group, as a frame."""
    with pa_ipc.open_file(pa.memory_map(str(path))) as reader:
        return reader.read_all().to_pandas()


def input_files(spec: str) -> tuple[list[Path], str]:
    """The files ``spec`` names and their format, ``"parquet"`` or ``"csv"``."""
    path = Path(spec)
    if path.is_file():  # a name holding [ or * is a file's before a pattern
        files = [path]
    elif path.is_dir():
        named = sorted(child for child in path.iterdir()
                       if child.suffix.lower() in _PARQUET_SUFFIXES and not child.name.startswith((".", "_")))
        if folder := next((child for child in named if not child.is_file()), None):
            raise InputError(f"{spec}: {folder.name} is a folder, not a Parquet file (a dataset written by Spark?): "
                             "give it as the input on its own, or move it out.")
        files = named
        if not files:
            raise InputError(f"{spec}: the folder holds no Parquet file (.parquet). Give a file, a folder of Parquet "
                             "files or a glob such as 'parts/*.csv'.")
    elif _GLOB_CHARACTERS & set(spec):
        files = sorted(Path(name) for name in glob.glob(spec) if Path(name).is_file())
        if not files:
            raise InputError(f"{spec}: no file matches. Check the pattern (quote it so that the shell leaves it).")
    else:
        raise InputError(f"{spec}: no such file or folder. Check the path.")
    formats = {_format(file) for file in files}
    if len(formats) > 1:
        raise InputError(f"{spec} mixes CSV and Parquet files: give files of one format.")
    return files, formats.pop()


def _format(path: Path) -> str:
    with path.open("rb") as stream:
        head = stream.read(4)
    if head == b"PAR1" or path.suffix.lower() in _PARQUET_SUFFIXES:
        return "parquet"
    if head.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")) or path.suffix.lower() in (".xlsx", ".xls"):
        raise InputError(f"{path}: an Excel workbook cannot be read in batches; save it as CSV or Parquet.")
    return "csv"


def _parquet_columns(path: Path) -> tuple[str, ...]:
    try:
        empty = pq.ParquetFile(path).schema_arrow.empty_table().to_pandas()
    except (OSError, pa.ArrowException) as error:
        raise InputError(f"{path} is not a valid Parquet file ({str(error).splitlines()[0]}): export it again.") \
            from None
    return tuple(normalised_parquet_frame(empty, path.name).columns)
