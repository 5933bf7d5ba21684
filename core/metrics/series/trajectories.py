"""One side's time series (the originals, a real sample to read them against, or the avatars) as the series metrics
read them (SPEC 13): each person's measures of each variable, sorted by time, equal times averaged
(:func:`~core.engine.time_series.series_of`), aligned on the person's own span; and the Hellinger score of one
statistic on the three sides, the seeds' rule (seed 002) applied to any per-person number.

Dates are read in days (a slope per day, a span in days), other times as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.encoding import numeric_values
from core.engine.time_series import Series, resampled, series_of
from core.metrics.binning import binned_distribution, common_grid, hellinger_distance
from core.metrics.hellinger_mean import variable_score

DAY_S = 86_400.0


@dataclass(frozen=True)
class Trajectories:
    """The measures of one side: ``timing`` (every measure's time, per person), per numeric variable its
    :class:`~core.engine.time_series.Series`, per categorical variable the series of each of its ``modalities``'
    indicator (missing values left out of each)."""

    timing: Series
    numeric: dict[str, Series]
    indicators: dict[str, list[Series]]
    modalities: Mapping[str, list[object]]

    @classmethod
    def of(cls, persons: np.ndarray, frame: pd.DataFrame, time: str, kinds: Mapping[str, Kind],
           modalities: Mapping[str, list[object]]) -> Trajectories:
        """The measures of ``frame`` (typed as ``kinds`` say), each row's person ``persons``; a categorical
        variable's ``modalities`` the originals'."""
        times = numeric_values(frame[time]) / (DAY_S if kinds[time] is Kind.DATETIME else 1.0)
        numeric, indicators = {}, {}
        for name, kind in kinds.items():
            if name == time:
                continue
            if kind is Kind.CATEGORICAL:
                text = frame[name].astype("string")
                present = text.notna().to_numpy()
                indicators[name] = [series_of(persons, times, np.where(present, text.eq(str(modality)).fillna(False)
                                                                        .to_numpy(dtype=float), np.nan))
                                    for modality in modalities[name]]
            else:
                numeric[name] = series_of(persons, times, numeric_values(frame[name]))
        return cls(series_of(persons, times, np.zeros(len(frame))), numeric, indicators,
                   {name: modalities[name] for name in indicators})

    def curves(self, name: str, nb_points: int) -> np.ndarray:
        """The variable's aligned curves (persons with a value x points); a categorical variable's, the code of
        the modality of largest indicator at each point (-1: the person has none of its values)."""
        if name in self.numeric:
            return resampled(self.numeric[name], nb_points)
        indicators = self.indicators[name]
        persons = np.unique(np.concatenate([series.persons for series in indicators]))
        stacked = np.full((len(indicators), len(persons), nb_points), -np.inf)
        for modality, series in enumerate(indicators):
            if len(series.persons):
                stacked[modality, np.searchsorted(persons, series.persons)] = resampled(series, nb_points)
        return np.argmax(stacked, axis=0).astype(float)

    @property
    def variables(self) -> list[str]:
        return [*self.numeric, *self.indicators]

    def is_categorical(self, name: str) -> bool:
        return name in self.indicators


def person_means(series: Series) -> np.ndarray:
    """Each person's mean value over their (distinct) times."""
    return np.add.reduceat(series.values, series.starts[:-1]) / series.counts if len(series.persons) else np.empty(0)


def person_slopes(series: Series) -> np.ndarray:
    """Each person's least-squares slope of value over time, for persons with two times or more:
    ``sum((t - mean t)(v - mean v)) / sum((t - mean t)^2)``."""
    counts = series.counts
    if not len(counts):
        return np.empty(0)
    person = series.row_person
    mean_t = np.add.reduceat(series.times, series.starts[:-1]) / counts
    mean_v = np.add.reduceat(series.values, series.starts[:-1]) / counts
    dt, dv = series.times - mean_t[person], series.values - mean_v[person]
    cross = np.bincount(person, weights=dt * dv, minlength=len(counts))
    spread = np.bincount(person, weights=dt * dt, minlength=len(counts))
    several = counts >= 2
    return cross[several] / spread[several]


def lag_one_changes(series: Series) -> np.ndarray:
    """Every difference between a value and the person's previous one, all persons pooled."""
    changes = np.diff(series.values)
    same_person = np.diff(series.row_person) == 0
    return changes[same_person]


@dataclass(frozen=True)
class Scored:
    """One statistic's Hellinger distances, avatars against the reference sample and originals against it, and its
    score ``100 (1 - sqrt(max(0, a^2 - r^2)))`` (seed 002)."""

    avatar_distance: float
    reference_distance: float

    @property
    def score(self) -> float:
        return variable_score(self.reference_distance, self.avatar_distance)


def scored(originals: np.ndarray, reference: np.ndarray, avatars: np.ndarray, *, categorical: bool = False
           ) -> Scored | None:
    """The statistic's :class:`Scored` on one grid over the three samples pooled (the seeds' binning rule; codes
    each their own bin when ``categorical``); None when no sample has a value."""
    samples = [np.asarray(sample, dtype=float) for sample in (originals, reference, avatars)]
    samples = [sample[~np.isnan(sample)] for sample in samples]
    if any(not sample.size for sample in samples):
        return None
    if categorical:
        codes = np.unique(np.concatenate(samples)).astype(int)
        shares = [np.bincount(np.searchsorted(codes, sample.astype(int)), minlength=len(codes)) / sample.size
                  for sample in samples]
    else:
        grid = common_grid(np.concatenate(samples))
        shares = [binned_distribution(sample, grid) for sample in samples]
    return Scored(hellinger_distance(shares[2], shares[1]), hellinger_distance(shares[0], shares[1]))
