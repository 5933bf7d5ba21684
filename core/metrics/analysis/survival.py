"""Survival, real against avatars (SPEC section 9), with ``lifelines``: Kaplan-Meier curves per group, the
log-rank test across groups, and the Cox hazard ratio of a covariate with its 95 % interval, on WO, on WA and, as
the reference for natural variability, on HO.

The event column has two values; which is the event is named (``event_value``) or read from the values' names
(:func:`event_of`: 1, True, yes, death...). Rows missing the time, the event, the group or the covariate are
left out. Times are read in the column's own unit (durations in days). The hazard ratio is unadjusted (one
covariate, as the Avatar paper's AIDS comparison) unless other columns are named to ``adjust`` for: per unit of
a number, or per level of a categorical against its first level in WO.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from lifelines import CoxPHFitter, KaplanMeierFitter
from lifelines.exceptions import ConvergenceError
from lifelines.statistics import multivariate_logrank_test

from core.dataset import Kind
from core.errors import InputError
from core.i18n import N_, Message, _
from core.metrics.analysis import ON_SIDE, SIDES
from core.metrics.analysis.design import MAX_LEVELS, design, number_unit, ordered_levels, readable_numbers
from core.metrics.analysis.interval_overlap import ComparedEstimate, Estimate

CURVE_POINTS = 201  # each curve read at this many times, from 0 to the last time of any side
MAX_GROUPS = 10
_TIME, _EVENT = "__time__", "__event__"
NOT_A_COLUMN = {  # by the column's role
    "time": N_("The time column '{column}' is not a column of the table: check its spelling."),
    "event": N_("The event column '{column}' is not a column of the table: check its spelling."),
    "group": N_("The group column '{column}' is not a column of the table: check its spelling."),
    "covariate": N_("The covariate column '{column}' is not a column of the table: check its spelling."),
    "adjustment": N_("The adjustment column '{column}' is not a column of the table: check its spelling."),
}


@dataclass(frozen=True)
class Curve:
    """One Kaplan-Meier curve: the share still without the event at each time of the grid, and its median."""

    group: str | None
    rows: int
    events: int
    survival: tuple[float, ...]
    median: float | None  # the time at which half had the event (None: fewer than half ever do)

    def to_json(self) -> dict[str, object]:
        return {"group": self.group, "rows": self.rows, "events": self.events, "survival": list(self.survival),
                "median": self.median}


@dataclass(frozen=True)
class HazardRatio(ComparedEstimate):
    """The hazard ratio of one term on the three sides (``Estimate`` values are ratios; overlaps on their log)."""

    def _on_overlap_scale(self, estimate: Estimate | None) -> Estimate | None:
        if estimate is None:
            return None
        value, low, high = np.log([estimate.value, estimate.low, estimate.high])
        return Estimate(value, low, high, estimate.p_value)


@dataclass(frozen=True)
class SurvivalResult:
    """Kaplan-Meier curves, log-rank p-values and hazard ratios on WO, WA and HO."""

    time: str
    event: str
    event_value: str
    group: str | None
    covariate: str | None
    adjust: tuple[str, ...]
    unit: str  # of the times: "days", or "" for the column's own
    times: tuple[float, ...]
    curves: dict[str, tuple[Curve, ...]]  # by side
    logrank_p: dict[str, float | None]  # by side; None without a group
    hazard_ratios: tuple[HazardRatio, ...]
    reference_levels: dict[str, str] = field(default_factory=dict)  # each categorical covariate's, from WO
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"time": self.time, "event": self.event, "event_value": self.event_value, "group": self.group,
                "covariate": self.covariate, "adjust": list(self.adjust), "unit": self.unit, "times": list(self.times),
                "curves": {side: [curve.to_json() for curve in curves] for side, curves in self.curves.items()},
                "logrank_p": self.logrank_p, "hazard_ratios": [ratio.to_json() for ratio in self.hazard_ratios],
                "reference_levels": self.reference_levels,
                "notes": list(self.notes)}


def survival(working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind],
             time: str, event: str, group: str | None = None, covariate: str | None = None,
             adjust: Sequence[str] = (), event_value: str | None = None) -> SurvivalResult:
    """Curves, log-rank test and hazard ratios on WO, WA and HO (typed frames, the columns of ``kinds``);
    ``covariate`` defaults to ``group``; the hazard ratios of ``adjust``'s columns come with it; ``event_value``
    is the event column's value that means the event (default: :func:`event_of`)."""
    covariate = group if covariate is None else covariate
    adjust = tuple(name for name in adjust if name != covariate)
    if adjust and covariate is None:
        raise InputError(_("Adjusting a hazard ratio needs its covariate: name the covariate (or a group)."))
    _check_columns(kinds, time, {"event": event, "group": group, "covariate": covariate}, adjust)
    frames = dict(zip(SIDES, (working, avatars, holdout), strict=True))
    event_value = _event_value(working, avatars, event, event_value)
    group_levels = ordered_levels(working[group], avatars[group]) if group else []
    if len(group_levels) > MAX_GROUPS:
        raise InputError(_("The group column '{column}' has {count} values; curves are drawn for at most {most}: "
                           "choose a column with fewer.").format(column=group, count=len(group_levels),
                                                                 most=MAX_GROUPS))
    covariates = [covariate, *adjust] if covariate else []
    covariate_levels = {name: ordered_levels(working[name]) for name in covariates
                        if kinds[name] is Kind.CATEGORICAL}
    crowded = next((name for name, levels in covariate_levels.items() if len(levels) > MAX_LEVELS), None)
    if crowded:
        raise InputError(_("The covariate '{column}' has {count} values; a hazard ratio per value is shown for at "
                           "most {most}: choose a column with fewer, or group its values.").format(
            column=crowded, count=len(covariate_levels[crowded]), most=MAX_LEVELS))
    tables = {side: _table(frame, time, event, event_value, group, covariates, kinds, covariate_levels)
              for side, frame in frames.items()}
    negative = [side for side, table in tables.items() if (table[_TIME] < 0).any()]
    if negative:
        raise InputError(_("The time column '{column}' has negative values: survival times start at 0.").format(
            column=time))
    last = max((float(table[_TIME].max()) for table in tables.values() if len(table)), default=0.0)
    times = np.linspace(0.0, last, CURVE_POINTS)
    notes: list[str] = []
    terms = [name for name in tables["real"].columns if name not in (_TIME, _EVENT, "__group__")]
    fitted = {}
    with warnings.catch_warnings():  # lifelines 0.30 on pandas 3: deprecations of pandas' own, not of its results
        warnings.simplefilter("ignore", DeprecationWarning)
        curves = {side: tuple(_curves(table, group, group_levels, times)) for side, table in tables.items()}
        logrank = {side: _logrank(table, group) for side, table in tables.items()}
        for side, table in tables.items():
            fitted[side], note = _cox(table, terms)
            if note:
                notes.append(Message(ON_SIDE[side], note=note))
    ratios = tuple(HazardRatio(term, *(fitted[side].get(term) for side in SIDES)) for term in terms)
    return SurvivalResult(time, event, event_value, group, covariate, adjust, number_unit(working[time]),
                          tuple(times.tolist()), curves, logrank, ratios,
                          {name: values[0] for name, values in covariate_levels.items() if values}, tuple(notes))


