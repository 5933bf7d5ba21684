"""Multivariate Hellinger distance (seed 001, SPEC section 5 revised): the per-axis Hellinger distances of the
originals and the avatars on a projection fitted on the originals, weighted by explained variance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.i18n import N_
from core.metrics.binning import SortedColumns, column_distances
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import SignalContext
from core.metrics.space import AXIS_BLOCK_VALUES, MetricSpace

MULTIVARIATE_TEXT = N_(
    "Compares the distributions of originals and avatars on every axis of the projection, weighted by the "
    "variance each axis explains: 0 means identical, 1 completely different. Below 0.1 the distributions on the "
    "axes are almost identical; between 0.1 and 0.3 the avatars are faithful; above 0.3 the structure linking "
    "the variables (clusters, relationships) has been distorted."
)
MULTIVARIATE_COMPUTATION = N_(
    "A projection is fitted on the originals; on each of its axes the originals' and the avatars' coordinates are "
    "binned on one grid and their Hellinger distance H_j computed; the value is sum_j w_j H_j with w_j the axis's "
    "share of the explained variance. The source's formula line also divides by the number of axes q; that "
    "value is kept in the JSON as multivariate_hellinger_seed_formula."
)
# Seed 001's bands, upper limits: below 0.1 almost identical, 0.1 to 0.3 good fidelity, above distorted.
DEFINITION = MetricDefinition(
    name="multivariate_hellinger_distance", label=N_("Multivariate Hellinger distance"), unit="", goal="minimize",
    bounds=(0.0, 1.0), interpretation=MULTIVARIATE_TEXT, computation=MULTIVARIATE_COMPUTATION, criterion=SIGNAL,
    bands=((0.1, "good", N_("almost identical")), (0.3, "good", N_("good fidelity")),
           (np.inf, "poor", N_("distorted"))),
)


def compute(context: SignalContext) -> MetricResult:
    """The multivariate Hellinger distance of WO and WA, in the projection fitted on WO."""
    return multivariate_hellinger(context.working, context.avatars, context.kinds, context.space)


def multivariate_hellinger(
    working: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind], space: MetricSpace | None = None
) -> MetricResult:
    """Multivariate Hellinger distance (seed 001, SPEC section 5 revised): ``sum_j w_j H_j`` over the q axes with
    variance, the weighted mean the seed describes; the seed's formula line, ``(1/q) sum_j w_j H_j``, is kept in
    the breakdown as ``seed_formula``.

    The projection is fitted on WO (missing values at the centroid); WO and WA are
    transformed with it; each axis's two coordinate samples share one grid (same rule
    as the Hellinger Mean); ``w_j = lambda_j / sum(lambda)``. ``space``, when given, is
    that projection already fitted on ``working``.
    """
    space = space or MetricSpace.fit(working, kinds)
    projection, avatar_table = space.projection, space.encode(avatars)
    n_axes = projection.n_components_
    if n_axes == 0:
        return DEFINITION.result(None, not_applicable=N_("The originals have no variance: every row is the same."))
    eigenvalues = projection.eigenvalues_[:n_axes]
    weights = eigenvalues / eigenvalues.sum()
    distances = np.empty(n_axes)
    block = max(1, AXIS_BLOCK_VALUES // max(space.table.n_rows, avatar_table.n_rows, 1))
    for start in range(0, n_axes, block):
        axes = slice(start, min(start + block, n_axes))
        distances[axes] = column_distances(
            space.sorted_axes(axes), SortedColumns.of(projection.transform(avatar_table, axes))
        )
    value = float(np.sum(weights * distances))
    return DEFINITION.result(value, breakdown={"per_axis": [
        {"axis": j + 1, "weight": float(weights[j]), "distance": float(distances[j])} for j in range(n_axes)
    ], "seed_formula": value / n_axes})
