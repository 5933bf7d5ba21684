"""Typed columns <-> numeric arrays: the engine's internal representation of a table.

Numeric, duration and datetime columns become one float matrix (datetimes as seconds since
1970-01-01 UTC, durations as seconds, SPEC section 2, step 1); categorical columns become one matrix of
integer codes into the modalities seen at fit time. Missing values are ``NaN`` and
code ``-1``. Decoding restores the columns' types (SPEC section 2, step 5): whole-number
columns are rounded, decimals are rounded to the precision the column was written
with, datetimes and durations to the resolution they were recorded at, booleans stay booleans.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sized
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.schema import EXACT_WHOLE_LIMIT, written_whole

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
            return _NumericColumn(name, True, None, _resolution(column), getattr(column.dt, "tz", None), unit)
        if pd.api.types.is_timedelta64_dtype(column):
            unit = f"timedelta64[{np.datetime_data(column.dtype)[0]}]"
            return _NumericColumn(name, False, None, _resolution(column), None, duration_unit=unit)
        values = numeric_values(column)
        observed = values[np.isfinite(values)]
        needed, largest = _needed_decimals(observed), float(np.abs(observed).max(initial=0.0))
        return _NumericColumn(name, False, _usual_decimals(needed, largest), None, None, needed_decimals=needed,
                              largest=largest, whole_type=written_whole(column))

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
        """Per numeric column, the step its decoded values are written with: ``10^-decimals``, a date's or a
        duration's resolution in seconds, 0 when kept in full precision."""
        return [(column.datetime_resolution_s or 0.0) if column.is_datetime or column.duration_unit
                else 0.0 if column.decimals is None else 10.0 ** -column.decimals for column in self.numeric_columns_]

    def decode(self, table: EncodedTable) -> pd.DataFrame:
        """A frame with the fitted columns, in their order and types."""
        columns: dict[str, pd.Series] = {}
        for position, column in enumerate(self.numeric_columns_):
            columns[column.name] = _decode_numeric(table.numeric[:, position], column)
        for position, (name, modalities) in enumerate(self.categories_.items()):
            columns[name] = _decode_categorical(table.codes[:, position], modalities)
        return pd.DataFrame({name: columns[name] for name in self.columns_}, copy=False)


def _merged_numeric(first: _NumericColumn, second: _NumericColumn) -> _NumericColumn:
    if first.is_datetime or first.duration_unit:
        ours, theirs = first.datetime_resolution_s, second.datetime_resolution_s
        finest = None if ours is None or theirs is None else min(ours, theirs)  # nested: a day is whole hours
        return replace(first, datetime_resolution_s=finest)
    needed = np.concatenate([first.needed_decimals, second.needed_decimals])[:_DECIMALS_SAMPLE]
    largest = max(first.largest, second.largest)
    return replace(first, decimals=_usual_decimals(needed, largest), needed_decimals=needed, largest=largest,
                   whole_type=first.whole_type and second.whole_type)


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


def _decode_numeric(values: np.ndarray, column: _NumericColumn) -> pd.Series:
    missing = np.isnan(values)
    if column.is_datetime or column.duration_unit:
        resolution = column.datetime_resolution_s
        seconds = np.round(values / resolution) * resolution if resolution else values
        microseconds = np.where(missing, 0, np.round(seconds * _SECOND_US)).astype(np.int64)
        if column.duration_unit:
            decoded = pd.Series(microseconds.view("timedelta64[us]")).astype(column.duration_unit)
            decoded[missing] = pd.NaT
            return decoded
        decoded = pd.Series(microseconds.view("datetime64[us]")).astype(column.datetime_unit)
        decoded[missing] = pd.NaT
        if column.timezone is not None:
            decoded = decoded.dt.tz_localize("UTC").dt.tz_convert(column.timezone)
        return decoded
    if column.decimals is None:
        return pd.Series(values)
    rounded = np.round(values, column.decimals)
    if column.decimals == 0 and column.whole_type:  # 70.0 read as a float stays 70.0, never 70
        if missing.any():
            return pd.Series(pd.array(np.where(missing, 0, rounded).astype(np.int64), dtype="Int64")).mask(missing)
        return pd.Series(rounded.astype(np.int64))
    return pd.Series(rounded)


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
