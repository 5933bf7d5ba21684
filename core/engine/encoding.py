"""Typed columns <-> numeric arrays: the engine's internal representation of a table.

Numeric, duration and datetime columns become one float matrix (datetimes as seconds since
1970-01-01 UTC, durations as seconds, SPEC section 2, step 1); categorical columns become one matrix of
integer codes into the modalities seen at fit time. Missing values are ``NaN`` and
code ``-1``. Decoding restores the columns' types (SPEC section 2, step 5): each number is written on its
originals' grid (:mod:`core.engine.value_grid`: the decimals it was written with, a regular step, a few common
values), datetimes and durations to the resolution they were recorded at, booleans stay booleans.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sized
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.schema import EXACT_WHOLE_LIMIT, written_whole
from core.engine.value_grid import ValueGrid, rare_rows, written_row_hashes

MAX_DECIMALS = 6
USUAL_SHARE = 0.99
_DECIMALS_SAMPLE = 20_000
_SECOND_US = 1_000_000
_RESOLUTIONS_S = (86_400.0, 3_600.0, 60.0, 1.0)


def code_dtype(categories: Iterable[Sized]) -> np.dtype:
    """The smallest signed integer type that holds the codes of every variable's modalities, and -1."""
    most = max((len(modalities) for modalities in categories), default=0)
    return np.dtype(np.int8 if most <= np.iinfo(np.int8).max else np.int16 if most <= np.iinfo(np.int16).max else np.int32)


@dataclass(frozen=True)
class EncodedTable:
    """A table as arrays: ``numeric`` (n, p) float64 and ``codes`` (n, q), signed integers of :func:`code_dtype`."""

    numeric: np.ndarray
    codes: np.ndarray
    numeric_names: tuple[str, ...]
    categorical_names: tuple[str, ...]
    categories: tuple[np.ndarray, ...]

    @property
    def n_rows(self) -> int:
        return self.numeric.shape[0]

    def take(self, rows: np.ndarray) -> EncodedTable:
        """The rows at positions ``rows``."""
        return replace(self, numeric=self.numeric[rows], codes=self.codes[rows])

    def with_arrays(self, numeric: np.ndarray, codes: np.ndarray) -> EncodedTable:
        """Same columns, other values."""
        return replace(self, numeric=numeric, codes=codes)


@dataclass(frozen=True)
class _NumericColumn:
    name: str
    is_datetime: bool
    decimals: int | None  # None: keep full precision
    datetime_resolution_s: float | None
    timezone: object
    datetime_unit: str = "datetime64[us]"  # the originals' own (pandas reads dates as ms, parses strings as us)
    duration_unit: str | None = None  # a duration column's timedelta64 unit, else None
    # what ``decimals`` is decided from, kept to merge the codecs of a table's parts: the decimals each of the
    # first ``_DECIMALS_SAMPLE`` values needs, and the largest magnitude
    needed_decimals: np.ndarray = field(default_factory=lambda: np.empty(0, np.int8), compare=False, repr=False)
    largest: float = 0.0
    whole_type: bool = True  # read as whole numbers (int64, Int64): written back so; a float column stays float
    grid: ValueGrid | None = None  # the values the column is written with; None: in full precision