EVENT_WORDS = ("true", "yes", "y", "event", "dead", "death", "died", "deceased", "failure", "failed",
               "relapse", "progression")
NO_EVENT_WORDS = ("false", "no", "n", "censored", "alive", "survived", "none", "ok")


def _check_columns(kinds: Mapping[str, Kind], time: str, roles: Mapping[str, str | None],
                   adjust: Sequence[str]) -> None:
    """Every column named is one of the table, and the time one holds numbers or durations."""
    for role, name in (("time", time), *roles.items(), *(("adjustment", name) for name in adjust)):
        if name is not None and name not in kinds:
            raise InputError(_(NOT_A_COLUMN[role]).format(column=name))
    if kinds[time] is Kind.CATEGORICAL:
        raise InputError(_("The time column '{column}' must hold numbers or durations, not categories.").format(
            column=time))
    if kinds[time] is Kind.DATETIME:
        raise InputError(_("The time column '{column}' holds dates; survival needs the time until the event or the end "
                           "of follow-up (a number of days, or the event date minus the start date).").format(
            column=time))


def _event_value(working: pd.DataFrame, avatars: pd.DataFrame, event: str, event_value: str | None) -> str:
    """The event column's value that means the event: ``event_value`` checked, or :func:`event_of`'s; the column
    has two values in the real rows (the avatars' averaged ones counted too said "6 values"), and the avatars
    no other."""
    event_levels = ordered_levels(working[event])
    if len(event_levels) != 2:
        raise InputError(_("The event column '{column}' must have two values (the event happened or not); it has "
                           "{count}.").format(column=event, count=len(event_levels)))
    if others := [level for level in ordered_levels(avatars[event]) if not _among(level, event_levels)]:
        raise InputError(_("The avatars' event column '{column}' holds values the real rows do not ({values}): it "
                           "was synthesized as a number. Give it the kind categorical and make the avatars "
                           "again.").format(column=event, values=", ".join(others[:3])))
    if event_value is None:
        return event_of(event, event_levels)
    if event_value not in event_levels:
        raise InputError(_("The event value '{value}' is not one of '{column}''s values ({values}).").format(
            value=event_value, column=event, values=", ".join(event_levels)))
    return event_value


def _among(level: str, levels: list[str]) -> bool:
    """``level`` is one of ``levels``, as text or as a number (1.0 is 1)."""
    if level in levels:
        return True
    numbers = pd.to_numeric(pd.Series([level, *levels]), errors="coerce").to_numpy()
    return bool(np.isfinite(numbers[0]) and np.any(numbers[1:] == numbers[0]))


