"""The latent space: FAMD for mixed tables, PCA when all numeric, MCA-equivalent when all categorical.

SPEC section 2, step 3. The coding is the FAMD coding of prince and FactoMineR:
numeric columns standardised with the population standard deviation (a constant
column keeps std 1); each modality a dummy coded ``(dummy - p) / sqrt(p)``, ``p`` its
share among the rows where the variable is observed; ``column_weights`` multiply a
variable's coded columns by ``sqrt(w)``. The axes are the eigenvectors of the coded
matrix's covariance ``Z'Z / n`` (an exact decomposition, equal to the SVD of ``Z``),
and a row's coordinates are ``Z V``.

Why not prince's ``FAMD`` object itself (it is the reference the tests compare
with, coordinate for coordinate): its ``transform`` recomputes the modality shares
from the batch it is given, so a row's coordinates would depend on the other rows
of its batch; it has no inverse transform; and it materialises the dense one-hot
matrix, which for a million rows and a 200-modality column takes gigabytes. Here
the covariance is assembled from sparse modality counts, the coding is frozen at
fit time, a modality unseen at fit time or a missing value sits at the centroid
(coded 0, as prince's ``fillna(0)``), and categorical coordinates are table
look-ups rather than products with a one-hot matrix.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.engine.encoding import EncodedTable, code_dtype
from core.engine.share_calibration import calibrated_offsets
from core.errors import InputError
from core.i18n import _, number
from core.validation import check_weight

_ROW_CHUNK = 8_192
RESIDUAL_AXES = 32  # trailing axes drawn jointly when decoding categories; beyond, independent noise
CALIBRATION_ROWS = 20_000
_SAFE_MAGNITUDE = 1e150
SIGN_TOLERANCE = 1e-9


class Projection:
    """Fitted FAMD-type projection with a transform and an inverse transform.

    Parameters
    ----------
    column_weights : mapping of variable name to a positive weight, optional.
        A weight ``w`` multiplies the variable's coded columns by ``sqrt(w)``, so
        squared distances scale by ``w``.

    Attributes
    ----------
    kind_ : ``"FAMD"``, ``"PCA"`` (all numeric) or ``"MCA"`` (all categorical).
    means_, stds_ : numeric coding.
    proportions_ : modality shares ``p`` per categorical variable.
    components_ : (P, P) array; row ``j`` is axis ``j`` in coded-column space.
    eigenvalues_ : variance of the coordinates on each axis, descending.
    explained_variance_ratio_ : ``eigenvalues_ / eigenvalues_.sum()``.
    n_components_ : number of axes with non-zero variance.
    coded_column_names_ : ``"x"`` for a numeric column, ``"c=m"`` for modality ``m``.
    """

    def __init__(self, column_weights: Mapping[str, float] | None = None):
        self.column_weights = column_weights

    def fit(self, table: EncodedTable) -> Projection:
        """Fix the coding on ``table`` and find its axes."""
        self.fit_coding(table, CodingStatistics.of(table))
        return self.fit_axes(self.gram(table), table.n_rows)

    def fit_coding(self, table: EncodedTable, statistics: CodingStatistics) -> Projection:
        """Fix the coding (means, deviations, modality shares) from ``statistics``, those of ``table`` or of every
        part of a table summed (SPEC section 10; ``table`` gives the columns and modalities: a part will do)."""
        if statistics.rows < 2:
            raise InputError(
                _("The projection needs at least 2 rows, got {rows}.").format(rows=number(statistics.rows)))
        if table.numeric.shape[1] + table.codes.shape[1] == 0:
            raise InputError(_("The projection needs at least one column."))
        self._check_weights(table)
        self.kind_ = "PCA" if not table.categorical_names else "MCA" if not table.numeric_names else "FAMD"
        self.numeric_names_ = table.numeric_names
        self.categorical_names_ = table.categorical_names
        self.means_, stds = statistics.means.copy(), statistics.stds
        self.stds_ = np.where(np.isfinite(stds) & (stds > 0), stds, 1.0)
        self.numeric_scale_ = np.sqrt(self._weights(table.numeric_names)) / self.stds_
        self.proportions_ = [counts / max(counts.sum(), 1.0) for counts in statistics.modality_counts]
        self._offsets = np.cumsum([0, *(len(p) for p in self.proportions_)])
        category_weights = self._weights(table.categorical_names)
        with np.errstate(divide="ignore"):
            self.modality_scale_ = [
                np.where(p > 0, np.sqrt(weight / p), 0.0) for p, weight in zip(self.proportions_, category_weights, strict=True)
            ]
        self.coded_column_names_ = [*table.numeric_names] + [
            f"{name}={modality}" for name, modalities in zip(table.categorical_names, table.categories, strict=True)
            for modality in modalities
        ]
        return self

    def gram(self, table: EncodedTable) -> np.ndarray:
        """``Z'Z`` of ``table``'s rows coded with the fitted coding: summed over the parts of a table, the whole
        table's, for :meth:`fit_axes`."""
        return self._covariance(table)

    def fit_axes(self, gram: np.ndarray, n_rows: int) -> Projection:
        """The axes: the eigenvectors of the covariance ``gram / n_rows`` (one exact decomposition)."""
        covariance = gram / n_rows
        eigenvalues, eigenvectors = np.linalg.eigh(covariance)
        order = np.argsort(eigenvalues)[::-1]
        eigenvalues = np.clip(eigenvalues[order], 0.0, None)
        components = eigenvectors[:, order].T
        # Each axis points to where its first largest loading is positive; loadings within 1e-9 of the largest count
        # as largest (a missing-value indicator's two modalities load +a and -a), so that the last bits of a sum
        # (parts summed in another order: SPEC 10) never flip an axis.
        magnitudes = np.abs(components)
        largest = np.argmax(magnitudes >= magnitudes.max(axis=1, keepdims=True) * (1 - SIGN_TOLERANCE), axis=1)
        components *= np.sign(components[np.arange(len(components)), largest])[:, None]
        self.components_ = components
        self.eigenvalues_ = eigenvalues
        total = eigenvalues.sum()
        self.explained_variance_ratio_ = eigenvalues / total if total > 0 else np.zeros_like(eigenvalues)
        self.n_components_ = int(np.sum(eigenvalues > 1e-10 * max(total, 1e-300)))
        return self

    def _check_weights(self, table: EncodedTable) -> None:
        known = set(table.numeric_names) | set(table.categorical_names)
        for name, weight in (self.column_weights or {}).items():
            if name not in known:
                raise InputError(_("column_weights names column '{name}', which is not in the table: check its "
                                   "spelling.").format(name=name))
            check_weight(f"column_weights['{name}']", weight)

    def _weights(self, names: tuple[str, ...]) -> np.ndarray:
        weights = self.column_weights or {}
        return np.array([float(weights.get(name, 1.0)) for name in names])

    def _scaled_columns(self, numeric: np.ndarray) -> np.ndarray:
        """The standardised, weighted numeric values (missing at 0), a column per row, built one column at a time."""
        scaled = np.empty((numeric.shape[1], numeric.shape[0]))
        for j, row in enumerate(scaled):
            np.multiply(numeric[:, j], self.numeric_scale_[j], out=row)  # scaled first: 1e308 - (-1e308) overflows
            row -= self.means_[j] * self.numeric_scale_[j]
            np.nan_to_num(row, nan=0.0, copy=False)
        return scaled

    def _covariance(self, table: EncodedTable) -> np.ndarray:
        """``Z'Z`` of the coded matrix ``Z``, from modality counts (``Z`` and the one-hot matrix are never built).

        With ``D`` the one-hot matrix, ``O`` the observed flags per variable and ``p`` the
        shares, the centred one-hot matrix is ``B = D - O[:, variable_of] * p`` and
        ``Z_cat = B * scale``; ``D'D``, ``D'O``, ``O'O``, ``D'N`` and ``O'N`` are counts and
        sums per modality (pairs of variables for ``D'D``), one pass over the rows each.
        """
        numeric_by_column = self._scaled_columns(table.numeric)  # a variable per row: no strides
        numeric_gram = numeric_by_column @ numeric_by_column.T
        if not self.proportions_:
            return numeric_gram
        codes, sizes = np.ascontiguousarray(table.codes.T), np.diff(self._offsets)
        n_variables, n_numeric, n_modalities = len(codes), len(numeric_by_column), self._offsets[-1]
        observed = [None if (codes[a] >= 0).all() else codes[a] >= 0 for a in range(n_variables)]
        d_d = np.zeros((n_modalities, n_modalities))
        d_o = np.zeros((n_modalities, n_variables))
        d_n = np.zeros((n_modalities, n_numeric))
        o_o = np.zeros((n_variables, n_variables))
        o_n = np.zeros((n_variables, n_numeric))
        for a in range(n_variables):
            block_a = slice(self._offsets[a], self._offsets[a + 1])
            rows_a = slice(None) if observed[a] is None else observed[a]
            code_a = codes[a, rows_a]
            for j in range(n_numeric):
                values = numeric_by_column[j, rows_a]
                d_n[block_a, j] = np.bincount(code_a, weights=values, minlength=sizes[a])
                o_n[a, j] = values.sum()
            for b in range(a, n_variables):
                both = _both_observed(observed[a], observed[b])
                pair_a, pair_b = codes[a, both].astype(np.intp), codes[b, both]
                block_b = slice(self._offsets[b], self._offsets[b + 1])
                d_o[block_a, b] = np.bincount(pair_a, minlength=sizes[a])
                d_o[block_b, a] = np.bincount(pair_b, minlength=sizes[b])
                o_o[a, b] = o_o[b, a] = len(pair_a)
                if a == b:
                    d_d[block_a, block_a] = np.diag(d_o[block_a, a])
                else:
                    joint = np.bincount(pair_a * sizes[b] + pair_b, minlength=sizes[a] * sizes[b])
                    d_d[block_a, block_b] = joint.reshape(sizes[a], sizes[b])
                    d_d[block_b, block_a] = d_d[block_a, block_b].T
        variable_of = np.repeat(np.arange(n_variables), sizes)
        p = np.concatenate(self.proportions_)
        scale = np.concatenate(self.modality_scale_)
        d_o_p = d_o[:, variable_of] * p  # (M, M): D' O p'
        b_b = d_d - d_o_p - d_o_p.T + o_o[np.ix_(variable_of, variable_of)] * np.outer(p, p)
        numeric_b = d_n.T - o_n.T[:, variable_of] * p
        return np.block([
            [numeric_gram, numeric_b * scale],
            [(numeric_b * scale).T, b_b * np.outer(scale, scale)],
        ])

    def transform(self, table: EncodedTable, axes: int | slice | None = None) -> np.ndarray:
        """Coordinates of ``table``'s rows on the first ``axes`` axes (a number), or on a slice of axes; all by default.

        Each row is coded with the fit-time means, deviations and shares, so its
        coordinates do not depend on the other rows it comes with.
        """
        components = self.components_[axes if isinstance(axes, slice) else slice(axes)]
        n_numeric = len(self.means_)
        lookups = self._modality_coordinates(components)
        coordinates = np.empty((table.n_rows, len(components)))
        for start in range(0, table.n_rows, _ROW_CHUNK):  # by blocks: no temporary of the whole table
            chunk = slice(start, start + _ROW_CHUNK)
            block = coordinates[chunk]
            np.matmul(self._scaled_columns(table.numeric[chunk]).T, components[:, :n_numeric].T, out=block)
            for position, lookup in enumerate(lookups):
                block += lookup[table.codes[chunk, position]]
        return coordinates

    def _modality_coordinates(self, axes: np.ndarray) -> list[np.ndarray]:
        """Per variable, the coordinate contribution of each modality, plus a zero row for code -1."""
        lookups = []
        n_numeric = len(self.means_)
        for position, (p, scale) in enumerate(zip(self.proportions_, self.modality_scale_, strict=True)):
            block = axes[:, n_numeric + self._offsets[position]: n_numeric + self._offsets[position + 1]].T
            contribution = scale[:, None] * block - (scale * p) @ block
            lookups.append(np.vstack([contribution, np.zeros((1, len(axes)))]))
        return lookups

    def inverse_transform(self, coordinates: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Numeric values and categorical codes of latent points (SPEC sections 2 step 5 and 4; used by FastDP).

        The points give the first axes; the axes beyond are uncorrelated with them and with each other, so each
        trailing coordinate is drawn from a normal of that axis's variance, its eigenvalue (SPEC 4, revised:
        counted as 0, they kept only the first axes' share of each variable's variance and inflated correlations,
        0.51 to 0.95 on the demo table). The first ``RESIDUAL_AXES`` trailing coordinates are drawn jointly for every
        variable; beyond them, the numeric values get the rest's joint residual (its covariance over the numeric
        columns) and each modality weight its own residual variance as independent noise.

        Numeric values are then back-scaled. A categorical value is the modality of largest score, the score being
        the reconstructed modality weight ``z / scale + p``, plus an offset per modality calibrated so that each
        modality keeps its share ``p`` (:mod:`~core.engine.share_calibration`). Why not the draw of SPEC step 5
        (weights clipped at 0): on points of a smooth model the clipped weights lift every rare modality (a 15 %
        spike came out at 25 to 46 % with gmm) and variables drawn one by one lose the relations between them (a
        flag and its amount).
        """
        n_rows, n_used = coordinates.shape
        axes = self.components_[:n_used]
        n_numeric = len(self.means_)
        trailing = self.components_[n_used:n_used + RESIDUAL_AXES]
        trailing_sd = np.sqrt(self.eigenvalues_[n_used:n_used + RESIDUAL_AXES])
        rest = self.components_[n_used + RESIDUAL_AXES:]
        rest_variance = self.eigenvalues_[n_used + RESIDUAL_AXES:]
        numeric_rest = _normal_factor((rest[:, :n_numeric] * np.sqrt(rest_variance)[:, None]).T)
        numeric = np.empty((n_rows, n_numeric))
        codes = np.empty((n_rows, len(self.proportions_)), dtype=code_dtype(self.proportions_))
        decoders = []
        for position, (p, scale) in enumerate(zip(self.proportions_, self.modality_scale_, strict=True)):
            columns = slice(n_numeric + self._offsets[position], n_numeric + self._offsets[position + 1])
            observed = scale > 0  # a modality unseen at fit time is never chosen
            inverse_scale = np.divide(1.0, scale, out=np.zeros_like(scale), where=observed)
            noise_sd = np.sqrt(rest_variance @ rest[:, columns] ** 2) * inverse_scale
            decoders.append(_ModalityDecoder(
                (axes[:, columns] * inverse_scale).T.astype(np.float32),
                (trailing[:, columns] * inverse_scale).T.astype(np.float32),
                np.where(observed, p, 0.0).astype(np.float32), noise_sd.astype(np.float32)))
        calibration_rows = min(n_rows, CALIBRATION_ROWS)  # the offsets are set on the first rows (i.i.d. draws)
        bounds = [0, *range(calibration_rows, n_rows, _ROW_CHUNK), n_rows]
        for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
            drawn = trailing_sd[:, None] * rng.standard_normal((len(trailing_sd), stop - start))
            scaled = coordinates[start:stop] @ axes[:, :n_numeric] + drawn.T @ trailing[:, :n_numeric]
            if numeric_rest.size:
                scaled += rng.standard_normal((stop - start, numeric_rest.shape[1])) @ numeric_rest.T
            numeric[start:stop] = scaled
            points, drawn = coordinates[start:stop].astype(np.float32).T, drawn.astype(np.float32)
            for position, decoder in enumerate(decoders):
                scores = decoder.scores(points, drawn, rng)
                if start == 0:
                    decoder.offsets = calibrated_offsets(scores, decoder.shares.astype(float)).astype(np.float32)
                assert decoder.offsets is not None  # set on the first rows
                scores += decoder.offsets[:, None]
                codes[start:stop, position] = np.argmax(scores, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            numeric /= self.numeric_scale_
        numeric += self.means_
        return numeric, codes

    def contributions(self) -> pd.DataFrame:
        """Share (%) of each axis's variance due to each variable, one row per variable."""
        squared = self.components_.T**2 * 100.0
        n_numeric = len(self.means_)
        rows = {name: squared[position] for position, name in enumerate(self.numeric_names_)}
        for position, name in enumerate(self.categorical_names_):
            block = squared[n_numeric + self._offsets[position]: n_numeric + self._offsets[position + 1]]
            rows[name] = block.sum(axis=0)
        frame = pd.DataFrame(rows).T
        frame.columns = [f"axis {j + 1}" for j in range(frame.shape[1])]
        return frame