class TableCodec:
    """Fitted encoder and decoder of one table's columns.

    Parameters
    ----------
    kinds : mapping of column name to :class:`~core.engine.schema.Kind`.

    Attributes
    ----------
    columns_ : the column order of the fitted table.
    numeric_columns_, categories_ : the per-column facts decoding needs.
    """

    def __init__(self, kinds: Mapping[str, Kind]):
        self.kinds = kinds

    def fit(self, frame: pd.DataFrame) -> TableCodec:
        self.columns_ = [str(name) for name in frame.columns]
        self.numeric_columns_ = [
            self._describe_numeric(frame[name]) for name in self.columns_ if self.kinds[name] is not Kind.CATEGORICAL
        ]
        self.categories_ = {
            name: _modalities(frame[name]) for name in self.columns_ if self.kinds[name] is Kind.CATEGORICAL
        }
        return self

    @staticmethod
    def _describe_numeric(column: pd.Series) -> _NumericColumn:
        name = str(column.name)
        if pd.api.types.is_datetime64_any_dtype(column):
            naive_dtype = column.dtype.base if isinstance(column.dtype, pd.DatetimeTZDtype) else column.dtype
            unit = f"datetime64[{np.datetime_data(naive_dtype)[0]}]"
            resolution = _resolution(column)
            return _NumericColumn(name, True, None, resolution, getattr(column.dt, "tz", None), unit,
                                  grid=_resolution_grid(resolution))
        if pd.api.types.is_timedelta64_dtype(column):
            unit = f"timedelta64[{np.datetime_data(column.dtype)[0]}]"
            resolution = _resolution(column)
            return _NumericColumn(name, False, None, resolution, None, duration_unit=unit,
                                  grid=_resolution_grid(resolution))
        values = numeric_values(column)
        observed = values[np.isfinite(values)]
        needed, largest = _needed_decimals(observed), float(np.abs(observed).max(initial=0.0))
        decimals = _usual_decimals(needed, largest)
        return _NumericColumn(name, False, decimals, None, None, needed_decimals=needed, largest=largest,
                              whole_type=written_whole(column),
                              grid=None if decimals is None else ValueGrid.of_decimals(decimals, observed))

    def merged(self, other: TableCodec) -> TableCodec:
        """The codec of two parts of one table together (SPEC section 10), this part first: the modalities of
        both; a date's resolution the finer of the two; a number's decimals decided on the first values of this
        part then of ``other``, as on the parts one after the other."""
        merged = TableCodec(self.kinds)
        merged.columns_ = self.columns_
        merged.numeric_columns_ = [_merged_numeric(first, second)
                                   for first, second in zip(self.numeric_columns_, other.numeric_columns_, strict=True)]
        merged.categories_ = {
            name: _sorted_if_possible(pd.unique(np.concatenate([modalities, other.categories_[name]])))
            for name, modalities in self.categories_.items()}
        return merged

    def encode(self, frame: pd.DataFrame) -> EncodedTable:
        """Arrays of ``frame``; modalities unseen at fit time are coded ``-1`` like missing values."""
        n_rows = len(frame)
        numeric = np.empty((n_rows, len(self.numeric_columns_)), dtype=np.float64)
        for position, column in enumerate(self.numeric_columns_):
            numeric[:, position] = numeric_values(frame[column.name])
        codes = np.empty((n_rows, len(self.categories_)), dtype=code_dtype(self.categories_.values()))
        for position, (name, modalities) in enumerate(self.categories_.items()):
            column = frame[name]
            if not isinstance(column.dtype, pd.CategoricalDtype):
                column = column.astype("category")
            to_modality = np.append(pd.Index(modalities).get_indexer(column.cat.categories), -1)
            codes[:, position] = to_modality[column.cat.codes.to_numpy()]  # category code -1 (missing) -> -1
        return EncodedTable(
            numeric=numeric,
            codes=codes,
            numeric_names=tuple(column.name for column in self.numeric_columns_),
            categorical_names=tuple(self.categories_),
            categories=tuple(self.categories_.values()),
        )

    def steps(self) -> list[float]:
        """Per numeric column, the regular step its decoded values are written with: ``10^-decimals`` or the
        originals' own step, a date's or a duration's resolution in seconds, 0 when kept in full precision."""
        return [0.0 if column.grid is None else column.grid.regular_step / column.grid.scale
                for column in self.numeric_columns_]

    def grids(self, plain: bool = False) -> list[ValueGrid | None]:
        """Per numeric column, the grid its decoded values are written on (None: in full precision); ``plain``:
        a number's decimals only."""
        return [_plain(column) if plain else column.grid for column in self.numeric_columns_]

    def departs(self) -> bool:
        """Whether a number's grid writes values other than its decimals do (a step, few values)."""
        return any(column.grid is not None and not column.is_datetime and not column.duration_unit
                   and column.grid.departs for column in self.numeric_columns_)

    def written(self, table: EncodedTable, plain: np.ndarray | None = None) -> np.ndarray:
        """The numbers of ``table`` as decoding writes them, on each column's grid (rows ``plain``: with their
        decimals only, a date's resolution)."""
        return np.column_stack([_written(table.numeric[:, position], column, plain)
                                for position, column in enumerate(self.numeric_columns_)]
                               ) if self.numeric_columns_ else table.numeric

    def made_rare(self, table: EncodedTable, originals: EncodedTable) -> np.ndarray:
        """The rows of ``table`` that their grid would write as a row fewer than ``RARE_HOLDERS`` of the
        ``originals`` hold (their indicators restored), to be written with their decimals only (the module
        :mod:`core.engine.value_grid`)."""
        everyone = np.ones(originals.n_rows, dtype=bool)
        rare = rare_rows(written_row_hashes(self.written(originals, everyone), originals.codes))
        return np.isin(written_row_hashes(self.written(table), table.codes), rare)

    def decode(self, table: EncodedTable, plain: np.ndarray | None = None) -> pd.DataFrame:
        """A frame with the fitted columns, in their order and types; the numbers of rows ``plain`` written with
        their decimals only (:meth:`made_rare`)."""
        columns: dict[str, pd.Series] = {}
        for position, column in enumerate(self.numeric_columns_):
            columns[column.name] = _decode_numeric(_written(table.numeric[:, position], column, plain), column)
        for position, (name, modalities) in enumerate(self.categories_.items()):
            columns[name] = _decode_categorical(table.codes[:, position], modalities)
        return pd.DataFrame({name: columns[name] for name in self.columns_}, copy=False)


