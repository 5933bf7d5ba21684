"""The columns of a model as the analyses of SPEC section 9 read them: numbers in their own unit (dates as days
since 1970-01-01, durations in days), each categorical as indicators of its levels against a reference level."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.encoding import numeric_values
from core.errors import InputError
from core.i18n import N_, _
from core.metrics.aggregates import share_siblings

SECONDS_PER_DAY = 86_400.0
LARGEST_MODELLED = 1e150  # beyond, a value's square overflows float64 (1.8e308): scalers and fits turn to NaN
SMALLEST_SCALED = 1e-150  # an outcome all below it in size is scaled by a power of two: its squares were 0
MAX_LEVELS = 20  # a categorical with more levels is left out of the default predictors (its own model)
MAX_THRESHOLD_LEVELS = 10  # a number with more distinct values is read as a measure, which a threshold may cut
LEFT_OUT = N_("Left out of the predictors: {columns} (each gives another column exactly: a model would read the "
              "answer off it).")


def ordered_levels(*columns: pd.Series) -> list[str]:
    """The distinct non-missing values of ``columns`` as text, each column read as its own values (two categorical
    columns of codes, one with a missing value, are not made floats: 1 stays "1"), in natural order (2 before 10;
    numbers before words): the first is the reference level, as R and statsmodels take it."""
    distinct = {str(value) for column in columns for value in pd.unique(column.dropna().astype(object))}
    return sorted(distinct, key=_natural_key)


def _natural_key(text: str) -> tuple:
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                              for part in re.split(r"(\d+)", text) if part))


def number_unit(column: pd.Series) -> str:
    """The unit a numeric column is read in: "days" for dates and durations, else "" (the column's own)."""
    return N_("days") if (pd.api.types.is_datetime64_any_dtype(column) or pd.api.types.is_timedelta64_dtype(column)) \
        else ""


def readable_numbers(column: pd.Series) -> np.ndarray:
    """Floats of a numeric column in :func:`number_unit`'s unit, NaN where missing."""
    values = numeric_values(column)
    return values / SECONDS_PER_DAY if number_unit(column) else values


def level_indicators(column: pd.Series, levels: Sequence[str]) -> pd.DataFrame:
    """One 0/1 column ``"name = level"`` per level but the first (the reference); NaN where ``column`` is missing."""
    present = column.notna().to_numpy()
    text = column.astype(object).astype(str)
    return pd.DataFrame({f"{column.name} = {level}": np.where(present, (text == level).to_numpy(dtype=float), np.nan)
                         for level in levels[1:]}, index=column.index)


def design(frame: pd.DataFrame, predictors: Sequence[str], kinds: Mapping[str, Kind],
           levels: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """The predictors of ``frame`` as floats: numbers by :func:`readable_numbers`, categoricals by
    :func:`level_indicators` over ``levels`` (a level ``levels`` does not list reads as the reference)."""
    parts = [level_indicators(frame[name], levels[name]) if kinds[name] is Kind.CATEGORICAL
             else pd.DataFrame({name: readable_numbers(frame[name])}, index=frame.index) for name in predictors]
    return pd.concat(parts, axis=1) if parts else pd.DataFrame(index=frame.index)


def default_predictors(kinds: Mapping[str, Kind], frame: pd.DataFrame, outcome: str,
                       max_levels: int | None = MAX_LEVELS) -> tuple[tuple[str, ...], dict[str, str]]:
    """Every column but the outcome (categoricals with more than ``max_levels`` levels left out), and without those
    :func:`determined_predictors` finds: the predictors, and those left out with what each determines."""
    candidates = [name for name in kinds if name != outcome and (
        max_levels is None or kinds[name] is not Kind.CATEGORICAL or frame[name].nunique() <= max_levels)]
    determined = determined_predictors(frame, outcome, candidates)
    determined |= dict.fromkeys(share_siblings(outcome, candidates), outcome)  # together they give the outcome
    return tuple(name for name in candidates if name not in determined), determined


def determined_predictors(frame: pd.DataFrame, outcome: str, predictors: Iterable[str]) -> dict[str, str]:
    """The predictors a study should leave out, each with what it determines: one whose values give the outcome
    exactly on every row where both are known (``low`` from ``bwt``: every baby under 2 500 g is ``low``, every other
    is not; a code and its label), which a model would read the answer off; and the second of two predictors that
    are each other's exact rank transform (``logwage`` beside ``wage``), which a regression cannot separate."""
    rows = frame.dropna(subset=[outcome])
    determined: dict[str, str] = {}
    ranks: dict[str, pd.Series] = {}
    for name in predictors:
        both = rows[[name, outcome]].dropna()
        if len(both) < 3 or both[name].nunique() < 2:
            continue
        if _gives(both[name], both[outcome]):
            determined[name] = outcome
            continue
        if pd.api.types.is_numeric_dtype(both[name]) and not pd.api.types.is_bool_dtype(both[name]):
            rank = frame[name].rank(method="dense")
            twin = next((other for other, other_rank in ranks.items()
                         if abs(rank.corr(other_rank, method="spearman")) > 1 - 1e-12), None)
            if twin is not None:
                determined[name] = twin
            else:
                ranks[name] = rank
    return determined


def _gives(predictor: pd.Series, outcome: pd.Series) -> bool:
    """Whether ``predictor`` determines a categorical ``outcome`` (each of its values holds one outcome value, or, a
    number, each outcome value's range of it lies apart from the others': a threshold) or is an exact monotone map
    of a numeric one."""
    numeric = pd.api.types.is_numeric_dtype(predictor) and not pd.api.types.is_bool_dtype(predictor)
    if pd.api.types.is_numeric_dtype(outcome) and not pd.api.types.is_bool_dtype(outcome) and outcome.nunique() > 2:
        return numeric and abs(predictor.corr(outcome, method="spearman")) > 1 - 1e-12
    if numeric and predictor.nunique() > MAX_THRESHOLD_LEVELS:
        ranges = predictor.groupby(outcome.astype(str)).agg(["min", "max"]).sort_values("min")
        return bool((ranges["max"].to_numpy()[:-1] < ranges["min"].to_numpy()[1:]).all())
    levels = pd.DataFrame({"p": predictor.astype(str), "o": outcome.astype(str)}).groupby("p")["o"].nunique()
    return bool((levels == 1).all()) and len(levels) * 5 <= len(predictor)


def checked_predictors(frame: pd.DataFrame, predictors: Sequence[str], kinds: Mapping[str, Kind],
                       max_levels: int | None = None) -> None:
    """Refuse (:class:`InputError`) a predictor without any value in ``frame`` (the real rows), a number beyond
    ``LARGEST_MODELLED`` (its square overflows: the fit would end in NaN), or, with ``max_levels``, a categorical
    with more values than a model can show an effect for."""
    for name in predictors:
        if not frame[name].notna().any():
            raise InputError(_("The predictor '{column}' has no value in the real rows: leave it out.").format(
                column=name))
        if kinds[name] is not Kind.CATEGORICAL:
            largest = float(np.nanmax(np.abs(numeric_values(frame[name]))))
            if largest > LARGEST_MODELLED:
                raise InputError(_("The predictor '{column}' holds values as large as {value}: a model computes "
                                   "with their squares, which overflow. Rescale it (divide it by a power of ten), or "
                                   "leave it out.").format(column=name, value=f"{largest:.3g}"))
        if max_levels is not None and kinds[name] is Kind.CATEGORICAL and frame[name].nunique() > max_levels:
            raise InputError(_("The predictor '{column}' has {count} values: an effect per value is shown for at most "
                               "{most}; leave it out, or group its values.").format(
                column=name, count=frame[name].nunique(), most=max_levels))
