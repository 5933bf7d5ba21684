"""Density Hellinger (SPEC 13; the commercial engine's ``density_hellinger_{mean,std}``): per variable, a
functional PCA fitted on the originals' aligned curves, every side's curves given their scores on its components,
and on each component the Hellinger distance between the avatars' scores and the reference sample's, read against
the originals' (seed 002's score); the value is the mean of the components' scores over every variable."""

from __future__ import annotations

import numpy as np

from core.engine.time_series import FunctionalPCA
from core.i18n import N_
from core.metrics.context import SeriesContext
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.hellinger_mean import NATURAL_VARIABILITY_BANDS
from core.metrics.result import MetricResult
from core.metrics.series.trajectories import Trajectories, scored

DEFINITION = MetricDefinition(
    name="density_hellinger", label=N_("Density Hellinger"), unit="/ 100", goal="maximize", bounds=(0.0, 100.0),
    interpretation=N_("The closer to 100, the more the avatars' curves have the shapes real ones have (a level, a "
                      "rise or a fall, a bend), in the same proportions. Below 100: some shapes are more or less "
                      "frequent among the avatars than two real samples would differ."),
    computation=N_("The originals' aligned curves of each variable are decomposed by functional principal component "
                   "analysis (PCA of the curves' values at evenly spaced points of each person's span); every "
                   "side's curves are given their scores on its first components. On each component, the Hellinger "
                   "distance between the avatars' scores and a real sample's (a) is compared with the originals' "
                   "(r): score = 100 x (1 - sqrt(max(0, a^2 - r^2))); the value is the mean over the components "
                   "and the variables."),
    criterion=SIGNAL,
    bands=NATURAL_VARIABILITY_BANDS,
)


def density_hellinger(originals: Trajectories, reference: Trajectories, avatars: Trajectories, nb_points: int, nf: int
            ) -> MetricResult:
    """The scores of every numeric variable on its first ``nf`` components (at most the points and the persons
    minus 1), curves on ``nb_points``."""
    per_variable, scores = [], []
    for name in originals.numeric:
        curves = [side.curves(name, nb_points) for side in (originals, reference, avatars)]
        if any(not len(curve) for curve in curves):
            continue
        fpca = FunctionalPCA(nf).fit(curves[0])
        projected = [fpca.transform(curve) for curve in curves]
        found = [scored(*(scores_[:, axis] for scores_ in projected)) for axis in range(fpca.n_components_)]
        components = [component for component in found if component is not None]
        if not components:
            continue
        avatar = np.array([component.avatar_distance for component in components])
        variable_scores = [component.score for component in components]
        scores += variable_scores
        per_variable.append({"variable": name, "components": len(components),
                             "explained_variance": [float(share) for share in fpca.explained_variance_ratio_],
                             "score": float(np.mean(variable_scores)), "avatar_distance_mean": float(avatar.mean()),
                             "avatar_distance_std": float(avatar.std()),
                             "reference_distance_mean": float(np.mean([c.reference_distance for c in components]))})
    if not scores:
        return DEFINITION.result(None, not_applicable=N_("No numeric variable of the series has a value on every "
                                                         "side."))
    return DEFINITION.result(float(np.mean(scores)), breakdown={"per_variable": per_variable})


def compute(context: SeriesContext) -> MetricResult:
    return density_hellinger(context.originals, context.reference, context.avatars, context.nb_points, context.nf)
