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

from collections.abc import Mapping

import numpy as np
import pandas as pd
import scipy.sparse

from core.encoding import EncodedTable
from core.errors import InputError

_ROW_CHUNK = 8_192


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
        n_rows = table.n_rows
        if n_rows < 2:
            raise InputError(f"The projection needs at least 2 rows, got {n_rows}.")
        if table.numeric.shape[1] + table.codes.shape[1] == 0:
            raise InputError("The projection needs at least one column.")
        self._check_weights(table)
        self.kind_ = "PCA" if not table.categorical_names else "MCA" if not table.numeric_names else "FAMD"
        self.numeric_names_ = table.numeric_names
        self.categorical_names_ = table.categorical_names

        with np.errstate(invalid="ignore"):
            self.means_ = np.nanmean(table.numeric, axis=0) if table.numeric.size else np.zeros(0)
            stds = np.nanstd(table.numeric, axis=0) if table.numeric.size else np.zeros(0)
        self.stds_ = np.where(np.isfinite(stds) & (stds > 0), stds, 1.0)
        self.numeric_scale_ = np.sqrt(self._weights(table.numeric_names)) / self.stds_

        self.proportions_ = []
        for position, modalities in enumerate(table.categories):
            codes = table.codes[:, position]
            counts = np.bincount(codes[codes >= 0], minlength=len(modalities)).astype(float)
            self.proportions_.append(counts / max(counts.sum(), 1.0))
        self._offsets = np.cumsum([0, *(len(p) for p in self.proportions_)])
        category_weights = self._weights(table.categorical_names)
        with np.errstate(divide="ignore"):
            self.modality_scale_ = [
                np.where(p > 0, np.sqrt(weight / p), 0.0) for p, weight in zip(self.proportions_, category_weights)
            ]

        covariance = self._covariance(table) / n_rows
        eigenvalues, eigenvectors = np.linalg.eigh(covariance)
        order = np.argsort(eigenvalues)[::-1]
        eigenvalues = np.clip(eigenvalues[order], 0.0, None)
        components = eigenvectors[:, order].T
        largest = np.argmax(np.abs(components), axis=1)
        components *= np.sign(components[np.arange(len(components)), largest])[:, None]
        self.components_ = components
        self.eigenvalues_ = eigenvalues
        total = eigenvalues.sum()
        self.explained_variance_ratio_ = eigenvalues / total if total > 0 else np.zeros_like(eigenvalues)
        self.n_components_ = int(np.sum(eigenvalues > 1e-10 * max(total, 1e-300)))
        self.coded_column_names_ = [*table.numeric_names] + [
            f"{name}={modality}" for name, modalities in zip(table.categorical_names, table.categories)
            for modality in modalities
        ]
        return self

    def _check_weights(self, table: EncodedTable) -> None:
        known = set(table.numeric_names) | set(table.categorical_names)
        for name, weight in (self.column_weights or {}).items():
            if name not in known:
                raise InputError(f"column_weights names column '{name}', which is not in the table: check its spelling.")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not np.isfinite(weight) or weight <= 0:
                raise InputError(f"column_weights['{name}'] must be a number greater than 0, got {weight!r}.")

    def _weights(self, names: tuple[str, ...]) -> np.ndarray:
        weights = self.column_weights or {}
        return np.array([float(weights.get(name, 1.0)) for name in names])

    def _scaled_numeric(self, numeric: np.ndarray) -> np.ndarray:
        scaled = (numeric - self.means_) * self.numeric_scale_
        return np.nan_to_num(scaled, nan=0.0, copy=False)

    def _covariance(self, table: EncodedTable) -> np.ndarray:
        """``Z'Z`` of the coded matrix ``Z``, from sparse modality counts (``Z`` is never built)."""
        numeric = self._scaled_numeric(table.numeric)
        if not self.proportions_:
            return numeric.T @ numeric
        n_rows, n_variables = table.codes.shape
        observed = table.codes >= 0
        columns = (table.codes + self._offsets[:-1])[observed]  # row-major: already in CSR order
        row_starts = np.concatenate([[0], np.cumsum(observed.sum(axis=1))])
        dummies = scipy.sparse.csr_matrix(
            (np.ones(len(columns)), columns, row_starts), shape=(n_rows, self._offsets[-1])
        )
        observed = observed.astype(float)
        variable_of = np.repeat(np.arange(n_variables), np.diff(self._offsets))
        p = np.concatenate(self.proportions_)
        scale = np.concatenate(self.modality_scale_)
        # B = D - O[:, variable_of] * p is the centred one-hot matrix; Z_cat = B * scale.
        d_o = (dummies.T @ observed)[:, variable_of] * p  # (M, M): D' O p'
        o_o = (observed.T @ observed)[np.ix_(variable_of, variable_of)] * np.outer(p, p)
        b_b = (dummies.T @ dummies).toarray() - d_o - d_o.T + o_o
        numeric_b = (dummies.T @ numeric).T - (observed.T @ numeric).T[:, variable_of] * p
        return np.block([
            [numeric.T @ numeric, numeric_b * scale],
            [(numeric_b * scale).T, b_b * np.outer(scale, scale)],
        ])

    def transform(self, table: EncodedTable, axes: int | slice | None = None) -> np.ndarray:
        """Coordinates of ``table``'s rows on the first ``axes`` axes (a number), or on a slice of axes; all by default.

        Each row is coded with the fit-time means, deviations and shares, so its
        coordinates do not depend on the other rows it comes with.
        """
        axes = self.components_[axes if isinstance(axes, slice) else slice(axes)]
        n_numeric = len(self.means_)
        coordinates = self._scaled_numeric(table.numeric) @ axes[:, :n_numeric].T
        for position, lookup in enumerate(self._modality_coordinates(axes)):
            coordinates += lookup[table.codes[:, position]]
        return coordinates

    def _modality_coordinates(self, axes: np.ndarray) -> list[np.ndarray]:
        """Per variable, the coordinate contribution of each modality, plus a zero row for code -1."""
        lookups = []
        n_numeric = len(self.means_)
        for position, (p, scale) in enumerate(zip(self.proportions_, self.modality_scale_)):
            block = axes[:, n_numeric + self._offsets[position]: n_numeric + self._offsets[position + 1]].T
            contribution = scale[:, None] * block - (scale * p) @ block
            lookups.append(np.vstack([contribution, np.zeros((1, len(axes)))]))
        return lookups

    def inverse_transform(self, coordinates: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Numeric values and categorical codes of latent points (SPEC section 2, step 5).

        Missing trailing coordinates count as 0. Numeric values are back-scaled;
        each categorical value is drawn from the reconstructed modality weights
        ``z / scale + p`` with negative weights clipped to 0 (the shares ``p`` when
        every weight is clipped).
        """
        n_rows, n_used = coordinates.shape
        axes = self.components_[:n_used]
        n_numeric = len(self.means_)
        with np.errstate(divide="ignore", invalid="ignore"):
            numeric = coordinates @ axes[:, :n_numeric] / self.numeric_scale_ + self.means_
        codes = np.empty((n_rows, len(self.proportions_)), dtype=np.int32)
        coordinates_32 = coordinates.astype(np.float32)  # weights for a draw need no more precision
        for position, (p, scale) in enumerate(zip(self.proportions_, self.modality_scale_)):
            block = axes[:, n_numeric + self._offsets[position]: n_numeric + self._offsets[position + 1]]
            observed = scale > 0  # a modality unseen at fit time is never drawn
            block = np.divide(block, scale, out=np.zeros_like(block), where=observed).astype(np.float32)
            base = np.where(observed, p, 0.0).astype(np.float32)
            uniforms = rng.random(n_rows)
            for start in range(0, n_rows, _ROW_CHUNK):
                chunk = slice(start, start + _ROW_CHUNK)
                weights = coordinates_32[chunk] @ block
                weights += base
                np.maximum(weights, 0.0, out=weights)
                codes[chunk, position] = draw_categories(weights, p, uniforms[chunk])
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


def draw_categories(weights: np.ndarray, fallback: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """One draw per row from non-negative, unnormalised ``weights`` (n, m), by inverse CDF of ``uniforms``.

    A row whose weights are all 0 draws from ``fallback``. ``weights`` is overwritten.
    """
    cumulative = np.cumsum(weights, axis=1, out=weights)
    empty = cumulative[:, -1] <= 0
    if empty.any():
        cumulative[empty] = np.cumsum(fallback)
    targets = uniforms * cumulative[:, -1]
    drawn = (cumulative <= targets[:, None]).sum(axis=1)
    return np.minimum(drawn, weights.shape[1] - 1).astype(np.int32)
