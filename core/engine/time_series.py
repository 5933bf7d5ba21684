"""A person's measures over time as a few numbers, and back (SPEC 13): each series aligned on its own span,
projected per variable by functional PCA, and an avatar's series rebuilt from its scores and its timing.

- **Alignment**: a person's measures sorted by time, equal times averaged; its timing is three numbers (the number
  of measures, the first time, the span); its values resampled at ``nb_points`` evenly spaced points of its own span
  (0: the first measure, 1: the last) by linear interpolation, never extrapolated; one measure gives a constant
  curve.
- **Functional PCA** of the resampled curves: PCA of the centred grid values (the grid is regular, so no basis
  expansion is needed; Ramsay & Silverman, *Functional Data Analysis*, 2005, section 8.4.1), ``nf`` scores kept.
- **Unalignment**: an avatar's curve (the inverse of its scores) read at its own times, evenly spaced over its span
  from its first time (``uniform``), or at the grid's points (``skip``).

Every step is vectorised over all persons at once: the measures of person ``p`` at normalised time ``u`` sit at
``2 p + u`` on one increasing axis, so that one ``numpy.interp`` resamples every person (the gap of 1 between two
persons keeps each person's interpolation within its own measures).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.engine.parameters import DEFAULT_NB_POINTS, DEFAULT_NF

_STRIDE = 2.0  # the axis of one numpy.interp: person p's normalised times at 2 p + [0, 1]


@dataclass(frozen=True)
class Series:
    """Every person's measures of one variable: ``persons`` (sorted, distinct), each person's ``times`` (strictly
    increasing) and ``values``, as flat arrays cut by ``starts`` (person ``i``'s rows are
    ``starts[i]:starts[i + 1]``)."""

    persons: np.ndarray
    starts: np.ndarray
    times: np.ndarray
    values: np.ndarray

    @property
    def counts(self) -> np.ndarray:
        """The number of measures of each person (equal times counted once)."""
        return np.diff(self.starts)

    @property
    def row_person(self) -> np.ndarray:
        """Each measure's person, as a position in ``persons``."""
        return np.repeat(np.arange(len(self.persons)), self.counts)

    def timing(self) -> np.ndarray:
        """Per person: the number of measures, the first time and the span (last minus first), one row each."""
        first = self.times[self.starts[:-1]]
        last = self.times[self.starts[1:] - 1]
        return np.column_stack([self.counts.astype(float), first, last - first])


def series_of(persons: np.ndarray, times: np.ndarray, values: np.ndarray) -> Series:
    """The measures ``(persons[i], times[i], values[i])`` as each person's series: sorted by time, the values of
    equal times averaged (missing values left out of the mean; a time whose values are all missing is dropped)."""
    persons, times, values = np.asarray(persons), np.asarray(times, dtype=float), np.asarray(values, dtype=float)
    present = ~np.isnan(values) & ~np.isnan(times)
    persons, times, values = persons[present], times[present], values[present]
    person_codes, person_index = np.unique(persons, return_inverse=True)
    order = np.lexsort((times, person_index))
    person_index, times, values = person_index[order], times[order], values[order]
    new = np.ones(len(times), dtype=bool)
    new[1:] = (person_index[1:] != person_index[:-1]) | (times[1:] != times[:-1])
    group = np.cumsum(new) - 1
    sums = np.bincount(group, weights=values)
    sizes = np.bincount(group)
    kept_person = person_index[new]
    starts = np.searchsorted(kept_person, np.arange(len(person_codes) + 1))
    return Series(person_codes, starts, times[new], sums / sizes)


def grid_points(counts: np.ndarray, alignment: str = "specified", nb_points: int = DEFAULT_NB_POINTS) -> int:
    """The number of points of the common grid: ``nb_points`` (``specified``), or the longest, shortest or mean
    (rounded) number of measures, at least 2."""
    if alignment == "specified":
        return max(2, int(nb_points))
    summaries: dict[str, Callable[[np.ndarray], float]] = {
        "max": np.max, "min": np.min, "mean": lambda c: np.rint(np.mean(c))}
    return max(2, int(summaries[alignment](counts)))


