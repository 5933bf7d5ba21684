"""Pointwise Hellinger (SPEC 13; the commercial engine's ``pointwise_hellinger_{mean,std}``): per variable, at each
point of the aligned curves (each person's span from 0 to 1, ``nb_points`` points), the Hellinger distance between
the avatars' values and the reference sample's, read against the originals' distance to it (seed 002's score); the
value is the mean of the points' scores over every variable."""

from __future__ import annotations

import numpy as np

from core.i18n import N_
from core.metrics.context import SeriesContext
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.hellinger_mean import NATURAL_VARIABILITY_BANDS
from core.metrics.result import MetricResult
from core.metrics.series.trajectories import Trajectories, scored

DEFINITION = MetricDefinition(
    name="pointwise_hellinger", label=N_("Pointwise Hellinger"), unit="/ 100", goal="maximize", bounds=(0.0, 100.0),
    interpretation=N_("The closer to 100, the more the avatars' values at each moment of a follow-up (its start, its "
                      "middle, its end) are distributed as real persons' are. Below 100: at some moments the "
                      "avatars' values drift further from real ones than two real samples do."),
    computation=N_("Each person's measures of a variable are placed on their own span (first measure 0, last 1) and "
                   "read at evenly spaced points by linear interpolation. At each point, the Hellinger distance "
                   "between the avatars' values and a real sample's (a, the holdout or half of the persons) is "
                   "compared with the originals' distance to it (r): score = 100 x (1 - sqrt(max(0, a^2 - r^2))). "
                   "The value is the mean over the points and the variables; the breakdown gives each variable's "
                   "distances' mean and standard deviation over the points."),
    criterion=SIGNAL,
    bands=NATURAL_VARIABILITY_BANDS,
)


def pointwise_hellinger(originals: Trajectories, reference: Trajectories, avatars: Trajectories, nb_points: int
            ) -> MetricResult:
    """The pointwise scores of every variable on a grid of ``nb_points``."""
    per_variable, scores = [], []
    for name in originals.variables:
        curves = [side.curves(name, nb_points) for side in (originals, reference, avatars)]
        found = [scored(*(curve[:, point] for curve in curves), categorical=originals.is_categorical(name))
                 for point in range(nb_points)]
        points = [point for point in found if point is not None]
        if not points:
            continue
        avatar = np.array([point.avatar_distance for point in points])
        real = np.array([point.reference_distance for point in points])
        variable_scores = [point.score for point in points]
        scores += variable_scores
        per_variable.append({"variable": name, "points": len(points), "score": float(np.mean(variable_scores)),
                             "avatar_distance_mean": float(avatar.mean()), "avatar_distance_std": float(avatar.std()),
                             "reference_distance_mean": float(real.mean()),
                             "reference_distance_std": float(real.std())})
    if not scores:
        return DEFINITION.result(None, not_applicable=N_("No variable of the series has a value on every side."))
    return DEFINITION.result(float(np.mean(scores)), breakdown={"per_variable": per_variable})


def compute(context: SeriesContext) -> MetricResult:
    return pointwise_hellinger(context.originals, context.reference, context.avatars, context.nb_points)