def _merged_numeric(first: _NumericColumn, second: _NumericColumn) -> _NumericColumn:
    if first.is_datetime or first.duration_unit:
        ours, theirs = first.datetime_resolution_s, second.datetime_resolution_s
        finest = None if ours is None or theirs is None else min(ours, theirs)  # nested: a day is whole hours
        return replace(first, datetime_resolution_s=finest, grid=_resolution_grid(finest))
    needed = np.concatenate([first.needed_decimals, second.needed_decimals])[:_DECIMALS_SAMPLE]
    largest = max(first.largest, second.largest)
    decimals = _usual_decimals(needed, largest)
    grid = None
    if decimals is not None:  # each part's grid counted in the table's decimals (a coarser part's values lie on it)
        scale = 10.0**decimals
        grids = [part.grid.rescaled(scale) if part.grid is not None and part.grid.scale <= scale else ValueGrid(scale)
                 for part in (first, second)]
        grid = grids[0].merged(grids[1])
    return replace(first, decimals=decimals, needed_decimals=needed, largest=largest,
                   whole_type=first.whole_type and second.whole_type, grid=grid)


def _resolution_grid(resolution: float | None) -> ValueGrid | None:
    return None if resolution is None else ValueGrid.of_resolution(resolution)


def _modalities(column: pd.Series) -> np.ndarray:
    """The modalities present in a categorical column, sorted when their types allow it."""
    return _sorted_if_possible(column.cat.remove_unused_categories().cat.categories.to_numpy(dtype=object))


def _sorted_if_possible(modalities: np.ndarray) -> np.ndarray:
    try:
        return np.asarray(sorted(modalities), dtype=object)
    except TypeError:  # values of mixed types: keep the order of first appearance
        return np.asarray(modalities, dtype=object)


def datetime_microseconds(column: pd.Series) -> np.ndarray:
    """Microseconds since 1970-01-01 UTC as int64 (meaningless where missing): the one conversion of dates to
    numbers, for the projection, the metrics and the figures alike. Microseconds reach years 1 to 9999 and
    beyond (the ``9999-12-31`` "open end", a birth in 1500), where nanoseconds stop at 1677 and 2262."""
    naive = column.dt.tz_convert("UTC").dt.tz_localize(None) if getattr(column.dt, "tz", None) else column
    return naive.astype("datetime64[us]").to_numpy().view(np.int64)


def datetime_seconds(column: pd.Series) -> np.ndarray:
    """Seconds since 1970-01-01 UTC, NaN where missing."""
    seconds = datetime_microseconds(column) / _SECOND_US
    seconds[pd.isna(column).to_numpy()] = np.nan
    return seconds


def numeric_values(column: pd.Series) -> np.ndarray:
    """Floats of a numeric, datetime or duration column (dates as seconds since 1970, durations in seconds), NaN
    where missing."""
    if pd.api.types.is_datetime64_any_dtype(column):
        return datetime_seconds(column)
    if pd.api.types.is_timedelta64_dtype(column):
        seconds = column.astype("timedelta64[us]").to_numpy().view(np.int64) / _SECOND_US
        seconds[pd.isna(column).to_numpy()] = np.nan
        return seconds
    return column.to_numpy(dtype=float, na_value=np.nan)


def _resolution(column: pd.Series) -> float | None:
    """The coarsest of a day, an hour, a minute and a second that every date or duration of ``column`` is a whole
    number of (None: finer)."""
    seconds = numeric_values(column)
    observed = seconds[~np.isnan(seconds)]
    return next((r for r in _RESOLUTIONS_S if np.all(np.mod(observed, r) == 0)), None)


