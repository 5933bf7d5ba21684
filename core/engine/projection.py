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

import numpy as np
import pandas as pd

from core.engine.encoding import EncodedTable, code_dtype
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

        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an empty column: NaN, then scale 1 below
            column_values = [table.numeric[:, j] for j in range(table.numeric.shape[1])]  # one copy at a time
            self.means_ = np.array([np.nanmean(values) for values in column_values])
            stds = np.array([np.nanstd(values) for values in column_values])
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

    def _scaled_columns(self, numeric: np.ndarray) -> np.ndarray:
        """The standardised, weighted numeric values (missing at 0), a column per row, built one column at a time."""
        scaled = np.empty((numeric.shape[1], numeric.shape[0]))
        for j, row in enumerate(scaled):
            np.subtract(numeric[:, j], self.means_[j], out=row)
            row *= self.numeric_scale_[j]
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
        axes = self.components_[axes if isinstance(axes, slice) else slice(axes)]
        n_numeric = len(self.means_)
        lookups = self._modality_coordinates(axes)
        coordinates = np.empty((table.n_rows, len(axes)))
        for start in range(0, table.n_rows, _ROW_CHUNK):  # by blocks: no temporary of the whole table
            chunk = slice(start, start + _ROW_CHUNK)
            block = coordinates[chunk]
            np.matmul(self._scaled_columns(table.numeric[chunk]).T, axes[:, :n_numeric].T, out=block)
            for position, lookup in enumerate(lookups):
                block += lookup[table.codes[chunk, position]]
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
        numeric = coordinates @ axes[:, :n_numeric]
        with np.errstate(divide="ignore", invalid="ignore"):
            numeric /= self.numeric_scale_
        numeric += self.means_
        codes = np.empty((n_rows, len(self.proportions_)), dtype=code_dtype(self.proportions_))
        for position, (p, scale) in enumerate(zip(self.proportions_, self.modality_scale_)):
            block = axes[:, n_numeric + self._offsets[position]: n_numeric + self._offsets[position + 1]]
            observed = scale > 0  # a modality unseen at fit time is never drawn
            block = np.divide(block, scale, out=np.zeros_like(block), where=observed).T.astype(np.float32)
            base = np.where(observed, p, 0.0).astype(np.float32)[:, None]
            uniforms = rng.random(n_rows)
            for start in range(0, n_rows, _ROW_CHUNK):
                chunk = slice(start, start + _ROW_CHUNK)
                weights = block @ coordinates[chunk].astype(np.float32).T  # (modalities, rows): float32 for a draw
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
    """One draw per column of non-negative, unnormalised ``weights`` (modalities, rows), by inverse CDF of ``uniforms``.

    A row whose weights are all 0 draws from ``fallback``. ``weights`` is overwritten by its running
    sum down the modalities, one whole row of the array at a time (several times faster than a
    cumulative sum along each short row).
    """
    for modality in range(1, len(weights)):
        np.add(weights[modality - 1], weights[modality], out=weights[modality])
    empty = weights[-1] <= 0
    if empty.any():
        weights[:, empty] = np.cumsum(fallback)[:, None]
    targets = uniforms * weights[-1]
    drawn = (weights <= targets).sum(axis=0)
    return np.minimum(drawn, len(weights) - 1).astype(np.int32)


def _both_observed(first: np.ndarray | None, second: np.ndarray | None) -> np.ndarray | slice:
    """Rows observed in both variables (``None``: every row is)."""
    if first is None and second is None:
        return slice(None)
    if first is None or second is None:
        return second if first is None else first
    return first & second