def event_of(event: str, levels: Sequence[str]) -> str:
    """Which of the event column's two values is the event: of two numbers, the larger (1 of 0/1; 2 of 1/2, as R's
    Surv reads them); else the one named like an event (True, yes, death, relapse...) or the other of one named
    like its absence (False, no, censored, alive...). Refused when the names do not tell."""
    try:
        return max(levels, key=float)  # 1 of 0/1, 2 of 1/2 (R's Surv: 1 censored, 2 event)
    except ValueError:
        pass
    lowered = [str(level).strip().lower() for level in levels]
    for words, pick in ((EVENT_WORDS, lambda i: i), (NO_EVENT_WORDS, lambda i: 1 - i)):
        found = [i for i, text in enumerate(lowered) if text in words]
        if len(found) == 1:
            return levels[pick(found[0])]
    shown = {"column": event, "first": repr(levels[0]), "second": repr(levels[1]), "value": levels[1]}
    raise InputError(_("The event column '{column}' holds {first} and {second}: say which value means the event "
                       "(event_value={value}, for example).").format(**shown),
                     on_dashboard=_("The event column '{column}' holds {first} and {second}: say which value means "
                                    "the event under \u201cThe value that means the event\u201d ({value}, for "
                                    "example).").format(**shown))


def _table(frame: pd.DataFrame, time: str, event: str, event_value: str, group: str | None,
           covariates: Sequence[str], kinds: Mapping[str, Kind], levels: Mapping[str, list[str]]) -> pd.DataFrame:
    """Time, event (0/1), group (text) and the covariates' design columns, complete rows only."""
    table = pd.DataFrame({_TIME: readable_numbers(frame[time]),
                          _EVENT: np.where(frame[event].notna(), (frame[event].astype(object).astype(str)
                                                                  == event_value).to_numpy(float), np.nan)})
    if group:
        table["__group__"] = frame[group].astype(object).where(frame[group].notna(), None).map(
            lambda value: None if value is None else str(value))
    if covariates:
        table = pd.concat([table, design(frame, covariates, kinds, levels)], axis=1)
    return table.dropna().reset_index(drop=True)


def _curves(table: pd.DataFrame, group: str | None, levels: list[str], times: np.ndarray) -> Iterator[Curve]:
    parts = [(None, table)] if not group else [(level, table[table["__group__"] == level]) for level in levels]
    for level, part in parts:
        if len(part) == 0:
            yield Curve(level, 0, 0, (), None)
            continue
        fitter = KaplanMeierFitter().fit(part[_TIME], part[_EVENT])
        median = float(fitter.median_survival_time_)
        yield Curve(level, len(part), int(part[_EVENT].sum()),
                    tuple(fitter.survival_function_at_times(times).to_numpy().round(6).tolist()),
                    median if np.isfinite(median) else None)


def _logrank(table: pd.DataFrame, group: str | None) -> float | None:
    if not group or table["__group__"].nunique() < 2:
        return None
    return float(multivariate_logrank_test(table[_TIME], table["__group__"], table[_EVENT]).p_value)


def _cox(table: pd.DataFrame, terms: list[str]) -> tuple[dict[str, Estimate], str | None]:
    """The hazard ratios of ``terms`` on one side, and what went wrong: a term constant there, or a level without
    any event (its ratio would be 0 with no upper bound), is left out and said."""
    silent = [term for term in terms if set(table[term].unique()) == {0.0, 1.0}
              and table.loc[table[term] == 1, _EVENT].sum() == 0]  # an indicator whose rows never have the event
    varying = [term for term in terms if table[term].nunique() > 1 and term not in silent]
    if not varying:
        return {}, None if not terms else (
            Message(N_("not estimable (no event in the level): {terms}."), terms=", ".join(silent)) if silent
            else Message(N_("the covariate does not vary: no hazard ratio.")))
    if table[_EVENT].sum() == 0:
        return {}, Message(N_("no event: no hazard ratio."))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fitter = CoxPHFitter().fit(table[[_TIME, _EVENT, *varying]], _TIME, _EVENT)
        except ConvergenceError:
            return {}, Message(N_("the Cox model did not converge (a level with no event?): no hazard ratio."))
    summary = fitter.summary
    estimates = {term: Estimate(float(summary.at[term, "exp(coef)"]), float(summary.at[term, "exp(coef) lower 95%"]),
                                float(summary.at[term, "exp(coef) upper 95%"]), float(summary.at[term, "p"]))
                 for term in varying}
    unbounded = [term for term, estimate in estimates.items()
                 if not all(np.isfinite([estimate.value, estimate.low, estimate.high])) or estimate.low <= 0]
    left_out = [*silent, *unbounded]
    return ({term: estimate for term, estimate in estimates.items() if term not in unbounded},
            Message(N_("not estimable (no event in the level, or no bound): {terms}."), terms=", ".join(left_out))
            if left_out else None)