def resampled(series: Series, nb_points: int) -> np.ndarray:
    """Each person's values at ``nb_points`` evenly spaced points of their own span (persons x points), by linear
    interpolation; a person of one measure gets it at every point."""
    counts = series.counts
    first = series.times[series.starts[:-1]]
    span = series.times[series.starts[1:] - 1] - first
    person = series.row_person
    scale = np.where(span > 0, span, 1.0)
    axis = _STRIDE * person + (series.times - first[person]) / scale[person]
    grid = np.linspace(0.0, 1.0, nb_points)
    queries = _STRIDE * np.arange(len(counts))[:, None] + grid[None, :]
    curves = np.interp(queries.ravel(), axis, series.values).reshape(len(counts), nb_points)
    single = counts == 1
    curves[single] = series.values[series.starts[:-1][single]][:, None]
    return curves


@dataclass
class FunctionalPCA:
    """PCA of curves on a regular grid (persons x points): the mean curve, ``nf`` components (at most the points
    and the persons minus 1), each person's scores. ``flatten``: the grid values themselves (no projection)."""

    nf: int = DEFAULT_NF
    projection_type: str = "fpca"

    def fit(self, curves: np.ndarray) -> FunctionalPCA:
        curves = np.asarray(curves, dtype=float)
        self.mean_ = curves.mean(axis=0)
        if self.projection_type == "flatten":
            self.components_ = np.eye(curves.shape[1])
            self.explained_variance_ratio_ = np.full(curves.shape[1], 1.0 / curves.shape[1])
            return self
        self.n_components_ = max(1, min(self.nf, curves.shape[1], curves.shape[0] - 1))
        centred = curves - self.mean_
        _, singular, components = np.linalg.svd(centred, full_matrices=False)
        signs = np.sign(components[np.arange(len(components)), np.abs(components).argmax(axis=1)])
        signs[signs == 0] = 1.0
        components *= signs[:, None]  # each component's largest weight positive: the same axes on every machine
        variance = singular**2
        total = variance.sum()
        self.components_ = components[: self.n_components_]
        self.explained_variance_ratio_ = (variance / total if total > 0 else np.zeros_like(variance))[
            : self.n_components_]
        return self

    def transform(self, curves: np.ndarray) -> np.ndarray:
        return (np.asarray(curves, dtype=float) - self.mean_) @ self.components_.T

    def inverse_transform(self, scores: np.ndarray) -> np.ndarray:
        return np.asarray(scores, dtype=float) @ self.components_ + self.mean_


def unaligned_times(timing: np.ndarray, unalignment: str = "uniform", nb_points: int = DEFAULT_NB_POINTS
                    ) -> tuple[np.ndarray, np.ndarray]:
    """An avatar's times from its timing (number of measures, first time, span; already rounded and clipped):
    ``uniform``, its number of measures evenly spaced over its span from its first time; ``skip``, the grid's
    ``nb_points``. Returns the times, flat, and each avatar's number of them."""
    counts = np.maximum(1, np.rint(timing[:, 0])).astype(int) if unalignment == "uniform" else np.full(
        len(timing), nb_points)
    counts = np.where(timing[:, 2] > 0, counts, 1)  # no span: one measure (times strictly increase)
    person = np.repeat(np.arange(len(timing)), counts)
    position = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    share = np.where(counts[person] > 1, position / np.maximum(counts[person] - 1, 1), 0.0)
    return timing[person, 1] + share * np.maximum(timing[person, 2], 0.0), counts


SCHEDULE_PERSONS = 0.25  # a time held by at least this share of the persons (and by 3) is a scheduled time
SCHEDULE_MEASURES = 0.9  # a designed schedule holds at least this share of the measures
ABSOLUTE, RELATIVE = "absolute", "relative"


