"""Signal metrics against a holdout (SPEC section 5; seeds 002, 001, 003).

WO is the working half of the originals (the one avatarized), HO the holdout half,
WA the avatars of WO. Typed frames come in (see :func:`core.engine.schema.apply_kinds`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from core.metrics.binning import (
    SortedColumns,
    binned_distribution,
    column_distances,
    common_grid,
    hellinger_distance,
)
from core.metrics.result import MetricResult
from core.metrics.space import AXIS_BLOCK_VALUES, MetricSpace
from core.engine.schema import Kind

HELLINGER_MEAN_TEXT = (
    "The closer to 100, the more the avatars preserve the natural variability of the data. Close to 100: the "
    "avatars differ from the original data as much as two halves of the original data differ from each other "
    "(good signal retention). Below 100: the avatars' distributions drift further from the originals' than "
    "natural variability would suggest (signal degradation)."
)
HELLINGER_MEAN_COMPUTATION = (
    "For each variable, the Hellinger distance (0 = same distribution, 1 = nothing in common) between the avatars "
    "and the holdout half is compared with the distance between the two real halves; only the part natural "
    "variability does not explain counts: score = 100 x (1 - sqrt(max(0, avatar distance^2 - reference "
    "distance^2))). The Hellinger Mean is the mean of the variables' scores."
)
MULTIVARIATE_TEXT = (
    "Compares the distributions of originals and avatars on every axis of the projection, weighted by the "
    "variance each axis explains: 0 means identical, 1 completely different. Below 0.1 the distributions on the "
    "axes are almost identical; between 0.1 and 0.3 the avatars are faithful; above 0.3 the structure linking "
    "the variables (clusters, relationships) has been distorted."
)
MULTIVARIATE_COMPUTATION = (
    "A projection is fitted on the originals; on each of its axes the originals' and the avatars' coordinates are "
    "binned on one grid and their Hellinger distance H_j computed; the value is sum_j w_j H_j with w_j the axis's "
    "share of the explained variance. The source's formula line also divides by the number of axes q; that "
    "value is kept in the JSON as multivariate_hellinger_seed_formula."
)
CORRELATION_TEXT = (
    "How closely the avatars keep the correlations between numeric variables, measured against the natural "
    "variability of the data. Close to 100: the avatars' correlations differ from the originals' as much as two "
    "halves of the original data differ from each other (good retention). Below 100: the avatars' correlations "
    "drift further than natural variability would suggest. Only numeric variables and linear relationships count."
)
CORRELATION_COMPUTATION = (
    "Mean gap between two correlation matrices: Delta = mean over pairs of 100 x |r1 - r2| / 2. Score = 100 x "
    "kappa x Delta(originals, holdout) / Delta(originals, avatars), at most 100; kappa = sqrt(N / 2000) above "
    "2000 rows, else 1."
)
# Readings of the signal metrics, which have no target: (lower limit, level, band) from the best down.
HELLINGER_BANDS = (
    (95.0, "good", "close to natural variability"),
    (80.0, "fair", "drifts beyond natural variability"),
    (-np.inf, "poor", "strong drift from the originals"),
)
# The ratio is 100 x natural gap / avatars' gap: 80 means a gap 1.25 times the natural one, 50 twice.
CORRELATION_BANDS = (
    (80.0, "good", "close to natural variability"),
    (50.0, "fair", "gaps up to 2x the natural ones"),
    (-np.inf, "poor", "gaps over 2x the natural ones"),
)
# Seed 001's bands, upper limits: below 0.1 almost identical, 0.1 to 0.3 good fidelity, above distorted.
MULTIVARIATE_BANDS = ((0.1, "good", "almost identical"), (0.3, "good", "good fidelity"), (np.inf, "poor", "distorted"))
STRENGTH_TIE = 0.005  # a mean change of |correlation| smaller than this is "about as strong"
KAPPA_ROWS = 2000


def score_band(bands, value: float) -> tuple[str, str]:
    """The (level, band) of a score read against bands listed from the best down by lower limit."""
    return next((level, band) for limit, level, band in bands if value >= limit)


def numeric_values(column: pd.Series) -> np.ndarray:
    """Floats of a numeric or datetime column (datetimes as seconds since 1970), NaN where missing."""
    if pd.api.types.is_datetime64_any_dtype(column):
        naive = column.dt.tz_convert("UTC").dt.tz_localize(None) if getattr(column.dt, "tz", None) else column
        seconds = naive.astype("datetime64[ns]").to_numpy().view(np.int64) / 1e9
        return np.where(column.isna().to_numpy(), np.nan, seconds)
    return column.to_numpy(dtype=float, na_value=np.nan)


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
    """Hellinger Mean (seed 002): the mean of the per-variable scores.

    Per variable, reference distance ``r = H(WO, HO)`` and avatar distance ``a = H(WA, HO)``,
    score ``100 (1 - sqrt(max(0, a^2 - r^2)))``. Numeric and datetime variables share one
    grid (:func:`~core.metrics.binning.common_grid`) over the pooled non-missing values;
    categorical variables use the union of the three samples' modalities; missing
    values are one more bin.
    """
    rows = []
    for name in working.columns:
        if kinds[name] is Kind.CATEGORICAL:
            modalities = pd.Index(list(dict.fromkeys(
                value for frame in (working, holdout, avatars) for value in present_modalities(frame[name])
            )), dtype=object)
            wo, ho, wa = (category_shares(frame[name], modalities) for frame in (working, holdout, avatars))
            kind, binning, n_bins = "categorical", "categories", len(modalities)
        else:
            values = [numeric_values(frame[name]) for frame in (working, holdout, avatars)]
            pooled = np.concatenate([v[~np.isnan(v)] for v in values])
            if pooled.size == 0:
                continue
            grid = common_grid(pooled)
            wo, ho, wa = (binned_distribution(v, grid) for v in values)
            kind, binning, n_bins = "numeric", grid.binning, grid.n_bins
        reference, avatar = hellinger_distance(wo, ho), hellinger_distance(wa, ho)
        score = 100.0 * (1.0 - np.sqrt(max(0.0, avatar**2 - reference**2)))
        rows.append({
            "variable": str(name), "kind": kind, "bins": int(n_bins), "binning": binning,
            "reference_distance": reference, "avatar_distance": avatar, "score": float(score),
        })
    value = float(np.mean([row["score"] for row in rows])) if rows else None
    level, band = score_band(HELLINGER_BANDS, value) if rows else (None, None)
    return MetricResult(
        name="hellinger_mean", label="Hellinger Mean", value=value, goal="maximize",
        interpretation=HELLINGER_MEAN_TEXT, computation=HELLINGER_MEAN_COMPUTATION,
        breakdown={"per_variable": rows},
        not_applicable=None if rows else "No variable has any value.", band=band, level=level,
    )


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
    projection, avatar_table = space.projection, space.codec.encode(avatars)
    n_axes = projection.n_components_
    if n_axes == 0:
        return MetricResult(
            name="multivariate_hellinger_distance", label="Multivariate Hellinger distance", value=None,
            goal="minimize", interpretation=MULTIVARIATE_TEXT, computation=MULTIVARIATE_COMPUTATION,
            not_applicable="The originals have no variance: every row is the same.",
        )
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
    level, band = next((level, band) for limit, level, band in MULTIVARIATE_BANDS if value < limit)
    return MetricResult(
        name="multivariate_hellinger_distance", label="Multivariate Hellinger distance", value=value,
        goal="minimize", interpretation=MULTIVARIATE_TEXT, computation=MULTIVARIATE_COMPUTATION,
        breakdown={"per_axis": [
            {"axis": j + 1, "weight": float(weights[j]), "distance": float(distances[j])} for j in range(n_axes)
        ], "seed_formula": value / n_axes},
        band=band, level=level,
    )


def correlation_difference_ratio(
    working: pd.DataFrame, holdout: pd.DataFrame, avatars: pd.DataFrame, kinds: Mapping[str, Kind]
) -> MetricResult:
    """Correlation Difference Ratio (seed 003): ``min(100, 100 kappa Delta(WO, HO) / Delta(WO, WA))``.

    Pearson matrices over the numeric variables (pairwise-complete observations);
    a pair is dropped where any of the three matrices is undefined;
    ``Delta(A, B)`` is the mean over ``i != j`` of ``100 |A_ij - B_ij| / 2``;
    ``kappa = sqrt(N / 2000)`` when N, the rows of WO, exceeds 2000, else 1; the score
    is 100 when ``Delta(WO, WA) = 0``. Datetime variables are not counted as numeric.

    The breakdown also says which way the avatars move the correlations (the score,
    an absolute gap, cannot): ``strength_change``, the mean over the defined pairs of
    ``|WA_ij| - |WO_ij|`` (positive: stronger in the avatars), ``reference_strength_change``
    the same for HO, and ``largest_change``, the pair whose correlation moves most.
    """
    numeric = [name for name in working.columns if kinds[name] is Kind.NUMERIC]
    n_working = len(working)
    kappa = float(np.sqrt(n_working / KAPPA_ROWS)) if n_working > KAPPA_ROWS else 1.0
    matrices = {
        label: frame[numeric].astype(float).corr().to_numpy() if numeric else np.empty((0, 0))
        for label, frame in (("original", working), ("holdout", holdout), ("avatars", avatars))
    }
    off_diagonal = ~np.eye(len(numeric), dtype=bool)
    defined = off_diagonal & np.all([np.isfinite(m) for m in matrices.values()], axis=0) if numeric else off_diagonal
    breakdown = {
        "variables": numeric, "kappa": kappa,
        **{f"{label}_correlations": matrix for label, matrix in matrices.items()},
    }
    if len(numeric) < 2 or not defined.any():
        reason = (
            "It needs at least two numeric variables." if len(numeric) < 2
            else "No pair of numeric variables has a defined correlation in all three samples (constant columns)."
        )
        return MetricResult(
            name="correlation_difference_ratio", label="Correlation Difference Ratio", value=None, goal="maximize",
            interpretation=CORRELATION_TEXT, computation=CORRELATION_COMPUTATION, not_applicable=reason,
            breakdown={**breakdown, "reference_difference": None, "avatar_difference": None},
        )
    original, holdout_matrix, avatar_matrix = matrices["original"], matrices["holdout"], matrices["avatars"]
    reference = float(np.mean(100 * np.abs(original - holdout_matrix)[defined] / 2))
    avatar = float(np.mean(100 * np.abs(original - avatar_matrix)[defined] / 2))
    value = 100.0 if avatar == 0 else float(min(100.0, 100.0 * kappa * reference / avatar))
    moved = np.where(defined, np.abs(avatar_matrix - original), -1.0)
    i, j = np.unravel_index(int(np.argmax(moved)), moved.shape)
    level, band = score_band(CORRELATION_BANDS, value)
    return MetricResult(
        name="correlation_difference_ratio", label="Correlation Difference Ratio", value=value, goal="maximize",
        interpretation=CORRELATION_TEXT, computation=CORRELATION_COMPUTATION, band=band, level=level,
        breakdown={
            **breakdown, "reference_difference": reference, "avatar_difference": avatar,
            "strength_change": float(np.mean((np.abs(avatar_matrix) - np.abs(original))[defined])),
            "reference_strength_change": float(np.mean((np.abs(holdout_matrix) - np.abs(original))[defined])),
            "largest_change": {"variables": [numeric[i], numeric[j]], "original": float(original[i, j]),
                               "avatars": float(avatar_matrix[i, j])},
        },
    )


def correlation_direction(result: MetricResult) -> str | None:
    """Whether the avatars weaken or strengthen the correlations, in one or two plain sentences."""
    change = result.breakdown.get("strength_change")
    if change is None:
        return None
    reference, largest = result.breakdown["reference_strength_change"], result.breakdown["largest_change"]
    if abs(change) < STRENGTH_TIE:
        direction = "The avatars keep the correlations about as strong as in the originals"
    else:
        direction = (f"The avatars {'strengthen' if change > 0 else 'weaken'} the correlations: on average a "
                     f"correlation is {abs(change):.2f} {'stronger' if change > 0 else 'weaker'} (in absolute value)")
    first, second = largest["variables"]
    return (
        f"{direction}, against {reference:+.2f} between two halves of the real data. Largest change: {first} and "
        f"{second}, {largest['original']:.2f} in the originals, {largest['avatars']:.2f} in the avatars."
    )