def _needed_decimals(observed: np.ndarray) -> np.ndarray:
    """The decimals (0 to ``MAX_DECIMALS``, ``MAX_DECIMALS + 1``: more) that write each of the first
    ``_DECIMALS_SAMPLE`` finite values exactly."""
    observed = observed[:_DECIMALS_SAMPLE]
    needed = np.full(observed.size, MAX_DECIMALS + 1, dtype=np.int8)
    for decimals in range(MAX_DECIMALS, -1, -1):
        scaled = observed * 10.0**decimals
        needed[np.abs(scaled - np.round(scaled)) <= 1e-9 * np.abs(scaled)] = decimals  # relative: 1e-300 is not 0
    return needed


def _usual_decimals(needed: np.ndarray, largest: float) -> int | None:
    """The column's usual number of decimals: the fewest (0 to MAX_DECIMALS) that write ``USUAL_SHARE`` of its
    values exactly (a few values with more digits, a rounding artefact of the source, do not set the precision of
    every avatar), else None (full precision: a measured quantity)."""
    if largest > EXACT_WHOLE_LIMIT:
        return None  # 1e300 is whole, yet no integer type holds it: kept as a float, in full
    if needed.size == 0:
        return 0
    written = np.cumsum(np.bincount(needed, minlength=MAX_DECIMALS + 2)) / needed.size  # share with <= d
    usual = int(np.argmax(written >= USUAL_SHARE - 1e-12))
    return None if usual > MAX_DECIMALS else usual


def _written(values: np.ndarray, column: _NumericColumn, plain: np.ndarray | None) -> np.ndarray:
    """A column's values on its grid; the rows ``plain`` with its decimals only."""
    if column.grid is None:
        return values
    written = column.grid.written(values)
    if plain is not None and plain.any():
        decimals = _plain(column)
        assert decimals is not None  # column.grid is set
        written[plain] = decimals.written(values[plain])
    return written


def _plain(column: _NumericColumn) -> ValueGrid | None:
    """A number's grid of its decimals alone (no step, no few values); a date's resolution."""
    if column.grid is None or column.is_datetime or column.duration_unit:
        return column.grid
    return ValueGrid(column.grid.scale)


def _decode_numeric(written: np.ndarray, column: _NumericColumn) -> pd.Series:
    """A column's values written on its grid (:func:`_written`) in the column's type."""
    missing = np.isnan(written)
    if column.is_datetime or column.duration_unit:
        microseconds = np.where(missing, 0, np.round(written * _SECOND_US)).astype(np.int64)
        if column.duration_unit:
            decoded = pd.Series(microseconds.view("timedelta64[us]")).astype(column.duration_unit)
            decoded[missing] = pd.NaT
            return decoded
        decoded = pd.Series(microseconds.view("datetime64[us]")).astype(column.datetime_unit)
        decoded[missing] = pd.NaT
        if column.timezone is not None:
            decoded = decoded.dt.tz_localize("UTC").dt.tz_convert(column.timezone)
        return decoded
    if column.decimals == 0 and column.whole_type:  # 70.0 read as a float stays 70.0, never 70
        if missing.any():
            return pd.Series(pd.array(np.where(missing, 0, written).astype(np.int64), dtype="Int64")).mask(missing)
        return pd.Series(written.astype(np.int64))
    return pd.Series(written)


def _decode_categorical(codes: np.ndarray, modalities: np.ndarray) -> pd.Series:
    """Booleans come back as pandas booleans, whole-number codes as integers (int64, or Int64 with missing
    values: the dtype they were read with, SPEC section 2 step 1), codes written as floats (1.0) as floats, other
    modalities as a pandas Categorical (code -1: missing)."""
    if len(modalities) and all(isinstance(value, (bool, np.bool_)) for value in modalities):
        lookup = np.append(modalities, np.array([None])).astype(object)
        return pd.Series(lookup[codes], dtype=object).astype("boolean")
    if len(modalities) and all(isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
                               for value in modalities):
        values = pd.Series(np.asarray(modalities, dtype=np.int64)[np.maximum(codes, 0)]).astype("Int64")
        values[codes < 0] = pd.NA
        return values if values.hasnans else values.astype(np.int64)
    if len(modalities) and all(isinstance(value, (float, np.floating)) for value in modalities):  # codes 1.0, 2.0
        return pd.Series(np.where(codes >= 0, np.asarray(modalities, dtype=float)[np.maximum(codes, 0)], np.nan))
    return pd.Series(pd.Categorical.from_codes(codes, categories=pd.Index(modalities, dtype=object)))
