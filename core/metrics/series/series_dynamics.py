"""Series dynamics (SPEC 13; SDMetrics' StatisticMSAS and InterRowMSAS): per numeric variable, three distributions,
each's Hellinger score against a real sample (seed 002's): each person's mean (their level), each person's
least-squares slope over time (their trend; persons of two times or more) and every change from one measure to the
next (lag one); per categorical variable, each person's share of each modality and every change of modality (0 or
1). The value is the mean of the scores."""

from __future__ import annotations

from typing import TypedDict

import numpy as np

from core.i18n import N_
from core.metrics.context import SeriesContext
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.hellinger_mean import NATURAL_VARIABILITY_BANDS
from core.metrics.result import MetricResult
from core.metrics.series.trajectories import Trajectories, lag_one_changes, person_means, person_slopes, scored

DEFINITION = MetricDefinition(
    name="series_dynamics", label=N_("Levels, trends and changes"), unit="/ 100", goal="maximize",
    bounds=(0.0, 100.0),
    interpretation=N_("The closer to 100, the more the avatars' persons have the levels (their mean), the trends "
                      "(their slope over time) and the visit-to-visit changes real persons have. Below 100: the "
                      "avatars' trajectories are flatter, steeper or smoother than two real samples would differ."),
    computation=N_("Per numeric variable: each person's mean, each person's least-squares slope over time (two "
                   "measures or more) and every difference between consecutive measures; per categorical variable: "
                   "each person's share of each modality and every change of modality between consecutive "
                   "measures. For each, the Hellinger distance between the avatars' distribution and a real "
                   "sample's (a) is compared with the originals' (r): score = 100 x (1 - sqrt(max(0, a^2 - r^2))); "
                   "the value is the mean of the scores."),
    criterion=SIGNAL,
    bands=NATURAL_VARIABILITY_BANDS,
)


class StatisticRow(TypedDict):
    """One statistic's line of the breakdown."""

    variable: str
    statistic: str
    score: float
    avatar_distance: float
    reference_distance: float


def series_dynamics(originals: Trajectories, reference: Trajectories, avatars: Trajectories) -> MetricResult:
    sides = (originals, reference, avatars)
    rows = []
    for name in originals.numeric:
        series = [side.numeric[name] for side in sides]
        for statistic, of in (("mean", person_means), ("slope", person_slopes), ("lag-one change", lag_one_changes)):
            rows.append(_row(name, statistic, [of(one) for one in series]))
    for name in originals.indicators:
        for position, modality in enumerate(originals.modalities[name]):
            series = [side.indicators[name][position] for side in sides]
            rows.append(_row(name, f"share of {modality}", [person_means(one) for one in series]))
        changes = [_modality_changes(side.indicators[name]) for side in sides]
        rows.append(_row(name, "change of modality", changes, categorical=True))
    kept = [row for row in rows if row is not None]
    if not kept:
        return DEFINITION.result(None, not_applicable=N_("No variable of the series has a value on every side."))
    return DEFINITION.result(float(np.mean([row["score"] for row in kept])), breakdown={"per_statistic": kept})


def compute(context: SeriesContext) -> MetricResult:
    return series_dynamics(context.originals, context.reference, context.avatars)


def _row(variable: str, statistic: str, samples: list[np.ndarray], categorical: bool = False
         ) -> StatisticRow | None:
    result = scored(*samples, categorical=categorical)
    if result is None:
        return None
    return {"variable": variable, "statistic": statistic, "score": result.score,
            "avatar_distance": result.avatar_distance, "reference_distance": result.reference_distance}


def _modality_changes(indicators: list) -> np.ndarray:
    """Whether the modality changed from one measure to the next (1) or not (0), all persons pooled: the lag-one
    changes of each modality's indicator, a change wherever one indicator moved."""
    moved = [np.abs(lag_one_changes(series)) for series in indicators if len(series.persons)]
    return (np.max(np.vstack(moved), axis=0) > 0).astype(float) if moved and len({len(m) for m in moved}) == 1 \
        else np.empty(0)