def _mean_and_std(values: np.ndarray) -> tuple[float, float]:
    """Mean and population standard deviation of a column, NaN ignored; a constant column's deviation is exactly 0
    (its mean summed in floating point is not always its value). Beyond 1e150 in magnitude (or below
    1e-150) they are computed on the values divided by the largest, so that squares neither overflow (1e300) nor
    vanish (1e-300, whose standard deviation would be 0: a constant column)."""
    magnitude = np.nanmax(np.abs(values)) if values.size else np.nan
    if np.isfinite(magnitude) and np.nanmin(values) == np.nanmax(values):  # constant: 0 exactly (79 x 0.2 gave a
        return float(np.nanmin(values)), 0.0  # deviation of 8e-17, avatars at 0.21 then 1e15 away)
    if np.isfinite(magnitude) and (magnitude > _SAFE_MAGNITUDE or 0 < magnitude < 1 / _SAFE_MAGNITUDE):
        scaled = values / magnitude
        return float(np.nanmean(scaled) * magnitude), float(np.nanstd(scaled) * magnitude)
    return float(np.nanmean(values)), float(np.nanstd(values))


@dataclass(frozen=True)
class CodingStatistics:
    """The sufficient statistics of the coding (SPEC section 10): rows; per numeric column the count, mean and
    population standard deviation of its observed values; per categorical the count of each modality. Those of the
    parts of a table, merged in a fixed order, fix the whole table's coding (Chan et al.'s pairwise update)."""

    rows: int
    counts: np.ndarray
    means: np.ndarray
    stds: np.ndarray
    modality_counts: tuple[np.ndarray, ...]

    @classmethod
    def of(cls, table: EncodedTable) -> CodingStatistics:
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an empty column: NaN, then scale 1 at the fit
            column_values = [table.numeric[:, j] for j in range(table.numeric.shape[1])]  # one copy at a time
            means, stds = np.array([_mean_and_std(values) for values in column_values]).reshape(-1, 2).T
        counts = np.array([np.count_nonzero(~np.isnan(values)) for values in column_values], dtype=float)
        modality_counts = tuple(
            np.bincount(codes[codes >= 0], minlength=len(modalities)).astype(float)
            for codes, modalities in ((table.codes[:, j], table.categories[j]) for j in range(table.codes.shape[1])))
        return cls(table.n_rows, counts, means, stds, modality_counts)

    def merged(self, other: CodingStatistics) -> CodingStatistics:
        """The statistics of both parts' rows together: ``n = n_a + n_b``, ``mean = mean_a + d n_b / n`` and
        ``M2 = M2_a + M2_b + d^2 n_a n_b / n`` with ``d = mean_b - mean_a`` (computed on values divided by the
        largest magnitude involved, so that squares of 1e300 do not overflow)."""
        n_a, n_b = self.counts, other.counts
        n = n_a + n_b
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a column empty in both parts: NaN, kept
            scale = np.nanmax(np.abs(np.vstack([self.means, other.means, self.stds, other.stds])), axis=0)
            scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
            mean_a, mean_b = np.nan_to_num(self.means / scale), np.nan_to_num(other.means / scale)
            sd_a, sd_b = np.nan_to_num(self.stds / scale), np.nan_to_num(other.stds / scale)
            delta = mean_b - mean_a
            mean = mean_a + delta * n_b / n
            squares = n_a * sd_a ** 2 + n_b * sd_b ** 2 + delta ** 2 * n_a * n_b / n
            means = np.where(n > 0, mean * scale, np.nan)
            stds = np.where(n > 0, np.sqrt(squares / n) * scale, np.nan)
        return CodingStatistics(self.rows + other.rows, n, means, stds,
                                tuple(a + b for a, b in zip(self.modality_counts, other.modality_counts, strict=True)))


