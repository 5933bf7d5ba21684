"""The Avatar method: a random local combination of each individual's nearest neighbours.

SPEC section 3. For each individual ``i``: its ``k`` nearest neighbours in the first
``ncp`` latent coordinates, excluding ``i`` itself; weights
``P_j = (1 / d_ij) * E_j * 2^(-pi_j)`` with ``E_j ~ Exp(1)`` and ``pi`` a uniform random
permutation of ``0..k-1``, normalised to sum to 1; the avatar is the weighted
combination of the neighbours. Because coding, projection and inverse projection
are linear, the combination is computed in closed form on the neighbours' values:
numeric value ``sum_j w_j x_j``; categorical value drawn from the neighbours' weighted
modality frequencies, which is the same as taking the value of one neighbour drawn
with probabilities ``w`` (an independent draw per variable).

The weighted mean shrinks a number's spread. Over the order of the neighbours, its deviation from their plain mean
``c`` has covariance ``(k sum(w^2) - 1) / (k - 1)`` times the neighbours' ``S = sum_j (x_j - c)(x_j - c)' / k``. With
``restore_spread`` (``spread = "restored"``, not the commercial engine's), the deviation of one neighbour ``r``
drawn uniformly is added, scaled by ``t = sqrt((k + 1 - k sum(w^2)) / (k - 1))``: ``x_r - c`` has covariance ``S``
and none with the weighted deviation, so the avatar's deviation has the neighbourhood's covariance ``k S / (k - 1)``
(its unbiased estimate). That holds for weights independent of which neighbour holds which value; the engine's
weigh the nearer more (``1 / d``), so it is approximate, and a factor per column (:func:`restored_spread`) gives
each column the originals' variance. Each value is then kept within the column's range, reflected at its bounds
(docs/decisions.md, 3.1).
"""

from __future__ import annotations

import numpy as np

from core.engine.encoding import EncodedTable
from core.engine.neighbours import NeighbourTree

SYNTHESIS_ROWS = 2**14  # rows searched, weighted and combined at a time: memory stays that of a chunk


