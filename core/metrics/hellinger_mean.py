"""Hellinger Mean (seed 002, SPEC section 5): per-variable Hellinger scores against a holdout, averaged.

WO is the working half of the originals (the one avatarized), HO the holdout half, WA the avatars of WO.
Typed frames come in (see :func:`core.engine.schema.apply_kinds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from core.dataset import Kind
from core.engine.encoding import numeric_values
from core.i18n import N_
from core.metrics.binning import binned_distribution, common_grid, hellinger_distance
from core.metrics.definition import SIGNAL, MetricDefinition
from core.metrics.result import MetricResult

if TYPE_CHECKING:
    from core.metrics.context import SignalContext

HELLINGER_MEAN_TEXT = N_(
    "The closer to 100, the more the avatars preserve the natural variability of the data. Close to 100: the "
    "avatars differ from the original data as much as two halves of the original data differ from each other "
    "(good signal retention). Below 100: the avatars' distributions drift further from the originals' than "
    "natural variability would suggest (signal degradation)."
)
HELLINGER_MEAN_COMPUTATION = N_(
    "For each variable, the Hellinger distance (0 = same distribution, 1 = nothing in common) between the avatars "
    "and the holdout half is compared with the distance between the two real halves; only the part natural "
    "variability does not explain counts: score = 100 x (1 - sqrt(max(0, avatar distance^2 - reference "
    "distance^2))). The Hellinger Mean is the mean of the variables' scores."
)
# Readings (no target): 95 and above close to natural variability, 80 to 95 some drift, below 80 strong drift; every
# score of seed 002's form (against two real samples) reads so.
NATURAL_VARIABILITY_BANDS = ((95.0, "good", N_("close to natural variability")),
                             (80.0, "fair", N_("drifts beyond natural variability")),
                             (-np.inf, "poor", N_("strong drift from the originals")))
DEFINITION = MetricDefinition(
    name="hellinger_mean", label=N_("Hellinger Mean"), unit="/ 100", goal="maximize", bounds=(0.0, 100.0),
    interpretation=HELLINGER_MEAN_TEXT, computation=HELLINGER_MEAN_COMPUTATION, criterion=SIGNAL,
    bands=NATURAL_VARIABILITY_BANDS,
)


def compute(context: SignalContext) -> MetricResult:
    """The Hellinger Mean of WA against HO, with WO against HO as the reference."""
    return hellinger_mean(context.working, context.holdout, context.avatars, context.kinds)


def variable_score(reference: float, avatar: float) -> float:
    """``100 (1 - sqrt(max(0, a^2 - r^2)))``: only the part of the avatar distance ``a`` that the reference
    distance ``r`` (natural variability) does not explain counts (seed 002)."""
    return float(100.0 * (1.0 - np.sqrt(max(0.0, avatar**2 - reference**2))))


def present_modalities(column: pd.Series) -> list[object]:
    """The modalities a categorical column holds (its unused categories left out)."""
    return list(column.cat.remove_unused_categories().cat.categories)


def category_shares(column: pd.Series, modalities: pd.Index) -> np.ndarray:
    """Shares of each modality, then of missing values (code -1 counts in the last bin)."""
    to_modality = np.append(modalities.get_indexer(column.cat.categories), len(modalities))
    codes = to_modality[column.cat.codes.to_numpy()]
    return np.bincount(codes, minlength=len(modalities) + 1) / max(len(column), 1)


def hellinger_mean(
    working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind]
) -> MetricResult:
    """Hellinger Mean (seed 002): the mean of the per-variable scores; their standard deviation (the population's,
    ``sqrt(mean((s - mean)^2))``) in the breakdown, as the commercial engine reports it (SPEC section 9).

    Per variable, reference distance ``r = H(WO, HO)`` and avatar distance ``a = H(WA, HO)``,
    score ``100 (1 - sqrt(max(0, a^2 - r^2)))``. Numeric and datetime variables share one
    grid (:func:`~core.metrics.binning.common_grid`) over the pooled non-missing values;
    categorical variables use the union of the three samples' modalities; missing
    values are one more bin.
    """
    rows, scores = [], []
    for name in working.columns:
        if kinds[name] is Kind.CATEGORICAL:
            modalities = pd.Index(list(dict.fromkeys(
                value for frame in (working, holdout, avatars) for value in present_modalities(frame[name])
            )), dtype=object)
            wo, ho, wa = (category_shares(frame[name], modalities) for frame in (working, holdout, avatars))
            kind, binning, n_bins = "categorical", N_("categories"), len(modalities)
        else:
            values = [numeric_values(frame[name]) for frame in (working, holdout, avatars)]
            pooled = np.concatenate([v[~np.isnan(v)] for v in values])
            if pooled.size == 0:
                continue
            grid = common_grid(pooled)
            wo, ho, wa = (binned_distribution(v, grid) for v in values)
            kind, binning, n_bins = "numeric", grid.binning, grid.n_bins
        reference, avatar = hellinger_distance(wo, ho), hellinger_distance(wa, ho)
        score = variable_score(reference, avatar)
        scores.append(score)
        rows.append({
            "variable": str(name), "kind": kind, "bins": int(n_bins), "binning": binning,
            "reference_distance": reference, "avatar_distance": avatar, "score": score,
        })
    value = float(np.mean(scores)) if rows else None
    return DEFINITION.result(value, breakdown={"per_variable": rows,
                                               "standard_deviation": float(np.std(scores)) if rows else None},
                             not_applicable=None if rows else N_("No variable has any value."))