@dataclass(frozen=True)
class Schedule:
    """The times a study measures its persons on (issue 45: MASS's Sitka, every tree on days 152, 174, 201, 227 and
    258; avatars evenly spaced over their spans fell on days 178, 205 and 232, which never occurred): the same
    ``times`` for most persons (``absolute``), or the same times since each person's first (``relative``: visits at
    day 0, 30 and 90 of each one's follow-up)."""

    kind: str
    times: np.ndarray

    @classmethod
    def of(cls, timing: Series) -> Schedule | None:
        """The schedule of a series' times: the times (then the times since each person's first) that at least
        :data:`SCHEDULE_PERSONS` of the persons (and 3) hold, when they hold :data:`SCHEDULE_MEASURES` of the
        measures and are at least two; None when the times are the persons' own (irregular visits)."""
        first = timing.times[timing.starts[:-1]]
        since = timing.times - first[timing.row_person]
        for kind, times in ((ABSOLUTE, timing.times), (RELATIVE, since)):
            values, persons = np.unique(times, return_counts=True)  # a person's times are distinct
            held = persons >= max(3.0, SCHEDULE_PERSONS * len(timing.persons))
            if held.sum() >= 2 and persons[held].sum() >= SCHEDULE_MEASURES * len(times):
                return cls(kind, values[held])
        return None

    def times_of(self, timing: np.ndarray, window: tuple[np.ndarray, np.ndarray] | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Each avatar's times on the schedule from its timing (number of measures, first time, span; rounded and
        clipped): as many scheduled times as its measures (at most the schedule's), spread from the one nearest its
        first time (or its follow-up's start) to the one nearest its last, by their rank; within each avatar's
        ``window`` (its earliest and latest time, NaN: open) when a scheduled time lies in it. The times, flat, and
        each avatar's number of them."""
        times = self.times
        origin = timing[:, 1] if self.kind == RELATIVE else np.zeros(len(timing))
        lowest, highest = np.zeros(len(timing), dtype=int), np.full(len(timing), len(times) - 1)
        if window is not None:
            earliest, latest = (np.where(np.isnan(bound), fill, bound - origin)
                                for bound, fill in zip(window, (-np.inf, np.inf), strict=True))
            first, last = np.searchsorted(times, earliest, "left"), np.searchsorted(times, latest, "right") - 1
            room = first <= last  # a scheduled time within the window: the ranks stay between those
            lowest, highest = np.where(room, first, lowest), np.where(room, last, highest)
        counts = np.clip(np.rint(timing[:, 0]), 1, highest - lowest + 1).astype(int)
        low = np.clip(_nearest(times, timing[:, 1] - origin), lowest, highest)
        high = np.clip(np.maximum(_nearest(times, timing[:, 1] + timing[:, 2] - origin), low), lowest, highest)
        high = np.maximum(high, np.minimum(low + counts - 1, highest))
        low = np.minimum(low, high - counts + 1)
        person = np.repeat(np.arange(len(timing)), counts)
        position = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        step = np.where(counts > 1, (high - low) / np.maximum(counts - 1, 1), 0.0)
        ranks = low[person] + np.floor(position * step[person] + 0.5).astype(int)
        return origin[person] + times[ranks], counts


def _nearest(times: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The rank of the time of sorted ``times`` nearest each value."""
    above = np.clip(np.searchsorted(times, values), 1, len(times) - 1)
    below = above - 1
    return np.where(np.abs(values - times[below]) <= np.abs(times[above] - values), below, above)


def values_at(curves: np.ndarray, counts: np.ndarray, shares: np.ndarray | None = None) -> np.ndarray:
    """Each avatar's curve (avatars x grid points) read at ``counts`` shares of its span (``shares``, flat, 0 to 1;
    by default evenly spaced), flat, by linear interpolation on the grid."""
    n_avatars, nb_points = curves.shape
    person = np.repeat(np.arange(n_avatars), counts)
    if shares is None:
        position = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        share = np.where(counts[person] > 1, position / np.maximum(counts[person] - 1, 1), 0.0)
    else:
        share = np.clip(shares, 0.0, 1.0)
    if not len(person):  # no avatar has a measure (a series few persons hold): nothing to read
        return np.zeros(0)
    grid = np.linspace(0.0, 1.0, nb_points)
    axis = (_STRIDE * np.arange(n_avatars)[:, None] + grid[None, :]).ravel()
    return np.interp(_STRIDE * person + share, axis, curves.ravel())