def neighbours_excluding_self(coordinates: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices (n, k) of each row's ``k`` nearest other rows, nearest first: one exact tree query
    per row, on every core, repeated points counted once (:class:`~core.engine.neighbours.NeighbourTree`)."""
    return NeighbourTree(coordinates).query_excluding_self(np.arange(len(coordinates)), k)


def avatarize_rows(
    table: EncodedTable,
    coordinates: np.ndarray,
    k: int,
    rng: np.random.Generator,
    neighbours: tuple[np.ndarray, np.ndarray] | None = None,
    restore_spread: bool = False,
    numbers: int | None = None,
) -> EncodedTable:
    """Every row's avatar, by chunks of ``SYNTHESIS_ROWS`` rows: neighbours, weights, combination.

    ``neighbours`` are (distances, indices) already found for every row (a sweep's
    search at its largest ``k``, cut to this ``k``); without them each chunk is searched
    in a tree over ``coordinates``. Either way the random draws come in the same order.
    ``restore_spread``: the local dispersion put back (module docstring) into the first ``numbers`` numeric
    columns (None: all), the table's own numbers; after them come a categorical reduction's embeddings, whose
    categories stay one neighbour's draw, as every category's.
    """
    tree = None if neighbours is not None else NeighbourTree(coordinates)
    own = table.numeric.shape[1] if numbers is None else numbers
    deviations = np.empty((table.n_rows, own)) if restore_spread else None
    numeric = np.empty(table.numeric.shape)
    codes = np.empty(table.codes.shape, dtype=table.codes.dtype)
    for start in range(0, table.n_rows, SYNTHESIS_ROWS):
        rows = np.arange(start, min(start + SYNTHESIS_ROWS, table.n_rows))
        if tree is not None:
            distances, indices = tree.query_excluding_self(rows, k)
        else:
            assert neighbours is not None  # no tree: they were given
            distances, indices = neighbours[0][rows], neighbours[1][rows]
        weights = neighbour_weights(distances, rng)
        numeric[rows], codes[rows] = combine_neighbours(table, indices, weights, rng)
        if deviations is not None:
            deviations[rows] = local_deviations(table.numeric[:, :own], indices, weights, rng)
    if deviations is not None and table.n_rows:
        numeric[:, :own] = restored_spread(table.numeric[:, :own], numeric[:, :own], deviations)
    return table.with_arrays(numeric, codes)


def neighbour_weights(distances: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Normalised weights ``w_j = P_j / sum(P)`` with ``P_j = (1 / d_ij) * E_j * 2^(-pi_j)``.

    A zero distance (a duplicate row) is replaced by the smallest positive distance
    of its row, so that it does not take all the weight; a row whose neighbours are
    all duplicates gets every distance set to 1.
    """
    n_rows, k = distances.shape
    zero = distances <= 0
    if zero.any():
        floor = np.where(zero, np.inf, distances).min(axis=1, keepdims=True)
        floor[~np.isfinite(floor)] = 1.0
        distances = np.where(zero, floor, distances)
    weights = rng.exponential(1.0, size=(n_rows, k))
    ranks = rng.permuted(np.broadcast_to(np.arange(k, dtype=np.int32), (n_rows, k)), axis=1)  # a permutation per row
    np.ldexp(weights, -ranks, out=weights)  # E_j * 2^(-pi_j), exactly, in place
    weights /= distances
    weights /= weights.sum(axis=1, keepdims=True)
    return weights


def combine_neighbours(
    table: EncodedTable, indices: np.ndarray, weights: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The avatars in closed form: weighted sums of numeric values, weighted draws of categories.

    Returns the numeric values and the codes of one avatar per row of ``indices``.
    """
    numeric = np.empty((len(indices), table.numeric.shape[1]))
    for j in range(table.numeric.shape[1]):
        numeric[:, j] = np.einsum("ij,ij->i", table.numeric[:, j][indices], weights)
    cumulative = np.cumsum(weights, axis=1)
    last = indices.shape[1] - 1
    rows = np.arange(len(indices))
    codes = np.empty((len(indices), table.codes.shape[1]), dtype=table.codes.dtype)
    for j in range(table.codes.shape[1]):
        targets = rng.random(len(indices)) * cumulative[:, -1]
        chosen = np.minimum((cumulative <= targets[:, None]).sum(axis=1), last)
        codes[:, j] = table.codes[indices[rows, chosen], j]
    return numeric, codes


def local_deviations(values: np.ndarray, indices: np.ndarray, weights: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
    """Each row's ``t (x_r - c)``: ``r`` one of its neighbours drawn uniformly, ``c`` their plain mean, ``t =
    sqrt((k + 1 - k sum(w^2)) / (k - 1))`` (module docstring)."""
    n_rows, k = indices.shape
    scale = np.sqrt((k + 1 - k * np.einsum("ij,ij->i", weights, weights)) / (k - 1))
    drawn = indices[np.arange(n_rows), rng.integers(k, size=n_rows)]
    deviations = np.empty((n_rows, values.shape[1]))
    for j in range(values.shape[1]):
        deviations[:, j] = scale * (values[drawn, j] - values[:, j][indices].mean(axis=1))
    return deviations


def restored_spread(values: np.ndarray, combined: np.ndarray, deviations: np.ndarray) -> np.ndarray:
    """The weighted means ``combined`` plus each column's ``deviations`` times ``m_j = sqrt((var(x_j) -
    var(combined_j)) / var(deviations_j))`` (0 where the means already have the originals' variance), so that each
    column's variance is the originals' ``values``', then kept within the column's range: reflected at its bounds (a
    value cut at the lowest would be the lowest person's own, in as many avatars as overshoot it)."""
    size = np.abs(values).max(axis=0, initial=0.0)  # variances of values near 1e200 overflow: each column
    size[size == 0] = 1.0  # compared in units of its largest value, which leave the factor as it is
    gap = np.clip((values / size).var(axis=0) - (combined / size).var(axis=0), 0.0, None)
    spread = (deviations / size).var(axis=0)
    factor = np.sqrt(np.divide(gap, spread, out=np.zeros_like(gap), where=spread > 0))
    low, high = values.min(axis=0), values.max(axis=0)
    restored = combined + factor * deviations
    restored = np.where(restored < low, 2 * low - restored, restored)  # reflected, not cut: a value cut at the
    restored = np.where(restored > high, 2 * high - restored, restored)  # bound is the one person's who holds it
    return np.clip(restored, low, high)
