"""Series timing (SPEC 13; SDMetrics' SequenceLengthSimilarity for the first): the number of measures of each
person and the span of their follow-up (last time minus first), each distribution's Hellinger score against a real
sample (seed 002's); the value is the mean of the two scores."""

from __future__ import annotations

import numpy as np

from core.i18n import N_
from core.metrics.context import SeriesContext
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.result import MetricResult
from core.metrics.series.trajectories import Trajectories, scored

DEFINITION = MetricDefinition(
    name="series_timing", label=N_("Number and span of measures"), unit="/ 100", goal="maximize",
    bounds=(0.0, 100.0),
    interpretation=N_("The closer to 100, the more the avatars have as many measures as real persons, over as long "
                      "a follow-up (how many have one visit, five, fifteen; over a month or two years)."),
    computation=N_("Each person's number of measures and span (last time minus first); for each, the Hellinger "
                   "distance between the avatars' distribution and a real sample's (a) is compared with the "
                   "originals' (r): score = 100 x (1 - sqrt(max(0, a^2 - r^2))); the value is the mean of the two "
                   "scores."),
    criterion=SIGNAL,
    bands=((95.0, "good", N_("as many measures, as long a follow-up")), (80.0, "fair", N_("some drift in the timing")),
           (-np.inf, "poor", N_("the timing changed"))),
)


def series_timing(originals: Trajectories, reference: Trajectories, avatars: Trajectories) -> MetricResult:
    sides = (originals, reference, avatars)
    statistics = {"measures": [side.timing.counts for side in sides],
                  "span": [side.timing.timing()[:, 2] for side in sides]}
    per_statistic = []
    for statistic, samples in statistics.items():
        result = scored(*samples)
        if result is not None:
            per_statistic.append({"statistic": statistic, "score": result.score,
                                  "avatar_distance": result.avatar_distance,
                                  "reference_distance": result.reference_distance,
                                  "real_mean": float(np.mean(samples[0])), "avatar_mean": float(np.mean(samples[2]))})
    if not per_statistic:
        return DEFINITION.result(None, not_applicable=N_("A side has no measure."))
    return DEFINITION.result(float(np.mean([row["score"] for row in per_statistic])),
                             breakdown={"per_statistic": per_statistic})


def compute(context: SeriesContext) -> MetricResult:
    return series_timing(context.originals, context.reference, context.avatars)