@dataclass
class _ModalityDecoder:
    """One categorical variable's reconstructed weights (see :meth:`Projection.inverse_transform`)."""

    on_axes: np.ndarray  # (modalities, axes used): weight per unit of each used coordinate
    on_trailing: np.ndarray  # (modalities, trailing axes drawn jointly)
    shares: np.ndarray  # p, 0 for a modality unseen at fit time
    noise_sd: np.ndarray  # the rest of each weight's residual standard deviation
    offsets: np.ndarray | None = None

    def scores(self, points: np.ndarray, drawn: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(modalities, rows) scores of ``points`` (axes, rows) with their ``drawn`` trailing coordinates."""
        scores = self.on_axes @ points
        scores += self.on_trailing @ drawn
        scores += self.shares[:, None]
        scores += self.noise_sd[:, None] * rng.standard_normal(scores.shape, dtype=np.float32)
        return scores


def _normal_factor(factor: np.ndarray) -> np.ndarray:
    """A factor ``L`` (p, r <= p) with ``L L' = factor factor'``: draws of ``L g``, ``g`` standard normal, have that
    covariance at the cost of the smaller side (``factor`` is (p, axes), with often many more axes than columns)."""
    if factor.shape[1] <= factor.shape[0]:
        return factor
    eigenvalues, eigenvectors = np.linalg.eigh(factor @ factor.T)
    kept = eigenvalues > 1e-12 * max(float(eigenvalues.max(initial=0.0)), 1e-300)
    return eigenvectors[:, kept] * np.sqrt(eigenvalues[kept])


def _both_observed(first: np.ndarray | None, second: np.ndarray | None) -> np.ndarray | slice:
    """Rows observed in both variables (``None``: every row is)."""
    if first is None:
        return slice(None) if second is None else second
    if second is None:
        return first
    return first & second
