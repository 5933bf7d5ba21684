"""A time series table (SPEC 13): a child table of measures over time, linked to its person by ``time_series``,
turned into numeric columns of the person (its timing and, per variable, its functional PCA scores) and rebuilt
from each person avatar's own.

Each variable is aligned and projected alone (:mod:`core.engine.time_series`): a numeric one by its values, a
categorical one by the indicators of its modalities side by side on the grid (one projection). The person's timing
(number of measures, first time, span) is read from the time column over every row of the person. A variable with
missing values also gives each person the share of their measures where it is missing.

Rebuilt, each avatar's times are its own number of measures over its own span; a value is its curve read there,
written with the column's decimals (a date with its resolution) and kept within its observed range; a categorical
value is the modality of largest reconstructed indicator plus an offset per modality calibrated so that each keeps
its share of the measures (:mod:`~core.engine.share_calibration`: the plain largest indicator gave a symptom of 15 %
of the visits to 4.7 % of the avatars' on the follow-up demo, every person's curve pulled towards the majority); a
value is missing with the avatar's share of missing values. The times are rounded as the column is written and a
time met twice in one avatar kept once, so that the times strictly increase.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.encoding import TableCodec, numeric_values
from core.engine.parameters import ALIGNMENTS, MAX_NB_POINTS, PROJECTION_TYPES, UNALIGNMENTS, Parameters
from core.engine.schema import apply_kinds, detect_kind, resolve_kinds
from core.engine.share_calibration import calibrated_offsets
from core.engine.time_series import (
    FunctionalPCA,
    Schedule,
    grid_points,
    resampled,
    series_of,
    unaligned_times,
    values_at,
)
from core.errors import InputError
from core.i18n import _, number
from core.validation import check_choice, check_whole_number

TIMING = ("measures", "first time", "span")
PLACEHOLDER_GAP = 100  # a time this many times the others' range beyond them is a placeholder
MISSING = "share missing"


@dataclass
class _Variable:
    """One variable's projection: its name, its modalities and their shares of the measures (categorical) or
    None, its fitted FPCA, and whether it has missing values."""

    name: str
    modalities: np.ndarray | None
    shares: np.ndarray | None
    fpca: FunctionalPCA
    has_missing: bool

    def score_names(self) -> list[str]:
        return [f"{self.name}: score {axis + 1}" for axis in range(self.fpca.components_.shape[0])]


class SeriesTable:
    """The measures of a time series table ``frame`` (its own columns: ``time`` and the variables of ``kinds``), each
    row's person ``rows`` (a row of the parent table, ``n_persons`` rows), as the person's columns; and back.

    Attributes: ``nb_points_`` (the grid), ``time_kind_`` (a number or a date), ``variables_``, ``timing_range_``
    (the observed smallest and largest of
    each timing value, persons with measures), ``value_range_`` (each numeric variable's), ``codec_``, ``window_``
    (the persons' columns at or before, and at or after, every measure of theirs).
    """

    def __init__(self, time: str, kinds: dict[str, Kind], parameters: Parameters, where: str):
        self.time, self.kinds, self.parameters, self.where = time, kinds, parameters, where

    def fit(self, frame: pd.DataFrame, rows: np.ndarray, n_persons: int, parents: pd.DataFrame | None = None
            ) -> SeriesTable:
        """Fit on the typed measures ``frame``, each one's person ``rows`` among ``n_persons``; ``parents`` (the
        persons' own columns), when given, for the window their times keep (:func:`time_window`)."""
        self._check_parameters()
        columns = [self.time, *self.kinds]
        self.codec_ = TableCodec({self.time: Kind.NUMERIC, **self.kinds}).fit(frame[columns])
        encoded = self.codec_.encode(frame[columns])
        times = encoded.numeric[:, 0]
        self.time_kind_ = Kind.DATETIME if pd.api.types.is_datetime64_any_dtype(frame[self.time]) else Kind.NUMERIC
        self.window_ = time_window(parents, rows, times, self.time_kind_) if parents is not None else ([], [])
        timing = series_of(rows, times, np.zeros(len(rows)))
        self._say_repeated_times(int((~np.isnan(times)).sum()) - len(timing.times))
        self.timing_series_, self.template_ = timing, encoded.take(np.arange(0))
        self.schedule_ = Schedule.of(timing)
        self.n_persons_ = n_persons
        self.nb_points_ = self._grid(timing.counts)
        observed = timing.timing()
        self.timing_range_ = np.vstack([observed.min(axis=0), observed.max(axis=0)]) if len(observed) else None
        self.some_without_ = len(timing.persons) < n_persons
        self.variables_: list[_Variable] = []
        self.value_range_: dict[str, tuple[float, float]] = {}
        self.person_values_: dict[str, dict[str, np.ndarray]] = {}
        self._check_values(frame)
        for name, kind in self.kinds.items():
            if kind is Kind.CATEGORICAL:
                codes = encoded.codes[:, encoded.categorical_names.index(name)]
                present = codes >= 0
                modalities = self.codec_.categories_[name]
                shares = np.bincount(codes[present], minlength=len(modalities)) / max(1, present.sum())
                curves, persons = self._indicator_curves(rows, times, codes, len(modalities))
            else:
                values = encoded.numeric[:, encoded.numeric_names.index(name)]
                present = ~np.isnan(values)
                self.value_range_[name] = (float(values[present].min()), float(values[present].max())) \
                    if present.any() else (0.0, 0.0)
                series = series_of(rows, times, values)
                curves, persons, modalities, shares = resampled(series, self.nb_points_), series.persons, None, None
            variable = _Variable(name, modalities, shares, self._projection(name, curves, len(persons)),
                                 not present.all())
            self.variables_.append(variable)
            self.person_values_[name] = self._person_values(variable, curves, persons, rows, present)
        return self

    def _check_values(self, frame: pd.DataFrame) -> None:
        """Each measured variable has a value somewhere, as a table's columns must (issue 47: a traceback)."""
        for name in self.kinds:
            if frame[name].isna().all():
                raise InputError(_("column '{column}' has no values at all: remove it from the table, or give it "
                                   "the role \"dropped\" in the schema.").format(column=name))

    def _check_parameters(self) -> None:
        parameters = self.parameters
        check_whole_number("nb_points", parameters.nb_points, minimum=2)
        if parameters.nb_points > MAX_NB_POINTS:
            raise InputError(_("nb_points must be at most {most}, got {value}: each person's curve is read at that "
                               "many points; fewer (5 to 20) keep its shape.").format(
                most=MAX_NB_POINTS, value=number(parameters.nb_points, ",")))
        check_whole_number("nf", parameters.nf, minimum=1)
        check_choice("projection_type", parameters.projection_type, PROJECTION_TYPES)
        check_choice("alignment", parameters.alignment, ALIGNMENTS)
        check_choice("unalignment", parameters.unalignment, UNALIGNMENTS)
        if parameters.alignment == "specified" and parameters.projection_type == "fpca" and \
                parameters.nf > parameters.nb_points:
            raise InputError(_("nf = {nf} is more than nb_points = {points}; a series of {points} points has at most "
                               "{points} components: lower nf or raise nb_points.").format(
                nf=parameters.nf, points=parameters.nb_points))

    def _say_repeated_times(self, repeated: int) -> None:
        """Measures of one person at a time already measured are averaged with it into one measure
        (:func:`~core.engine.time_series.series_of`): said, never done silently."""
        if repeated:
            warnings.warn(_("{where}: {count} measures fall on a time already measured for the same person; each "
                            "person's values at one time are averaged into one measure. Keep one row per person "
                            "and time, or write the times more precisely, to keep them apart.").format(
                where=self.where, count=number(repeated, ",")), UserWarning, stacklevel=3)

    def _grid(self, counts: np.ndarray) -> int:
        """The grid's number of points (:func:`~core.engine.time_series.grid_points`), at most
        :data:`MAX_NB_POINTS`, said when lowered."""
        points = grid_points(counts, self.parameters.alignment, self.parameters.nb_points)
        if points > MAX_NB_POINTS:
            warnings.warn(_("{where}: alignment = {alignment} gives {points} points, lowered to {most}.").format(
                where=self.where, alignment=self.parameters.alignment, points=number(points, ","), most=MAX_NB_POINTS),
                UserWarning, stacklevel=3)
        return min(points, MAX_NB_POINTS)

    def _projection(self, name: str, curves: np.ndarray, n_persons: int) -> FunctionalPCA:
        """The variable's fitted projection; ``nf`` lowered to what the points and the persons allow, said."""
        parameters = self.parameters
        fpca = FunctionalPCA(parameters.nf, parameters.projection_type).fit(
            curves if len(curves) else np.zeros((1, curves.shape[1])))
        if parameters.projection_type == "fpca" and fpca.n_components_ < parameters.nf:
            warnings.warn(_("{where}, column '{column}': nf = {nf} lowered to {kept}, as many components as "
                            "{points} points and {persons} persons with measures allow.").format(
                where=self.where, column=name, nf=parameters.nf, kept=fpca.n_components_,
                points=self.nb_points_, persons=number(n_persons, ",")), UserWarning, stacklevel=3)
        return fpca

    def _person_values(self, variable: _Variable, curves: np.ndarray, persons: np.ndarray, rows: np.ndarray,
                       present: np.ndarray) -> dict[str, np.ndarray]:
        """Each person's scores (a person without a value: the mean curve's, 0) and, with missing values, the share
        of their measures where the variable is missing (a person without measures: missing)."""
        scores = np.zeros((self.n_persons_, variable.fpca.components_.shape[0]))
        if len(persons):
            scores[persons] = variable.fpca.transform(curves)
        values = dict(zip(variable.score_names(), scores.T, strict=True))
        if variable.has_missing:
            measures = np.bincount(rows, minlength=self.n_persons_)
            missing = np.bincount(rows[~present], minlength=self.n_persons_)
            values[f"{variable.name}: {MISSING}"] = np.divide(missing, measures, out=np.full(self.n_persons_, np.nan),
                                                              where=measures > 0)
        return values

    def _indicator_curves(self, rows: np.ndarray, times: np.ndarray, codes: np.ndarray, n_modalities: int
                          ) -> tuple[np.ndarray, np.ndarray]:
        """Each person's indicator of each modality on the grid, side by side (persons x modalities * points)."""
        present = codes >= 0
        persons = np.unique(rows[present])
        curves = []
        for modality in range(n_modalities):
            indicator = np.where(present, (codes == modality).astype(float), np.nan)
            series = series_of(rows, times, indicator)
            curve = np.zeros((len(persons), self.nb_points_))
            curve[np.searchsorted(persons, series.persons)] = resampled(series, self.nb_points_)
            curves.append(curve)
        return np.hstack(curves) if curves else np.zeros((len(persons), 0)), persons

    def person_columns(self, name: Callable[[str], str]) -> tuple[dict[str, np.ndarray], dict[str, float]]:
        """The persons' columns (``name(what)`` names each) and their weights: the timing, one variable's weight
        each (missing without a measure but the number of measures, 0), then each variable's scores and share of
        missing values, one variable's weight in all."""
        timing = np.full((self.n_persons_, 3), np.nan)
        timing[:, 0] = 0.0
        series = self.timing_series_
        timing[series.persons] = series.timing()
        columns = {name(what): timing[:, position] for position, what in enumerate(TIMING)}
        weights = dict.fromkeys(columns, 1.0)
        for variable in self.variables_:
            named = {name(column): values for column, values in self.person_values_[variable.name].items()}
            columns |= named
            weights |= dict.fromkeys(named, 1.0 / len(named))
        return columns, weights

    def rebuilt(self, persons: pd.DataFrame, name: Callable[[str], str], rng: np.random.Generator
                ) -> tuple[pd.DataFrame, np.ndarray]:
        """The measures of the person avatars ``persons`` (their columns :meth:`person_columns` names, and their own
        columns of :attr:`window_`, decoded): each row's avatar (its position in ``persons``) and its time and
        values, in the originals' types; ``rng`` draws the missing values."""
        times, measures, has = self._avatar_times(
            np.column_stack([persons[name(what)].to_numpy(dtype=float) for what in TIMING]), self._bounds(persons))
        owner = np.repeat(np.flatnonzero(has), measures)
        kept = np.ones(len(times), dtype=bool)
        kept[1:] = (owner[1:] != owner[:-1]) | (times[1:] > times[:-1])  # a time met twice in an avatar: once
        shares = _shares(times, np.repeat(np.arange(len(measures)), measures))
        numeric = {self.time: times[kept]}
        codes = {}
        for variable in self.variables_:
            scores = persons[[name(column) for column in variable.score_names()]].to_numpy(dtype=float)[has]
            curves = variable.fpca.inverse_transform(scores)
            if variable.modalities is None:
                low, high = self.value_range_[variable.name]
                numeric[variable.name] = np.clip(values_at(curves, measures, shares), low, high)[kept]
            else:
                codes[variable.name] = _calibrated_modalities(curves, measures, variable, shares)[kept]
            if variable.has_missing:
                share = persons[name(f"{variable.name}: {MISSING}")].to_numpy(dtype=float)[has]
                missing = rng.random(int(kept.sum())) < np.clip(np.nan_to_num(share), 0.0, 1.0)[
                    np.repeat(np.arange(len(measures)), measures)][kept]
                if variable.modalities is None:
                    numeric[variable.name][missing] = np.nan
                else:
                    codes[variable.name][missing] = -1
        table = self.template_
        arrays = table.with_arrays(np.column_stack([numeric[column] for column in table.numeric_names]),
                                   np.column_stack([codes[column] for column in table.categorical_names]).astype(
                                       table.codes.dtype) if codes else np.empty((int(kept.sum()), 0), table.codes.dtype))
        return self.codec_.decode(arrays), owner[kept]

    def _bounds(self, persons: pd.DataFrame) -> tuple[np.ndarray, np.ndarray] | None:
        """Each person avatar's earliest and latest time, from its own window columns (NaN: unbounded)."""
        earliest, latest = self.window_
        if not earliest and not latest:
            return None
        values = {column: numeric_values(persons[column]) for column in (*earliest, *latest)}
        with np.errstate(all="ignore"):
            low = np.nanmax([values[column] for column in earliest], axis=0) if earliest else np.full(len(persons),
                                                                                                       np.nan)
            high = np.nanmin([values[column] for column in latest], axis=0) if latest else np.full(len(persons), np.nan)
        return low, high

    def _avatar_times(self, timing: np.ndarray, window: tuple[np.ndarray, np.ndarray] | None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The avatars' times (flat, rounded as the time column is written), each avatar's number of them, and
        which avatars have measures: the timing rounded and clipped to the observed ranges (0 measures only when
        some persons have none), then moved within each avatar's ``window``; the times on the originals' designed
        schedule when they have one (:class:`~core.engine.time_series.Schedule`, within the window when a scheduled time
        lies in it), else evenly
        spaced (``unalignment``)."""
        assert self.timing_range_ is not None  # fitted on timed measures (None: the series has none)
        low, high = self.timing_range_
        counts = np.clip(np.rint(np.nan_to_num(timing[:, 0], nan=0.0)), 0 if self.some_without_ else low[0], high[0])
        has = (counts >= 1) & np.isfinite(timing[:, 1]) & np.isfinite(timing[:, 2])
        timing = np.column_stack([counts, np.clip(timing[:, 1], low[1], high[1]),
                                  np.clip(timing[:, 2], low[2], high[2])])[has]
        if window is not None:
            timing = _within(timing, window[0][has], window[1][has])
        timing[timing[:, 0] <= 1, 2] = 0.0
        if self.schedule_ is not None:
            bounds = None if window is None else (window[0][has], window[1][has])
            times, measures = self.schedule_.times_of(timing, bounds)
            return times, measures, has
        times, measures = unaligned_times(timing, self.parameters.unalignment, self.nb_points_)
        step = self.codec_.steps()[0]
        if not step:
            return times, measures, has
        first, last = np.repeat(timing[:, 1], measures), np.repeat(timing[:, 1] + timing[:, 2], measures)
        return np.clip(np.round(times / step) * step, np.ceil(first / step - 1e-9) * step,  # rounded, never out of
                       np.floor(last / step + 1e-9) * step), measures, has  # the span (nor the parent's window)


def _within(timing: np.ndarray, earliest: np.ndarray, latest: np.ndarray) -> np.ndarray:
    """Each avatar's timing (number of measures, first time, span) moved within its window: its first time at the
    earliest, its span at most what the window leaves after it (the avatars of a parent whose window closes
    before its earliest keep theirs: no window holds them)."""
    first, span = timing[:, 1].copy(), timing[:, 2].copy()
    first = np.where(np.isfinite(earliest), np.fmax(first, earliest), first)
    room = latest - first
    bounded = np.isfinite(room) & (room >= 0)
    span[bounded] = np.fmin(span[bounded], room[bounded])
    first[np.isfinite(room) & (room < 0)] = np.fmin(first, latest)[np.isfinite(room) & (room < 0)]
    return np.column_stack([timing[:, 0], first, span])


def time_window(parents: pd.DataFrame, rows: np.ndarray, times: np.ndarray, kind: Kind) -> tuple[list[str], list[str]]:
    """The parent's columns that bound its measures' times in the originals (SPEC 13: a child of a parent with a
    time window stays within it): those of the time's ``kind`` (dates for dates) at or before every measure of
    their row (an admission, a start), and those at or after (a discharge, an end); ``rows``, each measure's
    parent row, ``times`` its time as a number. Columns missing for a parent bound none of its measures."""
    earliest, latest = [], []
    for column in parents.columns:
        values = parents[column]
        numbers = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
        if not (numbers if kind is Kind.NUMERIC else detect_kind(values) is Kind.DATETIME):  # days 0 to 9: numbers
            continue
        bound = numeric_values(apply_kinds(values.to_frame(), {column: kind})[column])[rows]
        known = ~np.isnan(bound)
        if known.sum() < 2:
            continue
        if np.all(bound[known] <= times[known]):
            earliest.append(str(column))
        if np.all(bound[known] >= times[known]):
            latest.append(str(column))
    return earliest, latest


def _shares(times: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Each time's share of its avatar's own span (0 its first, 1 its last; 0 for an avatar of one time), where its
    curve is read: the grid spans each person's own times."""
    first = pd.Series(times).groupby(owner).transform("min").to_numpy()
    last = pd.Series(times).groupby(owner).transform("max").to_numpy()
    return np.divide(times - first, last - first, out=np.zeros(len(times)), where=last > first)


def _calibrated_modalities(curves: np.ndarray, measures: np.ndarray, variable: _Variable, shares: np.ndarray
                           ) -> np.ndarray:
    """Each avatar measure's modality: its largest reconstructed indicator (read at ``shares`` of its span) plus the
    offsets that keep each modality's share of the real measures."""
    assert variable.modalities is not None and variable.shares is not None  # a categorical variable
    points = curves.shape[1] // len(variable.modalities)
    scores = np.vstack([values_at(curves[:, m * points:(m + 1) * points], measures, shares)
                        for m in range(len(variable.modalities))])
    return np.argmax(scores + calibrated_offsets(scores, variable.shares)[:, None], axis=0)


def series_kinds(frame: pd.DataFrame, time: str, declared: Mapping[str, str], where: str) -> dict[str, Kind]:
    """The kinds of a series table's columns: as detected or declared, the time a number or a date (a few whole
    numbers, days 0 to 9, read as a number, not as codes); a time that reads as text, or declared categorical,
    refused in one line."""
    kinds = resolve_kinds(frame, declared)
    if kinds[time] is Kind.CATEGORICAL:
        if time in declared or not pd.api.types.is_numeric_dtype(frame[time]) or \
                pd.api.types.is_bool_dtype(frame[time]):
            raise InputError(_("{where}, column '{column}': the time of a series is a number or a date, and it "
                               "reads as categories; give it numbers or dates, or the kind numeric or datetime."
                               ).format(where=where, column=time))
        kinds[time] = Kind.NUMERIC
    return kinds


def check_series_times(where: str, time: pd.Series, seconds: np.ndarray) -> None:
    """Each measure of a series is at a time: a missing time refused in one line, and a placeholder too: a time
    held by several measures that lies beyond every other time by more than :data:`PLACEHOLDER_GAP` times their
    whole range (``9999-12-31`` among visits of 2024 would stretch follow-ups to the year 9999; a last visit 95 days
    after five of a first week is a follow-up). ``seconds``: the times as numbers."""
    untimed = int(time.isna().sum())
    if untimed:
        raise InputError(_("{where}, column '{column}': {count} measures have no time; each measure of a series "
                           "is at a time: fill them or remove those rows.").format(
            where=where, column=time.name, count=number(untimed, ",")))
    values, counts = np.unique(seconds, return_counts=True)
    for extreme, rest in ((-1, slice(None, -1)), (0, slice(1, None))):
        others = values[rest]
        if len(others) >= 2 and counts[extreme] >= 2 and \
                abs(values[extreme] - others[extreme]) > PLACEHOLDER_GAP * (others[-1] - others[0]):
            shown = time[seconds == values[extreme]].iloc[0]
            raise InputError(_("{where}, column '{column}': {count} measures are at {value}, beyond every other "
                               "time ({low} to {high}) by more than {times} times their whole range: a placeholder "
                               "rather than a time? Remove those rows, or give them their real times.").format(
                where=where, column=time.name, count=number(int(counts[extreme]), ","), value=shown, times=PLACEHOLDER_GAP,
                low=time[seconds == others[0]].iloc[0], high=time[seconds == others[-1]].iloc[0]))


TIME_WORDS = ("time", "date", "day", "week", "month", "year", "visit", "taken", "measured", "sampled", "age")


def proposed_time(frame: pd.DataFrame, person: str) -> str | None:
    """The column that could be the time of a table's measures of its persons (``person`` names each row's person),
    when some person has several rows: a column of dates, or a number that increases within each person in the
    rows' order (not one unique over the whole table: a row number); never missing; one named as a time first
    (day, date, visit...). None when nothing says the table is a series."""
    persons = pd.factorize(frame[person])[0]
    if not len(persons) or np.bincount(persons[persons >= 0]).max() < 2:
        return None
    order = np.argsort(persons, kind="stable")
    same = persons[order][1:] == persons[order][:-1]
    candidates = []
    for name in frame.columns:
        column = frame[name]
        if str(name) == person or column.isna().any() or column.is_unique:
            continue
        if detect_kind(column) is Kind.DATETIME:
            candidates.append(str(name))
        elif pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column) and \
                bool(np.all(np.diff(column.to_numpy(dtype=float)[order])[same] > 0)):
            candidates.append(str(name))
    named = [name for name in candidates if any(word in name.lower() for word in TIME_WORDS)]
    return next(iter(named or candidates), None)
